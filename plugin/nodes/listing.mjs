// @ts-check
// What the agent tools show of paired nodes: the tools' `nodes` parameter,
// the nodes asked for a repository (by its identity, the gateway's folder
// as a hint), and their answers merged with the gateway's own, each
// session with its host, newest first, with a report per host.

import { coded } from '../host.mjs';
import { settings } from '../config.mjs';
import { askNodes, failedReport } from './fanout.mjs';
import { NODE_COMMANDS, namesRepository, nodeAddon } from './protocol.mjs';

/** @typedef {import('../host.mjs').Api} Api */
/** @typedef {import('./fanout.mjs').HostReport} HostReport */
/** @typedef {import('./fanout.mjs').HostAnswer} HostAnswer */
/** @typedef {import('./fanout.mjs').Host} Host */
/** @typedef {import('./fanout.mjs').NodeSelection} NodeSelection */
/** @typedef {import('./fanout.mjs').NodesRuntime} NodesRuntime */

/** The gateway as the host of its own sessions. @type {Host} */
export const GATEWAY_HOST = Object.freeze({ id: 'gateway', name: 'gateway', fallback: false });

/** The tools' `nodes` parameter's schema. */
export const NODES_PARAM = {
  description: 'Which paired OpenClaw nodes to ask as well: "all" (default), "none", or a list of node ids or display names.',
  anyOf: [{ type: 'string', enum: ['all', 'none'] }, { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 100 }],
};

/**
 * The tools' `nodes` parameter, checked (absent: `all`).
 * @param {unknown} raw
 * @returns {NodeSelection}
 */
export function nodeSelection(raw) {
  if (raw === undefined || raw === null || raw === 'all') return 'all';
  if (raw === 'none') return 'none';
  if (Array.isArray(raw) && raw.every((n) => typeof n === 'string' && n.trim() !== '')) return raw;
  throw Object.assign(new Error('nodes must be "all", "none" or a list of node ids or names'), { code: 'E_INVALID_ARGUMENT', hint: 'omit nodes to ask every connected node' });
}

/** The gateway's runtime of paired nodes, when this OpenClaw has one. @param {Api} api */
export function nodesRuntime(api) {
  const nodes = /** @type {any} */ (api.runtime)?.nodes;
  return typeof nodes?.list === 'function' && typeof nodes?.invoke === 'function' ? /** @type {NodesRuntime} */ (nodes) : undefined;
}

/** The times of a discovered session, which cross the wire as milliseconds or ISO text. */
const SESSION_TIMES = ['lastModified', 'firstActivity', 'lastActivity'];

/**
 * A value that came over the wire with the sessions' times in it revived
 * as `Date`s, at any depth, as the addon takes a discovered session.
 * @param {unknown} v
 * @returns {any}
 */
function reviveTimes(v) {
  if (Array.isArray(v)) return v.map(reviveTimes);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, SESSION_TIMES.includes(k) && (typeof x === 'string' || typeof x === 'number') ? new Date(x) : reviveTimes(x)]));
}

/**
 * A session as it came over the wire (times as milliseconds or ISO text,
 * `running`), as the addon takes a discovered session. A session's times
 * are all at its top level.
 * @param {Record<string, any>} s
 */
export function reviveSession(s) {
  /** @type {Record<string, any>} */
  const out = { ...s, isRunning: Boolean(s.running ?? s.isRunning) };
  for (const k of SESSION_TIMES) if (typeof s[k] === 'string' || typeof s[k] === 'number') out[k] = new Date(s[k]);
  return out;
}

/**
 * Asks the nodes `selection` names the node command `command` about the
 * repository at `repoPath` (a folder on the gateway), within the nodes' timeout
 * and `deadline`. No nodes are asked when the plugin's `nodes.enabled` is
 * off, this OpenClaw has no paired nodes' runtime, or the repository has
 * neither a remote nor a commit (nothing names it on another machine).
 * Never rejects: a failure before any node was asked is one `error` report.
 * @param {Api} api
 * @param {string} repoPath
 * @param {string} command
 * @param {{ selection: NodeSelection, deadline?: number, limit?: number, read?: import('./fanout.mjs').ReadPage }} options `read` as for `askNodes`
 * @returns {Promise<{ reports: HostReport[], answers: HostAnswer[] }>}
 */
export async function askNodesAbout(api, repoPath, command, { selection, deadline, limit, read }) {
  const config = settings(api).nodes;
  const nodes = nodesRuntime(api);
  if (!config.enabled || !nodes || selection === 'none') return { reports: [], answers: [] };
  const started = Date.now();
  try {
    const identity = await nodeAddon().repositoryIdentity(repoPath);
    if (!namesRepository(identity)) return { reports: [], answers: [] };
    return await askNodes(nodes, {
      command,
      request: { identity, pathHint: repoPath, limit: limit ?? config.limit },
      selection,
      timeoutMs: config.timeoutMs,
      deadline,
      read,
      // OpenClaw's catalog lists sessions; it has no project status.
      fallback: config.fallback && command !== NODE_COMMANDS.status,
    });
  } catch (e) {
    // The gateway's list of nodes or the repository's identity failed: no node was asked.
    const { code, message } = coded(e);
    return { reports: [failedReport('node:*', 'paired nodes', 'error', Date.now() - started, `${code}: ${message}`)], answers: [] };
  }
}

/** The gateway's own report. @param {number} ms @param {number} sessions @returns {HostReport} */
export const gatewayReport = (ms, sessions) => ({ hostId: GATEWAY_HOST.id, name: GATEWAY_HOST.name, status: 'ok', ms, fallback: false, sessions, more: false });

/**
 * How the tools read a node's page: its sessions as `claude_code_sessions`
 * rows (the addon's tool payload, with `host` and `projectPath`) in `rows`,
 * made by the addon on a worker thread from the page's JSON text
 * (`hostPageRowsJson`), so that the gateway's event loop only parses the
 * rows of each page as it arrives.
 * @param {boolean} includeNative
 * @returns {import('./fanout.mjs').ReadPage}
 */
export function toolRows(includeNative) {
  return async (text, host) => JSON.parse(await nodeAddon().hostPageRowsJson(text, host, { includeNative }));
}

/**
 * The `claude_code_sessions` payload across hosts: the gateway's own
 * payload and the nodes' pages (read by `toolRows`), each session with its
 * `host`, newest first, and `hosts`: the gateway's report, then each
 * node's.
 * @param {string} repoPath the repository's folder on the gateway
 * @param {{ sessions: any[], total: number, activeCount: number }} local the gateway's `sessionListToolPayload`
 * @param {number} localMs
 * @param {{ reports: HostReport[], answers: HostAnswer[] }} remote
 */
export function sessionsAcrossHosts(repoPath, local, localMs, remote) {
  const rows = local.sessions.map((s) => ({ ...s, projectPath: repoPath, host: GATEWAY_HOST }));
  for (const { answer } of remote.answers) if (Array.isArray(answer?.rows)) for (const row of answer.rows) rows.push(row);
  // Each row's time is parsed once, not at every comparison of the sort.
  const keyed = rows.map((row) => ({ row, at: Date.parse(row.lastModified) }));
  keyed.sort((x, y) => y.at - x.at);
  const sessions = keyed.map((k) => k.row);
  return {
    ...local,
    sessions,
    total: sessions.length,
    activeCount: sessions.filter((s) => s.isRunning).length,
    hosts: [gatewayReport(localMs, local.sessions.length), ...remote.reports],
  };
}

/**
 * The `project_status` payload across hosts: the gateway's payload, and
 * `remote`: per folder of the repository on each node that answered, its
 * host, folder and status payload (as the gateway's), and `hosts`.
 * A node answering only through OpenClaw's catalog has no status and is
 * reported `no-plugin`.
 * @param {Record<string, any>} local the gateway's `projectStatusToolPayload`
 * @param {number} localMs
 * @param {{ reports: HostReport[], answers: HostAnswer[] }} remote
 */
export function statusAcrossHosts(local, localMs, remote) {
  const a = /** @type {any} */ (nodeAddon());
  /** @type {any[]} */
  const folders = [];
  for (const { host, answer } of remote.answers) {
    const statuses = Array.isArray(answer?.statuses) ? answer.statuses : [];
    statuses.forEach((/** @type {unknown} */ st, /** @type {number} */ i) => {
      folders.push({ host, repoPath: answer.repositories?.[i] ?? null, ...a.projectStatusToolPayload(reviveTimes(st)) });
    });
  }
  const sessions = [...(local.activeSessions ?? []), ...(local.recentSessions ?? [])].length;
  return { ...local, remote: folders, hosts: [gatewayReport(localMs, sessions), ...remote.reports] };
}
