// Paired nodes through the whole plugin in one process, with the real addon
// on real git clones and real-format Claude Code sessions: one copy of the
// plugin registered as a node host registers its node commands; another,
// registered as the gateway, asks them through a stand-in of OpenClaw's
// `api.runtime.nodes` that hands each invocation to the node's command
// handler (as OpenClaw's `node.invoke` does over its WebSocket). The tools
// list the node's sessions of the same repository cloned at another path,
// and the spawn pre-flight's briefing names the session running there. The
// real gateway and node hosts run the same in
// openclaw/nodes.openclaw.mjs.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { assistantLine, jsonl, tempDir, userLine, writeSession } from './support/helpers.mjs';
import { git } from './support/spawn-world.mjs';
import plugin from '../plugin/index.mjs';
import { NODE_COMMANDS } from '../plugin/nodes/protocol.mjs';

const base = fs.realpathSync(tempDir('osi-nodes-'));
const origin = path.join(base, 'origin');
fs.mkdirSync(origin);
git(origin, 'init', '-q');
fs.writeFileSync(path.join(origin, 'README.md'), '# shop\n');
git(origin, 'add', '.');
git(origin, 'commit', '-qm', 'Start the shop');

/** A clone of the origin at `dir` with `remote` as its origin URL. */
function clone(dir, remote) {
  git(base, 'clone', '-q', origin, dir);
  git(dir, 'remote', 'set-url', 'origin', remote);
  return dir;
}

/** A real-format session of `cwd` in `claudeDir`, written `minutesAgo`. */
function session(claudeDir, cwd, id, prompt, minutesAgo) {
  const at = new Date(Date.now() - minutesAgo * 60_000);
  const file = writeSession(claudeDir, cwd, id, jsonl([
    userLine(id, prompt, { cwd, timestamp: at.toISOString(), entrypoint: 'cli' }),
    assistantLine(id, `msg_${id.slice(-6)}`, { input_tokens: 10, output_tokens: 5 }, { cwd, timestamp: at.toISOString() }),
  ]));
  fs.utimesSync(file, at, at);
}

const gw = { claude: path.join(base, 'gw-claude'), state: path.join(base, 'gw-state'), repo: clone(path.join(base, 'gw', 'shop'), 'git@github.com:acme/shop.git') };
const node = { claude: path.join(base, 'node-claude'), repo: clone(path.join(base, 'laptop', 'code', 'shop'), 'https://github.com/acme/shop.git') };
const other = clone(path.join(base, 'laptop', 'code', 'blog'), 'https://github.com/acme/blog.git');
for (const d of [gw.claude, gw.state, node.claude]) fs.mkdirSync(d, { recursive: true });
const RUNNING = '11111111-1111-4111-8111-000000000001';
session(gw.claude, gw.repo, '22222222-2222-4222-8222-000000000001', 'Add the cart page', 30);
session(node.claude, node.repo, RUNNING, 'Round the cart tax in integer cents', 2);
session(node.claude, node.repo, '11111111-1111-4111-8111-000000000002', 'Write the checkout tests', 90);
session(node.claude, other, '33333333-3333-4333-8333-000000000001', 'Blog post on carts', 1);
// A Claude Code process on the node runs the first session: a live pid and its liveness record.
const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
after(() => sleeper.kill('SIGKILL'));
fs.mkdirSync(path.join(node.claude, 'sessions'), { recursive: true });
fs.writeFileSync(path.join(node.claude, 'sessions', `${sleeper.pid}.json`), JSON.stringify({ pid: sleeper.pid, sessionId: RUNNING, cwd: node.repo, startedAt: Date.now() - 60_000 }));

/** The node host: the plugin registered with its own config; its node commands by id. */
function nodeHost() {
  const commands = {};
  const api = {
    pluginConfig: { claudeConfigDir: node.claude },
    config: {},
    logger: { info() {}, warn() {}, error() {}, debug() {} },
    on() {}, registerTool() {}, registerHook() {}, registerCommand() {}, registerCli() {}, registerService() {},
    registerNodeHostCommand: (c) => (commands[c.command] = c),
    registerNodeInvokePolicy() {},
  };
  plugin.register(api);
  return commands;
}

/**
 * The gateway: the plugin registered with a nodes runtime whose one node
 * (`laptop`) answers through `commands`' handlers, its invoke policy
 * applied first; its tools, hooks, log and policy.
 */
function gateway(commands, config = {}) {
  const tools = {};
  const hooks = {};
  const log = { info: [], warn: [] };
  let policy;
  const nodeId = 'ab'.repeat(32);
  const api = {
    pluginConfig: { claudeConfigDir: gw.claude, spawnPreflight: { budgetMs: 14_000, isolation: 'off' }, ...config },
    config: { acp: { defaultAgent: 'claude' } },
    runtime: {
      agent: { resolveAgentWorkspaceDir: () => base },
      nodes: {
        list: async () => ({ nodes: [{ nodeId, displayName: 'laptop', connected: true, platform: 'linux', invocableCommands: Object.keys(commands) }] }),
        invoke: async ({ command, params }) => {
          assert.ok(policy.commands.includes(command), `${command} has the plugin's invoke policy`);
          return policy.handle({ nodeId, command, params, invokeNode: async () => ({ ok: true, payloadJSON: await commands[command].handle(JSON.stringify(params)) }) });
        },
      },
    },
    logger: { info: (m) => log.info.push(m), warn: (m) => log.warn.push(m), error: (m) => log.warn.push(m), debug() {} },
    on: (name, handler) => ((hooks[name] ??= []).push(handler)),
    registerTool: (create, { name }) => (tools[name] = create),
    registerHook() {}, registerCommand() {}, registerCli() {}, registerService() {},
    registerNodeHostCommand() {},
    registerNodeInvokePolicy: (p) => (policy = p),
  };
  plugin.register(api);
  const call = async (name, params) => (await tools[name]({ workspaceDir: base, agentId: 'main' }).execute('t', params)).details;
  return { call, hooks, log, policy: () => policy };
}

test('the node commands are registered on a node host: versioned, never holding up auto-updates, available with the addon; the gateway allows them on linux, macos and windows', () => {
  const commands = nodeHost();
  assert.deepEqual(Object.keys(commands).sort(), Object.values(NODE_COMMANDS).sort());
  for (const c of Object.values(commands)) {
    assert.equal(c.hasActiveWork(), false);
    assert.equal(c.isAvailable({}), true);
    assert.equal(c.dangerous, false);
  }
  const { policy } = gateway(commands);
  assert.deepEqual(policy().defaultPlatforms, ['linux', 'macos', 'windows']);
  assert.deepEqual(policy().commands.sort(), Object.values(NODE_COMMANDS).sort());
});

test('the running command answers the sessions a Claude Code process runs now on the node, of that repository only', async () => {
  const commands = nodeHost();
  const identity = { remote: 'github.com/acme/shop', rootCommit: null, path: gw.repo };
  const running = JSON.parse(await commands[NODE_COMMANDS.running].handle(JSON.stringify({ identity, pathHint: gw.repo })));
  assert.deepEqual(running.sessions.map((s) => [s.sessionId, s.running]), [[RUNNING, true]], JSON.stringify(running));
  assert.equal(running.nextCursor, null);
  const listed = JSON.parse(await commands[NODE_COMMANDS.sessions].handle(JSON.stringify({ identity, pathHint: gw.repo })));
  assert.ok(listed.sessions.length > running.sessions.length, 'the listing holds the sessions that do not run as well');
  const bad = JSON.parse(await commands[NODE_COMMANDS.running].handle(JSON.stringify({ identity: {} })));
  assert.equal(bad.error.code, 'E_INVALID_ARGUMENT');
});

test('claude_code_sessions on the gateway lists the node\'s sessions of the same repository cloned elsewhere, with host and folder; none of another repository', async () => {
  const { call } = gateway(nodeHost());
  const listed = await call('claude_code_sessions', { repoPath: gw.repo });
  assert.deepEqual(listed.hosts.map((h) => [h.name, h.status]), [['gateway', 'ok'], ['laptop', 'ok']], JSON.stringify(listed.hosts));
  assert.deepEqual(listed.sessions.map((s) => [s.sessionId.slice(0, 8), s.host.name]), [['11111111', 'laptop'], ['22222222', 'gateway'], ['11111111', 'laptop']]);
  assert.equal(listed.sessions[0].sessionId, RUNNING);
  assert.equal(listed.sessions[0].isRunning, true, 'the liveness record on the node');
  assert.equal(listed.sessions[0].projectPath, node.repo);
  assert.equal(listed.activeCount, 1);
  const none = await call('claude_code_sessions', { repoPath: gw.repo, nodes: 'none' });
  assert.deepEqual(none.hosts.map((h) => h.name), ['gateway']);
  assert.equal(none.sessions.length, 1);
});

test('project_status on the gateway adds the node\'s clone with its status', async () => {
  const { call } = gateway(nodeHost());
  const status = await call('project_status', { repoPath: gw.repo });
  assert.deepEqual(status.hosts.map((h) => [h.name, h.status]), [['gateway', 'ok'], ['laptop', 'ok']], JSON.stringify(status.hosts));
  // The node's clone (the gateway's folder exists on this one machine too, and the node looks at its hint first).
  const clone = status.remote.find((r) => r.repoPath === node.repo);
  assert.ok(clone, JSON.stringify(status.remote));
  assert.equal(clone.host.name, 'laptop');
  assert.equal(clone.branch, 'main');
  assert.ok(clone.activeSessions.some((s) => s.sessionId === RUNNING), JSON.stringify(clone));
  assert.ok(status.remote.every((r) => r.repoPath !== other), 'not another repository');
});

test('the spawn pre-flight\'s briefing names the session running on the node, after the briefing; without nodes it does not', async () => {
  const spawnOf = async (g) => {
    const [handler] = g.hooks.before_tool_call;
    const out = await handler({ toolName: 'sessions_spawn', params: { runtime: 'acp', agentId: 'claude', task: 'Round the cart tax everywhere', cwd: gw.repo } }, { agentId: 'main', sessionKey: 'agent:main:main' });
    return out?.params?.task ?? '';
  };
  const g = gateway(nodeHost());
  const task = await spawnOf(g);
  const line = task.split('\n').find((l) => l.includes(`session ${RUNNING.slice(0, 8)}`));
  assert.ok(line, task);
  assert.match(line, /laptop/);
  assert.match(line, /Round the cart tax in integer cents/);
  assert.match(line, /now/, 'running there now');
  assert.ok(task.indexOf(line) > task.indexOf('[openclaw:'), 'after the origin marker');
  assert.ok(g.log.info.some((l) => /asked the paired nodes .*laptop ok/.test(l)), g.log.info.join('\n'));
  // The first spawn is in flight in the repository: the busy guard is off for the second.
  const off = await spawnOf(gateway(nodeHost(), { nodes: { enabled: false }, spawnPreflight: { budgetMs: 14_000, isolation: 'off', guards: { busy: 'off' } } }));
  assert.match(off, /\[openclaw:/, 'briefed');
  assert.ok(!off.includes(RUNNING.slice(0, 8)), off);
});
