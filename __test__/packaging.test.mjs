// What ships: the platform packages committed under npm/ agree with
// napi.targets and with the main package's optionalDependencies, and the
// main tarball holds the loader, the types, occ and the plugin, nothing
// else.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { root, tempDir } from './support/helpers.mjs';
import plugin from '../plugin/index.mjs';

const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** napi-rs's platform name for a Rust target triple, with npm's os/cpu/libc. */
function platformOf(triple) {
  const [arch, , sys, abi] = triple.split('-');
  const cpu = { x86_64: 'x64', aarch64: 'arm64' }[arch];
  if (sys === 'darwin') return { name: `darwin-${cpu}`, os: 'darwin', cpu };
  if (sys === 'windows') return { name: `win32-${cpu}-${abi}`, os: 'win32', cpu };
  return { name: `linux-${cpu}-${abi}`, os: 'linux', cpu, libc: abi === 'gnu' ? 'glibc' : 'musl' };
}

test('one committed npm/<platform> package per napi target, each holding only its binary', () => {
  const dirs = fs.readdirSync(path.join(root, 'npm')).sort();
  const platforms = pkg.napi.targets.map(platformOf);
  assert.deepEqual(dirs, platforms.map((p) => p.name).sort());
  for (const p of platforms) {
    const sub = JSON.parse(fs.readFileSync(path.join(root, 'npm', p.name, 'package.json'), 'utf8'));
    const binary = `${pkg.napi.binaryName}.${p.name}.node`;
    assert.equal(sub.name, `${pkg.name}-${p.name}`);
    assert.equal(sub.version, pkg.version, `${p.name} is versioned with the package`);
    assert.deepEqual(sub.os, [p.os]);
    assert.deepEqual(sub.cpu, [p.cpu]);
    assert.deepEqual(sub.libc, p.libc ? [p.libc] : undefined, `${p.name}: libc only on Linux`);
    assert.equal(sub.main, binary);
    assert.deepEqual(sub.files, [binary]);
    assert.equal(sub.scripts, undefined, 'no install scripts');
    assert.equal(sub.license, pkg.license);
  }
  const expected = Object.fromEntries(platforms.map((p) => [`${pkg.name}-${p.name}`, pkg.version]));
  assert.deepEqual({ ...pkg.optionalDependencies }, expected, 'optionalDependencies: every platform at exactly this version');
  assert.equal(pkg.scripts.install ?? pkg.scripts.postinstall ?? pkg.scripts.preinstall, undefined, 'nothing runs at install time');
});

test('the entry point lists the same platforms as napi.targets', () => {
  const entry = fs.readFileSync(path.join(root, 'entry.js'), 'utf8');
  const listed = [...entry.match(/const SUPPORTED = \[([^\]]*)\]/)[1].matchAll(/'([^']+)'/g)].map((m) => m[1]);
  assert.deepEqual(listed, pkg.napi.targets.map((t) => platformOf(t).name));
});

test('npm pack ships the loader, the types, occ, the OpenClaw plugin and the docs, nothing else', () => {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', shell: process.platform === 'win32' });
  assert.equal(r.status, 0, r.stderr);
  const files = JSON.parse(r.stdout)[0].files.map((f) => f.path).sort();
  // The plugin's every module, as the tree has them.
  const plugin = fs.readdirSync(path.join(root, 'plugin'), { recursive: true }).map((f) => path.posix.join('plugin', f.split(path.sep).join('/')))
    .filter((f) => fs.statSync(path.join(root, f)).isFile());
  assert.ok(plugin.includes('plugin/index.mjs') && plugin.includes('plugin/spawns/tracker.mjs'), plugin.join(' '));
  assert.deepEqual(files, ['LICENSE', 'README.md', 'bin/occ-config.mjs', 'bin/occ-slim.mjs', 'bin/occ.mjs', 'entry.js', 'index.d.ts', 'index.js', 'openclaw.plugin.json', 'package.json', ...plugin].sort());
});

test('npm version brings every platform package and optional dependency to the new version', () => {
  const copy = tempDir('osi-version-');
  fs.cpSync(path.join(root, 'npm'), path.join(copy, 'npm'), { recursive: true });
  fs.mkdirSync(path.join(copy, 'scripts'));
  fs.copyFileSync(path.join(root, 'scripts', 'sync-versions.mjs'), path.join(copy, 'scripts', 'sync-versions.mjs'));
  fs.writeFileSync(path.join(copy, 'package.json'), JSON.stringify({ ...pkg, version: '9.8.7' }));
  const r = spawnSync(process.execPath, [path.join(copy, 'scripts', 'sync-versions.mjs')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const bumped = JSON.parse(fs.readFileSync(path.join(copy, 'package.json'), 'utf8'));
  assert.deepEqual(new Set(Object.values(bumped.optionalDependencies)), new Set(['9.8.7']));
  for (const dir of fs.readdirSync(path.join(copy, 'npm'))) {
    assert.equal(JSON.parse(fs.readFileSync(path.join(copy, 'npm', dir, 'package.json'), 'utf8')).version, '9.8.7', dir);
  }
});

test('the plugin manifest declares every tool the plugin registers, under the package name', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'openclaw.plugin.json'), 'utf8'));
  assert.equal(manifest.id, pkg.name, 'OpenClaw refuses an npm install whose manifest id differs from the package name');
  assert.equal(manifest.version, pkg.version);
  // What the plugin registers, asked of the plugin itself.
  const registered = [];
  const ignore = () => {};
  plugin.register(/** @type {any} */ ({ registerTool: (_create, { name }) => registered.push(name), registerHook: ignore, on: ignore, registerCommand: ignore, registerCli: ignore, registerService: ignore }));
  assert.deepEqual([...manifest.contracts.tools].sort(), registered.sort());
  assert.equal(manifest.configSchema.additionalProperties, false);
  assert.deepEqual(pkg.openclaw.extensions, ['./plugin/index.mjs']);
  assert.deepEqual(pkg.openclaw.install.requiredPlatformPackages, Object.keys(pkg.optionalDependencies));
});
