// @ts-check
// The end of a spawn the pre-flight isolated in a git worktree of its
// repository (`<repo>/.claude/worktrees/<name>`, on a branch of its own):
// once its session is over, the addon's `finishSpawnWorktree` removes the
// worktree and its branch when they hold no work (no commit beyond the
// base, no change), and keeps it otherwise, for the operator to merge; the
// record says which. `/worktrees` and `claude_code_spawns` list what was
// kept. A spawn that ended while the gateway was down is finished the same
// way when the plugin's service starts.

import { PLUGIN_ID, addon, coded, describe, stateRoot } from '../host.mjs';
import { settings } from '../config.mjs';
import { record, recordedAgents } from './records.mjs';

/** @typedef {import('../host.mjs').Api} Api */
/** @typedef {import('./tracker.mjs').Spawn} Spawn */
/** @typedef {import('./tracker.mjs').SpawnTracker} SpawnTracker */

/**
 * Finishes the worktree of spawn `s`, once: removed when it holds no work,
 * else kept. Does nothing for a spawn that was not isolated. A failure is
 * logged, never thrown: the worktree stays, listed by `/worktrees`.
 * @param {Api} api
 * @param {Spawn} s
 */
export async function finishWorktree(api, s) {
  const worktree = s.worktree;
  if (!worktree || worktree.finished) return;
  worktree.finished = true;
  await finish(api, s.agentId, s.nonce, worktree);
}

/**
 * Finishes the worktree of the spawn `nonce` of `agentId` and records
 * whether it was removed; logs, never throws.
 * @param {Api} api
 * @param {string} agentId
 * @param {string} nonce
 * @param {{ path: string, branch?: string }} worktree
 */
async function finish(api, agentId, nonce, worktree) {
  try {
    const done = await addon().finishSpawnWorktree(worktree.path);
    api.logger.info(`${PLUGIN_ID}: spawn ${nonce} worktree ${worktree.path} (branch ${worktree.branch}) ${done.removed ? 'removed: it held no work' : `kept: ${keptWhy(done)}`}`);
    await record(api, agentId, { nonce, worktreeRemoved: done.removed });
  } catch (e) {
    api.logger.warn(`${PLUGIN_ID}: worktree ${worktree.path} of spawn ${nonce} not finished, it stays (${describe(coded(e))})`);
  }
}

/**
 * When the plugin's service starts (a gateway start or restart): the
 * recorded spawns isolated in a worktree that was never finished (no
 * `worktreeRemoved` in the record) and whose state is now `ended` or
 * `failed` (by `spawnOutcomes`: the host's recorded end, else Claude Code's
 * liveness and transcript) are finished as at a normal end. A spawn this
 * process tracks with its worktree is left to its own end. Never throws.
 * @param {Api} api
 * @param {SpawnTracker} tracker
 */
export async function finishLeftWorktrees(api, tracker) {
  try {
    const { spawnPreflight, claudeConfigDir } = settings(api);
    if (!spawnPreflight.enabled) return;
    const root = stateRoot();
    for (const agentId of recordedAgents(root)) {
      for (const r of await addon().listSpawns(agentId, root)) {
        if (!r.worktreePath || r.worktreeRemoved != null || tracker.get(r.nonce)?.worktree) continue;
        const [o] = await addon().spawnOutcomes({ agentId, stateDir: root, claudeConfigDir, nonce: r.nonce, limit: 1 });
        if (o?.state !== 'ended' && o?.state !== 'failed') continue;
        await finish(api, agentId, r.nonce, { path: r.worktreePath, branch: r.worktreeBranch });
      }
    }
  } catch (e) {
    api.logger.warn(`${PLUGIN_ID}: worktrees of spawns that ended while the gateway was down not finished (${describe(coded(e))})`);
  }
}

/**
 * Why a worktree was kept, for the log: its commits beyond the base, its
 * changes.
 * @param {{ commitsAhead?: number, dirty?: boolean }} w
 */
function keptWhy(w) {
  return [w.commitsAhead ? `${w.commitsAhead} commit(s) beyond its base` : '', w.dirty ? 'uncommitted changes' : ''].filter(Boolean).join(', ') || 'it holds work';
}

/**
 * Removes the worktree a pre-flight made for a spawn that did not get it:
 * its answer came after the budget, and the spawn went on in the
 * repository as asked. Waits for that answer; a fresh worktree holds no
 * work, so `finishSpawnWorktree` removes it with its branch. Never throws.
 * @param {Api} api
 * @param {Promise<any>} answer the pre-flight's answer, however late
 */
export function dropUnusedWorktree(api, answer) {
  answer.then(async (r) => {
    const path = r?.isolation?.worktreePath;
    if (!path) return;
    try {
      const done = await addon().finishSpawnWorktree(path);
      api.logger.info(`${PLUGIN_ID}: worktree ${path}, made by a pre-flight past its budget, ${done.removed ? 'removed' : `kept: ${keptWhy(done)}`}`);
    } catch (e) {
      api.logger.warn(`${PLUGIN_ID}: worktree ${path}, made by a pre-flight past its budget, not removed (${describe(coded(e))})`);
    }
  }, () => {});
}
