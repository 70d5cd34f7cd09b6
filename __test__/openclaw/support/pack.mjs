// The package as users get it, for the suites that install the plugin into
// a real OpenClaw: packed with `npm pack`, its platform package (the
// host's, built by the test run) published to a throwaway registry, from
// which `openclaw plugins install npm-pack:` fetches it.

import fs from 'node:fs';
import path from 'node:path';
import { root, tempDir } from '../../support/helpers.mjs';
import { run, startRegistry } from '../../install/support/registry.mjs';

export const PLUGIN_ID = 'openclaw-session-intel';
export const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
export const platformName = 'linux-x64-gnu';

/**
 * Packs the package and starts the registry holding its platform package.
 * `url` and `npmrc`: the registry (`npm_config_registry=url` for OpenClaw's
 * installs); `npm(args, opts)`: npm against it; `tgz`: the packed package;
 * `packed`: what `npm pack --json` printed of it; `packDir`: where it lies.
 */
export async function packedPlugin() {
  const { url, npmrc } = await startRegistry();
  const npm = (args, opts = {}) => run('npm', [...args, '--userconfig', npmrc, '--no-audit', '--no-fund', '--loglevel=error'], opts);
  const platformDir = path.join(tempDir('osi-plug-platform-'), platformName);
  fs.cpSync(path.join(root, 'npm', platformName), platformDir, { recursive: true });
  fs.copyFileSync(path.join(root, `${pkg.napi.binaryName}.${platformName}.node`), path.join(platformDir, `${pkg.napi.binaryName}.${platformName}.node`));
  npm(['publish', '--ignore-scripts', '--registry', url], { cwd: platformDir });
  const packDir = tempDir('osi-plug-pack-');
  const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], { cwd: root }).stdout)[0];
  return { url, npmrc, npm, packDir, packed, tgz: path.join(packDir, packed.filename) };
}
