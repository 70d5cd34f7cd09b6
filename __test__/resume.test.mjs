// Resume pinning, failure classification and origin markers through the
// public API, including several processes pinning at once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { addon, root, tempDir, slugOf, userLine, jsonl, writeSession, posix, stress } from './support/helpers.mjs';

const SID = '7d1f3c2a-aaaa-4bbb-8ccc-ddddeeeeffff';

function setup() {
  const base = fs.realpathSync(tempDir('osi-resume-'));
  const work = path.join(base, 'repo');
  fs.mkdirSync(work);
  const claudeConfigDir = path.join(base, 'claude');
  const stateDir = path.join(base, 'state');
  writeSession(claudeConfigDir, work, SID, jsonl([userLine(SID, 'first turn', { cwd: work })]));
  return { work, claudeConfigDir, stateDir };
}

test('pin, decide, bump, clear, retire: the runner.ts flow around one spawn', async () => {
  const { work, claudeConfigDir, stateDir } = setup();
  const base = { conversationId: 'c1', agentId: 'main', workDir: work, runtimeId: 'claude@2.1.80', historyEpoch: 0, stateDir, claudeConfigDir };
  assert.deepEqual(await addon.resolveResumeDecision(base), { resume: false, reason: 'no_pin', cliArgs: [], skipTranscript: false });
  assert.deepEqual(await addon.pinSession({ ...base, sessionId: '' }), { pinned: false, reason: 'empty_session_id' });
  assert.deepEqual(await addon.pinSession({ ...base, sessionId: 'f0000000-0000-4000-8000-000000000000' }), { pinned: false, reason: 'no_transcript' });
  assert.deepEqual(await addon.pinSession({ ...base, sessionId: SID, model: 'claude-opus-4-6' }), { pinned: true, reason: 'pinned' });
  assert.deepEqual(await addon.resolveResumeDecision({ ...base, model: 'claude-opus-4-6' }), { resume: true, sessionId: SID, reason: 'resume', cliArgs: ['--resume', SID], skipTranscript: true });
  assert.equal((await addon.resolveResumeDecision({ ...base, model: 'claude-haiku-4-5' })).reason, 'model_changed');
  assert.equal((await addon.resolveResumeDecision({ ...base, forceFresh: true })).reason, 'force_fresh');
  assert.equal((await addon.resolveResumeDecision({ ...base, supportsResume: false })).reason, 'no_capability');
  assert.equal((await addon.resolveResumeDecision({ ...base, hasPriorAssistantTurn: false })).reason, 'no_prior_turn');
  assert.equal(await addon.bumpHistoryEpoch('c1', 'main', { stateDir }), 1);
  assert.equal((await addon.resolveResumeDecision(base)).reason, 'epoch_changed');
  assert.equal((await addon.resolveResumeDecision({ ...base, historyEpoch: 0, agentId: 'ops' })).reason, 'agent_switched');
  assert.equal(await addon.clearPin({ conversationId: 'c1', agentId: 'main', expectedSessionId: 'someone-else', stateDir }), false);
  assert.equal(await addon.clearPin({ conversationId: 'c1', agentId: 'main', expectedSessionId: SID, stateDir }), true);
  await addon.pinSession({ ...base, sessionId: SID });
  await addon.retireSession(SID, 'resume_rejected', { stateDir });
  assert.equal((await addon.resolveResumeDecision(base)).reason, 'retired');
  assert.deepEqual(await addon.pinSession({ ...base, sessionId: SID }), { pinned: false, reason: 'retired' });
  await assert.rejects(addon.pinSession({ ...base, agentId: '../x', sessionId: SID }), (e) => e.code === 'E_INVALID_ARGUMENT');
  // An epoch that is not a count is refused, never wrapped (2^32 would
  // read as 0 and match a pin of epoch 0); the resume file is untouched.
  const file = path.join(stateDir, 'agents', 'main', 'claude-code-resume.json');
  const before = fs.readFileSync(file);
  for (const historyEpoch of [-1, 2 ** 32, 1.5, Number.NaN]) {
    const coded = (e) => e.code === 'E_INVALID_ARGUMENT' && /historyEpoch/.test(e.message);
    await assert.rejects(addon.pinSession({ ...base, sessionId: SID, historyEpoch }), coded, String(historyEpoch));
    await assert.rejects(addon.resolveResumeDecision({ ...base, historyEpoch }), coded, String(historyEpoch));
  }
  assert.deepEqual(fs.readFileSync(file), before);
});

test('several processes pinning at once lose nothing', async () => {
  const { work, claudeConfigDir, stateDir } = setup();
  const PINS = stress(40, 10);
  const writers = Array.from({ length: 6 }, (_, w) => new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [path.join(root, '__test__', 'support', 'pin-writer.mjs'), stateDir, claudeConfigDir, work, SID, `w${w}`, String(PINS)], { stdio: 'inherit' });
    p.on('exit', (c) => (c === 0 ? resolve() : reject(new Error(`writer ${w} exited ${c}`))));
  }));
  await Promise.all(writers);
  const doc = JSON.parse(fs.readFileSync(path.join(stateDir, 'agents', 'main', 'claude-code-resume.json'), 'utf8'));
  assert.equal(Object.keys(doc.pins).length, 6 * PINS);
  assert.equal(doc.epochs['shared-conversation'], 6 * PINS, 'every bump counted');
  if (posix) assert.equal(fs.statSync(path.join(stateDir, 'agents', 'main', 'claude-code-resume.json')).mode & 0o777, 0o600);
});

test('classifyResumeFailure on the real result lines', () => {
  const rejected = `{"type":"result","subtype":"error_during_execution","duration_ms":0,"duration_api_ms":0,"is_error":true,"num_turns":0,"session_id":"${SID}","errors":["No conversation found with session ID: ${SID}"]}`;
  assert.deepEqual(addon.classifyResumeFailure({ requestedSessionId: SID, resultLine: rejected, exitCode: 1 }), { rejected: true, retryFresh: true, retireSessionId: SID, reason: 'resume_rejected' });
  assert.deepEqual(addon.classifyResumeFailure({ requestedSessionId: SID, stderr: 'API Error: 429 {"type":"rate_limit_error"}', exitCode: 1 }), { rejected: false, retryFresh: false, reason: 'rate_limited' });
  const ok = `{"type":"result","subtype":"success","is_error":false,"num_turns":2,"duration_api_ms":4100,"session_id":"${SID}"}`;
  assert.equal(addon.classifyResumeFailure({ requestedSessionId: SID, resultLine: ok, exitCode: 0 }).reason, 'succeeded');
  // Exit codes are read as `code !== 0` reads them: nothing that an int32
  // conversion would turn into 0 passes for a success.
  for (const exitCode of [2 ** 32, Number.NaN, 0.5]) {
    assert.equal(addon.classifyResumeFailure({ requestedSessionId: SID, exitCode }).reason, 'failed_other', String(exitCode));
  }
});

test('origin markers: extended pairs survive hostile values; discovery still reports the agent', async () => {
  const text = addon.buildTaskContent('Fix the ] bug, please', { agentId: 'ops', channel: 'tele]gram', user: 'a,b=c', ticket: 42, urgent: true });
  assert.equal(text.split('\n')[0], '[openclaw:agent=ops,channel=tele%5Dgram,user=a%2Cb%3Dc,ticket=42,urgent=true]');
  assert.deepEqual(addon.parseOriginMarker(text), { agent: 'ops', channel: 'tele]gram', user: 'a,b=c', ticket: '42', urgent: 'true' });
  assert.equal(addon.buildTaskContent('x', { agentId: 'main' }), '[openclaw:agent=main]\n\nx');
  assert.equal(addon.parseOriginMarker('nothing here'), undefined);
  assert.throws(() => addon.buildTaskContent('x', {}), (e) => e.code === 'E_INVALID_ARGUMENT');
  const claudeConfigDir = tempDir();
  const repo = '/work/attributed';
  writeSession(claudeConfigDir, repo, SID, jsonl([userLine(SID, text, { cwd: repo })]));
  const [s] = await addon.discoverSessions(repo, { claudeConfigDir, registryRoot: tempDir() });
  assert.equal(s.originMarker, 'ops');
  assert.equal(slugOf(repo), '-work-attributed');
});
