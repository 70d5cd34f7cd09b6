// Paired nodes in the plugin (plugin/nodes/), against an in-process
// stand-in of OpenClaw's `api.runtime.nodes` (list, invoke with latency):
// the fan-out's report per node with its status and time, nodes asked in
// parallel, each within its timeout and the deadline, the catalog fallback
// matched to the repository, node selection; the node commands' parameters;
// the tools' merged listing. The real nodes are proven in
// __test__/openclaw/nodes.openclaw.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { askNodes, selectNodes } from '../plugin/nodes/fanout.mjs';
import { CATALOG_LIST_COMMAND, NODE_COMMANDS } from '../plugin/nodes/protocol.mjs';
import { hostRequest } from '../plugin/nodes/commands.mjs';
import { nodeSelection, sessionsAcrossHosts } from '../plugin/nodes/listing.mjs';

const identity = { path: '/gw/src/shop', remote: 'github.com/acme/shop', rootCommit: 'a'.repeat(40) };
const request = { identity, pathHint: identity.path, limit: 50 };
const page = (ids, extra = {}) => ({ v: 1, repositories: ['/x/shop'], sessions: ids.map((id, i) => ({ sessionId: id, lastModified: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(), running: false })), nextCursor: null, truncated: false, ...extra });

/**
 * A stand-in of `api.runtime.nodes`: `nodes` as `{ nodeId, displayName,
 * connected, commands, answer(command, params) -> payload | throws, delayMs }`.
 */
function fakeRuntime(nodes) {
  const calls = [];
  const flight = { now: 0, most: 0, aborted: 0 };
  return {
    calls,
    flight,
    async list() {
      return { nodes: nodes.map(({ answer, delayMs, ...n }) => ({ ...n, invocableCommands: n.commands })) };
    },
    async invoke({ nodeId, command, params, timeoutMs, signal }) {
      calls.push({ nodeId, command, params, timeoutMs });
      const n = nodes.find((x) => x.nodeId === nodeId);
      flight.most = Math.max(flight.most, ++flight.now);
      try {
        await new Promise((ok, fail) => {
          const t = setTimeout(ok, n.delayMs ?? 0);
          signal?.addEventListener('abort', () => { clearTimeout(t); flight.aborted++; fail(new Error('aborted')); });
        });
      } finally {
        flight.now--;
      }
      const payload = n.answer(command, params);
      return { ok: true, nodeId, command, payloadJSON: JSON.stringify(payload) };
    },
  };
}

const ours = [NODE_COMMANDS.sessions, NODE_COMMANDS.status, NODE_COMMANDS.running];

test('every node is reported: ok, offline, timeout, no-plugin, error; answers only from those that gave one', async () => {
  const runtime = fakeRuntime([
    { nodeId: 'a'.repeat(64), displayName: 'laptop', connected: true, commands: ours, answer: () => page(['s1', 's2']), delayMs: 20 },
    { nodeId: 'b'.repeat(64), displayName: 'stopped', connected: false, commands: ours, answer: () => page([]) },
    { nodeId: 'c'.repeat(64), displayName: 'slow', connected: true, commands: ours, answer: () => page(['late']), delayMs: 5000 },
    { nodeId: 'd'.repeat(64), displayName: 'bare', connected: true, commands: ['system.run'], answer: () => ({}) },
    { nodeId: 'e'.repeat(64), displayName: 'broken', connected: true, commands: ours, answer: () => ({ v: 1, error: { code: 'E_IO', message: 'disk gone' } }) },
    { nodeId: 'f'.repeat(64), displayName: 'local', connected: true, gatewayLocal: true, commands: ours, answer: () => page(['never']) },
  ]);
  const { reports, answers } = await askNodes(runtime, { command: NODE_COMMANDS.sessions, request, timeoutMs: 300, fallback: true });
  const byName = Object.fromEntries(reports.map((r) => [r.name, r]));
  assert.deepEqual(Object.keys(byName).sort(), ['bare', 'broken', 'laptop', 'slow', 'stopped'], 'the node installed alongside the gateway is not asked');
  assert.equal(byName.laptop.status, 'ok');
  assert.equal(byName.laptop.sessions, 2);
  assert.equal(byName.laptop.hostId, `node:${'a'.repeat(64)}`);
  assert.equal(byName.stopped.status, 'offline');
  assert.equal(byName.slow.status, 'timeout');
  assert.ok(byName.slow.ms >= 250, `the slow node is waited for up to its timeout (${byName.slow.ms} ms)`);
  assert.equal(runtime.flight.aborted, 1, 'and its invocation is then aborted');
  assert.equal(byName.bare.status, 'no-plugin');
  assert.match(byName.bare.message, /openclaw nodes approve/);
  assert.equal(byName.broken.status, 'error');
  assert.match(byName.broken.message, /E_IO: disk gone/);
  for (const r of reports) assert.equal(typeof r.ms, 'number');
  assert.deepEqual(answers.map((a) => a.host.name), ['laptop']);
  assert.deepEqual(answers[0].answer.sessions.map((s) => s.sessionId), ['s1', 's2']);
  assert.deepEqual(runtime.calls.find((c) => c.command === NODE_COMMANDS.sessions).params, request, 'the identity, path hint and limit cross the wire');
});

test('nodes are asked in parallel, and none is given more time than the deadline leaves', async () => {
  const nodes = Array.from({ length: 10 }, (_, i) => ({ nodeId: `${i}`.padStart(64, '0'), displayName: `n${i}`, connected: true, commands: ours, answer: () => page([`s${i}`]), delayMs: 200 }));
  const runtime = fakeRuntime(nodes);
  const all = await askNodes(runtime, { command: NODE_COMMANDS.sessions, request, timeoutMs: 5000 });
  assert.equal(all.answers.length, 10);
  assert.equal(runtime.flight.most, 10, 'all ten in flight at once');
  const late = fakeRuntime(nodes);
  const cut = await askNodes(late, { command: NODE_COMMANDS.sessions, request, timeoutMs: 5000, deadline: Date.now() + 60 });
  assert.ok(cut.reports.every((r) => r.status === 'timeout'), JSON.stringify(cut.reports));
  assert.ok(late.calls.every((c) => c.timeoutMs <= 60), 'each invocation carries the time left, not the per-node timeout');
  assert.equal(late.flight.aborted, 10, 'each is aborted at the deadline');
});

test('a node without the plugin answers through OpenClaw\'s catalog, only the rows of the repository, marked fallback; not when fallback is off', async () => {
  const rows = [
    { threadId: 'in-repo', name: 'Fix the cart', cwd: '/home/b/work/shop', gitBranch: 'main', updatedAt: Date.UTC(2026, 0, 2), status: 'stored', source: 'claude-cli' },
    { threadId: 'other-repo', name: 'Fix the shopfront', cwd: '/home/b/work/shopfront', updatedAt: Date.UTC(2026, 0, 3), status: 'stored', source: 'claude-cli' },
    { threadId: 'older', name: null, cwd: 'C:\\src\\Shop', updatedAt: Date.UTC(2026, 0, 1), status: 'stored', source: 'claude-cli' },
  ];
  const runtime = fakeRuntime([{ nodeId: 'b'.repeat(64), displayName: 'box', connected: true, commands: [CATALOG_LIST_COMMAND], answer: () => ({ sessions: rows }) }]);
  const { reports, answers } = await askNodes(runtime, { command: NODE_COMMANDS.sessions, request, timeoutMs: 1000, fallback: true });
  assert.deepEqual(reports.map((r) => [r.status, r.fallback]), [['ok', true]]);
  assert.deepEqual(runtime.calls[0], { nodeId: 'b'.repeat(64), command: CATALOG_LIST_COMMAND, params: { limit: 100, searchTerm: 'shop' }, timeoutMs: 1000 });
  assert.equal(answers[0].host.fallback, true);
  const sessions = answers[0].answer.sessions;
  assert.deepEqual(sessions.map((s) => s.sessionId), ['in-repo', 'older'], 'newest first, the other repository left out');
  assert.equal(sessions[0].firstMessage, 'Fix the cart');
  assert.equal(sessions[0].branch, 'main');
  assert.equal(sessions[0].projectPath, '/home/b/work/shop');
  assert.equal(sessions[1].firstMessage, '(no message)');
  const off = await askNodes(runtime, { command: NODE_COMMANDS.sessions, request, timeoutMs: 1000, fallback: false });
  assert.equal(off.reports[0].status, 'no-plugin');
});

test('node selection: all, none, or ids (with or without node:) and display names; an unknown name is reported offline', () => {
  const nodes = [{ nodeId: 'A1', displayName: 'Laptop' }, { nodeId: 'B2', displayName: 'box' }, { nodeId: 'C3', displayName: 'gw', gatewayLocal: true }];
  assert.deepEqual(selectNodes(nodes, 'all').chosen.map((n) => n.nodeId), ['A1', 'B2']);
  assert.deepEqual(selectNodes(nodes, 'none').chosen, []);
  assert.deepEqual(selectNodes(nodes, ['laptop', 'node:b2', 'nope']), { chosen: nodes.slice(0, 2), unknown: ['nope'] });
});

test('a node command\'s parameters are checked: an identity that names a repository, a limit of 1 to 200', () => {
  assert.deepEqual(hostRequest(JSON.stringify({ identity: { remote: 'github.com/acme/shop' }, pathHint: '/gw/shop', limit: 10 })),
    { identity: { path: undefined, remote: 'github.com/acme/shop', rootCommit: null }, pathHint: '/gw/shop', limit: 10, cursor: undefined });
  for (const bad of ['not json', '{}', '{"identity":{}}', '{"identity":{"remote":"x"},"limit":0}', '{"identity":{"remote":"x"},"limit":201}']) {
    assert.throws(() => hostRequest(bad), (e) => e.code === 'E_INVALID_ARGUMENT', bad);
  }
  assert.equal(nodeSelection(undefined), 'all');
  assert.deepEqual(nodeSelection(['laptop']), ['laptop']);
  assert.throws(() => nodeSelection('some'), (e) => e.code === 'E_INVALID_ARGUMENT');
  assert.throws(() => nodeSelection([' ']), (e) => e.code === 'E_INVALID_ARGUMENT');
});

test('the merged listing: every session with its host and folder, newest first across hosts, counts over all, the gateway\'s report first', () => {
  const at = (m) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString().replace('.000Z', 'Z');
  const local = { sessions: [{ sessionId: 'gw-1', source: 'native-only', branch: 'main', firstMessage: 'a', lastModified: at(10), messageCount: 2, isRunning: false }], total: 1, activeCount: 0 };
  const node = (id, name, sessions, fallback = false) => ({ host: { id: `node:${id}`, name, fallback }, answer: { v: 1, repositories: ['/n/shop'], sessions, nextCursor: null, truncated: false } });
  const row = (sessionId, m, extra = {}) => ({ sessionId, source: 'native-only', branch: 'main', firstMessage: sessionId, lastModified: at(m), messageCount: 3, projectPath: `/n/${sessionId}`, running: false, ...extra });
  const remote = {
    reports: [{ hostId: 'node:a', name: 'laptop', status: 'ok', ms: 5, fallback: false, sessions: 2 }, { hostId: 'node:b', name: 'box', status: 'ok', ms: 7, fallback: true, sessions: 1 }],
    answers: [node('a', 'laptop', [row('a-1', 20, { running: true }), row('a-2', 5)]), node('b', 'box', [row('b-1', 15)], true)],
  };
  const merged = sessionsAcrossHosts('/gw/shop', local, 3, remote, true);
  assert.deepEqual(merged.sessions.map((s) => [s.sessionId, s.host.name]), [['a-1', 'laptop'], ['b-1', 'box'], ['gw-1', 'gateway'], ['a-2', 'laptop']]);
  assert.deepEqual(merged.sessions.map((s) => s.projectPath), ['/n/a-1', '/n/b-1', '/gw/shop', '/n/a-2']);
  assert.equal(merged.sessions[1].host.fallback, true);
  assert.equal(merged.sessions[0].isRunning, true);
  assert.equal(merged.total, 4);
  assert.equal(merged.activeCount, 1);
  assert.deepEqual(merged.hosts.map((h) => [h.hostId, h.status, h.sessions]), [['gateway', 'ok', 1], ['node:a', 'ok', 2], ['node:b', 'ok', 1]]);
});
