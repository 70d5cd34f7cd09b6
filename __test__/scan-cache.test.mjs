// The persistent scan cache through the public API, across real processes:
// where it goes, how it is turned off, and two processes saving at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root, tempDir, uuid, userLine, assistantLine, jsonl, writeSession, posix, stress } from './support/helpers.mjs';

// A real folder: gatherProjectStatus refuses a path that does not exist.
const repo = tempDir('osi-cached-repo-');

function project() {
  const claudeConfigDir = tempDir();
  const registryRoot = tempDir();
  const ids = [uuid(), uuid()];
  const files = ids.map((id, n) => writeSession(claudeConfigDir, repo, id, jsonl([
    userLine(id, `task ${n}`, { cwd: repo }),
    assistantLine(id, `msg_${n}`, { input_tokens: 5 + n, output_tokens: 7 }, { cwd: repo }),
  ])));
  return { claudeConfigDir, registryRoot, files };
}

/** discoverSessions in a fresh node process, with `env` added. */
function discoverIn(env, options, script = '') {
  const code = `
    const { discoverSessions } = require(${JSON.stringify(path.join(root, 'entry.js'))});
    const [repo, options] = JSON.parse(process.argv[1]);
    (async () => { ${script || 'console.log(JSON.stringify(await discoverSessions(repo, options)));'} })()
      .catch((e) => { console.error(e); process.exit(1); });`;
  const cleanEnv = { ...process.env };
  delete cleanEnv.OPENCLAW_SESSION_INTEL_CACHE;
  delete cleanEnv.OPENCLAW_SESSION_INTEL_CACHE_DIR;
  const r = spawnSync(process.execPath, ['-e', code, JSON.stringify([repo, options])], { env: { ...cleanEnv, ...env }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim() ? JSON.parse(r.stdout) : undefined;
}

const cacheFiles = (dir) => (fs.existsSync(dir) ? fs.readdirSync(dir) : []);

test('the cache goes to OPENCLAW_SESSION_INTEL_CACHE_DIR, else XDG_CACHE_HOME, and is off on request', () => {
  const { claudeConfigDir, registryRoot } = project();
  const options = { claudeConfigDir, registryRoot };
  const explicit = tempDir();
  const xdg = tempDir();
  const truth = discoverIn({ OPENCLAW_SESSION_INTEL_CACHE: 'off', XDG_CACHE_HOME: xdg }, options);
  assert.deepEqual(cacheFiles(path.join(xdg, 'openclaw-session-intel')), [], 'OPENCLAW_SESSION_INTEL_CACHE=off writes nothing');
  assert.deepEqual(discoverIn({ XDG_CACHE_HOME: xdg }, { ...options, persistentCache: false }), truth);
  assert.deepEqual(cacheFiles(path.join(xdg, 'openclaw-session-intel')), [], 'persistentCache: false writes nothing');

  assert.deepEqual(discoverIn({ XDG_CACHE_HOME: xdg }, options), truth);
  const underXdg = cacheFiles(path.join(xdg, 'openclaw-session-intel'));
  assert.equal(underXdg.length, 1);
  assert.match(underXdg[0], /^scans-[0-9a-f]{16}\.bin$/);
  if (posix) assert.equal(fs.statSync(path.join(xdg, 'openclaw-session-intel', underXdg[0])).mode & 0o777, 0o600);

  assert.deepEqual(discoverIn({ XDG_CACHE_HOME: xdg, OPENCLAW_SESSION_INTEL_CACHE_DIR: explicit }, options), truth);
  assert.deepEqual(cacheFiles(explicit), underXdg, 'the override wins, with the same file name');
  // gatherProjectStatus takes the option too.
  const status = discoverIn({ OPENCLAW_SESSION_INTEL_CACHE_DIR: tempDir() }, options,
    `const { gatherProjectStatus } = require(${JSON.stringify(path.join(root, 'entry.js'))});
     const s = await gatherProjectStatus(repo, undefined, { ...options, persistentCache: false });
     console.log(JSON.stringify([...s.sessions.active, ...s.sessions.recent].map((x) => x.sessionId)));`);
  assert.deepEqual(status.sort(), truth.map((s) => s.sessionId).sort());
});

test('two processes saving at once leave one whole cache and no temporary files', async () => {
  const { claudeConfigDir, registryRoot, files } = project();
  const cacheDir = tempDir();
  const options = { claudeConfigDir, registryRoot };
  // Each process grows its own transcript by more than the save threshold
  // before every call, so that every call saves.
  const writer = (file) => `
    const fs = require('node:fs');
    for (let i = 0; i < ${stress(12, 4)}; i++) {
      fs.appendFileSync(${JSON.stringify(file)}, '\\n'.repeat(1100 * 1024));
      await discoverSessions(repo, options);
    }`;
  const run = (file) => new Promise((resolve, reject) => {
    const code = `
      const { discoverSessions } = require(${JSON.stringify(path.join(root, 'entry.js'))});
      const [repo, options] = JSON.parse(process.argv[1]);
      (async () => { ${writer(file)} })().catch((e) => { console.error(e); process.exit(1); });`;
    const child = spawn(process.execPath, ['-e', code, JSON.stringify([repo, options])], {
      env: { ...process.env, OPENCLAW_SESSION_INTEL_CACHE_DIR: cacheDir }, stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer exited ${code}`))));
  });
  await Promise.all(files.map(run));
  const left = cacheFiles(cacheDir);
  assert.equal(left.length, 1, `one cache file, no temporary files: ${left}`);
  const truth = discoverIn({ OPENCLAW_SESSION_INTEL_CACHE: 'off' }, options);
  assert.deepEqual(discoverIn({ OPENCLAW_SESSION_INTEL_CACHE_DIR: cacheDir }, options), truth, 'the surviving cache is whole and right');
  assert.equal(truth.length, 2);
  assert.ok(truth.every((s) => s.messageCount === 2));
});
