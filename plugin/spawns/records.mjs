// @ts-check
// The spawn record (`agents/<agent>/claude-code-spawns.json` in the state
// dir, see docs/formats.md): every spawn the pre-flight let through, added
// to as the host reports on it. Discovery reads it to list the spawned
// sessions as OpenClaw's.

import fs from 'node:fs';
import path from 'node:path';
import { PLUGIN_ID, addon, coded, describe, stateDir } from '../host.mjs';

/** @typedef {import('../host.mjs').Api} Api */

/**
 * Adds `fields` to the record of a spawn of `agentId` (a new one, or one
 * recorded before, by its nonce). A failed write is logged, never thrown:
 * the spawn goes on without its record.
 * @param {Api} api
 * @param {string} agentId
 * @param {Record<string, unknown> & { nonce: string }} fields
 */
export async function record(api, agentId, fields) {
  try {
    await addon().recordSpawn(agentId, /** @type {any} */ (fields), stateDir());
  } catch (e) {
    api.logger.warn(`${PLUGIN_ID}: spawn record not written (${describe(coded(e))})`);
  }
}

/**
 * The agents under the state root `root` that have a spawn record.
 * @param {string} root
 * @returns {string[]}
 */
export function recordedAgents(root) {
  /** @type {string[]} */
  let agents = [];
  try {
    agents = fs.readdirSync(path.join(root, 'agents'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {}
  return agents.filter((agentId) => fs.existsSync(path.join(root, 'agents', agentId, 'claude-code-spawns.json')));
}
