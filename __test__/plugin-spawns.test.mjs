// The plugin's Claude Code spawns (plugin/spawns/) on their own, with the
// real addon on real git repositories and real files:
// - the tracker against a fake clock: the facts it hands the addon, which
//   spawn a child session the host names belongs to, the learning window,
//   forgetting, the ended sessions it keeps;
// - the admission on a tracker with a fake clock: the addon decides from
//   the tracker's facts whether a spawn holds its repository, through every
//   state, from being let through to its session's end;
// - two copies of the plugin, as OpenClaw loads one for every registration
//   and config reload, working on the one spawn state of the process;
// - the plugin's hooks driven the way OpenClaw calls them: only Claude Code
//   spawns are taken; they are briefed, recorded, tracked to their end,
//   their sessions learned, and never held up.
// The real gateway, acpx and Claude Code run the same in
// openclaw/spawn-preflight.openclaw.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { addon, root, tempDir, until, uuid, userLine, jsonl, writeSession } from './support/helpers.mjs';
import { world } from './support/spawn-world.mjs';
import plugin from '../plugin/index.mjs';
import { SpawnTracker } from '../plugin/spawns/tracker.mjs';
import { isClaudeAcpSpawn, preflight } from '../plugin/spawns/admission.mjs';
import { onChildEnded, onChildProgress, onRunDelivered, onSpawnResult } from '../plugin/spawns/host-events.mjs';
import { learnSessions, stopLearning } from '../plugin/spawns/learning.mjs';
import { slimAfterRun } from '../plugin/spawns/slim-later.mjs';

const policy = addon.SPAWN_POLICY;
/**
 * The pre-flight's config where a test expects its decision: the longest
 * budget the config allows, so that a loaded machine does not turn the
 * decision into an overrun.
 */
const PATIENT = { budgetMs: 14_000 };
/**
 * The config where a test expects the busy guard itself: no isolation
 * (isolation is proven below and in plugin-worktrees.test.mjs).
 */
const BUSY_GUARD = { ...PATIENT, isolation: 'off' };

/** A clock the test moves: `now()`, `now.advance(ms)`. */
function clock(start = Date.now()) {
  let t = start;
  const now = () => t;
  now.advance = (/** @type {number} */ ms) => (t += ms);
  return now;
}

/** An OpenClaw plugin API for `config` that collects typed hooks and log lines. */
function hostApi(config, hostConfig = { acp: { defaultAgent: 'claude' } }) {
  const hooks = {};
  const log = { info: [], warn: [] };
  const api = {
    pluginConfig: config,
    config: hostConfig,
    runtime: { agent: { resolveAgentWorkspaceDir: (_cfg, id) => `/ws/${id}` } },
    logger: { info: (m) => log.info.push(m), warn: (m) => log.warn.push(m), error: (m) => log.warn.push(m), debug() {} },
    on: (name, handler, opts) => ((hooks[name] ??= []).push({ handler, opts })),
    registerTool() {}, registerHook() {}, registerCommand() {}, registerCli() {},
    registerService: (s) => (api.service = s),
  };
  const fire = async (name, event, ctx = {}) => {
    let out;
    for (const { handler } of hooks[name] ?? []) out = await handler(event, ctx);
    return out;
  };
  return { api, hooks, log, fire };
}

/** Registers `copy` of the plugin with `config` on a host API (see hostApi). */
function load(config, hostConfig, copy = plugin) {
  const host = hostApi(config, hostConfig);
  copy.register(host.api);
  return host;
}


const REQUESTER = 'agent:main:main';
/** A `sessions_spawn` call of `requester`'s, as OpenClaw hands it to before_tool_call: `[event, ctx]`. */
const spawnCall = (params, requester = REQUESTER, toolCallId = `call-${Math.random()}`) => [{ toolName: 'sessions_spawn', params, toolCallId }, { agentId: 'main', sessionKey: requester, toolName: 'sessions_spawn', toolCallId }];
/** The nonce of the origin marker in a task. */
const nonceOf = (task) => addon.parseOriginMarker(task)?.spawn;

// ------------------------------------------------------------ the tracker

/** The fields of a spawn let through at `now()`. */
const asked = (now, nonce, more = {}) => ({ nonce, agentId: 'main', requesterSessionKey: REQUESTER, cwd: '/r/shop', repoPath: '/r/shop', mode: 'run', startedAt: now(), ...more });

test('tracker: the addon gets every spawn not reported ended and whether the host started it, the sessions the host holds for the requester, and the ended sessions', () => {
  const now = clock();
  const t = new SpawnTracker({ policy, now });
  const run = t.track(asked(now, 'run'));
  const held = t.track(asked(now, 'held', { mode: 'session', claudeSessionId: 'S-held' }));
  t.track(asked(now, 'nowhere', { cwd: undefined, repoPath: undefined }));
  t.track(asked(now, 'theirs', { mode: 'session', claudeSessionId: 'S-theirs', requesterSessionKey: 'agent:main:other' }));
  t.childStarted(run, 'agent:claude:acp:1');
  const at = now();
  let facts = t.facts(REQUESTER);
  assert.deepEqual(facts.inFlight, [
    { nonce: 'run', repoPath: '/r/shop', cwd: '/r/shop', claudeSessionId: undefined, childSessionKey: 'agent:claude:acp:1', startedAtMs: at, started: true, runEnded: false },
    { nonce: 'held', repoPath: '/r/shop', cwd: '/r/shop', claudeSessionId: 'S-held', childSessionKey: undefined, startedAtMs: at, started: false, runEnded: false },
    { nonce: 'theirs', repoPath: '/r/shop', cwd: '/r/shop', claudeSessionId: 'S-theirs', childSessionKey: undefined, startedAtMs: at, started: false, runEnded: false },
  ], 'a spawn without cwd has no repository to hold');
  assert.deepEqual(facts.resumable, [{ claudeSessionId: 'S-held', cwd: '/r/shop', childSessionKey: undefined }], 'only the requester\'s persistent spawns');
  assert.deepEqual(facts.finishedSessionIds, []);
  // A run that ended is no longer in flight; its session counts as ended.
  t.learned(run, 'S-run');
  t.end(run);
  // A persistent spawn's task ended: its session stays with the host until it is closed.
  t.end(held);
  facts = t.facts(REQUESTER);
  assert.deepEqual(facts.inFlight.map((s) => s.claudeSessionId), ['S-theirs']);
  assert.deepEqual(facts.finishedSessionIds, ['S-run', 'S-held']);
  assert.deepEqual(facts.resumable.map((s) => s.claudeSessionId), ['S-held']);
  t.close(held);
  assert.deepEqual(t.facts(REQUESTER).resumable, []);
  assert.deepEqual(t.facts(REQUESTER).finishedSessionIds, ['S-run', 'S-held'], 'each once');
});

test('tracker: a child session the host names without its call goes to the requester\'s oldest spawn still waiting, within the start grace', () => {
  const now = clock();
  const t = new SpawnTracker({ policy, now });
  const oldest = t.track(asked(now, 'oldest'));
  now.advance(1000);
  const younger = t.track(asked(now, 'younger'));
  const other = t.track(asked(now, 'other', { requesterSessionKey: 'agent:ops:main' }));
  assert.equal(t.claimChild('agent:claude:acp:1', REQUESTER), oldest);
  assert.deepEqual([oldest.childSessionKey, oldest.started], ['agent:claude:acp:1', true]);
  assert.equal(t.byChild('agent:claude:acp:1'), oldest);
  assert.equal(t.claimChild('agent:claude:acp:2', 'agent:ops:main'), other);
  // Past its start grace a spawn never seen starting gets no child: the host refused it.
  now.advance(policy.startGraceMs);
  assert.equal(t.claimChild('agent:claude:acp:3', REQUESTER), undefined);
  assert.deepEqual([younger.childSessionKey, younger.started], [undefined, false]);
  assert.equal(t.byToolCall(undefined), undefined);
});

test('tracker: sessions are looked for during the learning window; spawns are forgotten once over with their session known, or past the forget age', () => {
  const now = clock();
  const t = new SpawnTracker({ policy, now });
  const learned = t.track(asked(now, 'learned'));
  const unlearned = t.track(asked(now, 'unlearned'));
  const persistent = t.track(asked(now, 'persistent', { mode: 'session' }));
  const open = t.track(asked(now, 'open'));
  t.track(asked(now, 'nowhere', { cwd: undefined }));
  assert.deepEqual(t.toLearn().map((s) => s.nonce), ['learned', 'unlearned', 'persistent', 'open']);
  t.learned(learned, 'S-1');
  t.end(learned);
  t.end(unlearned);
  t.learned(persistent, 'S-2');
  t.end(persistent);
  t.prune();
  assert.deepEqual([...t.state.spawns.keys()], ['unlearned', 'persistent', 'open', 'nowhere'], 'a run over with its session known is forgotten');
  now.advance(policy.learnForMs);
  assert.deepEqual(t.toLearn().map((s) => s.nonce), ['unlearned', 'open'], 'looked for up to the end of the window');
  now.advance(1);
  assert.deepEqual(t.toLearn(), []);
  t.prune();
  assert.deepEqual([...t.state.spawns.keys()], ['persistent', 'open', 'nowhere'], 'an ended spawn no longer looked for is forgotten');
  t.close(persistent);
  t.prune();
  assert.deepEqual([...t.state.spawns.keys()], ['open', 'nowhere'], 'a persistent spawn once its session is closed');
  now.advance(policy.forgetAfterMs);
  t.prune();
  assert.deepEqual([...t.state.spawns.keys()], [], 'whatever it shows, past the forget age');
  assert.equal(open.ended, false);
});

test('tracker: as many ended sessions are kept as the policy says, the oldest dropped first', () => {
  const now = clock();
  const t = new SpawnTracker({ policy, now });
  for (let i = 0; i <= policy.finishedKept; i++) {
    const s = t.track(asked(now, `n${i}`));
    t.learned(s, `S-${i}`);
    t.end(s);
  }
  const { finishedSessionIds } = t.facts(REQUESTER);
  assert.equal(finishedSessionIds.length, policy.finishedKept);
  assert.deepEqual([finishedSessionIds[0], finishedSessionIds.at(-1)], ['S-1', `S-${policy.finishedKept}`]);
});

test('tracker: one state per spawn by the host\'s word, starting → running → waiting → ended or failed; only a starting or running one is in flight', () => {
  const now = clock();
  const t = new SpawnTracker({ policy, now });
  const s = t.track(asked(now, 'quick'));
  const refused = t.track(asked(now, 'refused'));
  const inFlight = () => t.facts(REQUESTER).inFlight.map((f) => f.startedAtMs === now() && f.childSessionKey);
  assert.equal(t.hostState(s), 'starting');
  t.childStarted(s, 'agent:claude:acp:q');
  assert.equal(t.hostState(s), 'running');
  assert.deepEqual(inFlight(), ['agent:claude:acp:q', undefined]);
  // A second later, its answer given: waiting, well inside the start grace. Its session not
  // learned yet, it is handed over with its run ended (the addon finds the session by its nonce,
  // and takes its last writes for no work).
  now.advance(1000);
  t.answer(s);
  assert.equal(t.hostState(s), 'waiting');
  const handed = () => t.facts(REQUESTER).inFlight.map((f) => [f.childSessionKey, f.runEnded]);
  assert.deepEqual(handed(), [['agent:claude:acp:q', true], [undefined, false]]);
  assert.ok(now() - s.startedAt < policy.startGraceMs);
  // Its session learned: no longer in flight, it counts as ended for the busy rule, and is kept until the host reports its end.
  t.learned(s, 'S-quick');
  assert.deepEqual(handed(), [[undefined, false]], 'only the one not answered yet');
  assert.deepEqual(t.facts(REQUESTER).finishedSessionIds, ['S-quick']);
  t.prune();
  assert.equal(t.has('quick'), true, 'still tracked: OpenClaw\'s end is to come');
  t.close(s);
  assert.equal(t.hostState(s), 'ended');
  t.prune();
  assert.equal(t.has('quick'), false);
  t.fail(refused);
  assert.deepEqual([t.hostState(refused), refused.ended, refused.closed], ['failed', true, true]);
  assert.deepEqual(t.facts(REQUESTER).inFlight, []);
});

test('tracker: a spawn reserved for its pre-flight is in flight for every other pre-flight, never for its own; forgotten, it is gone', () => {
  const now = clock();
  const t = new SpawnTracker({ policy, now });
  t.track(asked(now, 'first'));
  t.track(asked(now, 'second'));
  assert.deepEqual(t.facts(REQUESTER, 'second').inFlight.length, 1);
  assert.deepEqual(t.facts(REQUESTER).inFlight.length, 2);
  t.forget('second');
  assert.equal(t.has('second'), false);
  assert.deepEqual(t.facts(REQUESTER, 'first').inFlight, []);
});

// ------------------------------------------------------------ the admission

test('admission: the addon decides from the tracker\'s facts whether a spawn holds its repository, from its start to the end of its session', async (t) => {
  const w = world();
  process.env.OPENCLAW_STATE_DIR = w.stateDir;
  t.after(() => delete process.env.OPENCLAW_STATE_DIR);
  // Spawns let through a start grace ago (the addon compares with its own clock).
  const now = clock(Date.now() - policy.startGraceMs - 10_000);
  const tracker = new SpawnTracker({ policy, now });
  t.after(() => stopLearning(tracker.state));
  const { api, log } = hostApi({ claudeConfigDir: w.claudeConfigDir, spawnPreflight: BUSY_GUARD });
  const ctx = { agentId: 'main', sessionKey: REQUESTER };
  let n = 0;
  const spawn = (task) => preflight(api, tracker, { params: { runtime: 'acp', agentId: 'claude', task, cwd: w.repo }, toolCallId: `call-${++n}` }, ctx);

  const first = await spawn('Refactor the cart');
  const nonce = addon.parseOriginMarker(first.params.task).spawn;
  const spawned = tracker.state.spawns.get(nonce);
  assert.equal(spawned.startedAt, now());
  // Never seen starting, past its start grace: OpenClaw refused it without a hook.
  assert.ok((await spawn('Add tax')).params, 'a spawn the host never started holds nothing');
  // The host starts its child: counted while its session is looked for.
  const child = 'agent:claude:acp:7';
  await onChildProgress(api, tracker, { phase: 'started', childSessionKey: child }, { requesterSessionKey: REQUESTER });
  assert.equal(spawned.childSessionKey, child, 'the oldest spawn waiting for a child');
  const unlearned = await spawn('Add tax');
  assert.equal(unlearned.block, true);
  assert.match(unlearned.blockReason, new RegExp(`${child}.*spawned through OpenClaw and not finished`));
  // Its session learned, with no sign of it running: the repository is free.
  const id = uuid();
  const file = writeSession(w.claudeConfigDir, w.repo, id, jsonl([userLine(id, first.params.task, { cwd: w.repo })]));
  const quiet = new Date(now());
  fs.utimesSync(file, quiet, quiet);
  await learnSessions(api, tracker);
  assert.equal(spawned.claudeSessionId, id);
  assert.ok((await spawn('Add tax')).params, 'a learned spawn whose session shows nothing');
  // Its transcript written now: running again, as the spawn.
  fs.utimesSync(file, new Date(), new Date());
  const writing = await spawn('Add tax');
  assert.match(writing.blockReason, new RegExp(`session ${id} \\(OpenClaw session ${child}\\), spawned through OpenClaw`));
  // The host reports its run ended: its last writes are no sign of a session running.
  await onChildProgress(api, tracker, { phase: 'ended', childSessionKey: child, outcome: 'ok' }, { requesterSessionKey: REQUESTER });
  assert.deepEqual(tracker.facts(REQUESTER).finishedSessionIds, [id]);
  assert.ok((await spawn('Add tax')).params, 'free once ended');
  assert.deepEqual(log.warn, []);
  const rec = (await addon.listSpawns('main', w.stateDir)).find((r) => r.nonce === nonce);
  assert.deepEqual([rec.claudeSessionId, rec.childSessionKey, rec.outcome, rec.startedAt], [id, child, 'ok', new Date(spawned.startedAt).toISOString()]);
});

test('admission is atomic: two spawns into one idle repository at the same instant, one gets its working tree, the other sees it in flight and is isolated (or, without isolation, refused)', async (t) => {
  const w = world();
  process.env.OPENCLAW_STATE_DIR = w.stateDir;
  t.after(() => delete process.env.OPENCLAW_STATE_DIR);
  const tracker = new SpawnTracker({ policy });
  t.after(() => stopLearning(tracker.state));
  const ctx = { agentId: 'main', sessionKey: REQUESTER };
  const atOnce = async (spawnPreflight) => {
    const { api } = hostApi({ claudeConfigDir: w.claudeConfigDir, spawnPreflight });
    const spawn = (task, n) => preflight(api, tracker, { params: { runtime: 'acp', agentId: 'claude', task, cwd: w.repo }, toolCallId: `call-${n}` }, ctx);
    // As OpenClaw runs the pre-flights of one answer of the model: both started before either returns.
    const both = await Promise.all([spawn('Write the install guide', 1), spawn('Write the usage guide', 2)]);
    const main = both.filter((r) => r?.params && !r.params.cwd);
    assert.equal(main.length, 1, `exactly one in the working tree: ${JSON.stringify(both)}`);
    return { main: main[0], other: both.find((r) => r !== main[0]) };
  };
  // Isolation (the default): the other one runs in a worktree of its own.
  const isolated = await atOnce(PATIENT);
  assert.ok(isolated.other.params.cwd.startsWith(path.join(w.repo, '.claude', 'worktrees') + path.sep), JSON.stringify(isolated.other));
  assert.match(isolated.other.params.task, /Isolated worktree: you work in /);
  const tracked = [...tracker.state.spawns.values()];
  assert.deepEqual(tracked.map((s) => [s.cwd, s.worktree?.path]), [[w.repo, undefined], [isolated.other.params.cwd, isolated.other.params.cwd]], 'each tracked where it runs');
  tracker.state.spawns.clear();
  // Without isolation: the other one is refused, and not tracked.
  const refused = await atOnce(BUSY_GUARD);
  assert.equal(refused.other?.block, true, JSON.stringify(refused.other));
  assert.match(refused.other.blockReason, /a session this gateway spawned moments ago, spawned through OpenClaw and not finished/);
  assert.deepEqual([...tracker.state.spawns.values()].map((s) => s.nonce), [nonceOf(refused.main.params.task)], 'the refused one is not tracked');
});

test('admission: a spawn whose answer OpenClaw is delivering no longer makes its repository busy, inside its first minute', async (t) => {
  const w = world();
  process.env.OPENCLAW_STATE_DIR = w.stateDir;
  t.after(() => delete process.env.OPENCLAW_STATE_DIR);
  const now = clock();
  const tracker = new SpawnTracker({ policy, now });
  t.after(() => stopLearning(tracker.state));
  const { api, log } = hostApi({ claudeConfigDir: w.claudeConfigDir, spawnPreflight: BUSY_GUARD });
  const ctx = { agentId: 'main', sessionKey: REQUESTER };
  let n = 0;
  const spawn = (task, cwd = w.repo) => preflight(api, tracker, { params: { runtime: 'acp', agentId: 'claude', task, cwd }, toolCallId: `call-${++n}` }, ctx);
  const first = await spawn('Fix the README typo');
  const child = 'agent:claude:acp:quick';
  await onSpawnResult(api, tracker, { toolName: 'sessions_spawn', toolCallId: 'call-1', result: { details: { status: 'accepted', childSessionKey: child } } }, {});
  const s = tracker.state.spawns.get(nonceOf(first.params.task));
  assert.equal(tracker.hostState(s), 'running');
  now.advance(5000);
  assert.equal((await spawn('Add a badge')).block, true, 'running: busy');
  // Claude Code answered; OpenClaw asks where to announce it (subagent_delivery_target).
  assert.equal(onRunDelivered(api, tracker, { childSessionKey: child }), undefined, 'the announce goes where OpenClaw sends it');
  assert.equal(tracker.hostState(s), 'waiting');
  now.advance(1000);
  assert.ok(now() - s.startedAt < policy.startGraceMs);
  // Its transcript was written a moment ago and its session is not learned yet: its
  // last write is no sign of work either.
  const id = uuid();
  writeSession(w.claudeConfigDir, w.repo, id, jsonl([userLine(id, first.params.task, { cwd: w.repo })]));
  assert.equal(s.claudeSessionId, undefined);
  const second = await spawn('Add a badge');
  assert.ok(second?.params && !second.params.cwd, `the second runs in the working tree: ${JSON.stringify(second)}`);
  // OpenClaw reports the end once the announce was delivered: ended, recorded.
  await onChildEnded(api, tracker, { targetSessionKey: child, outcome: 'ok', reason: 'subagent-complete', endedAt: now() });
  assert.equal(tracker.hostState(s), 'ended');
  const rec = (await addon.listSpawns('main', w.stateDir)).find((r) => r.nonce === s.nonce);
  assert.deepEqual([rec.childSessionKey, rec.outcome, rec.endedAt], [child, 'ok', new Date(now()).toISOString()]);
  // A run OpenClaw failed: failed, recorded so.
  const third = await spawn('Add a second badge', w.other);
  const failedChild = 'agent:claude:acp:failed';
  await onSpawnResult(api, tracker, { toolName: 'sessions_spawn', toolCallId: `call-${n}`, result: { details: { status: 'accepted', childSessionKey: failedChild } } }, {});
  await onChildProgress(api, tracker, { phase: 'ended', childSessionKey: failedChild, outcome: 'error' }, { requesterSessionKey: REQUESTER });
  const failed = tracker.byChild(failedChild);
  assert.deepEqual([failed?.nonce, tracker.hostState(failed)], [nonceOf(third.params.task), 'failed']);
  assert.deepEqual(log.warn, []);
});

// ------------------------------------------------------------ one state per process

test('two copies of the plugin, as OpenClaw loads one for each registration and config reload, share the spawns in flight', async (t) => {
  const w = world();
  process.env.OPENCLAW_STATE_DIR = w.stateDir;
  t.after(() => delete process.env.OPENCLAW_STATE_DIR);
  const copies = [];
  for (const n of [1, 2]) {
    // The package copied as OpenClaw captures it, the addon shared.
    const dir = tempDir(`osi-plugin-copy${n}-`);
    fs.cpSync(path.join(root, 'plugin'), path.join(dir, 'plugin'), { recursive: true });
    fs.symlinkSync(path.join(root, 'entry.js'), path.join(dir, 'entry.js'));
    copies.push((await import(pathToFileURL(path.join(dir, 'plugin', 'index.mjs')).href)).default);
  }
  assert.notEqual(copies[0], copies[1], 'two module instances');
  // A requester of its own: the spawns of this process's state stay apart from the other tests'.
  const requester = 'agent:main:copies';
  const before = load({ claudeConfigDir: w.claudeConfigDir, spawnPreflight: BUSY_GUARD }, undefined, copies[0]);
  const after = load({ claudeConfigDir: w.claudeConfigDir, spawnPreflight: BUSY_GUARD }, undefined, copies[1]);
  t.after(() => after.api.service.stop());
  const first = await before.fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'Refactor the cart', cwd: w.repo }, requester));
  assert.ok(first.params);
  // The copy loaded after a config reload knows the spawn the one before let through...
  const busy = await after.fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'Add tax', cwd: w.repo }, requester));
  assert.equal(busy?.block, true, 'the repository is busy for the newer copy');
  // ...and tracks it to its end.
  const child = 'agent:claude:acp:copies';
  await after.fire('subagent_progress', { phase: 'started', childSessionKey: child }, { requesterSessionKey: requester });
  await after.fire('subagent_progress', { phase: 'ended', childSessionKey: child, outcome: 'ok' }, { requesterSessionKey: requester });
  assert.ok((await before.fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'Add tax', cwd: w.repo }, requester))).params, 'free for the older copy too');
  assert.deepEqual([...before.log.warn, ...after.log.warn], []);
});

// ------------------------------------------------------------ the plugin's hooks


test('hooks: only ACP spawns of the claude harness are touched', async (t) => {
  const cfg = { acp: { defaultAgent: 'claude' }, agents: { entries: { coder: { runtime: { type: 'acp', acp: { agent: 'claude' } } }, codexer: { runtime: { type: 'acp', acp: { agent: 'codex' } } } } } };
  assert.equal(isClaudeAcpSpawn({ runtime: 'acp', agentId: 'claude' }, cfg), true);
  assert.equal(isClaudeAcpSpawn({ runtime: 'acp' }, cfg), true, 'acp.defaultAgent');
  assert.equal(isClaudeAcpSpawn({ runtime: 'acp', agentId: 'coder' }, cfg), true, 'an agent entry whose ACP agent is claude');
  assert.equal(isClaudeAcpSpawn({ runtime: 'acp', agentId: 'codexer' }, cfg), false);
  assert.equal(isClaudeAcpSpawn({ runtime: 'acp', agentId: 'codex' }, cfg), false);
  assert.equal(isClaudeAcpSpawn({ runtime: 'subagent', agentId: 'claude' }, cfg), false);
  assert.equal(isClaudeAcpSpawn({ agentId: 'claude' }, cfg), false);
  assert.equal(isClaudeAcpSpawn({ runtime: 'acp' }, {}), false);
  const w = world();
  process.env.OPENCLAW_STATE_DIR = w.stateDir;
  t.after(() => delete process.env.OPENCLAW_STATE_DIR);
  const { hooks, fire, log } = load({ claudeConfigDir: w.claudeConfigDir });
  const before = hooks.before_tool_call[0];
  assert.deepEqual(before.opts.matcher, ['sessions_spawn']);
  assert.ok(before.opts.timeoutMs < 15_000);
  assert.equal(await fire('before_tool_call', ...spawnCall({ runtime: 'subagent', task: 'x' })), undefined);
  assert.equal(await fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'codex', task: 'x' })), undefined);
  // Without a task OpenClaw refuses the call itself: nothing is added, nothing recorded.
  assert.equal(await fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', cwd: w.repo })), undefined);
  assert.deepEqual(await addon.listSpawns('main', w.stateDir), []);
  assert.deepEqual(log.warn, []);
});

test('hooks: briefs, records, tracks the spawn to its end, learns its session, and never stands in the way', async (t) => {
  const w = world();
  process.env.OPENCLAW_STATE_DIR = w.stateDir;
  t.after(() => delete process.env.OPENCLAW_STATE_DIR);
  const { fire, log, api } = load({ claudeConfigDir: w.claudeConfigDir, spawnPreflight: BUSY_GUARD });
  t.after(() => api.service.stop?.());

  // No cwd: blocked, naming the requester's workspace.
  const blocked = await fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'Fix it' }));
  assert.equal(blocked.block, true);
  assert.match(blocked.blockReason, /cwd.*\/ws\/main/s);

  // Briefed; recorded.
  const first = await fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'Refactor the cart', cwd: w.repo, label: 'cart' }));
  assert.deepEqual(Object.keys(first.params), ['task']);
  assert.ok(first.params.task.startsWith('Refactor the cart\n\n---\n[openclaw:agent=main,spawn='));
  const nonce = first.params.task.match(/spawn=([0-9a-f]+)\]/)[1];
  const [rec] = await addon.listSpawns('main', w.stateDir);
  assert.deepEqual([rec.nonce, rec.task, rec.label, rec.cwd, rec.repoPath, rec.requesterSessionKey, rec.decision], [nonce, 'Refactor the cart', 'cart', w.repo, w.repo, 'agent:main:main', 'brief']);
  assert.ok(log.info.some((l) => l.includes(`spawn pre-flight brief ${nonce}`)), log.info.join('\n'));

  // In flight: the same repository is blocked, another is not.
  const again = await fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'Add tax', cwd: path.join(w.repo, 'src') }));
  assert.equal(again.block, true);
  assert.ok((await fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'Write a post', cwd: w.other }))).params);
  const child = 'agent:claude:acp:0001';
  await fire('subagent_progress', { phase: 'started', runId: 'r1', childSessionKey: child }, { runId: 'r1', childSessionKey: child, requesterSessionKey: 'agent:main:main' });
  const named = await fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'Add tax', cwd: w.repo }));
  assert.match(named.blockReason, new RegExp(child));

  // Claude Code writes the transcript; the run ends; the session is learned and recorded.
  const id = uuid();
  writeSession(w.claudeConfigDir, w.repo, id, jsonl([userLine(id, first.params.task, { cwd: w.repo })]));
  await fire('subagent_progress', { phase: 'ended', runId: 'r1', childSessionKey: child, outcome: 'ok' }, { runId: 'r1', childSessionKey: child, requesterSessionKey: 'agent:main:main' });
  const done = (await addon.listSpawns('main', w.stateDir)).find((s) => s.nonce === nonce);
  assert.deepEqual([done.claudeSessionId, done.childSessionKey, done.outcome], [id, child, 'ok']);
  assert.ok(done.endedAt);
  const listed = (await addon.discoverSessions(w.repo, { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir })).find((s) => s.sessionId === id);
  assert.deepEqual([listed.source, listed.label, listed.lastTask, listed.title], ['openclaw', 'cart', 'Refactor the cart', 'Refactor the cart']);
  // Ended: the repository is free again, although its transcript was written seconds ago.
  const free = await fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'Add tax', cwd: w.repo }));
  assert.ok(free.params, free.blockReason);
  assert.deepEqual(log.warn, []);
});


test('hooks: an overrun lets the spawn proceed with its task and origin marker; it is recorded and its session learned', async (t) => {
  const w = world();
  process.env.OPENCLAW_STATE_DIR = w.stateDir;
  t.after(() => delete process.env.OPENCLAW_STATE_DIR);
  const slow = load({ claudeConfigDir: w.claudeConfigDir, spawnPreflight: { budgetMs: 1 } });
  const out = await slow.fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'Tidy the cart', cwd: w.repo, label: 'tidy' }));
  const nonce = nonceOf(out.params.task);
  assert.equal(out.params.task, addon.markSpawnTask('Tidy the cart', 'main', nonce));
  assert.equal(out.params.task, `Tidy the cart\n\n---\n[openclaw:agent=main,spawn=${nonce}]`);
  assert.deepEqual(slow.log.warn, ['openclaw-session-intel: spawn pre-flight took longer than 1 ms, the spawn proceeds with its task and origin marker only']);
  // Without a task there is nothing to mark: OpenClaw refuses the call itself.
  assert.equal(await slow.fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', cwd: w.repo })), undefined);
  const recorded = async () => (await addon.listSpawns('main', w.stateDir)).find((r) => r.nonce === nonce);
  const rec = await until('the overrun spawn recorded', recorded, 10_000, 100);
  assert.deepEqual([rec.task, rec.label, rec.cwd, rec.decision, rec.requesterSessionKey], ['Tidy the cart', 'tidy', w.repo, 'overrun', 'agent:main:main']);
  // It holds its repository like any spawn in flight.
  const patient = load({ claudeConfigDir: w.claudeConfigDir, spawnPreflight: BUSY_GUARD });
  const again = await patient.fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'Add tax', cwd: w.repo }));
  assert.equal(again?.block, true, 'the repository of the overrun spawn is busy');
  // Claude Code writes its transcript: the plugin learns the session by its nonce.
  const id = uuid();
  writeSession(w.claudeConfigDir, w.repo, id, jsonl([userLine(id, out.params.task, { cwd: w.repo })]));
  await until('the session learned', async () => (await recorded()).claudeSessionId === id, 10_000, 100);
  const listed = (await addon.discoverSessions(w.repo, { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir })).find((s) => s.sessionId === id);
  assert.deepEqual([listed.source, listed.label, listed.title], ['openclaw', 'tidy', 'Tidy the cart']);
});

test('hooks: an error lets the spawn proceed with its task and origin marker, recorded, with one warning', async (t) => {
  const w = world();
  process.env.OPENCLAW_STATE_DIR = w.stateDir;
  t.after(() => delete process.env.OPENCLAW_STATE_DIR);
  const broken = load({ claudeConfigDir: path.join(w.repo, 'notes.txt') });
  const out = await broken.fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'x', cwd: w.repo }));
  const nonce = nonceOf(out.params.task);
  assert.equal(out.params.task, addon.markSpawnTask('x', 'main', nonce));
  assert.equal(broken.log.warn.length, 1);
  assert.match(broken.log.warn[0], /spawn pre-flight failed, the spawn proceeds with its task and origin marker only \(.*not a folder/);
  // The record is written after the hook answered.
  const recorded = async () => (await addon.listSpawns('main', w.stateDir)).find((r) => r.nonce === nonce);
  const rec = await until('the failed pre-flight\'s spawn recorded', recorded, 10_000, 100);
  assert.deepEqual([rec.task, rec.cwd, rec.decision], ['x', w.repo, 'failed']);
  // A host config the plugin cannot read: it cannot tell a Claude Code spawn, so it leaves it as asked.
  const hostile = load({ claudeConfigDir: w.claudeConfigDir }, { get acp() { throw new Error('config unreadable'); } });
  assert.equal(await hostile.fire('before_tool_call', ...spawnCall({ runtime: 'acp', task: 'x', cwd: w.repo })), undefined);
  assert.equal(hostile.log.warn.length, 1);
  assert.match(hostile.log.warn[0], /config unreadable/);
  const off = load({ claudeConfigDir: w.claudeConfigDir, spawnPreflight: { enabled: false } });
  assert.equal(await off.fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'x' })), undefined);
});

test('hooks: a guard in warn mode lets the spawn pass with its origin marker, recorded', async (t) => {
  const w = world();
  process.env.OPENCLAW_STATE_DIR = w.stateDir;
  t.after(() => delete process.env.OPENCLAW_STATE_DIR);
  const warnOnly = load({ claudeConfigDir: w.claudeConfigDir, spawnPreflight: { ...PATIENT, guards: { missingCwd: 'warn' } } });
  const out = await warnOnly.fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'x' }));
  assert.equal(out.params.task, addon.markSpawnTask('x', 'main', nonceOf(out.params.task)));
  assert.equal(warnOnly.log.warn.length, 1);
  assert.match(warnOnly.log.warn[0], /warning \(missingCwd\)/);
  const rec = (await addon.listSpawns('main', w.stateDir)).find((r) => r.nonce === nonceOf(out.params.task));
  assert.deepEqual([rec?.task, rec?.cwd, rec?.decision], ['x', undefined, 'pass']);
});

test('hooks: after a gateway restart, a recorded spawn whose session was not learned yet is looked for again', async (t) => {
  const w = world();
  const task = 'Rename the cart helpers';
  const nonce = 'a1b2c3d4e5f60718';
  const startedAt = new Date(Date.now() - 30_000).toISOString();
  await addon.recordSpawn('main', { nonce, task, cwd: w.repo, repoPath: w.repo, mode: 'run', decision: 'brief', startedAt }, w.stateDir);
  const { api, log } = load({ claudeConfigDir: w.claudeConfigDir });
  api.service.start({ stateDir: w.stateDir });
  t.after(() => api.service.stop());
  const id = uuid();
  writeSession(w.claudeConfigDir, w.repo, id, jsonl([userLine(id, addon.markSpawnTask(task, 'main', nonce), { cwd: w.repo })]));
  const learned = async () => (await addon.listSpawns('main', w.stateDir)).find((r) => r.nonce === nonce)?.claudeSessionId;
  for (let i = 0; i < 100 && !(await learned()); i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(await learned(), id);
  assert.equal((await addon.discoverSessions(w.repo, { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir })).find((s) => s.sessionId === id)?.source, 'openclaw');
  assert.deepEqual(log.warn, []);
});

test('slim after the run: a session the pre-flight could not slim in time is slimmed in the background once its spawn has ended, never before', async () => {
  const w = world();
  const id = uuid();
  const big = [{ type: 'tool_result', tool_use_id: 't1', content: 'x'.repeat(400_000) }];
  const file = writeSession(w.claudeConfigDir, w.repo, id, jsonl([userLine(id, 'Refactor the cart', { cwd: w.repo }), userLine(id, big, { cwd: w.repo })]));
  const size = fs.statSync(file).size;
  const now = clock();
  const tracker = new SpawnTracker({ policy, now });
  const s = tracker.track(asked(now, 'n-slim', { cwd: w.repo, repoPath: w.repo }));
  const { api, log } = hostApi({});
  slimAfterRun(api, tracker, { nonce: 'n-slim', sessionId: id, claudeConfigDir: w.claudeConfigDir, everyMs: 20 });
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  await wait(150);
  assert.equal(fs.statSync(file).size, size, 'not while the run goes on');
  tracker.end(s);
  for (let i = 0; i < 100 && fs.statSync(file).size === size; i++) await wait(20);
  assert.ok(fs.statSync(file).size * 10 < size, `${size} → ${fs.statSync(file).size}`);
  for (let i = 0; i < 100 && !log.info.length; i++) await wait(20);
  assert.match(log.info.join('\n'), new RegExp(`slimmed Claude Code session ${id} after its run`));
  assert.deepEqual(log.warn, []);
});
