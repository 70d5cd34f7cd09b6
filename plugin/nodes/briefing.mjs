// @ts-check
// Paired nodes in the spawn pre-flight: while the addon prepares the
// briefing on the gateway, the connected nodes are asked for the sessions
// of the same repository (by its identity), each within the nodes' timeout
// and all before the pre-flight's budget runs out; what they answered
// becomes the briefing's section on Claude Code work on other machines
// (the addon's `remoteWorkBriefing`: running sessions first, then recent
// ones relevant to the task). A slow, offline or failing node is only
// reported in the gateway log: it never delays the spawn past the budget
// nor stops it.

import path from 'node:path';
import { settings } from '../config.mjs';
import { NODE_COMMANDS, nodeAddon } from './protocol.mjs';
import { askNodesAbout, reviveSession } from './listing.mjs';
import { failedReport } from './fanout.mjs';

/** @typedef {import('../host.mjs').Api} Api */
/** @typedef {import('./fanout.mjs').HostReport} HostReport */
/** @typedef {import('./fanout.mjs').HostAnswer} HostAnswer */
/** @typedef {{ reports: HostReport[], answers: HostAnswer[] }} RemoteWork what the nodes answered */

/** Nothing asked. @type {RemoteWork} */
const NONE = Object.freeze({ reports: [], answers: [] });

/**
 * Asks the connected nodes about the repository at `cwd` (on this
 * machine): resolves by `deadline` (epoch ms) at the latest, never
 * rejects. A spawn without an absolute `cwd` asks nothing.
 * @param {Api} api
 * @param {string | undefined} cwd
 * @param {number} deadline
 * @returns {Promise<RemoteWork>}
 */
export async function askNodesForSpawn(api, cwd, deadline) {
  if (!cwd || !path.isAbsolute(cwd) || !settings(api).nodes.enabled) return NONE;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ reports: [failedReport('node:*', 'paired nodes', 'timeout', 0, 'the nodes were not listed before the deadline')], answers: [] }), Math.max(0, deadline - Date.now()));
    timer.unref?.();
  });
  try {
    return /** @type {RemoteWork} */ (await Promise.race([askNodesAbout(api, cwd, NODE_COMMANDS.sessions, { selection: 'all', deadline }), late]));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The briefing's section on Claude Code work on other machines for `task`,
 * or null when the nodes gave nothing worth saying.
 * @param {Api} api
 * @param {string} task
 * @param {RemoteWork} remote
 * @returns {string | null}
 */
export function remoteSection(api, task, remote) {
  if (!remote.answers.length) return null;
  const hosts = remote.answers.map(({ host, answer }) => ({
    host: host.name,
    hostId: host.id,
    fallback: host.fallback,
    sessions: (Array.isArray(answer?.sessions) ? answer.sessions : []).map(reviveSession),
  }));
  return nodeAddon().remoteWorkBriefing(task, hosts, { maxLines: settings(api).nodes.briefingLines });
}

/** The nodes' reports as one log phrase: `name status ms (message)` each. @param {HostReport[]} reports */
export const reportsText = (reports) => reports
  .map((r) => `${r.name} ${r.status}${r.fallback ? ' (catalog)' : ''} ${r.ms} ms${r.message ? ` (${r.message})` : ''}`)
  .join(', ');
