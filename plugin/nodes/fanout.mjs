// @ts-check
// The gateway side of paired nodes: asks the connected nodes one of the
// plugin's node commands at once, in parallel, each within its own timeout
// and never past the caller's deadline, and reports every node: `ok`,
// `offline` (paired, not connected), `timeout`, `no-plugin` (neither the
// plugin's command nor the catalog fallback is invocable there) or `error`
// (with the message), and how long it took. A node without the plugin's
// command but with OpenClaw's Claude session catalog answers through it
// (catalog-fallback.mjs), marked `fallback`. A page that ends with a
// `nextCursor` before the `limit` asked for is followed by the next one,
// within the node's time and at most MAX_PAGES pages. Nodes installed
// alongside the gateway (`gatewayLocal`) are skipped: their sessions are
// the gateway's own.

import { MAX_ANSWER_BYTES, MAX_PAGE_LIMIT } from './protocol.mjs';
import { catalogPage, catalogRequest } from './catalog-fallback.mjs';

/** @typedef {import('./protocol.mjs').HostRequest} HostRequest */
/** @typedef {import('./protocol.mjs').HostPage} HostPage */
/** @typedef {'ok' | 'offline' | 'timeout' | 'no-plugin' | 'error'} HostStatus */
/**
 * What one host did: its id (`gateway` or `node:<nodeId>`), display name,
 * status, the time it took in milliseconds, the message of a failure (or
 * of why its pages stopped early), whether it answered through OpenClaw's
 * catalog, how many sessions it gave, and whether it holds more than it
 * gave (its last page named a next one: more than the `limit` asked for,
 * or pages left when MAX_PAGES or its time ran out).
 * @typedef {{ hostId: string, name: string, status: HostStatus, ms: number, message?: string, fallback: boolean, sessions: number, more: boolean }} HostReport
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
 * How the JSON text of one page a node answered becomes what the caller
 * keeps, as it arrives (while slower nodes are still awaited); JSON.parse
 * when none is given. What it makes must keep the page's `error`,
 * `nextCursor` and `truncated`, and its `sessions` or their number as
 * `sessionCount`.
 * @typedef {(text: string, host: Host) => any} ReadPage
 */
/**
 * A fan-out: the command and request, which nodes, the per-node timeout,
 * the deadline (epoch ms) no node is waited for past, whether a node
 * without the command may answer through the catalog, and how each page is
 * read.
 * @typedef {{ command: string, request: HostRequest, selection?: NodeSelection, timeoutMs: number, deadline?: number, fallback?: boolean, read?: ReadPage, now?: () => number }} FanOut
 */

/** The most pages one node is asked for in one fan-out (each within the node's one timeout). */
export const MAX_PAGES = 5;

/**
 * The report of a host that gave nothing.
 * @param {string} hostId
 * @param {string} name
 * @param {HostStatus} status
 * @param {number} ms
 * @param {string} message
 * @returns {HostReport}
 */
export const failedReport = (hostId, name, status, ms, message) => ({ hostId, name, status, ms, message, fallback: false, sessions: 0, more: false });

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
 * The JSON text of a `nodes.invoke` result (`{ ok, payload, payloadJSON }`),
 * bounded.
 * @param {any} result
 * @returns {string}
 */
export function invokeText(result) {
  if (result?.ok === false) throw new HostFailure(statusOf(result.error ?? result), messageOf(result.error ?? result));
  const raw = typeof result?.payloadJSON === 'string' ? result.payloadJSON : typeof result?.payload === 'string' ? result.payload : JSON.stringify(result?.payload ?? null);
  if (raw.length > MAX_ANSWER_BYTES * 2) throw new HostFailure('error', `the answer is ${raw.length} bytes, over the ${MAX_ANSWER_BYTES * 2}-byte bound`);
  return raw;
}

/** JSON text parsed; not JSON: a failure of the node. @param {string} text */
function parsed(text) {
  try {
    return JSON.parse(text);
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

/** How many sessions a page (as read) holds. @param {any} page */
const sessionsOf = (page) => (Array.isArray(page?.sessions) ? page.sessions.length : Number(page?.sessionCount) || 0);

/**
 * A node's pages as one: their sessions (and rows) in order, the folders
 * of all, the last one's `nextCursor` and `truncated`.
 * @param {any[]} pages
 */
function joinPages(pages) {
  if (pages.length === 1) return pages[0];
  const last = pages[pages.length - 1];
  /** @type {Record<string, any>} */
  const joined = { ...pages[0], nextCursor: last.nextCursor ?? null, truncated: Boolean(last.truncated), sessionCount: pages.reduce((n, p) => n + sessionsOf(p), 0) };
  for (const key of ['sessions', 'rows']) if (Array.isArray(pages[0][key])) joined[key] = pages.flatMap((p) => p[key] ?? []);
  if (Array.isArray(pages[0].repositories)) joined.repositories = [...new Set(pages.flatMap((p) => p.repositories ?? []))];
  return joined;
}

/**
 * Asks one connected node for one page (the next after `cursor`, of at
 * most `limit` sessions), within `ms`: the plugin's command, or the
 * catalog's when `fallback`; read by `ask.read`.
 * @param {NodesRuntime} nodes
 * @param {NodeEntry} node
 * @param {FanOut} ask
 * @param {{ fallback: boolean, cursor?: string, limit?: number, ms: number }} page
 */
async function askPage(nodes, node, ask, { fallback, cursor, limit, ms }) {
  const call = fallback ? catalogRequest(ask.request.identity, cursor) : { command: ask.command, params: { ...ask.request, ...(limit === undefined ? {} : { limit }), ...(cursor ? { cursor } : {}) } };
  const controller = new AbortController();
  const text = invokeText(await within(nodes.invoke({ nodeId: node.nodeId, command: call.command, params: call.params, timeoutMs: ms, signal: controller.signal }), ms, controller));
  const host = hostOf(node, fallback);
  if (fallback) {
    const page = catalogPage(ask.request.identity, parsed(text));
    return ask.read ? ask.read(JSON.stringify(page), host) : page;
  }
  const page = ask.read ? await ask.read(text, host) : parsed(text);
  if (page?.error) throw new HostFailure('error', `${page.error.code ?? 'E_INTERNAL'}: ${page.error.message ?? 'failed'}`);
  return page;
}

/**
 * Asks one connected node: the plugin's command when the node can answer
 * it, else the catalog fallback when allowed; page after page while a page
 * names a next one and fewer sessions than `ask.request.limit` came, at
 * most MAX_PAGES, all within `ms`. A later page that fails or finds no
 * time left ends the pages: those that came are kept, with the reason.
 * @param {NodesRuntime} nodes
 * @param {NodeEntry} node
 * @param {FanOut} ask
 * @param {number} ms the node's time
 * @returns {Promise<{ answer: any, fallback: boolean, more: boolean, stopped?: string }>}
 */
async function askNode(nodes, node, ask, ms) {
  const now = ask.now ?? Date.now;
  const until = now() + ms;
  const offered = new Set(node.invocableCommands ?? node.commands ?? []);
  const fallback = !offered.has(ask.command);
  if (fallback) {
    const viaCatalog = catalogRequest(ask.request.identity).command;
    if (!ask.fallback || !offered.has(viaCatalog)) throw new HostFailure('no-plugin', `the node offers neither ${ask.command} nor ${ask.fallback ? viaCatalog : 'a fallback'}; install the plugin there and approve its commands (openclaw nodes approve)`);
  }
  const want = ask.request.limit;
  const pages = [];
  let got = 0;
  /** @type {string | undefined} */
  let cursor;
  /** @type {string | undefined} */
  let stopped;
  do {
    const left = until - now();
    try {
      if (left <= 0) throw new HostFailure('timeout', 'no time left within the deadline');
      // A later page asks only for what is still missing.
      const limit = want === undefined || fallback ? undefined : Math.min(want - got, MAX_PAGE_LIMIT);
      pages.push(await askPage(nodes, node, ask, { fallback, cursor, limit, ms: left }));
    } catch (e) {
      if (!pages.length) throw e;
      stopped = `stopped after ${pages.length} page${pages.length > 1 ? 's' : ''}: ${messageOf(e)}`;
      break;
    }
    const last = pages[pages.length - 1];
    got += sessionsOf(last);
    cursor = typeof last?.nextCursor === 'string' && last.nextCursor ? last.nextCursor : undefined;
  } while (cursor && (want === undefined || got < want) && pages.length < MAX_PAGES);
  return { answer: joinPages(pages), fallback, more: cursor !== undefined, stopped };
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
      const { answer, fallback, more, stopped } = s.value;
      reports.push({ hostId, name, status: 'ok', ms: times[i], ...(stopped ? { message: stopped } : {}), fallback, sessions: sessionsOf(answer), more });
      answers.push({ host: hostOf(node, s.value.fallback), answer: s.value.answer });
    } else {
      const e = s.reason;
      reports.push(failedReport(hostId, name, e instanceof HostFailure ? e.status : statusOf(e), times[i], messageOf(e)));
    }
  });
  for (const name of unknown) reports.push(failedReport(`node:${name}`, name, 'offline', 0, 'no paired node has this id or name'));
  return { reports, answers };
}
