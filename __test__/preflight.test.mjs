// The spawn pre-flight through the addon (`preflightSpawn`, `recordSpawn`,
// `findSpawnedSession`) on real git repositories, and the plugin's wiring
// of it to OpenClaw's hooks, driven here the way OpenClaw calls them (the
// real gateway, acpx and Claude Code run it in the openclaw suite).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { addon, tempDir, uuid, userLine, jsonl, writeSession } from './support/helpers.mjs';
import plugin from '../plugin/index.mjs';
import { isClaudeAcpSpawn } from '../plugin/spawns/admission.mjs';

/** `git args` in `dir`, with a fixed identity. */
function git(dir, ...args) {
  return execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@e', '-c', 'init.defaultBranch=main', ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir } }).trim();
}

/** A repository with a commit, a branch and changes; its real path. */
function repository(name = 'shop') {
  const dir = path.join(fs.realpathSync(tempDir('osi-pf-')), name);
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  git(dir, 'init', '-q');
  fs.writeFileSync(path.join(dir, 'src', 'cart.js'), 'export const cart = 1;\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'Add the cart');
  git(dir, 'checkout', '-q', '-b', 'feature/totals');
  fs.writeFileSync(path.join(dir, 'src', 'cart.js'), 'export const cart = 2;\n');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'x\n');
  return dir;
}

const world = () => {
  const base = tempDir('osi-pf-world-');
  const claudeConfigDir = path.join(base, 'claude');
  const stateDir = path.join(base, 'state');
  fs.mkdirSync(claudeConfigDir);
  fs.mkdirSync(stateDir);
  return { claudeConfigDir, stateDir, repo: repository(), other: repository('blog') };
};

test('preflightSpawn: the task first and unchanged, then the briefing with the real branch, head and changes', async () => {
  const w = world();
  const head = git(w.repo, 'rev-parse', '--short', 'HEAD');
  const pending = addon.preflightSpawn({ task: 'Refactor the cart', cwd: w.repo, agentId: 'main' }, { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, persistentCache: false });
  assert.ok(pending instanceof Promise, 'runs off the JavaScript thread');
  const r = await pending;
  assert.equal(r.decision, 'brief');
  assert.equal(r.block, false);
  assert.match(r.nonce, /^[0-9a-f]{16}$/);
  assert.equal(r.params.task, `Refactor the cart\n\n${r.briefing}`);
  assert.equal(r.params.resumeSessionId, undefined);
  assert.ok(r.briefing.startsWith(`---\n[openclaw:agent=main,spawn=${r.nonce}]\n`), r.briefing);
  assert.match(r.briefing, new RegExp(`branch feature/totals, head ${head} "Add the cart"`));
  assert.match(r.briefing, /Working tree: 0 staged, 1 modified, 1 untracked: src\/cart\.js, notes\.txt/);
  assert.equal(r.repoPath, w.repo);
  const small = await addon.preflightSpawn({ task: 'Refactor the cart', cwd: w.repo }, { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, briefingMaxChars: 150 });
  assert.equal(small.truncated, true);
  assert.ok(small.briefing.length <= 150);
  assert.match(small.briefing, /\[briefing truncated to 150 characters\]$/);
});

test('preflightSpawn: a work tree whose status takes longer than statusBudgetMs is left out of the briefing, the rest kept', async () => {
  const w = world();
  fs.mkdirSync(path.join(w.repo, 'bulk'));
  for (let i = 0; i < 40_000; i++) fs.writeFileSync(path.join(w.repo, 'bulk', `f${i}.txt`), 'x');
  const o = { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, persistentCache: false };
  const hurried = await addon.preflightSpawn({ task: 'Fix the cart', cwd: w.repo, agentId: 'main' }, { ...o, statusBudgetMs: 1 });
  assert.match(hurried.briefing, /Working tree: not read within the pre-flight's time/);
  assert.match(hurried.briefing, /branch feature\/totals/);
  const patient = await addon.preflightSpawn({ task: 'Fix the cart', cwd: w.repo, agentId: 'main' }, o);
  assert.match(patient.briefing, /Working tree: 0 staged, 1 modified, 2 untracked/);
});

test('preflightSpawn: guards block with a reason, or warn, or are off; a bad mode is a coded error', async () => {
  const w = world();
  const o = { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir };
  const none = await addon.preflightSpawn({ task: 't', requesterWorkspace: '/ws/main' }, o);
  assert.deepEqual([none.block, none.guard, none.params], [true, 'missingCwd', undefined]);
  assert.match(none.reason, /`cwd`.*\/ws\/main/s);
  const warned = await addon.preflightSpawn({ task: 't' }, { ...o, missingCwd: 'warn' });
  assert.deepEqual([warned.block, warned.decision, warned.warnings.length], [false, 'pass', 1]);
  assert.equal(warned.params.task, `t\n\n---\n[openclaw:agent=main,spawn=${warned.nonce}]`, 'passed, with its origin marker');
  const missing = path.join(w.repo, 'gone');
  const bad = await addon.preflightSpawn({ task: 't', cwd: missing }, o);
  assert.deepEqual([bad.block, bad.guard], [true, 'invalidCwd']);
  assert.ok(bad.reason.includes(missing));
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: missing }, { ...o, invalidCwd: 'off' })).decision, 'pass');
  const gone = await addon.preflightSpawn({ task: 't', cwd: w.repo, resumeSessionId: uuid() }, o);
  assert.deepEqual([gone.block, gone.guard], [true, 'missingResume']);
  await assert.rejects(addon.preflightSpawn({ task: 't', cwd: w.repo }, { ...o, busy: 'sometimes' }), (e) => e.code === 'E_INVALID_ARGUMENT' && /sometimes/.test(e.message) && typeof e.hint === 'string');
  const file = path.join(w.repo, 'notes.txt');
  await assert.rejects(addon.preflightSpawn({ task: 't', cwd: w.repo }, { ...o, claudeConfigDir: file }), (e) => e.code === 'E_INVALID_ARGUMENT');
});

test('preflightSpawn: a session running in the repository blocks it, naming the session; another repository is not blocked', async () => {
  const w = world();
  const o = { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir };
  const inFlight = [{ cwd: w.repo, repoPath: w.repo, claudeSessionId: undefined, childSessionKey: 'agent:claude:acp:42' }];
  const busy = await addon.preflightSpawn({ task: 't', cwd: path.join(w.repo, 'src') }, { ...o, inFlight });
  assert.deepEqual([busy.block, busy.guard, busy.running.signal], [true, 'busy', 'spawn']);
  assert.match(busy.reason, /agent:claude:acp:42/);
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: w.other }, { ...o, inFlight })).decision, 'brief');
  // Past its start grace a spawn the host was never seen starting no longer
  // counts; one seen starting counts while its session is looked for.
  const { startGraceMs, learnForMs } = addon.SPAWN_POLICY;
  const unseen = { ...inFlight[0], startedAtMs: Date.now() - startGraceMs - 1000, started: false };
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: w.repo }, { ...o, inFlight: [unseen] })).decision, 'brief');
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: w.repo }, { ...o, inFlight: [{ ...unseen, started: true }] })).guard, 'busy');
  const unlearned = { ...unseen, started: true, startedAtMs: Date.now() - learnForMs - 1000 };
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: w.repo }, { ...o, inFlight: [unlearned] })).decision, 'brief');
  const id = uuid();
  writeSession(w.claudeConfigDir, w.repo, id, jsonl([userLine(id, 'rename things', { cwd: w.repo })]));
  const written = await addon.preflightSpawn({ task: 't', cwd: w.repo }, o);
  assert.deepEqual([written.guard, written.running.sessionId, written.running.signal], ['busy', id, 'recent-write']);
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: w.repo }, { ...o, finishedSessionIds: [id] })).decision, 'brief');
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: w.repo }, { ...o, busy: 'off' })).decision, 'brief');
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: w.other }, { ...o, busyWindowMs: 1e300 })).decision, 'brief', 'any window is taken');
});

test('recordSpawn and findSpawnedSession: a spawned session is found by its nonce and listed as OpenClaw\'s with its label and task', async () => {
  const w = world();
  const r = await addon.preflightSpawn({ task: 'Refactor the cart', cwd: w.repo }, { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, nonce: 'feedc0de00000001' });
  assert.equal(r.nonce, 'feedc0de00000001');
  const id = uuid();
  const terminal = uuid();
  const old = new Date(Date.now() - 3600_000);
  fs.utimesSync(writeSession(w.claudeConfigDir, w.repo, id, jsonl([userLine(id, r.params.task, { cwd: w.repo })])), old, old);
  fs.utimesSync(writeSession(w.claudeConfigDir, w.repo, terminal, jsonl([userLine(terminal, 'look around', { cwd: w.repo })])), old, old);
  assert.equal(await addon.findSpawnedSession(w.repo, r.nonce, { claudeConfigDir: w.claudeConfigDir }), id);
  assert.equal(await addon.findSpawnedSession(w.repo, 'nope', { claudeConfigDir: w.claudeConfigDir }), null);
  const stored = await addon.recordSpawn('main', { nonce: r.nonce, task: 'Refactor the cart', label: 'cart', cwd: w.repo, repoPath: r.repoPath, startedAt: new Date().toISOString() }, w.stateDir);
  assert.equal(stored.claudeSessionId, undefined);
  await addon.recordSpawn('main', { nonce: r.nonce, claudeSessionId: id, childSessionKey: 'agent:claude:acp:7' }, w.stateDir);
  assert.deepEqual((await addon.listSpawns('main', w.stateDir)).map((s) => [s.claudeSessionId, s.task, s.childSessionKey]), [[id, 'Refactor the cart', 'agent:claude:acp:7']]);
  const sessions = await addon.discoverSessions(w.repo, { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, persistentCache: false });
  const mine = sessions.find((s) => s.sessionId === id);
  assert.deepEqual([mine.source, mine.agentId, mine.label, mine.lastTask, mine.title, mine.firstMessage, mine.originMarker], ['openclaw', 'main', 'cart', 'Refactor the cart', 'Refactor the cart', 'Refactor the cart', 'main']);
  assert.equal(sessions.find((s) => s.sessionId === terminal).source, 'native-only');
  const tool = addon.sessionListToolPayload(sessions);
  assert.equal(tool.sessions.find((s) => s.sessionId === id).source, 'openclaw');
  await assert.rejects(addon.recordSpawn('../x', { nonce: 'n' }, w.stateDir), (e) => e.code === 'E_INVALID_ARGUMENT');
});

// ------------------------------------------------------------ the plugin

/** Registers the plugin with `config` and collects its typed hooks and log lines. */
function load(config, hostConfig = { acp: { defaultAgent: 'claude' } }) {
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
  plugin.register(api);
  const fire = async (name, event, ctx = {}) => {
    let out;
    for (const { handler } of hooks[name] ?? []) out = await handler(event, ctx);
    return out;
  };
  return { api, hooks, log, fire };
}

const spawnCall = (params, toolCallId = `call-${Math.random()}`) => [{ toolName: 'sessions_spawn', params, toolCallId }, { agentId: 'main', sessionKey: 'agent:main:main', toolName: 'sessions_spawn', toolCallId }];

test('plugin: only ACP spawns of the claude harness are touched', async (t) => {
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

test('plugin: briefs, records, tracks the spawn to its end, learns its session, and never stands in the way', async (t) => {
  const w = world();
  process.env.OPENCLAW_STATE_DIR = w.stateDir;
  t.after(() => delete process.env.OPENCLAW_STATE_DIR);
  const { fire, log, api } = load({ claudeConfigDir: w.claudeConfigDir });
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

/** The nonce of the origin marker in a task. */
const nonceOf = (task) => addon.parseOriginMarker(task)?.spawn;

test('plugin: an overrun lets the spawn proceed with its task and origin marker; it is recorded and its session learned', async (t) => {
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
  const until = async (what, check) => {
    for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(await check(), what);
  };
  const recorded = async () => (await addon.listSpawns('main', w.stateDir)).find((r) => r.nonce === nonce);
  await until('the overrun spawn recorded', recorded);
  const rec = await recorded();
  assert.deepEqual([rec.task, rec.label, rec.cwd, rec.decision, rec.requesterSessionKey], ['Tidy the cart', 'tidy', w.repo, 'overrun', 'agent:main:main']);
  // It holds its repository like any spawn in flight.
  const patient = load({ claudeConfigDir: w.claudeConfigDir });
  const again = await patient.fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'Add tax', cwd: w.repo }));
  assert.equal(again?.block, true, 'the repository of the overrun spawn is busy');
  // Claude Code writes its transcript: the plugin learns the session by its nonce.
  const id = uuid();
  writeSession(w.claudeConfigDir, w.repo, id, jsonl([userLine(id, out.params.task, { cwd: w.repo })]));
  await until('the session learned', async () => (await recorded()).claudeSessionId === id);
  const listed = (await addon.discoverSessions(w.repo, { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir })).find((s) => s.sessionId === id);
  assert.deepEqual([listed.source, listed.label, listed.title], ['openclaw', 'tidy', 'Tidy the cart']);
});

test('plugin: an error lets the spawn proceed with its task and origin marker, recorded, with one warning', async (t) => {
  const w = world();
  process.env.OPENCLAW_STATE_DIR = w.stateDir;
  t.after(() => delete process.env.OPENCLAW_STATE_DIR);
  const broken = load({ claudeConfigDir: path.join(w.repo, 'notes.txt') });
  const out = await broken.fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'x', cwd: w.repo }));
  const nonce = nonceOf(out.params.task);
  assert.equal(out.params.task, addon.markSpawnTask('x', 'main', nonce));
  assert.equal(broken.log.warn.length, 1);
  assert.match(broken.log.warn[0], /spawn pre-flight failed, the spawn proceeds with its task and origin marker only \(.*not a folder/);
  await new Promise((r) => setTimeout(r, 200));
  const rec = (await addon.listSpawns('main', w.stateDir)).find((r) => r.nonce === nonce);
  assert.deepEqual([rec?.task, rec?.cwd, rec?.decision], ['x', w.repo, 'failed']);
  // A host config the plugin cannot read: it cannot tell a Claude Code spawn, so it leaves it as asked.
  const hostile = load({ claudeConfigDir: w.claudeConfigDir }, { get acp() { throw new Error('config unreadable'); } });
  assert.equal(await hostile.fire('before_tool_call', ...spawnCall({ runtime: 'acp', task: 'x', cwd: w.repo })), undefined);
  assert.equal(hostile.log.warn.length, 1);
  assert.match(hostile.log.warn[0], /config unreadable/);
  const off = load({ claudeConfigDir: w.claudeConfigDir, spawnPreflight: { enabled: false } });
  assert.equal(await off.fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'x' })), undefined);
});

test('plugin: a guard in warn mode lets the spawn pass with its origin marker, recorded', async (t) => {
  const w = world();
  process.env.OPENCLAW_STATE_DIR = w.stateDir;
  t.after(() => delete process.env.OPENCLAW_STATE_DIR);
  const warnOnly = load({ claudeConfigDir: w.claudeConfigDir, spawnPreflight: { guards: { missingCwd: 'warn' } } });
  const out = await warnOnly.fire('before_tool_call', ...spawnCall({ runtime: 'acp', agentId: 'claude', task: 'x' }));
  assert.equal(out.params.task, addon.markSpawnTask('x', 'main', nonceOf(out.params.task)));
  assert.equal(warnOnly.log.warn.length, 1);
  assert.match(warnOnly.log.warn[0], /warning \(missingCwd\)/);
  const rec = (await addon.listSpawns('main', w.stateDir)).find((r) => r.nonce === nonceOf(out.params.task));
  assert.deepEqual([rec?.task, rec?.cwd, rec?.decision], ['x', undefined, 'pass']);
});

test('plugin: after a gateway restart, a recorded spawn whose session was not learned yet is looked for again', async (t) => {
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
