// @ts-check
// The node side of paired nodes: the plugin's node commands, registered on
// every OpenClaw node host where the plugin is installed. Each answers one
// JSON string from the node's own Claude Code config and persistent cache
// through the addon, bounded in size (a page of `limit` sessions and at
// most MAX_ANSWER_BYTES); a failure is answered as `{ v, error }` with the
// addon's code and hint, so the gateway reports it and goes on.

import { PLUGIN_ID, addon, coded } from '../host.mjs';
import { settings } from '../config.mjs';
import { MAX_ANSWER_BYTES, NODE_COMMANDS, nodeAddon } from './protocol.mjs';

/** @typedef {import('../host.mjs').Api} Api */
/** @typedef {import('./protocol.mjs').HostRequest} HostRequest */

/** The format version of every answer. */
const V = 1;

/**
 * A node command's parameters, checked: `identity` (an object with a
 * remote, a root commit or a path), `pathHint`, `limit` and `cursor`.
 * @param {string | null | undefined} paramsJSON
 * @returns {HostRequest}
 */
export function hostRequest(paramsJSON) {
  const invalid = (/** @type {string} */ message) => Object.assign(new Error(message), { code: 'E_INVALID_ARGUMENT', hint: 'send { identity: { remote, rootCommit, path }, pathHint?, limit?, cursor? }' });
  /** @type {any} */
  let p;
  try {
    p = JSON.parse(paramsJSON || '{}');
  } catch {
    throw invalid('the parameters are not JSON');
  }
  const id = p?.identity;
  if (!id || typeof id !== 'object') throw invalid('identity is missing');
  const text = (/** @type {unknown} */ v) => (typeof v === 'string' && v !== '' ? v : undefined);
  const identity = { path: text(id.path), remote: text(id.remote) ?? null, rootCommit: text(id.rootCommit) ?? null };
  if (!identity.remote && !identity.rootCommit && !identity.path) throw invalid('identity names no repository');
  if (p.limit !== undefined && !(Number.isInteger(p.limit) && p.limit >= 1 && p.limit <= 200)) throw invalid('limit must be an integer from 1 to 200');
  return { identity, pathHint: text(p.pathHint), limit: p.limit, cursor: text(p.cursor) };
}

/**
 * The answers of the node commands, by command id, as JSON text: each
 * takes the checked request and the node's Claude Code config folder.
 * @type {Record<string, (request: HostRequest, claudeConfigDir: string | undefined) => Promise<string>>}
 */
const ANSWERS = {
  // The page's JSON as the addon writes it on its worker thread.
  [NODE_COMMANDS.sessions]: (request, claudeConfigDir) => nodeAddon().hostSessionsPageJson({ ...request, claudeConfigDir, maxBytes: MAX_ANSWER_BYTES }),
  [NODE_COMMANDS.status]: async (request, claudeConfigDir) => JSON.stringify(await nodeAddon().hostProjectStatus({ ...request, claudeConfigDir, maxBytes: MAX_ANSWER_BYTES })),
  [NODE_COMMANDS.running]: async (request, claudeConfigDir) => {
    const page = JSON.parse(await nodeAddon().hostSessionsPageJson({ ...request, limit: 200, cursor: undefined, claudeConfigDir, maxBytes: MAX_ANSWER_BYTES }));
    return JSON.stringify({ ...page, sessions: page.sessions.filter((/** @type {{ running?: boolean }} */ s) => s.running), nextCursor: null });
  },
};

/**
 * The answer of node command `command` to `paramsJSON`, as JSON text; never
 * throws.
 * @param {Api} api
 * @param {string} command
 * @param {string | null | undefined} paramsJSON
 */
export async function answer(api, command, paramsJSON) {
  try {
    return await ANSWERS[command](hostRequest(paramsJSON), settings(api).claudeConfigDir);
  } catch (e) {
    return JSON.stringify({ v: V, error: coded(e) });
  }
}

/** Whether the addon loads on this node (the commands are declared only then). */
function addonLoads() {
  try {
    addon();
    return true;
  } catch {
    return false;
  }
}

/**
 * Registers the node commands on a node host. OpenClaw before node host
 * commands has no `registerNodeHostCommand`: then nothing is registered.
 * @param {Api} api
 * @returns {boolean} whether they were registered
 */
export function registerNodeCommands(api) {
  if (typeof api.registerNodeHostCommand !== 'function') return false;
  for (const command of Object.values(NODE_COMMANDS)) {
    api.registerNodeHostCommand({
      command,
      cap: PLUGIN_ID,
      dangerous: false,
      // Nothing outlives an answer: node auto-updates never wait for these.
      hasActiveWork: () => false,
      isAvailable: addonLoads,
      handle: (paramsJSON) => answer(api, command, paramsJSON),
    });
  }
  return true;
}
