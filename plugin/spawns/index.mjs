// @ts-check
// The spawn pre-flight's registration: the `before_tool_call` handler that
// admits Claude Code spawns (admission.mjs), the handlers that map the
// host's later events onto the tracker and finish an isolated spawn's
// worktree (host-events.mjs, worktrees.mjs), and the service
// steps that look again for sessions after a restart, finish the worktrees
// of spawns that ended meanwhile (worktrees.mjs) and stop the learning
// loop (learning.mjs), all on one tracker over the process's one spawn
// state (tracker.mjs).

import { PLUGIN_ID, addon, coded, describe } from '../host.mjs';
import { SpawnTracker, processSpawnState } from './tracker.mjs';
import { preflight, takesSpawn } from './admission.mjs';
import { onChildEnded, onChildProgress, onRunDelivered, onSpawnResult } from './host-events.mjs';
import { relearn, stopLearning } from './learning.mjs';
import { finishLeftWorktrees } from './worktrees.mjs';

/** @typedef {import('../host.mjs').Api} Api */

/**
 * How long OpenClaw gives the `before_tool_call` handler, in milliseconds:
 * the largest `budgetMs` the config schema allows, under the 15 s after
 * which OpenClaw blocks a call whose handler has not returned.
 */
const HOOK_TIMEOUT_MS = 14_000;

/**
 * This copy's tracker, over the process's one spawn state; it loads the
 * addon's numbers when it first needs one.
 */
const tracker = new SpawnTracker({ policy: () => addon().SPAWN_POLICY, state: processSpawnState() });

/**
 * Registers the spawn pre-flight's hooks; returns what the plugin's service
 * does for it when the gateway starts and stops.
 * @param {Api} api
 * @returns {{ start: () => void, stop: () => void }}
 */
export function registerSpawns(api) {
  // Whatever goes wrong, the spawn proceeds as asked: OpenClaw blocks a
  // call whose before_tool_call handler throws.
  api.on('before_tool_call', async (event, ctx) => {
    if (event.toolName !== 'sessions_spawn') return undefined;
    try {
      if (!takesSpawn(api, event.params)) return undefined;
      return await preflight(api, tracker, /** @type {any} */ (event), /** @type {any} */ (ctx));
    } catch (e) {
      api.logger.warn(`${PLUGIN_ID}: spawn pre-flight failed, the spawn proceeds as asked (${describe(coded(e))})`);
      return undefined;
    }
  }, { matcher: ['sessions_spawn'], timeoutMs: HOOK_TIMEOUT_MS });

  // Each handler catches and logs its own errors.
  api.on('after_tool_call', (event, ctx) => onSpawnResult(api, tracker, event, /** @type {any} */ (ctx)), { matcher: ['sessions_spawn'] });
  api.on('subagent_progress', (event, ctx) => onChildProgress(api, tracker, event, ctx));
  // OpenClaw awaits this one before it announces the answer: it returns at once.
  api.on('subagent_delivery_target', (event) => onRunDelivered(api, tracker, event));
  api.on('subagent_ended', (event) => onChildEnded(api, tracker, event));

  return {
    start: () => void relearn(api, tracker).then(() => finishLeftWorktrees(api, tracker)),
    stop: () => stopLearning(tracker.state),
  };
}
