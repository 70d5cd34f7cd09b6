// The plugin's worktrees of isolated spawns: the `/worktrees` command's
// words, and the command and the `claude_code_spawns` tool driven as
// OpenClaw calls them, over the real addon, real git repositories and a
// real worktree the pre-flight made. The real gateway, acpx and Claude Code
// run the same in openclaw/agent-turn.openclaw.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { addon, assistantLine, jsonl, userLine, uuid, writeSession } from './support/helpers.mjs';
import { git, world } from './support/spawn-world.mjs';
import plugin from '../plugin/index.mjs';
import { worktreesRequest } from '../plugin/commands.mjs';
import { dropUnusedWorktree } from '../plugin/spawns/worktrees.mjs';

test('/worktrees: list by default, prune on request; --force only with a repository named; unknown flags refused', () => {
  assert.deepEqual(worktreesRequest(''), { sub: 'list', repo: undefined, force: false, paths: [] });
  assert.deepEqual(worktreesRequest('  /r/shop '), { sub: 'list', repo: '/r/shop', force: false, paths: [] });
  assert.deepEqual(worktreesRequest('list /r/shop'), { sub: 'list', repo: '/r/shop', force: false, paths: [] });
  assert.deepEqual(worktreesRequest('prune'), { sub: 'prune', repo: undefined, force: false, paths: [] });
  assert.deepEqual(worktreesRequest('prune /r/shop --force /r/shop/.claude/worktrees/a'), { sub: 'prune', repo: '/r/shop', force: true, paths: ['/r/shop/.claude/worktrees/a'] });
  for (const words of ['list --force', 'list /a /b', 'prune -f /r', 'prune --force']) assert.match(/** @type {any} */ (worktreesRequest(words)).usage, /^Usage: \/worktrees/, words);
  assert.match(/** @type {any} */ (worktreesRequest('prune --force')).usage, /name the repository/);
});

/**
 * This package's plugin registered on an OpenClaw plugin API for `config`:
 * `fire(hook, event, ctx)`, `tool(name)` (its `execute`), `command(name)`
 * (its handler) and the log.
 */
function loadPlugin(config) {
  const hooks = {};
  const tools = {};
  const commands = {};
  const log = { info: [], warn: [] };
  const api = {
    pluginConfig: config,
    config: { acp: { defaultAgent: 'claude' } },
    runtime: { agent: { resolveAgentWorkspaceDir: (_cfg, id) => `/ws/${id}` } },
    logger: { info: (m) => log.info.push(m), warn: (m) => log.warn.push(m), error: (m) => log.warn.push(m), debug() {} },
    on: (name, handler) => ((hooks[name] ??= []).push(handler)),
    registerTool: (create, { name }) => (tools[name] = create),
    registerCommand: (c) => (commands[c.name] = c.handler),
    registerHook() {}, registerCli() {},
    registerService: (s) => (api.service = s),
  };
  plugin.register(api);
  const fire = async (name, event, ctx = {}) => {
    let out;
    for (const handler of hooks[name] ?? []) out = await handler(event, ctx);
    return out;
  };
  const ctx = { agentId: 'main', sessionKey: REQUESTER };
  return {
    api, log, fire,
    tool: async (name, params) => (await tools[name](ctx).execute('call', params)).details,
    command: async (name, args) => (await commands[name]({ ...ctx, args })).text,
  };
}

const REQUESTER = 'agent:main:worktrees';
let calls = 0;

/** Lets `n` spawns of `host` into `cwd` through at the same instant, as one answer of the model; each with its child session started. */
async function spawnAtOnce(host, cwd, tasks) {
  const ids = tasks.map(() => `call-wt-${++calls}`);
  const results = await Promise.all(tasks.map((task, i) => host.fire('before_tool_call',
    { toolName: 'sessions_spawn', params: { runtime: 'acp', agentId: 'claude', task, cwd }, toolCallId: ids[i] },
    { agentId: 'main', sessionKey: REQUESTER, toolName: 'sessions_spawn', toolCallId: ids[i] })));
  const children = [];
  for (const [i, id] of ids.entries()) {
    const childSessionKey = `agent:claude:acp:wt-${calls}-${i}`;
    children.push(childSessionKey);
    await host.fire('after_tool_call', { toolName: 'sessions_spawn', toolCallId: id, result: { details: { status: 'accepted', childSessionKey } } }, { toolCallId: id });
  }
  return results.map((r, i) => ({ ...r.params, childSessionKey: children[i], nonce: addon.parseOriginMarker(r.params.task)?.spawn }));
}

test('an isolated spawn: its worktree kept with its commit at its end, told by claude_code_spawns and /worktrees, pruned once merged; one that changed nothing removed at its end', async (t) => {
  const w = world();
  process.env.OPENCLAW_STATE_DIR = w.stateDir;
  t.after(() => delete process.env.OPENCLAW_STATE_DIR);
  const host = loadPlugin({ claudeConfigDir: w.claudeConfigDir, spawnPreflight: { budgetMs: 14_000 } });
  t.after(() => host.api.service.stop());
  const head = git(w.repo, 'rev-parse', 'HEAD');
  const spawned = await spawnAtOnce(host, w.repo, ['Write the install guide', 'Write the usage guide']);
  const isolated = spawned.filter((s) => s.cwd);
  assert.equal(isolated.length, 1, `exactly one isolated: ${JSON.stringify(spawned)}`);
  const [iso] = isolated;
  assert.ok(iso.cwd.startsWith(path.join(w.repo, '.claude', 'worktrees') + path.sep), iso.cwd);
  const rec = (await addon.listSpawns('main', w.stateDir)).find((r) => r.nonce === iso.nonce);
  assert.deepEqual([rec.cwd, rec.worktreePath, rec.baseCommit, rec.worktreeBranch], [iso.cwd, iso.cwd, head, git(iso.cwd, 'branch', '--show-current')]);
  // Claude Code commits in its worktree; the spawn ends: kept, with its commit.
  fs.writeFileSync(path.join(iso.cwd, 'USAGE.md'), '# Usage\n');
  git(iso.cwd, 'add', 'USAGE.md');
  git(iso.cwd, 'commit', '-qm', 'Add the usage guide');
  await host.fire('subagent_ended', { targetSessionKey: iso.childSessionKey, outcome: 'ok', reason: 'subagent-complete', endedAt: Date.now() });
  assert.equal(fs.existsSync(iso.cwd), true, 'kept');
  assert.equal((await addon.listSpawns('main', w.stateDir)).find((r) => r.nonce === iso.nonce).worktreeRemoved, false);
  assert.ok(host.log.info.some((l) => l.includes(`worktree ${iso.cwd} (branch ${rec.worktreeBranch}) kept: 1 commit(s) beyond its base`)), host.log.info.join('\n'));
  const { spawns } = await host.tool('claude_code_spawns', { repoPath: w.repo });
  const o = spawns.find((s) => s.nonce === iso.nonce);
  assert.deepEqual([o.childSessionKey, o.commits.map((c) => c.subject), o.filesChanged, o.worktree.commitsAhead, o.worktree.removed], [iso.childSessionKey, ['Add the usage guide'], ['USAGE.md'], 1, false]);
  assert.deepEqual((await host.tool('claude_code_spawns', {})).spawns.map((s) => s.nonce).sort(), spawned.map((s) => s.nonce).sort(), 'the calling session\'s own spawns');
  assert.deepEqual((await host.tool('claude_code_spawns', { limit: 0 })).error?.code, 'E_INVALID_ARGUMENT');
  // /worktrees: listed, and in use within the start grace of a spawn made in it.
  assert.match(await host.command('worktrees', ''), /, in use by a running Claude Code/);
  // A minute later: prune keeps unmerged work; merged, it goes.
  const minuteAgo = new Date(Date.now() - addon.SPAWN_POLICY.startGraceMs - 1000);
  fs.utimesSync(path.join(git(iso.cwd, 'rev-parse', '--absolute-git-dir'), 'OPENCLAW_SPAWN'), minuteAgo, minuteAgo);
  const listed = await host.command('worktrees', '');
  assert.deepEqual(listed.split('\n'), [`${w.repo}: 1 kept worktree(s)`, `${iso.cwd}: branch ${rec.worktreeBranch}, 1 commit(s) beyond ${head.slice(0, 7)}, clean`]);
  assert.match(await host.command('worktrees', `prune ${w.repo}`), /0 removed, 1 kept[\s\S]*unmerged commits/);
  git(w.repo, 'merge', '-q', '--no-edit', rec.worktreeBranch);
  assert.match(await host.command('worktrees', `prune ${w.repo}`), /1 removed, 0 kept/);
  assert.equal(fs.existsSync(iso.cwd), false);
  assert.equal(git(w.repo, 'branch', '--list', rec.worktreeBranch), '');
  // Another pair: the isolated one changes nothing and is removed at its end, branch and all.
  const again = (await spawnAtOnce(host, w.other, ['Review the post', 'Proofread the post'])).find((s) => s.cwd);
  const branch = git(again.cwd, 'branch', '--show-current');
  await host.fire('subagent_ended', { targetSessionKey: again.childSessionKey, outcome: 'ok', reason: 'subagent-complete', endedAt: Date.now() });
  assert.equal(fs.existsSync(again.cwd), false, 'removed');
  assert.equal(git(w.other, 'branch', '--list', branch), '');
  assert.equal((await addon.listSpawns('main', w.stateDir)).find((r) => r.nonce === again.nonce).worktreeRemoved, true);
  assert.deepEqual(host.log.warn, []);
});

test('a worktree made by a pre-flight whose answer came after its budget is removed, branch and all: the spawn went on in the repository as asked', async () => {
  const w = world();
  const answer = addon.preflightSpawn({ task: 'Add tax', cwd: w.repo },
    { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, persistentCache: false, isolation: 'always' });
  const made = (await answer).isolation;
  assert.ok(made && fs.existsSync(made.worktreePath), 'the pre-flight made a worktree');
  const log = { info: [], warn: [] };
  dropUnusedWorktree({ logger: { info: (m) => log.info.push(m), warn: (m) => log.warn.push(m) } }, answer);
  const deadline = Date.now() + 30_000;
  // The folder goes first, then the branch.
  const left = () => fs.existsSync(made.worktreePath) || git(w.repo, 'branch', '--list', made.branch) !== '';
  while (left() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(fs.existsSync(made.worktreePath), false, 'removed');
  assert.equal(git(w.repo, 'branch', '--list', made.branch), '');
  assert.deepEqual(log.warn, []);
});

test('a gateway start finishes the worktrees of isolated spawns that ended while it was down: removed when they hold nothing, kept with their work; a spawn at work and a finished one are left', async (t) => {
  const w = world();
  process.env.OPENCLAW_STATE_DIR = w.stateDir;
  t.after(() => delete process.env.OPENCLAW_STATE_DIR);
  const startedAt = new Date(Date.now() - 120_000).toISOString();
  const minuteAgo = new Date(Date.now() - 60_000).toISOString();
  // Four spawns the real pre-flight isolated, recorded as the plugin records
  // them, their Claude Code sessions learned; the gateway then went down.
  const spawns = [];
  for (const [i, task] of ['Write the FAQ', 'Write the install guide', 'Write the usage guide', 'Write the changelog'].entries()) {
    const nonce = `d0d0d0d0d0d0d00${i}`;
    const r = await addon.preflightSpawn({ task, cwd: w.repo, agentId: 'main' },
      { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, persistentCache: false, isolation: 'always', nonce, spareWorktree: false });
    const { worktreePath, branch, baseCommit } = r.isolation;
    const id = uuid();
    await addon.recordSpawn('main', { nonce, claudeSessionId: id, agentId: 'main', task, cwd: worktreePath, repoPath: w.repo, mode: 'run', decision: r.decision, startedAt, baseCommit, worktreePath, worktreeBranch: branch, childSessionKey: `agent:claude:acp:down-${i}` }, w.stateDir);
    // Claude Code's transcript: its turn ended a minute ago, but for the
    // one still at work (written now, its turn open).
    const atWork = i === 0;
    const prompt = userLine(id, r.params.task, { cwd: worktreePath, timestamp: minuteAgo });
    const answer = assistantLine(id, `msg_${nonce}`, { output_tokens: 5 }, { cwd: worktreePath, timestamp: minuteAgo });
    answer.message.stop_reason = 'end_turn';
    const file = writeSession(w.claudeConfigDir, worktreePath, id, jsonl(atWork ? [prompt] : [prompt, answer]));
    if (!atWork) fs.utimesSync(file, new Date(minuteAgo), new Date(minuteAgo));
    // Its Claude Code process is alive: a live pid and its liveness record
    // (a transcript written moments ago would tell it too, but only for as
    // long as a loaded machine takes to get to the gateway's start).
    if (atWork) {
      const claude = spawn('sleep', ['600'], { stdio: 'ignore' });
      t.after(() => claude.kill('SIGKILL'));
      fs.mkdirSync(path.join(w.claudeConfigDir, 'sessions'), { recursive: true });
      fs.writeFileSync(path.join(w.claudeConfigDir, 'sessions', `${claude.pid}.json`), JSON.stringify({ pid: claude.pid, sessionId: id, cwd: worktreePath, startedAt: Date.now() - 60_000 }));
    }
    spawns.push({ nonce, worktreePath, branch });
  }
  // The one at work comes first: it was decided on before the others were finished.
  const [atWork, clean, committed, finished] = spawns;
  fs.writeFileSync(path.join(committed.worktreePath, 'USAGE.md'), '# Usage\n');
  git(committed.worktreePath, 'add', 'USAGE.md');
  git(committed.worktreePath, 'commit', '-qm', 'Add the usage guide');
  // The last one was finished before the gateway went down, and kept.
  await addon.recordSpawn('main', { nonce: finished.nonce, outcome: 'ok', endedAt: minuteAgo, worktreeRemoved: false }, w.stateDir);

  const host = loadPlugin({ claudeConfigDir: w.claudeConfigDir });
  host.api.service.start({ stateDir: w.stateDir });
  t.after(() => host.api.service.stop());
  const recorded = async (s) => (await addon.listSpawns('main', w.stateDir)).find((r) => r.nonce === s.nonce);
  const deadline = Date.now() + 30_000;
  while (((await recorded(clean)).worktreeRemoved == null || (await recorded(committed)).worktreeRemoved == null) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal((await recorded(clean)).worktreeRemoved, true);
  assert.equal(fs.existsSync(clean.worktreePath), false, 'the worktree that held nothing is removed');
  assert.equal(git(w.repo, 'branch', '--list', clean.branch), '');
  assert.equal((await recorded(committed)).worktreeRemoved, false);
  assert.equal(git(committed.worktreePath, 'log', '-1', '--format=%s'), 'Add the usage guide', 'kept with its commit');
  assert.equal((await recorded(atWork)).worktreeRemoved, undefined, 'the spawn at work is left to its end');
  assert.ok(fs.existsSync(atWork.worktreePath));
  assert.ok(fs.existsSync(finished.worktreePath), 'finished before: not finished again');
  assert.ok(host.log.info.some((l) => l.includes(`spawn ${committed.nonce} worktree ${committed.worktreePath} (branch ${committed.branch}) kept: 1 commit(s) beyond its base`)), host.log.info.join('\n'));
  assert.ok(host.log.info.some((l) => l.includes(`spawn ${clean.nonce} worktree ${clean.worktreePath} (branch ${clean.branch}) removed: it held no work`)), host.log.info.join('\n'));
  assert.deepEqual(host.log.warn, []);
});
