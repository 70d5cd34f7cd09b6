// @ts-check
// The gateway side of paired nodes: asks the connected nodes one of the
// plugin's node commands at once, in parallel, each within its own timeout
// and never past the caller's deadline, and reports every node: `ok`,
// `offline` (paired, not connected), `timeout`, `no-plugin` (neither the
// plugin's command nor the catalog fallback is invocable there) or `error`
// (with the message), and how long it took. A node without the plugin's
// command but with OpenClaw's Claude session catalog answers through it
// (catalog-fallback.mjs), marked `fallback`. Nodes installed alongside
// the gateway (`gatewayLocal`) are skipped: their sessions are the
// gateway's own.

import { MAX_ANSWER_BYTES } from './protocol.mjs';
import { catalogPage, catalogRequest } from './catalog-fallback.mjs';

/** @typedef {import('./protocol.mjs').HostRequest} HostRequest */
/** @typedef {import('./protocol.mjs').HostPage} HostPage */
/** @typedef {'ok' | 'offline' | 'timeout' | 'no-plugin' | 'error'} HostStatus */
/**
 * What one host did: its id (`gateway` or `node:<nodeId>`), display name,
 * status, the time it took in milliseconds, the message of a failure,
 * whether it answered through OpenClaw's catalog, and how many sessions it
 * gave.
 * @typedef {{ hostId: string, name: string, status: HostStatus, ms: number, message?: string, fallback: boolean, sessions: number }} HostReport
 */
/** The host a result came from. @typedef {{ id: string, name: string, fallback: boolean }} Host */
/** One host's answer. @typedef {{ host: Host, answer: any }} HostAnswer */
/**
 * Which nodes to ask: `all`, `none`, or node ids (with or without `node:`)
 * and display names.
 * @typedef {'all' | 'none' | string[]} NodeSelection
 */
/**
 * The part of OpenClaw's gateway runtime used here (`api.runtime.nodes`).
 * @typedef {{ list: (params?: { connected?: boolean }) => Promise<{ nodes: Array<NodeEntry> }>, invoke: (params: { nodeId: string, command: string, params?: unknown, timeoutMs?: number, signal?: AbortSignal }) => Promise<unknown> }} NodesRuntime
 */
/**
 * A paired node as `nodes.list` reports it.
 * @typedef {{ nodeId: string, displayName?: string, connected?: boolean, gatewayLocal?: boolean, commands?: string[], invocableCommands?: string[] }} NodeEntry
 */
/**
 * A fan-out: the command and request, which nodes, the per-node timeout,
 * the deadline (epoch ms) no node is waited for past, whether a node
 * without the command may answer through the catalog, and what to make of
 * each answer as it arrives (while slower nodes are still awaited).
 * @typedef {{ command: string, request: HostRequest, selection?: NodeSelection, timeoutMs: number, deadline?: number, fallback?: boolean, shape?: (answer: any, host: Host) => any, now?: () => number }} FanOut
 */

/** A node's host id. @param {string} nodeId */
export const nodeHostId = (nodeId) => `node:${nodeId}`;

/** The host a node's answer comes from. @param {NodeEntry} node @param {boolean} fallback @returns {Host} */
const hostOf = (node, fallback) => ({ id: nodeHostId(node.nodeId), name: node.displayName || node.nodeId.slice(0, 12), fallback });

/**
 * The paired nodes `selection` names, and the names it gives that no
 * paired node has.
 * @param {NodeEntry[]} nodes
 * @param {NodeSelection} selection
 */
export function selectNodes(nodes, selection) {
  const paired = nodes.filter((n) => !n.gatewayLocal);
  if (selection === 'none') return { chosen: [], unknown: [] };
  if (selection === 'all') return { chosen: paired, unknown: [] };
  const norm = (/** @type {string} */ s) => s.trim().toLowerCase().replace(/^node:/, '');
  const wanted = selection.map(norm);
  const matches = (/** @type {NodeEntry} */ n, /** @type {string} */ w) => n.nodeId.toLowerCase() === w || (n.displayName ?? '').toLowerCase() === w;
  return {
    chosen: paired.filter((n) => wanted.some((w) => matches(n, w))),
    unknown: selection.filter((_, i) => !paired.some((n) => matches(n, wanted[i]))),
  };
}

/** A failure with the status it is reported as. */
class HostFailure extends Error {
  /** @param {HostStatus} status @param {string} message */
  constructor(status, message) {
    super(message);
    /** How the host is reported. */
    this.status = status;
  }
}

/**
 * The payload of a `nodes.invoke` result (`{ ok, payload, payloadJSON }`),
 * parsed and bounded.
 * @param {any} result
 */
export function invokePayload(result) {
  if (result?.ok === false) throw new HostFailure(statusOf(result.error ?? result), messageOf(result.error ?? result));
  const raw = typeof result?.payloadJSON === 'string' ? result.payloadJSON : typeof result?.payload === 'string' ? result.payload : undefined;
  if (raw === undefined) return result?.payload;
  if (raw.length > MAX_ANSWER_BYTES * 2) throw new HostFailure('error', `the answer is ${raw.length} bytes, over the ${MAX_ANSWER_BYTES * 2}-byte bound`);
  try {
    return JSON.parse(raw);
  } catch {
    throw new HostFailure('error', 'the answer is not JSON');
  }
}

/** A thrown value's message. @param {any} e */
const messageOf = (e) => String(e?.message ?? e?.code ?? e);

/**
 * How a failure of OpenClaw's `node.invoke` is reported.
 * @param {any} e
 * @returns {HostStatus}
 */
function statusOf(e) {
  const text = `${e?.code ?? ''} ${e?.message ?? ''}`;
  if (/timeout|timed out/i.test(text)) return 'timeout';
  if (/NODE_OFFLINE|not connected|disconnected|offline|unknown node/i.test(text)) return 'offline';
  return 'error';
}

/**
 * `work`, or a `timeout` failure after `ms` (aborting `controller`).
 * @template T
 * @param {Promise<T>} work
 * @param {number} ms
 * @param {AbortController} controller
 * @returns {Promise<T>}
 */
async function within(work, ms, controller) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new HostFailure('timeout', `no answer within ${ms} ms`));
    }, ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks one connected node: the plugin's command when the node can answer
 * it, else the catalog fallback when allowed.
 * @param {NodesRuntime} nodes
 * @param {NodeEntry} node
 * @param {FanOut} ask
 * @param {number} ms the node's time
 * @returns {Promise<{ answer: any, fallback: boolean }>}
 */
async function askNode(nodes, node, ask, ms) {
  const offered = new Set(node.invocableCommands ?? node.commands ?? []);
  const fallback = !offered.has(ask.command);
  /** @type {{ command: string, params: unknown }} */
  let call = { command: ask.command, params: ask.request };
  if (fallback) {
    const viaCatalog = catalogRequest(ask.request.identity);
    if (!ask.fallback || !offered.has(viaCatalog.command)) throw new HostFailure('no-plugin', `the node offers neither ${ask.command} nor ${ask.fallback ? viaCatalog.command : 'a fallback'}; install the plugin there and approve its commands (openclaw nodes approve)`);
    call = viaCatalog;
  }
  if (ms <= 0) throw new HostFailure('timeout', 'no time left within the deadline');
  const controller = new AbortController();
  const result = await within(nodes.invoke({ nodeId: node.nodeId, command: call.command, params: call.params, timeoutMs: ms, signal: controller.signal }), ms, controller);
  const payload = invokePayload(result);
  if (!fallback && payload?.error) throw new HostFailure('error', `${payload.error.code ?? 'E_INTERNAL'}: ${payload.error.message ?? 'failed'}`);
  const answer = fallback ? catalogPage(ask.request.identity, payload) : payload;
  return { answer: ask.shape ? ask.shape(answer, hostOf(node, fallback)) : answer, fallback };
}

/**
 * Asks the nodes `ask.selection` names (see the header). Resolves, within
 * the deadline, to a report per node (those selected by a name no paired
 * node has are `offline`) and the answers of those that gave one; never
 * rejects for a node's failure.
 * @param {NodesRuntime} nodes
 * @param {FanOut} ask
 * @returns {Promise<{ reports: HostReport[], answers: HostAnswer[] }>}
 */
export async function askNodes(nodes, ask) {
  const now = ask.now ?? Date.now;
  const deadline = ask.deadline ?? Infinity;
  const { chosen, unknown } = selectNodes((await nodes.list({})).nodes ?? [], ask.selection ?? 'all');
  /** @type {number[]} */
  const times = [];
  const settled = await Promise.allSettled(chosen.map(async (node, i) => {
    const from = now();
    try {
      if (node.connected === false) throw new HostFailure('offline', 'paired, not connected');
      return await askNode(nodes, node, ask, Math.min(ask.timeoutMs, deadline - from));
    } finally {
      times[i] = now() - from;
    }
  }));
  /** @type {HostReport[]} */
  const reports = [];
  /** @type {HostAnswer[]} */
  const answers = [];
  chosen.forEach((node, i) => {
    const { id: hostId, name } = hostOf(node, false);
    const s = settled[i];
    if (s.status === 'fulfilled') {
      const count = Array.isArray(s.value.answer?.sessions) ? s.value.answer.sessions.length : 0;
      reports.push({ hostId, name, status: 'ok', ms: times[i], fallback: s.value.fallback, sessions: count });
      answers.push({ host: hostOf(node, s.value.fallback), answer: s.value.answer });
    } else {
      const e = s.reason;
      reports.push({ hostId, name, status: e instanceof HostFailure ? e.status : statusOf(e), ms: times[i], message: messageOf(e), fallback: false, sessions: 0 });
    }
  });
  for (const name of unknown) reports.push({ hostId: `node:${name}`, name, status: 'offline', ms: 0, message: 'no paired node has this id or name', fallback: false, sessions: 0 });
  return { reports, answers };
}
