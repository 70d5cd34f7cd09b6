// Paired nodes in the real OpenClaw 2026.9.6: one gateway (the whole spawn
// chain of acp-chain.mjs: acpx, the Claude ACP adapter, Claude Code against
// the fake Messages API) and two node hosts (`openclaw node run`) on
// loopback, each with its own HOME, state dir and Claude Code config
// holding real-format sessions of one repository cloned at a different path
// (the gateway's and node A's clones with an ssh remote, node B's with
// https). The plugin is installed from `npm pack` on the gateway and node A;
// node B has only OpenClaw's own Claude session catalog (enabled). Every
// node is approved as an operator does (`openclaw nodes approve`). One
// gateway and the two nodes serve every test, in order.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { assistantLine, jsonl, userLine, writeSession } from '../support/helpers.mjs';
import { startFakeAnthropic } from '../support/fake-anthropic.mjs';
import { PLUGIN_ID, packedPlugin } from './support/pack.mjs';
import { closeChain, gitRepo, isTitleRequest, sleep, startChain, taskMessage, until } from './support/acp-chain.mjs';
import { node24, openclaw, openclawCli, openclawEnv } from './support/env.mjs';
import { scriptedClaude } from './support/scripted-models.mjs';

const VERSION = '2026.9.6';
/** The pre-flight's budget and the nodes' timeout the gateway's plugin is given. */
const BUDGET_MS = 9000;
const NODE_TIMEOUT_MS = 4000;

const claude = scriptedClaude();
let api;
let chain;
/** The node hosts: `a` (with the plugin) and `b` (without), see `startNode`. */
const nodes = {};
/** The sessions written, by host: `{ gateway, a, b }` of `{ mine: [ids], other: [ids] }`. */
const sessions = {};
/** The process a liveness record on node A names: a Claude Code "running" there. */
let running;

/** A real-format Claude Code session of `cwd` in `claudeDir`, last written `minutesAgo`. */
function session(claudeDir, cwd, prompt, minutesAgo, branch = 'main') {
  const id = randomUUID();
  const at = new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const file = writeSession(claudeDir, cwd, id, jsonl([
    userLine(id, prompt, { cwd, gitBranch: branch, timestamp: at, entrypoint: 'cli' }),
    assistantLine(id, `msg_${id.slice(0, 8)}`, { input_tokens: 10, output_tokens: 5 }, { cwd, gitBranch: branch, timestamp: at }),
  ]));
  const when = new Date(at);
  fs.utimesSync(file, when, when);
  return id;
}

/** A clone of `origin` at `dir` whose `origin` remote is `remote`. */
function clone(origin, dir, remote) {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  execFileSync('git', ['clone', '-q', origin, dir], { stdio: 'pipe' });
  execFileSync('git', ['remote', 'set-url', 'origin', remote], { cwd: dir, stdio: 'pipe' });
  return dir;
}

/**
 * Starts a node host on its own HOME and state dir: `openclaw node run`
 * against the gateway, after (with `plugin`) installing the plugin from
 * the packed package and enabling OpenClaw's Claude session catalog.
 * Resolves to `{ name, home, claudeDir, env, proc, log() }`.
 */
async function startNode(name, { plugin, withPlugin }) {
  const root = path.join(chain.scratch, name);
  const home = path.join(root, 'home');
  const state = path.join(root, 'state');
  const claudeDir = path.join(home, '.claude');
  fs.mkdirSync(path.join(claudeDir, 'projects'), { recursive: true });
  const env = openclawEnv(state, home, {
    npm_config_registry: plugin.url,
    OPENCLAW_GATEWAY_TOKEN: chain.token,
    OPENCLAW_NO_AUTO_UPDATE: '1',
    OPENCLAW_DISABLE_BONJOUR: '1',
    OPENCLAW_SKIP_CHANNELS: '1',
    OPENCLAW_SKIP_CRON: '1',
    OPENCLAW_SKIP_STARTUP_MODEL_PREWARM: '1',
    OPENCLAW_SKIP_BROWSER_CONTROL_SERVER: '1',
    OPENCLAW_SKIP_CANVAS_HOST: '1',
    OPENCLAW_SKIP_GMAIL_WATCHER: '1',
    OPENCLAW_SESSION_INTEL_CACHE_DIR: path.join(root, 'osi-cache'),
    [chain.marker.split('=')[0]]: chain.marker.split('=')[1],
  });
  delete env.CLAUDE_CONFIG_DIR;
  const cli = (args, opts = {}) => openclawCli(VERSION, args, { env, timeout: 300_000, ...opts });
  if (withPlugin) {
    const installed = cli(['plugins', 'install', `npm-pack:${plugin.tgz}`, '--force', '--accept-capabilities']);
    assert.match(installed.stdout + installed.stderr, new RegExp(`Installed plugin: ${PLUGIN_ID}`));
  }
  cli(['config', 'set', 'plugins.entries.anthropic.config.sessionCatalog.enabled', 'true']);
  let log = '';
  const proc = spawn(node24(), [path.join(openclaw(VERSION), 'openclaw.mjs'), 'node', 'run', '--host', '127.0.0.1', '--port', String(chain.port), '--display-name', name],
    { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  proc.stdout.on('data', (d) => (log += d));
  proc.stderr.on('data', (d) => (log += d));
  await until(`${name} to connect`, () => /node host gateway connected/.test(log) || proc.exitCode !== null, 180_000, 500);
  assert.equal(proc.exitCode, null, `${name} exited:\n${log}`);
  return { name, home, claudeDir, env, proc, log: () => log };
}

/** Approves every pending node request of the gateway, as an operator does. */
function approvePending() {
  const out = chain.cli(['nodes', 'pending', '--json']).stdout;
  const pending = JSON.parse(out.slice(out.indexOf('[')));
  for (const r of pending) chain.cli(['nodes', 'approve', r.requestId]);
  return pending;
}

/** The gateway's paired nodes (`node.list`). */
const nodeList = () => chain.call('node.list').nodes ?? [];

/** A tool's result through the gateway's POST /tools/invoke. */
async function tool(name, args) {
  const res = await chain.invoke(name, args);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const details = res.body?.result?.details;
  assert.ok(details && details.ok !== false, JSON.stringify(res.body));
  return details;
}

/** Stops a node host: its launcher and the node child (their process group). */
async function stopNode(node) {
  if (!node?.proc || node.proc.exitCode !== null) return;
  try {
    process.kill(-node.proc.pid, 'SIGCONT');
    process.kill(-node.proc.pid, 'SIGTERM');
  } catch {}
  await Promise.race([new Promise((ok) => node.proc.on('exit', ok)), sleep(30_000)]);
  try {
    process.kill(-node.proc.pid, 'SIGKILL');
  } catch {}
}

before(async () => {
  api = await startFakeAnthropic({ respond: (req) => claude.answer(req) });
  const plugin = await packedPlugin();
  chain = await startChain({ api, plugin, pluginConfig: { spawnPreflight: { budgetMs: BUDGET_MS }, nodes: { timeoutMs: NODE_TIMEOUT_MS } } });
  // The repository, its clones, and another repository whose name starts alike.
  const origin = gitRepo(path.join(chain.scratch, 'origin', 'shop'), { files: { 'README.md': '# shop\n', 'src/cart.js': '// cart\n' }, message: 'Start the shop' }).dir;
  const other = gitRepo(path.join(chain.scratch, 'origin', 'shopfront'), { files: { 'README.md': '# shopfront\n' } }).dir;
  const gwRepo = clone(origin, path.join(chain.scratch, 'repos', 'shop'), 'git@github.com:acme/shop.git');
  const gwOther = clone(other, path.join(chain.scratch, 'repos', 'shopfront'), 'git@github.com:acme/shopfront.git');
  nodes.a = await startNode('osi-node-a', { plugin, withPlugin: true });
  nodes.b = await startNode('osi-node-b', { plugin, withPlugin: false });
  const aRepo = clone(origin, path.join(nodes.a.home, 'work', 'shop'), 'ssh://git@github.com:22/acme/shop');
  const aOther = clone(other, path.join(nodes.a.home, 'work', 'shopfront'), 'git@github.com:acme/shopfront.git');
  const bRepo = clone(origin, path.join(nodes.b.home, 'code', 'shop'), 'https://github.com/acme/shop.git');
  const bOther = clone(other, path.join(nodes.b.home, 'code', 'shopfront'), 'https://github.com/acme/shopfront.git');
  Object.assign(nodes.a, { repo: aRepo });
  Object.assign(nodes.b, { repo: bRepo });
  chain.repo = gwRepo;
  sessions.gateway = { mine: [session(chain.claudeDir, gwRepo, 'Add the cart page', 30)], other: [session(chain.claudeDir, gwOther, 'Restyle the shopfront banner', 5)] };
  sessions.a = {
    mine: [session(nodes.a.claudeDir, aRepo, 'Round the cart tax in integer cents', 2, 'feature/tax'), session(nodes.a.claudeDir, aRepo, 'Write the checkout tests', 120)],
    other: [session(nodes.a.claudeDir, aOther, 'Shopfront hero image', 1)],
  };
  sessions.b = { mine: [session(nodes.b.claudeDir, bRepo, 'Fix the cart rounding on mobile', 60)], other: [session(nodes.b.claudeDir, bOther, 'Shopfront footer links', 3)] };
  // Node A's first session runs now: a live process and its liveness record there.
  running = spawn('sleep', ['3600'], { stdio: 'ignore' });
  const procStart = fs.readFileSync(`/proc/${running.pid}/stat`, 'utf8').split(') ')[1].split(' ')[19];
  fs.mkdirSync(path.join(nodes.a.claudeDir, 'sessions'), { recursive: true });
  fs.writeFileSync(path.join(nodes.a.claudeDir, 'sessions', `${running.pid}.json`), JSON.stringify({
    pid: running.pid, sessionId: sessions.a.mine[0], cwd: aRepo, startedAt: Date.now() - 120_000, procStart, version: '2.1.39', kind: 'interactive', entrypoint: 'cli',
  }));
  // Approval: each node's command surface once.
  await until('both nodes connected with their commands', () => {
    approvePending();
    const list = nodeList();
    const a = list.find((n) => n.displayName === 'osi-node-a');
    const b = list.find((n) => n.displayName === 'osi-node-b');
    return a?.connected && b?.connected && (a.commands ?? []).includes('sessionintel.sessions.list.v1') && (b.commands ?? []).includes('anthropic.claude.sessions.list.v1');
  }, 180_000, 2000);
}, { timeout: 1_200_000 });

after(async () => {
  claude.releaseAll();
  running?.kill('SIGKILL');
  await stopNode(nodes.a);
  await stopNode(nodes.b);
  await closeChain(chain, api);
});

/** The hosts' reports of a result by display name. */
const reportsByName = (result) => Object.fromEntries(result.hosts.map((h) => [h.name, h]));

test('claude_code_sessions on the gateway lists the repository\'s sessions of all three machines, each with its host, none of another repository', { timeout: 300_000 }, async () => {
  const listed = await tool('claude_code_sessions', { repoPath: chain.repo });
  const hosts = reportsByName(listed);
  assert.equal(hosts.gateway?.status, 'ok', JSON.stringify(listed.hosts));
  assert.equal(hosts['osi-node-a']?.status, 'ok', JSON.stringify(listed.hosts));
  assert.equal(hosts['osi-node-b']?.status, 'ok', JSON.stringify(listed.hosts));
  const hostOf = Object.fromEntries(listed.sessions.map((s) => [s.sessionId, s.host.name]));
  for (const id of sessions.gateway.mine) assert.equal(hostOf[id], 'gateway');
  for (const id of sessions.a.mine) assert.equal(hostOf[id], 'osi-node-a');
  for (const id of sessions.b.mine) assert.equal(hostOf[id], 'osi-node-b');
  for (const id of [...sessions.gateway.other, ...sessions.a.other, ...sessions.b.other]) assert.equal(hostOf[id], undefined, `${id} is of another repository`);
  assert.equal(listed.sessions.length, 4, JSON.stringify(listed.sessions, null, 1));
  const times = listed.sessions.map((s) => Date.parse(s.lastModified));
  assert.deepEqual(times, [...times].sort((x, y) => y - x), 'newest first across hosts');
  const a = listed.sessions.find((s) => s.sessionId === sessions.a.mine[0]);
  assert.match(a.host.id, /^node:[0-9a-f]{64}$/);
  assert.equal(a.projectPath, nodes.a.repo, 'where it lies on node A');
  assert.equal(a.isRunning, true, 'its liveness record on node A');
  assert.equal(listed.activeCount, 1);
  const none = await tool('claude_code_sessions', { repoPath: chain.repo, nodes: 'none' });
  assert.deepEqual(none.sessions.map((s) => s.sessionId), sessions.gateway.mine);
  assert.deepEqual(none.hosts.map((h) => h.hostId), ['gateway']);
  const onlyA = await tool('claude_code_sessions', { repoPath: chain.repo, nodes: ['osi-node-a'] });
  assert.deepEqual(onlyA.hosts.map((h) => h.name), ['gateway', 'osi-node-a']);
});

test('the node without the plugin contributes through OpenClaw\'s own catalog command, marked as such', { timeout: 300_000 }, async () => {
  const listed = await tool('claude_code_sessions', { repoPath: chain.repo });
  const b = reportsByName(listed)['osi-node-b'];
  assert.deepEqual([b.status, b.fallback], ['ok', true], JSON.stringify(b));
  const fromB = listed.sessions.filter((s) => s.host.name === 'osi-node-b');
  assert.deepEqual(fromB.map((s) => s.sessionId), sessions.b.mine);
  assert.equal(fromB[0].host.fallback, true);
  assert.equal(fromB[0].projectPath, nodes.b.repo);
  assert.equal(fromB[0].firstMessage, 'Fix the cart rounding on mobile');
  assert.equal(reportsByName(listed)['osi-node-a'].fallback, false);
});

test('project_status on the gateway adds each node\'s status of its clone; the node without the plugin is reported no-plugin', { timeout: 300_000 }, async () => {
  const status = await tool('project_status', { repoPath: chain.repo });
  const hosts = reportsByName(status);
  assert.equal(hosts['osi-node-a'].status, 'ok', JSON.stringify(status.hosts));
  assert.equal(hosts['osi-node-b'].status, 'no-plugin', JSON.stringify(status.hosts));
  // Node A's clone. (All three machines share one file system here, so node A
  // also finds the gateway's folder, the path hint it is sent, and lists it.)
  const a = status.remote.find((r) => r.host.name === 'osi-node-a' && r.repoPath === nodes.a.repo);
  assert.ok(a, JSON.stringify(status.remote.map((r) => [r.host.name, r.repoPath])));
  assert.equal(a.branch, 'main');
  assert.ok(a.activeSessions.some((s) => s.sessionId === sessions.a.mine[0]), JSON.stringify(a.activeSessions));
});

test('the pre-flight\'s briefing of a spawn on the gateway names the Claude Code session running on node A', { timeout: 600_000 }, async () => {
  const task = 'Round the cart tax in integer cents everywhere';
  const res = await chain.spawnClaude({ task, cwd: chain.repo });
  assert.equal(res.body?.result?.details?.status, 'accepted', JSON.stringify(res.body));
  const req = await api.waitForRequest((r) => !isTitleRequest(r) && (taskMessage(r) ?? '').startsWith(task), 300_000);
  const sent = taskMessage(req);
  const line = sent.split('\n').find((l) => l.includes(`session ${sessions.a.mine[0].slice(0, 8)}`));
  assert.ok(line, `the running session on node A in:\n${sent}`);
  assert.match(line, /osi-node-a/);
  assert.match(line, /Round the cart tax in integer cents/);
  assert.ok(line.includes(nodes.a.repo), 'its folder there');
  assert.ok(sent.indexOf(line) > sent.indexOf('[openclaw:'), 'after the origin marker, in the briefing');
  assert.match(chain.log(), /asked the paired nodes .*osi-node-a ok/);
  await chain.finished(req.sessionId);
});

test('a renamed repository folder keeps its sessions listed: on node A, and on the gateway', { timeout: 300_000 }, async () => {
  const movedA = `${nodes.a.repo}-renamed`;
  const movedGateway = `${chain.repo}-renamed`;
  fs.renameSync(nodes.a.repo, movedA);
  fs.renameSync(chain.repo, movedGateway);
  try {
    const listed = await tool('claude_code_sessions', { repoPath: movedGateway });
    const ids = (host) => listed.sessions.filter((s) => s.host.name === host).map((s) => s.sessionId);
    assert.deepEqual(ids('osi-node-a').sort(), [...sessions.a.mine].sort(), JSON.stringify(listed.hosts));
    assert.ok(ids('gateway').includes(sessions.gateway.mine[0]), `the gateway's session of the folder before its rename: ${JSON.stringify(listed.sessions)}`);
    // Node A finds its renamed folder's sessions by identity; with one file system it
    // files them under the first folder of that identity it sees, the gateway's.
    assert.ok(listed.sessions.filter((s) => s.host.name === 'osi-node-a').every((s) => s.projectPath !== nodes.a.repo));
  } finally {
    fs.renameSync(movedA, nodes.a.repo);
    fs.renameSync(movedGateway, chain.repo);
  }
});

test('a node stopped mid-way is reported while the others answer, and a spawn proceeds within its budget', { timeout: 600_000 }, async () => {
  // Node B's processes stop answering (SIGSTOP): connected, silent.
  process.kill(-nodes.b.proc.pid, 'SIGSTOP');
  try {
    const listed = await tool('claude_code_sessions', { repoPath: chain.repo });
    const hosts = reportsByName(listed);
    assert.ok(['offline', 'timeout'].includes(hosts['osi-node-b'].status), JSON.stringify(listed.hosts));
    assert.ok(hosts['osi-node-b'].ms <= NODE_TIMEOUT_MS + 1000, `given up on at the nodes' timeout (${hosts['osi-node-b'].ms} ms)`);
    assert.equal(hosts['osi-node-a'].status, 'ok');
    assert.ok(listed.sessions.some((s) => s.host.name === 'osi-node-a'), 'node A still answers');
    const task = 'Tidy the cart module comments';
    const res = await chain.spawnClaude({ task, cwd: chain.repo });
    assert.equal(res.body?.result?.details?.status, 'accepted', JSON.stringify(res.body));
    await api.waitForRequest((r) => !isTitleRequest(r) && (taskMessage(r) ?? '').startsWith(task), 300_000);
    const line = await until('the pre-flight\'s line for the spawn', () => chain.log().split('\n').findLast((l) => /spawn pre-flight asked the paired nodes .*osi-node-b (timeout|offline)/.test(l)), 60_000);
    assert.match(line, /osi-node-a ok/);
    const took = Number(line.match(/done (\d+) ms after it started/)?.[1]);
    assert.ok(took <= BUDGET_MS, `the pre-flight took ${took} ms, within its ${BUDGET_MS} ms budget: ${line}`);
  } finally {
    process.kill(-nodes.b.proc.pid, 'SIGCONT');
  }
});
