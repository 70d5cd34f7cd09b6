#!/usr/bin/env node
// Fuzzes occ's config parser (bin/occ-config.mjs), which `cargo fuzz` cannot
// reach: seeded random configs (structured, from the field names and the
// edge values of each field) and byte-level mutations of the seeds in
// fuzz/corpus/occ_config/ and of inputs that were accepted, each written as
// occ.config.json and loaded.
//
//   node fuzz/occ-config.mjs [seconds] [seed]
//
// Checked on every input: the parser returns or throws a UsageError naming
// the file, nothing else; what it returns holds only strings for agent,
// stateDir and preset and presets whose counts the addon takes unwrapped
// (whole numbers, truncatePercent at most 100); and it accepts exactly the
// JSON objects that meet that contract, returning them as parsed. A failing
// input is saved to fuzz/artifacts/occ_config/ and the run exits 1.

import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError, loadConfig } from '../bin/occ-config.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.argv[2] ?? 20);
let state = BigInt(process.argv[3] ?? process.env.FUZZ_SEED ?? 1) || 1n;

/** xorshift64*: the same inputs for the same seed. */
function random() {
  state ^= state >> 12n;
  state ^= (state << 25n) & 0xffffffffffffffffn;
  state ^= state >> 27n;
  return Number(((state * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn) >> 11n) / 2 ** 53;
}
const below = (n) => Math.floor(random() * n);
const pick = (items) => items[below(items.length)];

const NUMBERS = ['0', '1', '-1', '20', '100', '101', '2.5', '1e300', '-0', '4294967295', '4294967296', '1e2', '0.0', '9007199254740993'];
const KEYS = ['agent', 'stateDir', 'preset', 'presets', 'keepTurnsWithTools', 'truncatePercent', '__proto__', 'constructor', 'toString', ''];

/** A random JSON text shaped like a config. */
function value(depth) {
  switch (below(depth > 3 ? 4 : 7)) {
    case 0: return pick(NUMBERS);
    case 1: return JSON.stringify(pick(['main', '', 'default', '../x', '\u0000', '\ud800', 'é']));
    case 2: return pick(['true', 'false', 'null']);
    case 3: return pick(NUMBERS);
    case 4: return `[${Array.from({ length: below(3) }, () => value(depth + 1)).join(',')}]`;
    case 5: return preset();
    default: return object(depth + 1);
  }
}
function preset() {
  const parts = [];
  if (random() < 0.9) parts.push(`"keepTurnsWithTools":${random() < 0.7 ? pick(NUMBERS) : value(4)}`);
  if (random() < 0.9) parts.push(`"truncatePercent":${random() < 0.7 ? pick(NUMBERS) : value(4)}`);
  return `{${parts.join(',')}}`;
}
function object(depth) {
  const members = Array.from({ length: below(5) }, () => {
    const key = pick(KEYS);
    if (key === 'presets' && random() < 0.7) {
      return `"presets":{${Array.from({ length: below(3) }, () => `${JSON.stringify(pick(KEYS.concat(['gentle', 'x'])))}:${random() < 0.8 ? preset() : value(depth + 1)}`).join(',')}}`;
    }
    return `${JSON.stringify(key)}:${value(depth)}`;
  });
  return `{${members.join(',')}}`;
}

/** A byte-level mutation of `bytes`. */
function mutate(bytes) {
  const out = Buffer.from(bytes);
  const at = () => below(out.length + 1);
  switch (below(7)) {
    case 0: if (out.length) out[below(out.length)] ^= 1 << below(8); return out;
    case 1: { const i = at(); return Buffer.concat([out.subarray(0, i), Buffer.from([pick([0xff, 0xc0, 0x80, 0x00, 0x22, 0x5c, 0x7b, 0x7d, 0x2c, 0x3a])]), out.subarray(i)]); }
    case 2: { const i = at(); return Buffer.concat([out.subarray(0, i), out.subarray(i + 1 + below(8))]); }
    case 3: return out.subarray(0, at());
    case 4: return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), out]);
    case 5: { const i = at(); return Buffer.concat([out.subarray(0, i), Buffer.from(pick(NUMBERS)), out.subarray(i)]); }
    default: { const i = at(); const j = Math.min(out.length, i + below(16)); return Buffer.concat([out.subarray(0, j), out.subarray(i, j), out.subarray(j)]); }
  }
}

/** The contract, stated on its own: what the parser must accept. */
function acceptable(config) {
  if (!config || typeof config !== 'object' || Array.isArray(config)) return false;
  if (['agent', 'stateDir', 'preset'].some((k) => config[k] !== undefined && typeof config[k] !== 'string')) return false;
  if (config.presets === undefined) return true;
  if (!config.presets || typeof config.presets !== 'object' || Array.isArray(config.presets)) return false;
  return Object.values(config.presets).every((p) => {
    const keep = p?.keepTurnsWithTools;
    const pct = p?.truncatePercent;
    return Number.isSafeInteger(keep) && keep >= 0 && keep < 2 ** 32 && Number.isSafeInteger(pct) && pct >= 0 && pct <= 100;
  });
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'occ-config-fuzz-'));
process.env.HOME = dir;
process.env.XDG_CONFIG_HOME = path.join(dir, 'config');
const file = path.join(dir, 'occ.config.json');
const seedDir = path.join(here, 'corpus', 'occ_config');
const pool = fs.readdirSync(seedDir).sort().map((f) => fs.readFileSync(path.join(seedDir, f)));

function check(bytes) {
  fs.writeFileSync(file, bytes);
  let parsed;
  try {
    parsed = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    parsed = undefined;
  }
  let got;
  try {
    got = loadConfig(dir);
  } catch (e) {
    assert.ok(e instanceof UsageError, `not a UsageError: ${e?.stack ?? e}`);
    assert.ok(e.message.startsWith(`config file ${file}`), e.message);
    assert.equal(e.hint, 'fix or remove the file');
    assert.ok(parsed === undefined || !acceptable(parsed), `refused an acceptable config: ${e.message}`);
    return false;
  }
  assert.ok(parsed !== undefined && acceptable(parsed), 'accepted a config outside the contract');
  assert.deepEqual(got, parsed);
  return true;
}

const started = Date.now();
let runs = 0;
let accepted = 0;
try {
  for (const seed of pool.slice()) check(seed);
  while (Date.now() - started < seconds * 1000) {
    const input = random() < 0.5 ? Buffer.from(object(0)) : mutate(pick(pool));
    runs++;
    let ok;
    try {
      ok = check(input);
    } catch (e) {
      const out = path.join(here, 'artifacts', 'occ_config');
      fs.mkdirSync(out, { recursive: true });
      const name = path.join(out, `crash-${crypto.createHash('sha1').update(input).digest('hex')}`);
      fs.writeFileSync(name, input);
      console.error(`occ_config: failure after ${runs} runs, input saved to ${name}\n${e.stack}`);
      process.exitCode = 1;
      break;
    }
    if (ok) {
      accepted++;
      if (pool.length < 4096) pool.push(input);
    }
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
if (!process.exitCode) console.log(`Done ${runs} runs in ${Math.round((Date.now() - started) / 1000)} s, ${accepted} accepted`);
