// The cleaner on OpenClaw's SQLite store, proven with OpenClaw's own code:
// for each release and the store it writes (2026.9.6 → schema 23,
// 2026.9.5 → 21, 2026.8.2 → 19), a copy of the real store is edited by the
// addon (in this process, which OpenClaw is not in), then read by OpenClaw
// in a fresh Node 24 process with every reader it has, checked by
// `openclaw doctor --session-sqlite inspect`, restored, and read again.
// Negative controls undo one invalidation step of a correct edit each and
// show that the same checks catch it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addon, root, tempDir, writeSqliteStore } from '../support/helpers.mjs';
import { OPENCLAW, openclaw, openclawCli, openclawEnv, runNode24 } from './support/env.mjs';

const SYNTH = { sessionId: '6513270e-269e-4d37-b2a7-4de452e6b438', sessionKey: 'agent:main:synthetic-tools' };
const F8 = { sessionId: 'f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1', sessionKey: 'agent:main:openresponses-user:9e983849' };
const SESSIONS = [SYNTH, F8];

/** A scratch state dir holding a copy of the store `schema` as OpenClaw wrote it. */
function store(schema) {
  const state = path.join(tempDir('osi-oc-'), 'state');
  writeSqliteStore(state, schema);
  return state;
}

/** What OpenClaw `version` reads of the sessions, in a fresh process. */
function read(version, state) {
  const out = path.join(tempDir('osi-oc-read-'), 'read.json');
  runNode24([path.join(root, '__test__', 'openclaw', 'support', 'read-session.mjs'), openclaw(version), state, out, JSON.stringify(SESSIONS)],
    { env: openclawEnv(state, tempDir('osi-oc-home-')) });
  return JSON.parse(fs.readFileSync(out, 'utf8'));
}

/** `openclaw doctor --session-sqlite inspect`: its issues and integrity check. */
function inspect(version, state) {
  const r = openclawCli(version, ['doctor', '--session-sqlite', 'inspect', '--session-sqlite-agent', 'main', '--json'],
    { env: openclawEnv(state, tempDir('osi-oc-home-')), timeout: 60_000, rerunIfHung: true });
  const report = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
  return { issues: report.targets.flatMap((t) => t.issues), integrity: report.targets.map((t) => t.dbStats?.integrityCheck) };
}

const callIds = (entries) => entries.flatMap((e) => (e.type === 'message' && e.message.role === 'assistant' && Array.isArray(e.message.content) ? e.message.content : []))
  .filter((b) => ['toolCall', 'toolUse', 'functionCall'].includes(b?.type)).map((b) => b.id);
const resultIds = (entries) => entries.filter((e) => e.type === 'message' && e.message.role === 'toolResult').map((e) => e.message.toolCallId ?? e.message.toolUseId);

/** Everything wrong with how OpenClaw reads an edited session, compared
 *  with how it read it before and with what the addon says it did. */
function problems(before, after, edit, deleted) {
  const found = [];
  const ids = (r) => (r?.entries ?? []).map((e) => e.id);
  for (const reader of ['open', 'openAsync', 'bounded']) {
    if (!after[reader]) continue;
    if (after[reader].error) found.push(`${reader}: ${after[reader].error}`);
    else if (JSON.stringify(ids(after[reader])) !== JSON.stringify(ids(after.open))) found.push(`${reader} reads another path than open (${ids(after[reader]).length} vs ${ids(after.open).length} entries)`);
  }
  if (after.modelContext && JSON.stringify(after.modelContext.ids) !== JSON.stringify(ids(after.open))) found.push('openModelContext reads another path');
  const expected = ids(before.open).filter((id) => !deleted.has(id));
  if (JSON.stringify(ids(after.open)) !== JSON.stringify(expected)) found.push(`the path is not the old one less the deleted entries (${ids(after.open).length} vs ${expected.length})`);
  const entries = after.open?.entries ?? [];
  const calls = callIds(entries);
  const results = new Set(resultIds(entries));
  if (calls.length !== callIds(before.open.entries).length - edit.statistics.toolCallsRemoved) found.push(`${calls.length} tool calls left, expected ${callIds(before.open.entries).length - edit.statistics.toolCallsRemoved}`);
  if (calls.some((c) => !results.has(c)) || results.size !== new Set(calls).size) found.push('a tool call and its result are not paired');
  const old = new Map(before.open.entries.map((e) => [e.id, e]));
  for (const e of entries) {
    if (e.type === 'message' && e.message.role === 'user' && JSON.stringify(e.message) !== JSON.stringify(old.get(e.id)?.message)) found.push(`user message ${e.id} changed`);
  }
  const b0 = before.bookBefore;
  const b1 = after.bookBefore;
  if (!/^[0-9a-f]{32}$/.test(b1.generation ?? '') || b1.generation === b0.generation) found.push('the generation was not rotated');
  if (!(b1.transcriptUpdatedAt > b0.transcriptUpdatedAt)) found.push('transcript_updated_at did not advance');
  if (!(after.stats?.lastMutationAtMs > before.stats?.lastMutationAtMs)) found.push('OpenClaw sees no new mutation time');
  if (b1.needsRebuild !== 1) found.push('the projection was not marked for rebuild');
  if (after.bookAfter.needsRebuild !== 0 || after.bookAfter.activeEventCount !== ids(after.open).length) found.push('the rebuilt projection is not the path');
  if (b1.foreignKeyViolations !== 0) found.push(`${b1.foreignKeyViolations} foreign key violations`);
  if (after.identityMismatches?.error || after.identityMismatches?.length) found.push(`identity parents differ from events: ${JSON.stringify(after.identityMismatches)}`);
  return found;
}

/** Ids the edit deleted: in the export before, not in the export after. */
async function deletedIds(state, sessionId, beforeJsonl) {
  const after = (await addon.exportTranscript(sessionId, { stateDir: state })).jsonl;
  const ids = (text) => new Set(text.split('\n').filter(Boolean).map((l) => JSON.parse(l).id));
  const kept = ids(after);
  return new Set([...ids(beforeJsonl)].filter((id) => !kept.has(id)));
}

/** Runs SQL on the store with Node 24's node:sqlite (undoing one step). */
function sql(state, statements) {
  const db = path.join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite');
  runNode24(['-e', `const {DatabaseSync}=require('node:sqlite');const d=new DatabaseSync(${JSON.stringify(db)});d.exec(${JSON.stringify(statements)});d.close()`]);
}

for (const [version, schema] of Object.entries(OPENCLAW)) {
  test(`OpenClaw ${version} reads schema ${schema} sessions the addon stripped, and the originals after a restore`, { timeout: 600_000 }, async () => {
    const state = store(schema);
    const before = read(version, state);
    for (const s of SESSIONS) {
      const b = before[s.sessionId];
      assert.equal(b.open.error, undefined, b.open.error);
      assert.ok(b.open.entries.length > 20, 'OpenClaw reads the fixture');
    }
    const originals = {};
    const edits = {};
    for (const [s, preset] of [[SYNTH, 'default'], [F8, 'extreme']]) {
      originals[s.sessionId] = (await addon.exportTranscript(s.sessionId, { stateDir: state })).jsonl;
      edits[s.sessionId] = await addon.executeEdit({ stateDir: state, sessionId: s.sessionKey, toolRemoval: { preset } });
      assert.equal(edits[s.sessionId].changed, true);
      assert.ok(edits[s.sessionId].statistics.toolCallsRemoved > 0);
    }
    const after = read(version, state);
    for (const s of SESSIONS) {
      const deleted = await deletedIds(state, s.sessionId, originals[s.sessionId]);
      assert.deepEqual(problems(before[s.sessionId], after[s.sessionId], edits[s.sessionId], deleted), [], `${version} ${s.sessionKey}`);
      assert.ok(after[s.sessionId].open.entries.length < before[s.sessionId].open.entries.length);
    }
    assert.deepEqual(inspect(version, state), { issues: [], integrity: ['ok'] });

    for (const s of SESSIONS) await addon.restoreFromBackup(s.sessionId, { stateDir: state });
    const restored = read(version, state);
    for (const s of SESSIONS) {
      assert.deepEqual(restored[s.sessionId].open.entries, before[s.sessionId].open.entries, `${version}: ${s.sessionKey} is the original again`);
      assert.deepEqual(restored[s.sessionId].bounded.entries.map((e) => e.id), before[s.sessionId].open.entries.map((e) => e.id));
      assert.deepEqual(restored[s.sessionId].identityMismatches, []);
      assert.equal((await addon.exportTranscript(s.sessionId, { stateDir: state })).jsonl, originals[s.sessionId]);
    }
    assert.deepEqual(inspect(version, state), { issues: [], integrity: ['ok'] });
  });
}

test('the checks catch an edit that skips any invalidation step', { timeout: 600_000 }, async () => {
  const version = '2026.9.6';
  const undo = {
    generation: (s, old) => `UPDATE transcript_rewrite_watermarks SET generation = '${old.generation}' WHERE session_id = '${s}'`,
    rebuild: (s) => `UPDATE session_transcript_index_state SET needs_rebuild = 0 WHERE session_id = '${s}'`,
    mutationTime: (s, old) => `UPDATE session_windows SET transcript_updated_at = ${old.transcriptUpdatedAt} WHERE session_id = '${s}'`,
    identityParents: (s) => `UPDATE transcript_event_identities SET parent_id = 'gone' WHERE session_id = '${s}' AND rowid = (SELECT max(rowid) FROM transcript_event_identities WHERE session_id = '${s}' AND parent_id IS NOT NULL)`,
  };
  const pristine = read(version, store(23))[SYNTH.sessionId];
  for (const [step, statement] of Object.entries(undo)) {
    const state = store(23);
    const original = (await addon.exportTranscript(SYNTH.sessionId, { stateDir: state })).jsonl;
    const edit = await addon.executeEdit({ stateDir: state, sessionId: SYNTH.sessionId, toolRemoval: { preset: 'default' } });
    sql(state, statement(SYNTH.sessionId, pristine.bookBefore));
    const after = read(version, state)[SYNTH.sessionId];
    const found = problems(pristine, after, edit, await deletedIds(state, SYNTH.sessionId, original));
    assert.ok(found.length > 0, `skipping ${step} goes unnoticed`);
  }
});
