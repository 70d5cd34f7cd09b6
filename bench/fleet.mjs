// `npm run bench -- --only fleet`: a simulated fleet of paired nodes,
// in-process stand-ins of OpenClaw's `api.runtime.nodes` (each node with
// its own latency and 2,000 sessions of the repository, answering a page as
// JSON) asked through the plugin's own fan-out (plugin/nodes/fanout.mjs)
// and merged as `claude_code_sessions` merges them (plugin/nodes/listing.mjs):
//   - one merged listing of 50 nodes, against the slowest node's latency
//     (the floor of a parallel fan-out) and the sum of the latencies (a
//     serial one), with the bytes that crossed the wire;
//   - the spawn pre-flight's extra time with 5 live nodes: the addon's
//     pre-flight on a small repository alone, against the same pre-flight
//     with the nodes asked meanwhile and their section built after it.

import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { askNodes } from '../plugin/nodes/fanout.mjs';
import { NODE_COMMANDS } from '../plugin/nodes/protocol.mjs';
import { reviveSession, sessionsAcrossHosts, toolRows } from '../plugin/nodes/listing.mjs';
import { makeGitRepo } from './git-repo.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const addon = createRequire(import.meta.url)('../index.js');
const identity = { path: '/bench/shop', remote: 'github.com/acme/shop', rootCommit: 'f'.repeat(40) };
const TASK = 'Fix the flaky cart test in the checkout flow';

/** 2,000 sessions of one node as a host page holds them (newest first), deterministic. */
function nodeSessions(node, count) {
  const base = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, i) => ({
    sessionId: `${String(node).padStart(8, '0')}-0000-4000-8000-${String(i).padStart(12, '0')}`,
    source: 'native-only',
    repoPath: `/home/u${node}/src/shop`,
    projectPath: `/home/u${node}/src/shop`,
    branch: i % 3 ? 'main' : `feature/cart-${i % 40}`,
    firstMessage: `Work on the cart, step ${i}: round the tax in integer cents and fix the flaky checkout test`.slice(0, 200),
    title: `Cart step ${i}`,
    lastModified: new Date(base + (count - i) * 60_000 + node * 1000).toISOString(),
    messageCount: 40 + (i % 200),
    fileSizeBytes: 50_000 + i * 10,
    isRunning: false,
    running: i === 0 && node % 10 === 0,
    totalInputTokens: 10_000 + i,
    totalOutputTokens: 2_000 + i,
    compactionCount: 0,
    filesTouched: ['src/cart/totals.ts', 'test/cart.test.ts'],
  }));
}

/**
 * A stand-in of `api.runtime.nodes` with `count` connected nodes: node i
 * answers after `latency(i)` ms with a page of its newest `limit` sessions
 * of `perNode` as JSON; `bytes.total` counts what crossed.
 */
function fleet(count, perNode, limit, latency) {
  // Each node's answer is made on that node: not part of the gateway's time.
  const pages = Array.from({ length: count }, (_, i) => {
    const sessions = nodeSessions(i, perNode).slice(0, limit);
    return JSON.stringify({ v: 1, repositories: [sessions[0].projectPath], sessions, nextCursor: sessions.length < perNode ? String(sessions.length) : null, truncated: sessions.length < perNode });
  });
  const bytes = { total: 0 };
  return {
    bytes,
    list: async () => ({ nodes: pages.map((_, i) => ({ nodeId: String(i).padStart(64, '0'), displayName: `node-${i}`, connected: true, invocableCommands: Object.values(NODE_COMMANDS) })) }),
    async invoke({ nodeId }) {
      const i = Number(nodeId);
      await new Promise((ok) => setTimeout(ok, latency(i)));
      const payloadJSON = pages[i];
      bytes.total += payloadJSON.length;
      return { ok: true, nodeId, command: NODE_COMMANDS.sessions, payloadJSON };
    },
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One merged listing of `count` nodes (`limit` sessions each): its time and bytes, median of `runs`. */
async function mergedListing(count, perNode, limit, latency, runs) {
  const times = [];
  let bytes = 0;
  let merged = 0;
  for (let r = 0; r < runs; r++) {
    const nodes = fleet(count, perNode, limit, latency);
    const t = performance.now();
    const remote = await askNodes(nodes, { command: NODE_COMMANDS.sessions, request: { identity, pathHint: identity.path, limit }, timeoutMs: 10_000, read: toolRows(true) });
    const out = sessionsAcrossHosts(identity.path, { sessions: [], total: 0, activeCount: 0 }, 0, remote);
    times.push(performance.now() - t);
    bytes = nodes.bytes.total;
    merged = out.sessions.length;
    if (remote.reports.some((x) => x.status !== 'ok')) throw new Error(`a node failed: ${JSON.stringify(remote.reports.find((x) => x.status !== 'ok'))}`);
  }
  return { ms: median(times), bytes, merged };
}

/**
 * The pre-flight on a small repository, alone and with 5 live nodes asked
 * meanwhile (their section built after it, as the plugin does): medians of
 * `runs`, alternating.
 */
async function preflightWithNodes(runs) {
  const repo = makeGitRepo({ dir: path.join(here, '.corpus', 'git-fleet'), files: 500, commits: 50 });
  const claudeConfigDir = path.join(here, '.corpus', 'fleet-claude');
  const registryRoot = path.join(here, '.corpus', 'fleet-state');
  for (const d of [claudeConfigDir, registryRoot]) fs.mkdirSync(d, { recursive: true });
  const local = () => addon.preflightSpawn({ task: TASK, cwd: repo, agentId: 'main' }, { claudeConfigDir, registryRoot, githubTimeoutMs: 1 });
  const latency = (i) => 20 + i * 10;
  const nodes = fleet(5, 2000, 50, latency);
  const withNodes = async () => {
    const asked = askNodes(nodes, { command: NODE_COMMANDS.sessions, request: { identity, pathHint: repo, limit: 50 }, timeoutMs: 2500 });
    const [r, remote] = await Promise.all([local(), asked]);
    const hosts = remote.answers.map(({ host, answer }) => ({ host: host.name, hostId: host.id, fallback: host.fallback, sessions: answer.sessions.map(reviveSession) }));
    return [r, addon.remoteWorkBriefing(TASK, hosts, {})];
  };
  await local();
  const alone = [];
  const both = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    await local();
    alone.push(performance.now() - t);
    t = performance.now();
    await withNodes();
    both.push(performance.now() - t);
  }
  return { aloneMs: median(alone), withMs: median(both), slowestMs: latency(4) };
}

/** The rows of the fleet group. @param {number} runs */
export async function fleetRows(runs) {
  const latency = (i) => 20 + ((i * 37) % 100);
  const lat = Array.from({ length: 50 }, (_, i) => latency(i));
  const slowest = Math.max(...lat);
  const sum = lat.reduce((a, b) => a + b, 0);
  const small = await mergedListing(50, 2000, 50, latency, runs);
  const full = await mergedListing(50, 2000, 200, latency, runs);
  const ms = (v) => `${v.toFixed(v < 10 ? 2 : 0)} ms`;
  const kib = (b) => `${(b / 1024).toFixed(0)} KiB`;
  const rows = [
    ['fleet: 50 nodes x 2000 sessions, one merged listing (50 per node)', ms(small.ms), `slowest node ${ms(slowest)}: ${(small.ms / slowest).toFixed(2)}x (target <= 1.5x); the nodes one after another ${ms(sum)}; ${kib(small.bytes)} over the wire, ${small.merged} sessions merged`],
    ['  the same, 200 per node (the largest page)', ms(full.ms), `slowest node ${ms(slowest)}: ${(full.ms / slowest).toFixed(2)}x (target <= 2x); ${kib(full.bytes)} over the wire (${kib(full.bytes / 50)} a node, bound 1024 KiB), ${full.merged} sessions merged`],
  ];
  if (typeof addon.remoteWorkBriefing === 'function') {
    const p = await preflightWithNodes(Math.max(runs, 9));
    rows.push(['spawn pre-flight with 5 live nodes (20-60 ms each)', ms(p.withMs), `the pre-flight alone ${ms(p.aloneMs)}: +${ms(p.withMs - p.aloneMs)} (target <= the slowest node, ${ms(p.slowestMs)}, plus 20 ms)`]);
  }
  return rows;
}
