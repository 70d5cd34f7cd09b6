// Inputs shaped as the reference typed them. Every exported function that
// takes an object is called with one built exactly to the type its callers
// use (the reference TypeScript's for `sessions.ts`, `project-status.ts` and
// `session-selection.ts` and for the objects they return; this addon's first
// published shape for a result it takes back), and with every field it may
// leave out left out. A field that becomes required again fails here with
// napi's `Missing field …`; the last test fails when an exported function
// that takes an object is not called here. See COMPATIBILITY.md, "Inputs".

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { addon, root, tempDir, userLine, assistantLine, jsonl, writeSession, openclawTranscript } from './support/helpers.mjs';

// Everything below reads and writes only these folders, and never asks a model.
const base = fs.realpathSync(tempDir('osi-ref-inputs-'));
const state = path.join(base, 'state');
const claude = path.join(base, 'claude');
process.env.OPENCLAW_STATE_DIR = state;
process.env.CLAUDE_CONFIG_DIR = claude;
process.env.OPENCLAW_SESSION_INTEL_CACHE_DIR = path.join(base, 'cache');
delete process.env.OPENCLAW_HOME;
delete process.env.OPENCLAW_PROFILE;
delete process.env.ANTHROPIC_API_KEY;

/** The functions this suite called, for the coverage check at the end. */
const called = new Set();
const a = new Proxy(addon, {
  get(target, name) {
    called.add(name);
    return target[name];
  },
});

const HOUR = 3600_000;
const TASK = 'Add retries to the webhook handler';

// A real repository (git CLI) with one commit and one change, and a Claude
// Code session of it with one prompt and one response.
const repo = path.join(base, 'repo');
fs.mkdirSync(repo);
const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'fonz', GIT_AUTHOR_EMAIL: 'f@e', GIT_COMMITTER_NAME: 'fonz', GIT_COMMITTER_EMAIL: 'f@e' };
const git = (...args) => execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd: repo, env: gitEnv });
git('init', '-q');
fs.writeFileSync(path.join(repo, 'README.md'), 'webhooks\n');
git('add', '.');
git('commit', '-qm', 'Add the webhook handler');
fs.writeFileSync(path.join(repo, 'README.md'), 'webhooks, with retries\n');
const CC = 'cccccccc-0000-4000-8000-000000000001';
const ccFile = writeSession(claude, repo, CC, jsonl([
  userLine(CC, 'Add retries to the webhook handler', { cwd: repo }),
  assistantLine(CC, 'msg_1', { input_tokens: 1200, output_tokens: 300 }, { cwd: repo }),
]));
// Written an hour ago: a session at rest, not one running now.
fs.utimesSync(ccFile, new Date(Date.now() - HOUR), new Date(Date.now() - HOUR));

// An OpenClaw agent with one transcript (three tool turns).
const sessionsDir = path.join(state, 'agents', 'main', 'sessions');
fs.mkdirSync(sessionsDir, { recursive: true });
const OC = 'dddddddd-0000-4000-8000-000000000002';
fs.writeFileSync(path.join(sessionsDir, `${OC}.jsonl`), openclawTranscript(3));

/** A `DiscoveredSession` exactly as the reference types it: every field it
 *  declares, no other. */
const refSession = (over = {}) => ({
  sessionId: CC, source: 'openclaw', agentId: 'main', repoPath: repo, branch: 'main',
  firstMessage: 'Add retries to the webhook handler', lastModified: new Date(Date.now() - HOUR / 2),
  messageCount: 12, fileSizeBytes: 4096, totalCostUsd: 0.5, totalTurns: 3, lastTask: 'Add retries to the webhook handler',
  label: 'hooks', slug: 'brave-otter', isRunning: false, originMarker: 'main',
  totalInputTokens: 1200, totalOutputTokens: 300, compactionCount: 0, budgetUsedPct: 0.1, ...over,
});
/** The same session with every field that may be absent on the way in left out. */
const bareSession = (over = {}) => ({
  sessionId: CC, branch: 'main', firstMessage: 'Add retries to the webhook handler', lastModified: new Date(Date.now() - HOUR / 2),
  messageCount: 12, ...over,
});
/** The reference's `ProjectStatus`, every field it declares and no other. */
const refStatus = (sessions) => ({
  repo: { path: repo, name: 'repo', isGitRepo: true },
  git: {
    currentBranch: 'main', headCommitSha: 'abc1234', headCommitMessage: 'Add the webhook handler',
    uncommittedChanges: [' M README.md'], stagedChanges: [], stashCount: 0,
    recentCommits: [{ sha: 'abc1234', message: 'Add the webhook handler', author: 'fonz', date: '2 hours ago' }],
  },
  github: {
    openPrs: [{ number: 7, title: 'Retries', branch: 'retries', state: 'OPEN' }],
    failingChecks: [{ name: 'ci', status: 'FAILURE' }],
  },
  sessions: { active: [], recent: sessions, ownRecent: sessions },
  docs: { hasClaudeMd: false, hasSpecs: false, specFiles: [], hasTodo: false, hasReadme: true },
  timestamp: new Date().toISOString(),
});
/** A briefing with only what every function taking one needs. */
const bareStatus = (sessions, active = []) => ({ git: { currentBranch: 'main' }, sessions: { active, recent: sessions } });
/** The reference's `SessionSelectionConfig` (offline: `enabled: false`). */
const refConfig = { relevanceModel: 'claude-haiku', relevanceMaxTokens: 500, relevanceTimeoutMs: 3000, resumeThreshold: 0.6, enabled: false };
const relevance = { sessionId: CC, relevance: 0.9, reasoning: 'same work' };

/** Keeps `keys` of `object`, as a caller typed to the reference holds it. */
const pick = (object, keys) => Object.fromEntries(keys.filter((k) => k in object).map((k) => [k, object[k]]));
const REF_SESSION_KEYS = Object.keys(refSession());

test('sessionListToolPayload: a reference-typed session, and one with every optional field absent', () => {
  const full = a.sessionListToolPayload([refSession()]);
  assert.equal(full.total, 1);
  assert.deepEqual({ ...full.sessions[0], lastModified: undefined }, {
    sessionId: CC, source: 'openclaw', agent: 'main', branch: 'main', firstMessage: 'Add retries to the webhook handler',
    lastModified: undefined, messageCount: 12, cost: 0.5, turns: 3, lastTask: 'Add retries to the webhook handler', isRunning: false,
    slimSavingsTokens: 0,
  });
  assert.deepEqual(full.worthSlimming, [], 'left out: nothing to save');
  assert.match(full.sessions[0].lastModified, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  // Absent: no agent, so `native-only`; not running.
  const bare = a.sessionListToolPayload([bareSession()], {});
  assert.deepEqual([bare.sessions[0].source, bare.sessions[0].isRunning, bare.activeCount], ['native-only', false, 0]);
  assert.equal(a.sessionListToolPayload([bareSession({ agentId: 'main' })]).sessions[0].source, 'openclaw');
  assert.equal(a.sessionListToolPayload([bareSession()], { includeNative: false }).total, 0);
});

test('projectStatusToolPayload: a reference-typed status, and one with every optional field absent', () => {
  const full = a.projectStatusToolPayload(refStatus([refSession()]));
  assert.equal(full.repo, 'repo');
  assert.equal(full.headCommit, 'abc1234 \u2014 Add the webhook handler');
  assert.deepEqual(full.uncommittedChanges, [' M README.md']);
  assert.deepEqual(full.recentCommits, [{ sha: 'abc1234', message: 'Add the webhook handler', author: 'fonz', date: '2 hours ago' }]);
  assert.deepEqual(full.openPrs, [{ number: 7, title: 'Retries', branch: 'retries', status: 'open' }]);
  assert.deepEqual({ ...full.recentSessions[0], age: undefined }, { sessionId: CC, agent: 'main', branch: 'main', lastTask: 'Add retries to the webhook handler', age: undefined });
  const { github, ...withoutGithub } = refStatus([refSession()]);
  assert.deepEqual(a.projectStatusToolPayload(withoutGithub), { ...full, openPrs: [] });
  // Every part but the branch and the sessions absent: empty. Absent
  // `lastTask` and `lastUserMessage`: the first prompt says what it was about.
  const bare = a.projectStatusToolPayload(bareStatus([bareSession()]));
  assert.deepEqual({ ...bare, recentSessions: undefined }, {
    repo: '', branch: 'main', headCommit: '', uncommittedChanges: [], stagedChanges: [], stashCount: 0, recentCommits: [],
    activeSessions: [], recentSessions: undefined, docs: { claudeMd: false, specs: [], todo: false }, openPrs: [],
  });
  assert.deepEqual({ ...bare.recentSessions[0], age: undefined }, { sessionId: CC, branch: 'main', lastTask: 'Add retries to the webhook handler', age: undefined });
});

test('scoreSession and keywordFallback: counts come from messageCount when promptCount and responseCount are absent', () => {
  const full = a.scoreSession(refSession(), TASK, 'main', relevance);
  assert.equal(full.recommendation, 'resume');
  assert.deepEqual(full.factors, { branchMatch: 0.25, recency: 0.2, taskRelevance: 0.25, sessionHealth: 0.15, contextCapacity: 0.15 });
  assert.deepEqual(a.scoreSession(bareSession(), TASK, 'main', relevance, undefined).factors, full.factors);
  // 600 lines and no prompt or response counts: a long conversation, as the reference read it.
  assert.ok(Math.abs(a.scoreSession(bareSession({ messageCount: 600 }), TASK, 'main', relevance).factors.sessionHealth - 0.08) < 1e-9);
  const counted = bareSession({ messageCount: 600, promptCount: 10, responseCount: 20 });
  assert.equal(a.scoreSession(counted, TASK, 'main', relevance).factors.sessionHealth, 0.15);
  // No context window: 200000 tokens, so over 4000 tokens per message costs capacity.
  const heavy = bareSession({ totalInputTokens: 60_000, totalOutputTokens: 0 });
  assert.ok(Math.abs(a.scoreSession(heavy, TASK, 'main', relevance).factors.contextCapacity - 0.12) < 1e-9);
  assert.equal(a.scoreSession({ ...heavy, contextWindow: 1_000_000 }, TASK, 'main', relevance).factors.contextCapacity, 0.15);

  const words = { sessionId: CC, relevance: 1, reasoning: 'keyword overlap: 3/3 words' };
  assert.deepEqual(a.keywordFallback(TASK, refSession()), words);
  assert.deepEqual(a.keywordFallback(TASK, bareSession()), words);
});

test('assessTaskRelevance and selectSession: a reference-typed status and config, and bare ones', async () => {
  const rated = async (...args) => (await a.assessTaskRelevance(...args)).map((r) => [r.sessionId, r.relevance]);
  assert.deepEqual(await rated(TASK, [refSession()], refConfig), [[CC, 1]]);
  assert.deepEqual(await rated(TASK, [bareSession()], {}), [[CC, 1]]);
  assert.deepEqual(await rated(TASK, [bareSession()]), [[CC, 1]]);

  const full = await a.selectSession(TASK, repo, 'main', refStatus([refSession()]), undefined, 10, refConfig);
  assert.deepEqual([full.action, full.sessionId, full.scores.length], ['resume', CC, 1]);
  // Without `agentId` a session is no agent's own: nothing to resume.
  const bare = await a.selectSession(TASK, repo, 'main', bareStatus([bareSession()]), undefined, undefined, {});
  assert.equal(bare.action, 'fresh');
  const own = await a.selectSession(TASK, repo, 'main', bareStatus([bareSession({ agentId: 'main' })]));
  assert.deepEqual([own.action, own.sessionId], ['resume', CC]);
  const queued = await a.selectSession(TASK, repo, 'main', bareStatus([], [bareSession()]));
  assert.equal(queued.action, 'queue');
});

test('the same briefing and sessions, cut down to the reference’s fields, give the same payloads and choice', async () => {
  const status = await a.gatherProjectStatus(repo, 'main', {});
  const sessions = await a.discoverSessions(repo, {});
  assert.equal(sessions.length, 1);
  const asReference = (s) => pick(s, REF_SESSION_KEYS);
  const reduced = {
    ...pick(status, ['repo', 'github', 'docs', 'timestamp']),
    git: pick(status.git, ['currentBranch', 'headCommitSha', 'headCommitMessage', 'uncommittedChanges', 'stagedChanges', 'stashCount', 'recentCommits']),
    sessions: { active: status.sessions.active.map(asReference), recent: status.sessions.recent.map(asReference), ownRecent: status.sessions.ownRecent.map(asReference) },
  };
  assert.deepEqual(a.projectStatusToolPayload(reduced), a.projectStatusToolPayload(status));
  assert.deepEqual(a.sessionListToolPayload(sessions.map(asReference)), a.sessionListToolPayload(sessions));
  const choose = (s) => a.selectSession(TASK, repo, 'main', s, undefined, undefined, refConfig);
  assert.deepEqual(await choose(reduced), await choose(status));
});

test('sessions.ts: registry meta and stats, peek options, as the reference types them and empty', () => {
  a.saveSession('main', repo, CC, { userId: 'u1', channel: 'slack', task: 'first task', costUsd: 0.25, label: 'hooks' });
  a.saveSession('main', repo, CC, {});
  a.saveSession('main', repo, CC);
  a.updateSessionStats('main', repo, { turns: 2, costUsd: 0.5 }, 'hooks');
  a.updateSessionStats('main', repo, {});
  const entries = a.listSessions('main');
  assert.deepEqual(Object.keys(entries).sort(), [repo, `${repo}::hooks`].sort());
  const labelled = entries[`${repo}::hooks`];
  assert.deepEqual([labelled.totalTurns, labelled.totalCostUsd, labelled.triggeredBy, labelled.taskHistory.map((t) => t.task)],
    [2, 0.75, { userId: 'u1', channel: 'slack' }, ['first task']]);
  assert.equal(a.peekSessionHistory(repo, CC, { maxMessages: 1, maxChars: 4000 }), '[CC]: ok');
  assert.equal(a.peekSessionHistory(repo, CC, {}), '[User]: Add retries to the webhook handler\n\n[CC]: ok');
});

test('options of discovery, briefings and the pre-flight: every option absent', async () => {
  assert.equal((await a.discoverSessions(repo, {}))[0].sessionId, CC);
  assert.equal(JSON.parse(await a.discoverSessionsJson(repo, {}))[0].sessionId, CC);
  assert.equal((await a.gatherProjectStatus(repo, undefined, {})).git.currentBranch, 'main');
  assert.equal((await a.parseJsonlHeader(ccFile)).lineCount, 2);
  const blocked = await a.preflightSpawn({ task: TASK }, {});
  assert.deepEqual([blocked.decision, blocked.guard], ['block', 'missingCwd']);
  const elsewhere = path.join(base, 'elsewhere');
  const briefed = await a.preflightSpawn({ task: TASK, cwd: repo }, { inFlight: [{ cwd: elsewhere }], resumable: [{ claudeSessionId: CC, cwd: elsewhere }] });
  assert.equal(briefed.decision, 'brief', briefed.reason);
  const record = await a.recordSpawn('main', { nonce: 'n0nce0000000001' }, state);
  assert.equal(record.nonce, 'n0nce0000000001');
  assert.equal((await a.listSpawns('main', state)).length, 1);
  assert.equal(await a.findSpawnedSession(repo, 'n0nce0000000001', {}), null);
  assert.deepEqual(await a.listSpawnWorktrees(repo, {}), []);
  assert.deepEqual(await a.pruneSpawnWorktrees(repo, {}), []);
  assert.equal((await a.spawnOutcomes({}))[0].nonce, 'n0nce0000000001');
});

test('resume pins and failure verdicts: only the fields each needs', async () => {
  const turn = { conversationId: 'c1', agentId: 'main', workDir: repo, runtimeId: 'claude@2.1', historyEpoch: 0 };
  assert.deepEqual(await a.pinSession({ ...turn, sessionId: CC }), { pinned: true, reason: 'pinned' });
  const decision = await a.resolveResumeDecision(turn);
  assert.deepEqual([decision.resume, decision.sessionId], [true, CC]);
  assert.equal(await a.bumpHistoryEpoch('c1', 'main', {}), 1);
  assert.equal(await a.clearPin({ conversationId: 'c1', agentId: 'main', expectedSessionId: CC }), true);
  await a.retireSession(CC, 'test', {});
  assert.equal((await a.pinSession({ ...turn, historyEpoch: 1, sessionId: CC })).reason, 'retired');
  assert.equal(a.classifyResumeFailure({ requestedSessionId: CC }).reason, 'succeeded');
  assert.match(a.buildTaskContent(TASK, { agentId: 'main' }), /^\[openclaw:agent=main\]\n\n/);
});

test('hooks: a context pressure without contextWindow (its first shape), and bare options', async () => {
  const pressure = await a.contextPressure({ transcriptPath: ccFile });
  assert.equal(pressure.tokens, 1200);
  const wake = { agentId: 'main', tmuxSessionName: 'main-cc', trigger: 'response_complete', paneText: '> ' };
  const first = { percent: pressure.percent, tokens: pressure.tokens, level: pressure.level, line: pressure.line };
  assert.match(a.buildWakeMessage({ ...wake, contextPressure: first }), new RegExp(`\\[CONTEXT PRESSURE\\]\\n${pressure.line.replace(/[[\]]/g, '\\$&')}`));
  assert.equal(a.buildWakeMessage({ ...wake, contextPressure: pressure }), a.buildWakeMessage({ ...wake, contextPressure: first }));
  assert.match(a.buildWakeMessage(wake), /context: unknown/);
  const registry = { agents: [{ agent_id: 'main', tmux_session_name: 'main-cc' }] };
  assert.equal(a.resolveHookSettings(registry, 'main').hook_mode, 'async');
  assert.deepEqual(a.validateHookRegistry(registry), []);
});

test('transcripts and handoff: every option absent', async () => {
  assert.equal((await a.listTranscripts({}))[0].sessionId, OC);
  assert.equal(await a.resolveTranscriptId(undefined, {}), OC);
  assert.equal((await a.transcriptInfo(OC, {})).turnCount, 3);
  assert.equal((await a.executeEdit({})).sessionId, OC);
  await a.executeEdit({ toolRemoval: { preset: 'extreme' } });
  assert.equal((await a.restoreFromBackup(undefined, {})).sessionId, OC);
  assert.ok((await a.exportTranscript(undefined, {})).jsonl.startsWith('{"type":"session"'));
  assert.notEqual((await a.executeClone({ noRegister: true })).sessionId, OC);

  const captured = await a.captureHandoff({ agentId: 'main', trigger: 'manual' });
  assert.equal(captured.agentId, 'main');
  assert.equal((await a.handoffStatus({ agentId: 'main' })).offerable, true);
  assert.equal((await a.checkForHandoff({ agentId: 'main' })).agentId, 'main');
  // The original design's SessionState, and only the three fields the block shows.
  const seedState = pick(captured, ['agentId', 'sessionKey', 'previousSessionId', 'createdAt', 'updatedAt', 'expiresAt', 'project', 'mode',
    'patterns', 'summary', 'lastMessageIndex', 'transcriptHash', 'resumeAvailable', 'resumeOfferedAt']);
  const block = a.renderHandoffContext(seedState);
  assert.equal(a.renderHandoffContext(pick(captured, ['updatedAt', 'project', 'summary'])), block);
  assert.deepEqual(await a.clearHandoff({ agentId: 'main' }), { cleared: true });
});

test('slimming a Claude Code session: every option absent', async () => {
  const r = await a.slimClaudeSession(CC, {});
  assert.equal(r.sessionId, CC);
  if (r.changed) assert.equal((await a.restoreClaudeSession(CC, {})).sessionId, CC);
  else await assert.rejects(a.restoreClaudeSession(CC, {}), { code: 'E_NO_BACKUP' });
});

test('repository identity and host pages: every field that may be left out left out', async () => {
  assert.equal(a.sameRepository({}, {}), false);
  assert.deepEqual(await a.localRepositories({}), []);
  const page = await a.hostSessionsPage({ identity: {} });
  assert.deepEqual([page.repositories, page.sessions, page.nextCursor, page.truncated], [[], [], null, false]);
  assert.deepEqual(JSON.parse(await a.hostSessionsPageJson({ identity: {} })).sessions, []);
  assert.deepEqual((await a.hostProjectStatus({ identity: {} })).statuses, []);
  assert.equal(a.remoteWorkBriefing(TASK, [{ host: 'laptop', hostId: 'node:a', sessions: [{ sessionId: 'x' }] }]), null);
  assert.deepEqual(JSON.parse(await a.hostPageRowsJson('{}', { id: 'node:a', name: 'laptop' })).rows, []);
});

test('every exported function that takes an object is called above', () => {
  const dts = fs.readFileSync(path.join(root, 'index.d.ts'), 'utf8');
  const interfaces = new Set([...dts.matchAll(/^export interface (\w+)/gm)].map((m) => m[1]));
  const takesObject = [];
  for (const [, name, params] of dts.matchAll(/^export declare function (\w+)\((.*)\):/gm)) {
    const types = params.split(/,\s*(?=\w+\??:)/).map((p) => p.slice(p.indexOf(':') + 1));
    if (types.some((t) => /^\s*(\{|object\b|unknown\b)/.test(t) || [...t.matchAll(/\w+/g)].some(([w]) => interfaces.has(w)))) takesObject.push(name);
  }
  assert.ok(takesObject.length > 30, `found ${takesObject.length} functions`);
  assert.deepEqual(takesObject.filter((name) => !called.has(name)), []);
});
