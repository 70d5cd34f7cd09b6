// The public API and occ on OpenClaw's SQLite store (2026.8 and later), on
// copies of the real stores: result shapes as on JSONL, keys and prefixes,
// export, the coded refusals, and the handoff reading OpenClaw's event
// names. What OpenClaw makes of edited stores: __test__/openclaw/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { addon, root, fixtures, tempDir, posix, writeSqliteStore } from './support/helpers.mjs';

const SYNTH = '6513270e-269e-4d37-b2a7-4de452e6b438';
const F8 = 'f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1';
const MAIN = '76cc5ab5-0425-4038-b41f-0af9f313d594';

function store(schema = 23) {
  const state = path.join(tempDir('osi-sq-'), 'state');
  return { state, db: writeSqliteStore(state, schema) };
}
const source = (id) => (id === SYNTH
  ? zlib.gunzipSync(fs.readFileSync(path.join(fixtures, 'openclaw-sqlite', 'inputs', `${SYNTH}.jsonl.gz`))).toString()
  : fs.readFileSync(path.join(fixtures, 'openclaw', 'moltbot-2026-01-31', `${id}.jsonl`), 'utf8'));
const occ = (args, env = {}) => {
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'occ.mjs'), ...args], { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

test('listTranscripts, transcriptInfo and resolveTranscriptId on every schema', async () => {
  for (const schema of [19, 21, 23]) {
    const { state, db } = store(schema);
    const list = await addon.listTranscripts({ stateDir: state });
    assert.equal(list.length, 5);
    assert.equal(list[0].sessionId, SYNTH);
    const synth = list[0];
    assert.deepEqual([synth.store, synth.availability, synth.eventCount, synth.path, synth.sessionKeys, synth.windowKey],
      ['sqlite', 'available', 283, db, ['agent:main:synthetic-tools'], 'agent:main:synthetic-tools']);
    assert.equal(synth.sizeBytes, Buffer.byteLength(source(SYNTH)));
    assert.ok(synth.modified instanceof Date);
    assert.equal(list.find((t) => t.sessionId === MAIN).availability, 'empty');
    const info = await addon.transcriptInfo('synthetic-tools', { stateDir: state });
    assert.deepEqual([info.store, info.toolCallCount, info.toolResultCount, info.formatVersion], ['sqlite', 99, 99, 3]);
    assert.equal(await addon.resolveTranscriptId('agent:main:openresponses-user:9e983849', { stateDir: state }), F8);
    assert.equal(await addon.resolveTranscriptId('f8c', { stateDir: state }), F8);
    assert.equal(await addon.resolveTranscriptId(undefined, { stateDir: state }), SYNTH);
  }
});

test('executeEdit, restoreFromBackup and exportTranscript keep the JSONL shapes', async () => {
  const { state, db } = store(23);
  const dry = await addon.executeEdit({ stateDir: state, sessionId: '6513', dryRun: true, toolRemoval: { preset: 'aggressive' } });
  assert.deepEqual([dry.dryRun, dry.changed, dry.path, Object.hasOwn(dry, 'backupPath')], [true, true, db, false]);
  const r = await addon.executeEdit({ stateDir: state, sessionId: '6513', toolRemoval: { preset: 'aggressive' } });
  assert.equal(r.success, true);
  assert.equal(r.mode, 'edit');
  assert.deepEqual(r.statistics, dry.statistics);
  assert.ok(r.backupPath.includes(`${path.sep}session-intel-backups${path.sep}${SYNTH}.jsonl.bak.`));
  assert.equal(fs.readFileSync(r.backupPath, 'utf8'), source(SYNTH));
  const exported = await addon.exportTranscript(SYNTH, { stateDir: state });
  assert.equal(exported.bytes, r.statistics.sizeAfter);
  assert.ok(exported.jsonl.split('\n')[0].includes('"type":"session"'));
  const restored = await addon.restoreFromBackup(SYNTH, { stateDir: state });
  assert.equal(restored.restoredFrom, r.backupPath);
  assert.equal((await addon.exportTranscript(SYNTH, { stateDir: state })).jsonl, source(SYNTH));
  const out = path.join(tempDir('osi-sq-out-'), 'f8.jsonl');
  const written = await addon.exportTranscript('f8c3', { stateDir: state, outputPath: out });
  assert.deepEqual([written.path, written.eventCount, Object.hasOwn(written, 'jsonl')], [out, 33, false]);
  assert.equal(fs.readFileSync(out, 'utf8'), source(F8));
});

test('coded refusals: empty sessions, registered clones, unknown schemas, a busy session', async () => {
  const { state } = store(23);
  await assert.rejects(addon.executeEdit({ stateDir: state, sessionId: 'main', toolRemoval: { preset: 'extreme' } }),
    (e) => e.code === 'E_TRANSCRIPT_UNAVAILABLE' && /no events/.test(e.message) && typeof e.hint === 'string');
  await assert.rejects(addon.executeClone({ stateDir: state, sessionId: SYNTH }), (e) => e.code === 'E_UNSUPPORTED_STORE' && /--no-register/.test(e.hint));
  const copy = path.join(tempDir('osi-sq-clone-'), 'copy.jsonl');
  const c = await addon.executeClone({ stateDir: state, sessionId: SYNTH, outputPath: copy, noRegister: true, toolRemoval: { preset: 'extreme' } });
  assert.equal(c.clonedSessionPath, copy);
  assert.equal(Object.hasOwn(c, 'sessionKey'), false);
  // A session written a moment ago while a state owner runs (this test
  // process stands in for its pid): busy, and nothing changed; reading is fine.
  await addon.executeEdit({ stateDir: state, sessionId: SYNTH, toolRemoval: { preset: 'default' } });
  const lockDir = path.join(fs.realpathSync(state), 'tmp', posix ? `openclaw-${process.getuid()}` : 'openclaw');
  fs.mkdirSync(lockDir, { recursive: true });
  fs.writeFileSync(path.join(lockDir, 'gateway.state.lock'), JSON.stringify({ pid: process.pid, createdAt: new Date().toISOString() }, null, 2));
  const before = (await addon.exportTranscript(SYNTH, { stateDir: state })).jsonl;
  await assert.rejects(addon.executeEdit({ stateDir: state, sessionId: SYNTH, toolRemoval: { preset: 'extreme' } }),
    (e) => e.code === 'E_SESSION_BUSY' && /written less than 10 s ago/.test(e.message));
  assert.equal((await addon.exportTranscript(SYNTH, { stateDir: state })).jsonl, before);
  fs.rmSync(path.join(lockDir, 'gateway.state.lock'));
  await addon.executeEdit({ stateDir: state, sessionId: SYNTH, toolRemoval: { preset: 'extreme' } });
  // A schema this addon has not been tested with.
  const bad = store(23);
  const buf = fs.readFileSync(bad.db);
  buf.writeUInt32BE(24, 60); // PRAGMA user_version lives at offset 60 of the header
  fs.writeFileSync(bad.db, buf);
  await assert.rejects(addon.listTranscripts({ stateDir: bad.state }), (e) => e.code === 'E_UNSUPPORTED_STORE' && /24/.test(e.message) && /19, 21, 23/.test(e.hint));
});

test('occ on a SQLite agent: list, info, edit, restore, export, exit codes', () => {
  const { state } = store(23);
  const list = occ(['list', '--state-dir', state]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^6513270e\s.*synthetic-tools/m);
  assert.match(list.stdout, /^76cc5ab5\s.*\sempty\s+agent:main:main/m);
  assert.equal(occ(['info', 'synthetic-tools', '--state-dir', state]).code, 0);
  const exported = occ(['export', '6513', '--state-dir', state]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.equal(exported.stdout, source(SYNTH));
  const dir = tempDir('osi-sq-occ-');
  const file = occ(['export', 'f8c3', '-o', path.join(dir, 'f8.jsonl'), '--state-dir', state]);
  assert.equal(file.code, 0, file.stderr);
  assert.match(file.stdout, /33 events/);
  assert.equal(occ(['export', 'f8c3', '-o', path.join(dir, 'f8.jsonl'), '--state-dir', state]).code, 2, 'never overwrites');
  // With --json an error is JSON too (the OpenClaw plugin reads it from a child occ).
  const missing = occ(['info', 'ffff', '--json', '--state-dir', state]);
  assert.equal(missing.code, 3);
  const { error } = JSON.parse(missing.stderr.trim().split('\n').pop());
  assert.equal(error.code, 'E_SESSION_NOT_FOUND');
  assert.equal(typeof error.hint, 'string');
  assert.equal(occ(['edit', '6513', '--strip-tools', '--quiet-ms', 'soon', '--state-dir', state]).code, 2, '--quiet-ms takes milliseconds');
  const edit = occ(['edit', '6513', '--strip-tools=extreme', '--json', '--state-dir', state]);
  assert.equal(edit.code, 0, edit.stderr);
  assert.equal(JSON.parse(edit.stdout).statistics.toolCallsRemoved, 99);
  assert.equal(occ(['restore', '6513', '--state-dir', state]).code, 0);
  assert.equal(occ(['export', '6513', '--state-dir', state]).stdout, source(SYNTH));
  const empty = occ(['edit', 'main', '--strip-tools', '--state-dir', state]);
  assert.equal(empty.code, 3);
  assert.match(empty.stderr, /^Error: .*no events/m);
  assert.match(empty.stderr, /^Hint: /m);
});

test('handoff capture on a SQLite agent, triggered by OpenClaw event names', async () => {
  const { state } = store(23);
  const st = await addon.captureHandoff({ agentId: 'main', stateDir: state, sessionId: 'synthetic-tools', trigger: 'command:reset' });
  assert.deepEqual([st.trigger, st.transcriptStore, st.previousSessionId, st.sessionKey], ['reset', 'sqlite', SYNTH, 'agent:main:synthetic-tools']);
  assert.ok(st.summary.lastTopic.length > 0);
  const status = await addon.handoffStatus({ agentId: 'main', stateDir: state });
  assert.equal(status.transcriptIntact, true);
  await assert.rejects(addon.captureHandoff({ agentId: 'main', stateDir: state, trigger: 'command:frobnicate' }), (e) => e.code === 'E_INVALID_ARGUMENT' && /command:reset/.test(e.hint));
});
