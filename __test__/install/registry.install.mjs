// Installing the package as a user would, from a real npm registry: a
// throwaway verdaccio on 127.0.0.1 (on Node 24; no uplinks) gets this
// machine's platform package, with the release binary, and the main
// package, both packed from the repository; an empty project then installs
// openclaw-session-intel from it and uses it on Node 20 and Node 24, with
// and without install scripts, and without its optional packages.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { root, tempDir } from '../support/helpers.mjs';
import { run, startRegistry } from './support/registry.mjs';
import { node24 } from '../openclaw/support/env.mjs';

const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const platformName = 'linux-x64-gnu'; // the platform package of the host the test runs on
// The release build: `npm run build` puts it in the checkout; CI builds it
// into a folder of its own beside the debug build and names it here.
const binary = path.join(process.env.OSI_RELEASE_ADDON_DIR || root, `${pkg.napi.binaryName}.${platformName}.node`);

test('npm install openclaw-session-intel from a registry works on Node 20 and 24; missing binaries get a clear error', { timeout: 900_000 }, async () => {
  assert.ok(fs.existsSync(binary), `the release binary ${binary} (npm run build)`);
  const { url, npmrc } = await startRegistry();
  const npm = (args, opts = {}) => run('npm', [...args, '--userconfig', npmrc, '--no-audit', '--no-fund', '--loglevel=error'], opts);

  // The main package's tarball: what a user gets, nothing else.
  const packDir = tempDir('osi-pack-');
  const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], { cwd: root }).stdout)[0];
  const files = packed.files.map((f) => f.path).sort();
  for (const f of ['entry.js', 'index.js', 'index.d.ts', 'bin/occ.mjs', 'package.json', 'README.md']) assert.ok(files.includes(f), `${f} is shipped`);
  for (const f of files) assert.ok(!/^(src|crates|fixtures|__test__|bench|scripts|target|npm|node_modules)\/|\.node$|Cargo/.test(f), `${f} is not shipped`);
  console.log(`# tarball ${packed.filename}: ${(packed.size / 1024).toFixed(0)} KB packed, ${(packed.unpackedSize / 1024).toFixed(0)} KB unpacked, ${files.length} files; `
    + `binary ${path.basename(binary)}: ${(fs.statSync(binary).size / 2 ** 20).toFixed(1)} MB`);

  // The binary needs nothing on the user's machine beyond the C runtime.
  const needed = run('ldd', [binary]).stdout.split('\n').map((l) => l.trim().split(' ')[0]).filter(Boolean);
  for (const lib of needed) assert.match(lib, /^(linux-vdso|libgcc_s|libm|libc|libdl|libpthread|librt)\.so|ld-linux/, `the binary links ${lib} dynamically`);

  // Published by the release script the workflow runs. Binaries of other
  // platforms cannot be built here: the host's stands in for them, so
  // that every package goes through the script; only ours is installed.
  const artifacts = tempDir('osi-artifacts-');
  const release = () => run(process.execPath, [path.join(root, 'scripts', 'release.mjs'), '--artifacts', artifacts, '--registry', url, '--no-provenance'],
    { env: { ...process.env, npm_config_userconfig: npmrc, GITHUB_REF_TYPE: 'tag', GITHUB_REF_NAME: `v${pkg.version}` }, allowFailure: true });
  const names = Object.keys(pkg.optionalDependencies).map((n) => `${pkg.napi.binaryName}.${n.slice(pkg.name.length + 1)}.node`);
  for (const n of names.slice(1)) {
    fs.mkdirSync(path.join(artifacts, `bindings-${n}`));
    fs.copyFileSync(binary, path.join(artifacts, `bindings-${n}`, n));
  }
  const npmDirBefore = fs.readdirSync(path.join(root, 'npm'), { recursive: true }).sort();
  const incomplete = release();
  assert.equal(incomplete.status, 1, 'a missing binary stops the release');
  assert.match(incomplete.stderr, new RegExp(`no ${names[0].replaceAll('.', '\\.')} under`));
  assert.notEqual(npm(['view', pkg.name, 'version', '--registry', url], { allowFailure: true }).status, 0, 'nothing was published');
  fs.copyFileSync(binary, path.join(artifacts, names[0]));
  const done = release();
  assert.equal(done.status, 0, done.stderr);
  assert.match(done.stdout, new RegExp(`published ${pkg.name}@${pkg.version}$`, 'm'));
  assert.equal(release().status, 0, 'a re-run skips what is already published');
  assert.deepEqual(fs.readdirSync(path.join(root, 'npm'), { recursive: true }).sort(), npmDirBefore, 'the release leaves the checkout as it was');

  const cases = [
    ['default', []],
    ['--ignore-scripts (how OpenClaw installs plugins)', ['--ignore-scripts']],
  ];
  for (const [name, flags] of cases) {
    const project = tempDir('osi-user-');
    fs.writeFileSync(path.join(project, 'package.json'), '{"name":"user-project","private":true}\n');
    npm(['install', 'openclaw-session-intel', '--registry', url, ...flags], { cwd: project });
    assert.ok(fs.existsSync(path.join(project, 'node_modules', `openclaw-session-intel-${platformName}`, path.basename(binary))), `${name}: the platform package came with it`);
    for (const node of [process.execPath, node24()]) {
      const cjs = run(node, ['-e', "const a = require('openclaw-session-intel'); console.log(a.repoPathToSlug('/w/x'), a.__napiBindingTarget ?? 'native')"], { cwd: project });
      assert.match(cjs.stdout, /^-w-x/, `${name}: require on ${node}`);
      const esm = run(node, ['--input-type=module', '-e', "import { repoPathToSlug, ErrorCode } from 'openclaw-session-intel'; console.log(repoPathToSlug('/w/x'), typeof ErrorCode)"], { cwd: project });
      assert.equal(esm.stdout.trim(), '-w-x object', `${name}: import on ${node}`);
    }
    const help = run('npx', ['--no-install', 'occ', '--help'], { cwd: project });
    assert.match(help.stdout, /^usage: occ <command>/m);
    const list = run('npx', ['--no-install', 'occ', 'list', '--state-dir', tempDir('osi-user-state-')], { cwd: project, allowFailure: true });
    assert.equal(list.status, 3, `${name}: occ runs the addon (${list.stderr})`);
    // The drop-in TypeScript consumer compiles against the installed types.
    const dropIn = fs.readFileSync(path.join(root, '__test__', 'drop-in.ts'), 'utf8').replaceAll("'../index.js'", "'openclaw-session-intel'");
    fs.writeFileSync(path.join(project, 'drop-in.ts'), dropIn);
    fs.writeFileSync(path.join(project, 'tsconfig.json'), fs.readFileSync(path.join(root, '__test__', 'tsconfig.json')));
    run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', project]);
  }

  // Without optional packages the binary is missing: the error says so and how to fix it.
  const bare = tempDir('osi-user-bare-');
  fs.writeFileSync(path.join(bare, 'package.json'), '{"name":"user-project","private":true}\n');
  npm(['install', 'openclaw-session-intel', '--registry', url, '--omit=optional'], { cwd: bare });
  assert.ok(!fs.existsSync(path.join(bare, 'node_modules', `openclaw-session-intel-${platformName}`)));
  const missing = run(process.execPath, ['-e', "try { require('openclaw-session-intel') } catch (e) { console.log(JSON.stringify({ code: e.code, platform: e.platform, message: e.message })) }"], { cwd: bare });
  const m = JSON.parse(missing.stdout);
  assert.equal(m.code, 'E_BINARY_UNAVAILABLE');
  assert.equal(m.platform, platformName);
  assert.match(m.message, new RegExp(`npm install openclaw-session-intel-${platformName}@${pkg.version}`));
  assert.match(m.message, /--omit=optional/);
  const occ = run('npx', ['--no-install', 'occ', 'list'], { cwd: bare, allowFailure: true });
  assert.equal(occ.status, 1);
  assert.match(occ.stderr, /could not load its binary for linux-x64-gnu/);
  // A platform with no binary at all (here: the host claiming to be riscv64).
  const preload = path.join(bare, 'riscv.cjs');
  fs.writeFileSync(preload, "Object.defineProperty(process, 'arch', { value: 'riscv64' })\n");
  const foreign = run(process.execPath, ['-r', preload, '-e', "try { require('openclaw-session-intel') } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }"], { cwd: bare });
  const f = JSON.parse(foreign.stdout);
  assert.equal(f.code, 'E_BINARY_UNAVAILABLE');
  assert.match(f.message, /no prebuilt binary for linux-riscv64-gnu/);
  assert.match(f.message, /Supported platforms: darwin-arm64, darwin-x64, linux-x64-gnu/);
});
