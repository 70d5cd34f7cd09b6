// executeEdit / restoreFromBackup: results, backups, locks, and the two
// proofs that no line is lost: an appender writing during 200 edits, and
// 100 edits killed at random moments.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { addon, root, fixtures, tempDir, openclawTranscript, posix, stress } from './support/helpers.mjs';

const F8 = 'f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1';

function stateWith(files) {
  const state = tempDir('osi-edit-');
  const dir = path.join(state, 'agents', 'main', 'sessions');
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text, { mode: 0o640 });
  return { state, dir };
}
const fixture = (name) => fs.readFileSync(path.join(fixtures, 'openclaw', 'moltbot-2026-01-31', name));
const backups = (dir, name) => fs.readdirSync(dir).filter((f) => f.startsWith(`${name}.bak.`)).sort();
const parseAll = (text) => text.toString().split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

test('edit the real fixture: statistics, turn analysis, backup, mode; restore and undo', async () => {
  const original = fixture(`${F8}.jsonl`);
  const { state, dir } = stateWith({ [`${F8}.jsonl`]: original });
  const file = path.join(dir, `${F8}.jsonl`);
  const r = await addon.executeEdit({ stateDir: state, sessionId: 'f8c', toolRemoval: { preset: 'extreme' } });
  assert.equal(r.success, true);
  assert.equal(r.mode, 'edit');
  assert.equal(r.sessionId, F8);
  assert.equal(r.changed, true);
  assert.deepEqual([r.statistics.toolCallsOriginal, r.statistics.toolCallsRemoved, r.statistics.messagesOriginal], [11, 11, 27]);
  assert.ok(r.statistics.sizeAfter < r.statistics.sizeOriginal && r.statistics.reductionPercent > 50);
  assert.ok(r.turns.some((t) => t.zone === 'removed'));
  assert.match(path.basename(r.backupPath), /^f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1\.jsonl\.bak\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z$/);
  assert.deepEqual(fs.readFileSync(r.backupPath), original);
  if (posix) assert.equal(fs.statSync(file).mode & 0o777, 0o640, 'mode kept');
  const edited = fs.readFileSync(file);
  assert.equal(parseAll(edited).length, parseAll(original).length - 22);
  // Listed transcripts do not include backups.
  assert.deepEqual((await addon.listTranscripts({ stateDir: state })).map((t) => t.sessionId), [F8]);
  // Idempotent: nothing more to do, nothing written.
  const again = await addon.executeEdit({ stateDir: state, toolRemoval: { preset: 'extreme' } });
  assert.equal(again.changed, false);
  assert.equal(Object.hasOwn(again, 'backupPath'), false);
  const restored = await addon.restoreFromBackup('f8c3', { stateDir: state });
  assert.deepEqual(fs.readFileSync(file), original);
  assert.deepEqual(fs.readFileSync(restored.replacedBackup), edited, 'what the restore replaced is kept');
  await addon.restoreFromBackup(F8, { stateDir: state });
  assert.deepEqual(fs.readFileSync(file), edited, 'restoring again undoes the restore');
});

test('dry run, presets, backups rotation and coded errors leave files as they were', async () => {
  const text = openclawTranscript(30);
  const { state, dir } = stateWith({ 'a1.jsonl': text });
  const file = path.join(dir, 'a1.jsonl');
  const dry = await addon.executeEdit({ stateDir: state, dryRun: true });
  assert.deepEqual([dry.dryRun, dry.changed, dry.statistics.toolCallsRemoved, dry.statistics.toolCallsTruncated], [true, true, 10, 10]);
  assert.equal(fs.readFileSync(file, 'utf8'), text);
  assert.deepEqual(backups(dir, 'a1.jsonl'), []);
  await assert.rejects(addon.executeEdit({ stateDir: state, toolRemoval: { preset: 'gentle' } }), (e) => e.code === 'E_UNKNOWN_PRESET' && /default, aggressive, extreme/.test(e.hint));
  const custom = await addon.executeEdit({ stateDir: state, toolRemoval: { preset: 'gentle' }, customPresets: [{ name: 'gentle', keepTurnsWithTools: 25, truncatePercent: 0 }] });
  assert.equal(custom.statistics.toolCallsRemoved, 5);
  for (let keep = 24; keep >= 17; keep--) {
    await addon.executeEdit({ stateDir: state, toolRemoval: { keepTurnsWithTools: keep, truncatePercent: 0 } });
  }
  assert.equal(backups(dir, 'a1.jsonl').length, 5, 'the newest 5 backups are kept');
  await assert.rejects(addon.restoreFromBackup('zz', { stateDir: state }), (e) => e.code === 'E_SESSION_NOT_FOUND');
  const { state: bare } = stateWith({ 'b2.jsonl': openclawTranscript(1) });
  await assert.rejects(addon.restoreFromBackup('b2', { stateDir: bare }), (e) => e.code === 'E_NO_BACKUP');
  await assert.rejects(addon.executeEdit({ stateDir: bare, sessionId: '../../etc' }), (e) => e.code === 'E_INVALID_ARGUMENT');
});

test('counts that are not whole numbers from 0 to 2^32-1 are refused, never wrapped into another setting (strip counts, backups, waits, limit)', async () => {
  // A u32 conversion would make -1 keep everything and 1e300 keep nothing.
  const text = openclawTranscript(30);
  const { state, dir } = stateWith({ 'a1.jsonl': text });
  const file = path.join(dir, 'a1.jsonl');
  const bad = [-1, 1e300, 2 ** 32, 2.5, Number.NaN, Number.POSITIVE_INFINITY];
  for (const value of bad) {
    for (const options of [
      { toolRemoval: { keepTurnsWithTools: value } },
      { toolRemoval: { truncatePercent: value } },
      { toolRemoval: { preset: 'mine' }, customPresets: [{ name: 'mine', keepTurnsWithTools: value, truncatePercent: 0 }] },
      { toolRemoval: { preset: 'mine' }, customPresets: [{ name: 'mine', keepTurnsWithTools: 1, truncatePercent: value }] },
    ]) {
      const what = JSON.stringify(options, (_, v) => (typeof v === 'number' ? String(v) : v));
      await assert.rejects(addon.executeEdit({ stateDir: state, ...options }), (e) => e.code === 'E_INVALID_ARGUMENT' && /whole number/.test(e.message), what);
      await assert.rejects(addon.executeClone({ stateDir: state, noRegister: true, ...options }), (e) => e.code === 'E_INVALID_ARGUMENT', what);
    }
  }
  // 2^32 backups to keep would have become 0, deleting every backup.
  for (const value of bad) {
    for (const key of ['backupsToKeep', 'lockTimeoutMs', 'quietMs']) {
      await assert.rejects(addon.executeEdit({ stateDir: state, [key]: value }), (e) => e.code === 'E_INVALID_ARGUMENT' && e.message.startsWith(key), `${key} ${value}`);
      await assert.rejects(addon.restoreFromBackup(undefined, { stateDir: state, [key]: value }), (e) => e.code === 'E_INVALID_ARGUMENT', `${key} ${value}`);
    }
    await assert.rejects(addon.listTranscripts({ stateDir: state, limit: value }), (e) => e.code === 'E_INVALID_ARGUMENT', `limit ${value}`);
  }
  assert.equal(fs.readFileSync(file, 'utf8'), text);
  assert.deepEqual(fs.readdirSync(dir), ['a1.jsonl']);
  const r = await addon.executeEdit({ stateDir: state, dryRun: true, toolRemoval: { keepTurnsWithTools: 2 ** 32 - 1, truncatePercent: 0 } });
  assert.equal(r.statistics.toolCallsRemoved, 0);
});

test('a live lock is E_SESSION_BUSY and changes nothing; a stale one is taken over', async () => {
  const text = openclawTranscript(3);
  const { state, dir } = stateWith({ 'c3.jsonl': text });
  const lock = path.join(dir, 'c3.jsonl.lock');
  fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, createdAt: new Date().toISOString() }, null, 2));
  await assert.rejects(addon.executeEdit({ stateDir: state, toolRemoval: { preset: 'extreme' }, lockTimeoutMs: 150 }), (e) => e.code === 'E_SESSION_BUSY');
  assert.equal(fs.readFileSync(path.join(dir, 'c3.jsonl'), 'utf8'), text);
  assert.deepEqual(backups(dir, 'c3.jsonl'), []);
  fs.writeFileSync(lock, JSON.stringify({ pid: 999999999, createdAt: '2026-01-31T11:53:47.108Z' }, null, 2));
  const r = await addon.executeEdit({ stateDir: state, toolRemoval: { preset: 'extreme' } });
  assert.equal(r.changed, true);
  assert.equal(fs.existsSync(lock), false, 'the lock is released');
});

test('an appender writing a turn every 25 ms during 200 edits loses no line', async () => {
  const { state, dir } = stateWith({ 'd4.jsonl': openclawTranscript(5) });
  const file = path.join(dir, 'd4.jsonl');
  const appender = spawn(process.execPath, [path.join(root, '__test__', 'support', 'appender.mjs'), file, '25'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  appender.stdout.on('data', (d) => (out += d));
  let folded = 0;
  let written = 0;
  // At least 200 edits, for at least 5 s so the appender gets going, and
  // until more than 50 edits wrote the file (a loaded machine runs fewer
  // of them in a given time); at most a minute.
  const started = Date.now();
  for (let i = 0; (i < 200 || Date.now() - started < 5000 || written <= 50) && Date.now() - started < 60_000; i++) {
    const r = await addon.executeEdit({ stateDir: state, toolRemoval: { preset: 'extreme' } });
    folded += r.appendedLinesKept;
    if (r.changed) written++;
    // Every complete line parses (the appender may be mid-way through the last one).
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(0, -1)) JSON.parse(line);
  }
  const done = new Promise((r) => appender.on('exit', r));
  appender.stdin.end();
  await done;
  await addon.executeEdit({ stateDir: state, toolRemoval: { preset: 'extreme' } });
  const { kept } = JSON.parse(out);
  const ids = new Set(parseAll(fs.readFileSync(file)).map((e) => e.id));
  const lost = kept.filter((id) => !ids.has(id));
  assert.deepEqual(lost, [], `${lost.length} of ${kept.length} appended lines lost`);
  assert.ok(kept.length > 100, `${kept.length} lines appended`);
  assert.ok(written > 50, `${written} edits wrote the file`);
  for (const b of backups(dir, 'd4.jsonl')) parseAll(fs.readFileSync(path.join(dir, b)));
  console.log(`# appender: ${kept.length} kept lines appended, ${written} edits wrote, ${folded} lines folded in during edits`);
});

test('an edit against a writer that never holds still gives up after a while and changes nothing', { timeout: 120_000 }, async () => {
  const { state, dir } = stateWith({ 'd6.jsonl': openclawTranscript(5) });
  const file = path.join(dir, 'd6.jsonl');
  const appender = spawn(process.execPath, [path.join(root, '__test__', 'support', 'appender.mjs'), file, '0'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  appender.stdout.on('data', (d) => (out += d));
  const done = new Promise((r) => appender.on('exit', r));
  try {
    const start = fs.statSync(file).size;
    for (let waited = 0; fs.statSync(file).size < start + 100_000; waited += 10) {
      assert.ok(waited < 30_000, 'the appender got going');
      await new Promise((r) => setTimeout(r, 10));
    }
    // It used to fold in the writer's lines for as long as they kept
    // coming; renamed under the writer, lines would come out of order.
    // On a loaded machine the writer itself may be scheduled out for longer
    // than an edit waits for a pause: that is a pause, and the edit goes
    // through; the refusal is then tried again.
    let refusal;
    for (let attempt = 1; attempt <= 5 && !refusal; attempt++) {
      const before = { ino: fs.statSync(file).ino, backups: backups(dir, 'd6.jsonl').length };
      try {
        await addon.executeEdit({ stateDir: state, toolRemoval: { preset: 'extreme' } });
        console.log(`# attempt ${attempt}: the writer paused (scheduled out), the edit went through`);
      } catch (e) {
        if (e?.code !== 'E_CONCURRENT_MODIFICATION') throw e;
        refusal = e;
        assert.equal(fs.statSync(file).ino, before.ino, 'the transcript was not replaced');
        assert.equal(backups(dir, 'd6.jsonl').length, before.backups, 'no backup is left behind');
      }
    }
    assert.ok(refusal, 'refused while the writer never held still, in one of 5 tries');
    assert.match(refusal.message, /kept appending/);
  } finally {
    appender.stdin.end();
    const killer = setTimeout(() => appender.kill(), 10_000);
    await done;
    clearTimeout(killer);
  }
  const { kept } = JSON.parse(out);
  const r = await addon.executeEdit({ stateDir: state, toolRemoval: { preset: 'extreme' } });
  assert.equal(r.changed, true, 'once the writer pauses, the edit goes through');
  const ids = new Set(parseAll(fs.readFileSync(file)).map((e) => e.id));
  const lost = kept.filter((id) => !ids.has(id));
  assert.deepEqual(lost, [], `${lost.length} of ${kept.length} appended lines lost`);
});

test('a last line left without its newline is kept whole and terminated, not edited half-written', async () => {
  const base = openclawTranscript(30);
  const last = JSON.parse(base.trim().split('\n').at(-1)).id;
  const unterminated = JSON.stringify({ type: 'message', id: 'tail0001', parentId: last, timestamp: '2026-01-31T09:00:00.000Z', message: { role: 'user', content: [{ type: 'text', text: 'no newline after me' }], timestamp: 1 } });
  const { state, dir } = stateWith({ 'nl.jsonl': base + unterminated });
  const r = await addon.executeEdit({ stateDir: state, toolRemoval: { preset: 'extreme' } });
  assert.equal(r.changed, true);
  assert.equal(r.appendedLinesKept, 1, 'the unterminated line is carried over as a line');
  const after = fs.readFileSync(path.join(dir, 'nl.jsonl'), 'utf8');
  assert.ok(after.endsWith(`${unterminated}\n`), 'kept byte for byte, then terminated');
  for (const line of after.trim().split('\n')) JSON.parse(line);
});

const EDIT_KILLS = stress(100, 10);

test(`killing an edit at random moments ${EDIT_KILLS} times leaves the old or the new transcript, whole`, async () => {
  const original = Buffer.from(openclawTranscript(400, { resultBytes: 6000 }));
  const { state, dir } = stateWith({ 'e5.jsonl': original });
  const file = path.join(dir, 'e5.jsonl');
  await addon.executeEdit({ stateDir: state, toolRemoval: { preset: 'extreme' } });
  const edited = fs.readFileSync(file);
  const outcomes = { old: 0, new: 0 };
  for (let i = 0; i < EDIT_KILLS; i++) {
    fs.writeFileSync(file, original);
    for (const f of fs.readdirSync(dir)) if (f !== 'e5.jsonl') fs.rmSync(path.join(dir, f));
    const child = spawn(process.execPath, [path.join(root, '__test__', 'support', 'edit-child.mjs'), state, 'e5'], { stdio: 'ignore' });
    const exited = new Promise((r) => child.on('exit', r));
    await new Promise((r) => setTimeout(r, 40 + Math.random() * 160));
    child.kill('SIGKILL');
    await exited;
    const now = fs.readFileSync(file);
    if (now.equals(original)) outcomes.old++;
    else if (now.equals(edited)) outcomes.new++;
    else assert.fail(`iteration ${i}: the transcript is neither the old nor the new one`);
    for (const b of backups(dir, 'e5.jsonl')) assert.ok(fs.readFileSync(path.join(dir, b)).equals(original), 'a backup is whole');
    // A lock left by the killed process is stale: the next edit proceeds.
  }
  const after = await addon.executeEdit({ stateDir: state, toolRemoval: { preset: 'extreme' } });
  assert.ok(after.success);
  console.log(`# kills: ${outcomes.old} left the old transcript, ${outcomes.new} the new one`);
  assert.ok(outcomes.old + outcomes.new === EDIT_KILLS);
});

test('executeClone: a new transcript registered in sessions.json with everything else kept', async () => {
  const index = fixture('sessions.json');
  const source = fixture(`${F8}.jsonl`);
  const { state, dir } = stateWith({ [`${F8}.jsonl`]: source, 'sessions.json': index });
  fs.chmodSync(path.join(dir, 'sessions.json'), 0o600);
  const r = await addon.executeClone({ stateDir: state, sessionId: 'f8c', toolRemoval: { preset: 'extreme' } });
  assert.equal(r.mode, 'clone');
  assert.equal(r.sourceSessionId, F8);
  assert.match(r.clonedSessionId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(r.clonedSessionPath, path.join(dir, `${r.clonedSessionId}.jsonl`));
  assert.deepEqual([r.statistics.toolCallsRemoved, r.statistics.messagesOriginal], [11, 27]);
  assert.deepEqual(fs.readFileSync(path.join(dir, `${F8}.jsonl`)), source, 'the source is untouched');
  const [header, ...rest] = parseAll(fs.readFileSync(r.clonedSessionPath));
  assert.equal(header.type, 'session');
  assert.equal(header.id, r.clonedSessionId);
  assert.equal(header.parentSession, path.join(dir, `${F8}.jsonl`));
  assert.equal(header.clonedFrom.sessionId, F8);
  assert.equal(header.cwd, '/home/admin/clawd');
  assert.ok(rest.length > 0);
  // sessions.json: every other entry and field as it was, the clone added last.
  const text = fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8');
  assert.ok(!text.endsWith('\n'));
  const before = JSON.parse(index);
  const after = JSON.parse(text);
  assert.equal(text, JSON.stringify(after, null, 2));
  assert.deepEqual(Object.keys(after), [...Object.keys(before), r.sessionKey]);
  for (const k of Object.keys(before)) assert.deepEqual(after[k], before[k]);
  assert.deepEqual(Object.keys(after['agent:main:main']), Object.keys(before['agent:main:main']), 'field order kept');
  assert.deepEqual(Object.keys(after[r.sessionKey]), ['sessionId', 'updatedAt', 'sessionFile', 'displayName']);
  assert.equal(after[r.sessionKey].sessionId, r.clonedSessionId);
  if (posix) assert.equal(fs.statSync(path.join(dir, 'sessions.json')).mode & 0o777, 0o600);
  const listed = await addon.listTranscripts({ stateDir: state });
  assert.deepEqual(listed.find((t) => t.sessionId === r.clonedSessionId).sessionKeys, [r.sessionKey]);
  // noRegister leaves the index byte-identical; an output path elsewhere needs it.
  const out = path.join(tempDir('osi-out-'), 'copy.jsonl');
  const plain = await addon.executeClone({ stateDir: state, sessionId: F8, outputPath: out, noRegister: true });
  assert.equal(fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8'), text);
  assert.equal(plain.statistics.toolCallsRemoved, 0);
  assert.equal(Object.hasOwn(plain, 'sessionKey'), false);
  assert.deepEqual(parseAll(fs.readFileSync(out)).slice(1), parseAll(source).slice(1), 'a plain copy keeps every entry');
  await assert.rejects(addon.executeClone({ stateDir: state, sessionId: F8, outputPath: path.join(tempDir(), 'x.jsonl') }), (e) => e.code === 'E_INVALID_ARGUMENT');
});
