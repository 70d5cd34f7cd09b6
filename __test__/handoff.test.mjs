// Session handoff through the addon: pattern detection, capture with the
// host's summarize callback (a real JS function behind a threadsafe
// function), offer timing with an injected clock, status and clear.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addon, tempDir } from './support/helpers.mjs';

test('detectPatterns: types, confidence and the sentence; chatter gives nothing', () => {
  assert.deepEqual(addon.detectPatterns('Turns out the cron ran in UTC. Fixed the schedule, all tests pass.'), [
    { type: 'insight', confidence: 0.9, content: 'Turns out the cron ran in UTC.' },
    { type: 'accomplishment', confidence: 0.9, content: 'Fixed the schedule, all tests pass.' },
  ]);
  assert.deepEqual(addon.detectPatterns('Still stuck on the OAuth callback?'), [{ type: 'blocker', confidence: 0.6, content: 'Still stuck on the OAuth callback?' }]);
  assert.deepEqual(addon.detectPatterns('thanks, cool'), []);
});

/** A state dir whose agent `main` has one transcript of a work conversation. */
function agentWithConversation() {
  const state = tempDir('osi-handoff-');
  const sessions = path.join(state, 'agents', 'main', 'sessions');
  fs.mkdirSync(sessions, { recursive: true });
  const texts = [
    ['user', 'Please fix the flaky upload test in the storage module'],
    ['assistant', 'The upload test fails because the temp bucket is shared between workers.'],
    ['user', "Let's go with one bucket per worker."],
    ['assistant', 'Implemented per-worker buckets; the suite passes ten runs in a row. Next I will clean up the old fixtures.'],
  ];
  const lines = [{ type: 'session', version: 3, id: 'sess-1', timestamp: '2026-03-01T09:00:00.000Z', cwd: '/w' }];
  let parent = null;
  texts.forEach(([role, text], i) => {
    const id = `e${i}`;
    lines.push({ type: 'message', id, parentId: parent, timestamp: `2026-03-01T09:0${i}:00.000Z`, message: { role, content: [{ type: 'text', text }], timestamp: 1 } });
    parent = id;
  });
  fs.writeFileSync(path.join(sessions, 'sess-1.jsonl'), lines.map((l) => JSON.stringify(l) + '\n').join(''));
  return state;
}

const t0 = new Date('2026-03-01T10:00:00Z');
const minutes = (n) => new Date(t0.getTime() + n * 60_000);

test('captureHandoff: the host model writes the summary through the callback', async () => {
  const stateDir = agentWithConversation();
  let asked;
  const state = await addon.captureHandoff({
    agentId: 'main', stateDir, trigger: 'reset', project: 'storage', now: t0,
    summarize: async (request) => {
      asked = request;
      await new Promise((r) => setTimeout(r, 20));
      return { lastTopic: 'flaky upload test', inProgress: ['clean up old fixtures'], nextStep: 'delete fixtures/old' };
    },
  });
  assert.equal(asked.sessionId, 'sess-1');
  assert.equal(asked.messages.length, 4);
  assert.deepEqual(asked.messages[0], { index: 1, role: 'user', text: 'Please fix the flaky upload test in the storage module', timestamp: '2026-03-01T09:00:00.000Z' });
  assert.match(asked.prompt, /Reply with JSON only/);
  assert.equal(asked.fallback.lastTopic, "Let's go with one bucket per worker.");
  assert.equal(state.summarySource, 'model');
  assert.equal(state.summaryError, null);
  assert.deepEqual(state.summary, { lastTopic: 'flaky upload test', inProgress: ['clean up old fixtures'], blockers: asked.fallback.blockers, decisions: ["Let's go with one bucket per worker."], nextStep: 'delete fixtures/old' });
  assert.equal(state.previousSessionId, 'sess-1');
  assert.equal(state.expiresAt, '2026-03-02T10:00:00.000Z');
  assert.match(state.transcriptHash, /^sha256:[0-9a-f]{64}$/);
  assert.equal(state.lastMessageIndex, 4);
  assert.ok(state.patterns.some((p) => p.type === 'decision' && p.sourceMessageIndex === 3));
  const onDisk = JSON.parse(fs.readFileSync(path.join(stateDir, 'agents/main/handoff/session-state.json'), 'utf8'));
  assert.deepEqual(onDisk.summary, state.summary);
  assert.deepEqual(fs.readdirSync(path.join(stateDir, 'agents/main/handoff/snapshots')), ['2026-03-01T10-00-00.json']);
  assert.deepEqual(fs.readdirSync(path.join(stateDir, 'agents/main/handoff/patterns')), ['2026-03-01.jsonl']);
});

test('captureHandoff: a slow, rejecting, throwing or malformed callback falls back to the derived summary', async () => {
  const stateDir = agentWithConversation();
  // The callback that never answers is given 150 ms; the others 10 s, so
  // that a loaded machine's slow round trip to the main thread and back
  // does not read as a timeout instead of their own failure.
  const cases = [
    [() => new Promise(() => {}), /did not answer within 150 ms/, 150],
    [async () => { throw new Error('model overloaded'); }, /model overloaded/],
    [() => { throw new Error('sync failure'); }, /sync failure/],
    [async () => 42, /not an object/],
    [async () => ({ inProgress: 'one string' }), /summary\.inProgress is a string/],
  ];
  for (const [summarize, why, summarizeTimeoutMs = 10_000] of cases) {
    const state = await addon.captureHandoff({ agentId: 'main', stateDir, trigger: 'manual', now: t0, summarize, summarizeTimeoutMs });
    assert.equal(state.summarySource, 'derived', String(why));
    assert.match(state.summaryError, why);
    assert.equal(state.summary.lastTopic, "Let's go with one bucket per worker.");
    assert.match(state.summary.nextStep, /^Next I will clean up the old fixtures/);
  }
  // A timeout of -1 is read as setTimeout reads it (1 ms), not wrapped to 49 days.
  const hurried = await addon.captureHandoff({ agentId: 'main', stateDir, trigger: 'manual', now: t0, summarize: () => new Promise(() => {}), summarizeTimeoutMs: -1 });
  assert.equal(hurried.summarySource, 'derived');
  assert.match(hurried.summaryError, /did not answer within 1 ms/);
  // A text reply holding JSON is accepted.
  const state = await addon.captureHandoff({ agentId: 'main', stateDir, trigger: 'manual', now: t0, summarize: async () => 'Here:\n{"nextStep":"ship it"}' });
  assert.equal(state.summarySource, 'model');
  assert.equal(state.summary.nextStep, 'ship it');
});

test('checkForHandoff: offered once per 5 minutes, forced by /resume, null once expired; status and clear', async () => {
  const stateDir = agentWithConversation();
  const opts = { agentId: 'main', stateDir };
  assert.equal(await addon.checkForHandoff({ ...opts, now: t0 }), null, 'nothing captured yet');
  await addon.captureHandoff({ ...opts, trigger: 'reset', now: t0 });
  const offered = await addon.checkForHandoff({ ...opts, now: minutes(1) });
  assert.equal(offered.resumeOfferedAt, '2026-03-01T10:01:00.000Z');
  assert.equal(await addon.checkForHandoff({ ...opts, now: minutes(4) }), null);
  assert.equal((await addon.checkForHandoff({ ...opts, now: minutes(4), force: true })).resumeOfferedAt, '2026-03-01T10:04:00.000Z');
  assert.notEqual(await addon.checkForHandoff({ ...opts, now: minutes(10) }), null);
  const status = await addon.handoffStatus({ ...opts, now: minutes(11) });
  assert.equal(status.offerable, false);
  assert.equal(status.reason, 'offered less than 5 minutes ago');
  assert.equal(status.transcriptIntact, true);
  assert.equal(status.snapshotCount, 1);
  assert.equal(status.state.resumeOfferedAt, '2026-03-01T10:10:00.000Z');
  assert.equal(await addon.checkForHandoff({ ...opts, now: minutes(24 * 60 + 1), force: true }), null, 'expired');
  assert.deepEqual(await addon.clearHandoff(opts), { cleared: true });
  assert.deepEqual(await addon.clearHandoff(opts), { cleared: false });
  assert.equal((await addon.handoffStatus({ ...opts, now: t0 })).state, null);
});

test('captureHandoff: coded errors for a bad trigger or agent; renderHandoffContext on any SessionState', async () => {
  const stateDir = agentWithConversation();
  await assert.rejects(addon.captureHandoff({ agentId: 'main', stateDir, trigger: 'reboot' }), { code: 'E_INVALID_ARGUMENT' });
  await assert.rejects(addon.captureHandoff({ agentId: 'ghost', stateDir, trigger: 'reset' }), { code: 'E_AGENT_NOT_FOUND' });
  // A message limit that is not a count is refused, not wrapped (2^32 + 2
  // would read 2 messages), and nothing is written.
  for (const messageLimit of [-1, 2.5, Number.NaN, Infinity, 2 ** 32 + 2]) {
    await assert.rejects(addon.captureHandoff({ agentId: 'main', stateDir, trigger: 'reset', messageLimit }), (e) => e.code === 'E_INVALID_ARGUMENT' && /messageLimit/.test(e.message), String(messageLimit));
  }
  assert.equal(fs.existsSync(path.join(stateDir, 'agents/main/handoff')), false);
  let read;
  await addon.captureHandoff({ agentId: 'main', stateDir, trigger: 'reset', now: t0, messageLimit: 2, summarize: async (r) => { read = r.messages.map((m) => m.index); return 'ok'; } });
  assert.deepEqual(read, [3, 4]);
  const text = addon.renderHandoffContext({
    agentId: 'main', sessionKey: 'agent:main:main', previousSessionId: null, createdAt: 'a', updatedAt: '2026-03-01T10:00:00.000Z', expiresAt: 'b',
    project: 'storage', mode: 'work', patterns: [], lastMessageIndex: 0, transcriptHash: '', resumeAvailable: true, resumeOfferedAt: null,
    summary: { lastTopic: 'x', inProgress: ['per-worker buckets'], blockers: [], decisions: ['one bucket per worker'], nextStep: 'clean up' },
  });
  assert.match(text, /^## Previous Session Context\n\nThe previous session ended at 2026-03-01T10:00:00.000Z\./);
  assert.match(text, /### In Progress\n- per-worker buckets\n\n### Recent Blockers\n- \(none\)\n/);
  assert.match(text, /continue where we left off with storage\?"\n$/);
});
