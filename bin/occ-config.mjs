// occ's config file: where it is looked for, and what it may hold. Kept
// apart from the CLI so that `fuzz/occ-config.mjs` can attack it directly.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A mistake of the caller's: exit 2, with a hint. */
export class UsageError extends Error {
  constructor(message, hint) {
    super(message);
    this.code = 'E_INVALID_ARGUMENT';
    this.hint = hint ?? "run 'occ --help' for usage";
  }
}

/** No config file is this large; a larger one is refused before it is read. */
const MAX_CONFIG_BYTES = 1 << 20;
/** The largest count the addon takes (a u32). */
const MAX_COUNT = 2 ** 32 - 1;

/** The config files looked for from `cwd`, first found wins. */
function configCandidates(cwd) {
  const home = os.homedir();
  const configHome = process.env.XDG_CONFIG_HOME || path.join(home, '.config');
  return [path.join(cwd, 'occ.config.json'), path.join(cwd, '.occrc'), path.join(configHome, 'occ', 'config.json'), path.join(home, '.occrc')];
}

const isWhole = (v, max) => Number.isInteger(v) && v >= 0 && v <= max;

/**
 * The first config file found from `cwd`, parsed and checked: `{}` when there
 * is none; a `UsageError` naming the file when it cannot be read, is not JSON
 * (a leading byte-order mark is allowed), or holds anything but
 * `{agent?, stateDir?, preset?: string, presets?: {name: {keepTurnsWithTools,
 * truncatePercent}}}` with whole-number counts the addon takes.
 */
export function loadConfig(cwd) {
  const file = configCandidates(cwd).find((f) => fs.existsSync(f));
  if (!file) return {};
  const fail = (what) => new UsageError(`config file ${file}${what}`, 'fix or remove the file');
  let text;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) throw fail(' is not a regular file');
    if (stat.size > MAX_CONFIG_BYTES) throw fail(` is larger than ${MAX_CONFIG_BYTES} bytes`);
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw e instanceof UsageError ? e : fail(` cannot be read: ${e.message}`);
  }
  let config;
  try {
    config = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw fail(` is not valid JSON: ${e.message}`);
  }
  if (!config || typeof config !== 'object' || Array.isArray(config)) throw fail(' must hold a JSON object');
  for (const key of ['agent', 'stateDir', 'preset']) {
    if (config[key] !== undefined && typeof config[key] !== 'string') throw fail(`: "${key}" must be a string`);
  }
  if (config.presets !== undefined) {
    if (typeof config.presets !== 'object' || config.presets === null || Array.isArray(config.presets)) throw fail(': "presets" must be an object');
    for (const [name, p] of Object.entries(config.presets)) {
      if (!isWhole(p?.keepTurnsWithTools, MAX_COUNT) || !isWhole(p?.truncatePercent, 100)) {
        throw fail(`: preset "${name}" needs keepTurnsWithTools, a whole number from 0, and truncatePercent, a whole number from 0 to 100`);
      }
    }
  }
  return config;
}
