// Paired nodes in the plugin (plugin/nodes/), against an in-process
// stand-in of OpenClaw's `api.runtime.nodes` (list, invoke with latency):
// the fan-out's report per node with its status and time, nodes asked in
// parallel, each within its timeout and the deadline, the catalog fallback
// matched to the repository, node selection; the node commands' parameters;
// the tools' merged listing. The real nodes are proven in
// __test__/openclaw/nodes.openclaw.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_PAGES, askNodes, selectNodes } from '../plugin/nodes/fanout.mjs';
import { CATALOG_LIST_COMMAND, NODE_COMMANDS } from '../plugin/nodes/protocol.mjs';
import { hostRequest } from '../plugin/nodes/commands.mjs';
import { nodeSelection, sessionsAcrossHosts, toolRows } from '../plugin/nodes/listing.mjs';

const identity = { path: '/gw/src/shop', remote: 'github.com/acme/shop', rootCommit: 'a'.repeat(40) };
const request = { identity, pathHint: identity.path, limit: 50 };
const page = (ids, extra = {}) => ({ v: 1, repositories: ['/x/shop'], sessions: ids.map((id, i) => ({ sessionId: id, lastModified: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(), running: false })), nextCursor: null, truncated: false, ...extra });

/**
 * A stand-in of `api.runtime.nodes`: `nodes` as `{ nodeId, displayName,
 * connected, commands, answer(command, params) -> payload | throws, delayMs }`
 * (`delayMs` a number, or a function of the params).
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
          const t = setTimeout(ok, (typeof n.delayMs === 'function' ? n.delayMs(params) : n.delayMs) ?? 0);
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
  // On a clock that stands still at 0 the deadline leaves every node 60 ms,
  // however late the machine gets to asking them.
  const cut = await askNodes(late, { command: NODE_COMMANDS.sessions, request, timeoutMs: 5000, deadline: 60, now: () => 0 });
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
  // A clock that stands still: the catalog's call carries the node's whole
  // time, which a real clock would have shortened by the millisecond it crossed.
  const { reports, answers } = await askNodes(runtime, { command: NODE_COMMANDS.sessions, request, timeoutMs: 1000, fallback: true, now: () => 0 });
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

test('the merged listing: every session with its host and folder, newest first across hosts, counts over all, the gateway\'s report first', async () => {
  const at = (m) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString().replace('.000Z', 'Z');
  const local = { sessions: [{ sessionId: 'gw-1', source: 'native-only', branch: 'main', firstMessage: 'a', lastModified: at(10), messageCount: 2, isRunning: false }], total: 1, activeCount: 0 };
  // Each page as the tools read it: its JSON text made rows by the addon.
  const node = async (id, name, sessions, fallback = false) => {
    const host = { id: `node:${id}`, name, fallback };
    return { host, answer: await toolRows(true)(JSON.stringify({ v: 1, repositories: ['/n/shop'], sessions, nextCursor: null, truncated: false }), host) };
  };
  const row = (sessionId, m, extra = {}) => ({ sessionId, source: 'native-only', branch: 'main', firstMessage: sessionId, lastModified: at(m), messageCount: 3, projectPath: `/n/${sessionId}`, running: false, ...extra });
  const remote = {
    reports: [{ hostId: 'node:a', name: 'laptop', status: 'ok', ms: 5, fallback: false, sessions: 2 }, { hostId: 'node:b', name: 'box', status: 'ok', ms: 7, fallback: true, sessions: 1 }],
    answers: await Promise.all([node('a', 'laptop', [row('a-1', 20, { running: true }), row('a-2', 5)]), node('b', 'box', [row('b-1', 15)], true)]),
  };
  const merged = sessionsAcrossHosts('/gw/shop', local, 3, remote);
  assert.deepEqual(merged.sessions.map((s) => [s.sessionId, s.host.name]), [['a-1', 'laptop'], ['b-1', 'box'], ['gw-1', 'gateway'], ['a-2', 'laptop']]);
  assert.deepEqual(merged.sessions.map((s) => s.projectPath), ['/n/a-1', '/n/b-1', '/gw/shop', '/n/a-2']);
  assert.equal(merged.sessions[1].host.fallback, true);
  assert.equal(merged.sessions[0].isRunning, true);
  assert.equal(merged.total, 4);
  assert.equal(merged.activeCount, 1);
  assert.deepEqual(merged.hosts.map((h) => [h.hostId, h.status, h.sessions]), [['gateway', 'ok', 1], ['node:a', 'ok', 2], ['node:b', 'ok', 1]]);
});

/**
 * A node of `count` sessions whose pages hold at most `perPage` of them (as
 * the byte bound cuts a page short of its limit), each page after the
 * cursor its previous one gave.
 */
function pagedNode(nodeId, displayName, count, perPage, delays = []) {
  return {
    nodeId, displayName, connected: true, commands: ours,
    // Page i (after the cursor of page i - 1) answers after delays[i] ms.
    delayMs: (params) => delays[params.cursor ? Number(params.cursor) / perPage : 0] ?? 0,
    answer: (command, params) => {
      const from = params.cursor ? Number(params.cursor) : 0;
      const to = Math.min(count, from + Math.min(perPage, params.limit ?? 50));
      const ids = Array.from({ length: to - from }, (_, i) => `${displayName}-${from + i}`);
      return page(ids, { nextCursor: to < count ? String(to) : null, truncated: to < count });
    },
  };
}

test('a page that ends before the limit asked for is followed by the next, for what is still missing, up to the limit; the report says whether the node holds more', async () => {
  const runtime = fakeRuntime([pagedNode('a'.repeat(64), 'laptop', 7, 3), pagedNode('b'.repeat(64), 'box', 4, 3)]);
  const { reports, answers } = await askNodes(runtime, { command: NODE_COMMANDS.sessions, request: { ...request, limit: 5 }, timeoutMs: 1000 });
  const laptop = runtime.calls.filter((c) => c.nodeId === 'a'.repeat(64)).map((c) => [c.params.limit, c.params.cursor]);
  assert.deepEqual(laptop, [[5, undefined], [2, '3']], 'the second page asks for the two still missing, after the first page');
  const byName = Object.fromEntries(answers.map((a) => [a.host.name, a.answer]));
  assert.deepEqual(byName.laptop.sessions.map((s) => s.sessionId), ['laptop-0', 'laptop-1', 'laptop-2', 'laptop-3', 'laptop-4']);
  assert.equal(byName.laptop.nextCursor, '5');
  assert.deepEqual(byName.box.sessions.map((s) => s.sessionId), ['box-0', 'box-1', 'box-2', 'box-3']);
  assert.deepEqual(reports.map((r) => [r.name, r.status, r.sessions, r.more]), [['laptop', 'ok', 5, true], ['box', 'ok', 4, false]]);
  // More than a page holds: the pages of at most 200 sessions, then the rest.
  const big = fakeRuntime([pagedNode('c'.repeat(64), 'vm', 1000, 200)]);
  const many = await askNodes(big, { command: NODE_COMMANDS.sessions, request: { ...request, limit: 450 }, timeoutMs: 5000 });
  assert.deepEqual(big.calls.map((c) => c.params.limit), [200, 200, 50]);
  assert.deepEqual(many.reports.map((r) => [r.sessions, r.more]), [[450, true]]);
  // The tools read each page into rows: the rows of both pages, counted.
  const rows = await askNodes(fakeRuntime([pagedNode('a'.repeat(64), 'laptop', 7, 3)]), { command: NODE_COMMANDS.sessions, request: { ...request, limit: 5 }, timeoutMs: 1000, read: toolRows(true) });
  assert.deepEqual(rows.answers[0].answer.rows.map((r) => [r.sessionId, r.host.name]), [0, 1, 2, 3, 4].map((i) => [`laptop-${i}`, 'laptop']));
  assert.equal(rows.reports[0].sessions, 5);
  const merged = sessionsAcrossHosts('/gw/shop', { sessions: [], total: 0, activeCount: 0 }, 0, rows);
  assert.equal(merged.total, 5, 'the merged listing holds both pages');
  assert.deepEqual(merged.hosts.map((h) => [h.hostId, h.more]), [['gateway', false], [`node:${'a'.repeat(64)}`, true]]);
});

test('following pages is bounded: at most MAX_PAGES pages, all within the node\'s timeout; a later page too slow keeps the pages that came', async () => {
  const endless = fakeRuntime([pagedNode('a'.repeat(64), 'laptop', 10_000, 1)]);
  const capped = await askNodes(endless, { command: NODE_COMMANDS.sessions, request: { ...request, limit: 200 }, timeoutMs: 5000 });
  assert.equal(endless.calls.length, MAX_PAGES);
  assert.deepEqual(capped.reports.map((r) => [r.status, r.sessions, r.more]), [['ok', MAX_PAGES, true]]);
  const slow = fakeRuntime([pagedNode('a'.repeat(64), 'laptop', 10, 2, [10, 5000])]);
  const started = Date.now();
  const cut = await askNodes(slow, { command: NODE_COMMANDS.sessions, request, timeoutMs: 1000 });
  assert.ok(Date.now() - started < 4000, 'the second page is given only what is left of the node\'s time');
  assert.ok(slow.calls[1].timeoutMs < 1000, `the second page carries the node's time left (${slow.calls[1].timeoutMs} ms)`);
  assert.deepEqual(cut.reports.map((r) => [r.status, r.sessions, r.more]), [['ok', 2, true]]);
  assert.match(cut.reports[0].message, /stopped after 1 page: no answer within/);
  assert.deepEqual(cut.answers[0].answer.sessions.map((s) => s.sessionId), ['laptop-0', 'laptop-1']);
});

test('the catalog fallback follows the catalog\'s nextCursor too', async () => {
  const pages = {
    first: { sessions: [{ threadId: 'p1', name: 'one', cwd: '/b/shop', updatedAt: Date.UTC(2026, 0, 2) }], nextCursor: 'eyJvZmZzZXQiOjEwMH0' },
    eyJvZmZzZXQiOjEwMH0: { sessions: [{ threadId: 'p2', name: 'two', cwd: '/b/shop', updatedAt: Date.UTC(2026, 0, 1) }] },
  };
  const runtime = fakeRuntime([{ nodeId: 'b'.repeat(64), displayName: 'box', connected: true, commands: [CATALOG_LIST_COMMAND], answer: (_, params) => pages[params.cursor ?? 'first'] }]);
  const { reports, answers } = await askNodes(runtime, { command: NODE_COMMANDS.sessions, request, timeoutMs: 1000, fallback: true });
  assert.deepEqual(runtime.calls.map((c) => c.params.cursor), [undefined, 'eyJvZmZzZXQiOjEwMH0']);
  assert.deepEqual(answers[0].answer.sessions.map((s) => s.sessionId), ['p1', 'p2']);
  assert.deepEqual(reports.map((r) => [r.status, r.fallback, r.sessions, r.more]), [['ok', true, 2, false]]);
});
