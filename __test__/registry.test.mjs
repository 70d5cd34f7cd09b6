// The registry half of the sessions.ts drop-in: reference semantics, locked
// atomic writes, no data lost under concurrent writers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { addon, root, tempDir, fixtureClaudeDir, posix, stress } from './support/helpers.mjs';

function withState(fn) {
  const state = tempDir('osi-state-');
  const saved = { ...process.env };
  process.env.OPENCLAW_STATE_DIR = state;
  process.env.CLAUDE_CONFIG_DIR = fixtureClaudeDir();
  try {
    return fn(state);
  } finally {
    for (const k of ['OPENCLAW_STATE_DIR', 'CLAUDE_CONFIG_DIR']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
}

const registryFile = (state, agent) => path.join(state, 'agents', agent, 'claude-code-sessions.json');

test('saveSession / updateSessionStats / deleteSession / listSessions follow the reference', () => withState((state) => {
  const repo = '/path/to/Demo';
  const id = '1af7fc5e-8455-4414-9ccd-011d40f70b2a';
  assert.equal(addon.registryKey(repo), repo);
  assert.equal(addon.registryKey(repo, 'ui'), `${repo}::ui`);
  assert.equal(addon.resolveSession('main', repo), undefined);
  addon.saveSession('main', repo, id, { task: 'scaffold', costUsd: 0.42, channel: 'discord' });
  const raw = fs.readFileSync(registryFile(state, 'main'), 'utf8');
  assert.ok(!raw.endsWith('\n'), 'no trailing newline, as JSON.stringify(registry, null, 2)');
  const onDisk = JSON.parse(raw);
  assert.equal(raw, JSON.stringify(onDisk, null, 2));
  const e = onDisk.sessions[repo];
  assert.deepEqual(Object.keys(e), ['sessionId', 'createdAt', 'lastResumedAt', 'totalCostUsd', 'totalTurns', 'triggeredBy', 'taskHistory']);
  assert.deepEqual(e.triggeredBy, { channel: 'discord' });
  assert.equal(e.totalTurns, 0);
  if (posix) assert.equal(fs.statSync(registryFile(state, 'main')).mode & 0o777, 0o600);

  addon.saveSession('main', repo, id, { task: 'again', costUsd: 1 });
  addon.updateSessionStats('main', repo, { turns: 3, costUsd: 0.5 });
  addon.updateSessionStats('main', '/not/registered', { turns: 3 });
  const entry = addon.listSessions('main')[repo];
  assert.equal(entry.totalTurns, 3);
  assert.ok(Math.abs(entry.totalCostUsd - 1.92) < 1e-9);
  assert.deepEqual(entry.taskHistory.map((t) => t.task), ['scaffold', 'again']);
  assert.equal(addon.resolveSession('main', repo), id);

  addon.saveSession('main', repo, 'not-on-disk', { label: 'lane' });
  const rows = addon.listAllSessions();
  assert.deepEqual(rows.map((r) => [r.agentId, r.repoPath, r.label]), [['main', repo, undefined], ['main', repo, 'lane']]);
  // A missing transcript resolves to undefined but does not delete the entry.
  assert.equal(addon.resolveSession('main', repo, 'lane'), undefined);
  assert.equal(addon.listSessions('main')[`${repo}::lane`].sessionId, 'not-on-disk');

  assert.equal(addon.deleteSession('main', repo, 'lane'), true);
  assert.equal(addon.deleteSession('main', repo, 'lane'), false);
  assert.deepEqual(Object.keys(addon.listSessions('main')), [repo]);
  assert.deepEqual(addon.listSessions('nobody'), {});
}));

test('unknown fields written by other tools survive every update', () => withState((state) => {
  const file = registryFile(state, 'ops');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ schema: 2, sessions: { '/r': { sessionId: 's', createdAt: 'a', lastResumedAt: 'b', totalCostUsd: 0, totalTurns: 0, taskHistory: [], pinned: true, notes: { k: 1 } } } }));
  addon.updateSessionStats('ops', '/r', { turns: 2 });
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(doc.schema, 2);
  assert.equal(doc.sessions['/r'].pinned, true);
  assert.deepEqual(doc.sessions['/r'].notes, { k: 1 });
  assert.equal(doc.sessions['/r'].totalTurns, 2);
}));

test('invalid agent ids are rejected with a coded error before touching a path', () => withState(() => {
  for (const bad of ['../evil', 'a/b', '', '.hidden']) {
    assert.throws(() => addon.saveSession(bad, '/r', 's'), (e) => e instanceof Error && e.code === 'E_INVALID_ARGUMENT' && typeof e.hint === 'string');
  }
  assert.equal(addon.ErrorCode.InvalidArgument, 'E_INVALID_ARGUMENT');
  assert.equal(addon.ErrorCode.SessionBusy, 'E_SESSION_BUSY');
}));

const UPDATES = stress(200, 50);

test(`8 processes x ${UPDATES} updates lose nothing and the file is valid JSON at every instant`, async () => {
  const state = tempDir('osi-state-');
  const env = { ...process.env, OPENCLAW_STATE_DIR: state };
  const repo = '/srv/shared';
  await new Promise((resolve, reject) => {
    const seed = spawn(process.execPath, ['-e', `require(${JSON.stringify(path.join(root, 'index.js'))}).saveSession('main', '${repo}', 'shared-session')`], { env, stdio: 'inherit' });
    seed.on('exit', (c) => (c === 0 ? resolve() : reject(new Error(`seed exited ${c}`))));
  });
  const reader = spawn(process.execPath, [path.join(root, '__test__', 'support', 'registry-reader.mjs'), registryFile(state, 'main')], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  let readerOut = '';
  reader.stdout.on('data', (d) => (readerOut += d));
  const writers = Array.from({ length: 8 }, () => new Promise((resolve, reject) => {
    const w = spawn(process.execPath, [path.join(root, '__test__', 'support', 'registry-writer.mjs'), 'main', repo, String(UPDATES)], { env, stdio: 'inherit' });
    w.on('exit', (c) => (c === 0 ? resolve() : reject(new Error(`writer exited ${c}`))));
  }));
  const done = new Promise((r) => reader.on('exit', r));
  try {
    await Promise.all(writers);
  } finally {
    // Stopped also when a writer failed, so that a failure ends the file.
    reader.stdin.write('stop\n');
    await done;
  }
  const { reads, bad } = JSON.parse(readerOut);
  const entry = JSON.parse(fs.readFileSync(registryFile(state, 'main'), 'utf8')).sessions[repo];
  // Each writer saves a task every 50 updates (registry-writer.mjs).
  assert.equal(entry.totalTurns, 8 * UPDATES);
  assert.ok(Math.abs(entry.totalCostUsd - 8 * UPDATES * 0.5) < 1e-6);
  assert.equal(entry.taskHistory.length, 8 * Math.ceil(UPDATES / 50));
  assert.equal(bad, 0, 'the reader never saw a half-written file');
  assert.ok(reads > 0);
  const leftovers = fs.readdirSync(path.dirname(registryFile(state, 'main'))).filter((n) => n !== 'claude-code-sessions.json');
  assert.deepEqual(leftovers, [], 'no lock or temp files left behind');
});
