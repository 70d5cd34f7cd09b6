// @ts-check
// Learning a spawn's Claude Code session: the transcript in the spawn's
// folder whose first prompt carries the spawn's nonce is its session. It
// is looked for every `SPAWN_POLICY.learnEveryMs` while some spawn's
// session is unknown (at most `learnForMs` after the spawn's start), when a
// run ends, and, after a gateway restart, for the recorded spawns the
// gateway stopped before it learned them. One loop runs per process: the
// copy of the plugin that last needed it runs it (see tracker.mjs).

import { PLUGIN_ID, addon, coded, describe, stateRoot } from '../host.mjs';
import { settings } from '../config.mjs';
import { record, recordedAgents } from './records.mjs';

/** @typedef {import('../host.mjs').Api} Api */
/** @typedef {import('./tracker.mjs').SpawnTracker} SpawnTracker */
/** @typedef {import('./tracker.mjs').SpawnState} SpawnState */

/** This copy of the plugin, as the owner of the learning loop. */
const THIS_COPY = Symbol('this copy of the plugin');

/**
 * Looks for the transcripts of spawns whose Claude Code session is not
 * known yet; records what it finds; stops the loop when none is left.
 * @param {Api} api
 * @param {SpawnTracker} tracker
 */
export async function learnSessions(api, tracker) {
  const { claudeConfigDir } = settings(api);
  for (const s of tracker.toLearn()) {
    try {
      const id = await addon().findSpawnedSession(/** @type {string} */ (s.cwd), s.nonce, { claudeConfigDir, sinceMs: s.startedAt - tracker.policy.lookupSlackMs });
      if (!id) continue;
      tracker.learned(s, id);
      api.logger.info(`${PLUGIN_ID}: spawn ${s.nonce} is Claude Code session ${id}${s.childSessionKey ? ` (${s.childSessionKey})` : ''}`);
      await record(api, s.agentId, { nonce: s.nonce, claudeSessionId: id });
    } catch (e) {
      // Said once a spawn: the look-up is tried again every round.
      if (!s.lookupFailed) api.logger.warn(`${PLUGIN_ID}: transcript of spawn ${s.nonce} not looked up (${describe(coded(e))})`);
      s.lookupFailed = true;
    }
  }
  tracker.prune();
  if (!tracker.toLearn().length) stopLearning(tracker.state);
}

/**
 * Runs `learnSessions` every `learnEveryMs` until no session is left to
 * learn, with the config of the plugin that admitted the latest spawn.
 * @param {Api} api
 * @param {SpawnTracker} tracker
 */
export function startLearning(api, tracker) {
  const learning = tracker.state.learning;
  learning.api = api;
  if (learning.timer && learning.owner === THIS_COPY) return;
  stopLearning(tracker.state);
  let busy = false;
  learning.owner = THIS_COPY;
  learning.timer = setInterval(() => {
    if (busy) return;
    busy = true;
    learnSessions(/** @type {Api} */ (learning.api), tracker).finally(() => (busy = false));
  }, tracker.policy.learnEveryMs);
  learning.timer.unref?.();
}

/** Stops the loop, whichever copy runs it. @param {SpawnState} state */
export function stopLearning(state) {
  const learning = state.learning;
  if (learning.timer) clearInterval(learning.timer);
  learning.timer = undefined;
  learning.owner = undefined;
}

/**
 * After a gateway restart: the recorded spawns of the last `learnForMs`
 * whose Claude Code session was not learned yet (the gateway stopped
 * first) are tracked again and looked for, so that they are still listed
 * as OpenClaw's. After a reload, the spawns the copy of the plugin before
 * was still learning are looked for on.
 * @param {Api} api
 * @param {SpawnTracker} tracker
 */
export async function relearn(api, tracker) {
  try {
    if (!settings(api).spawnPreflight.enabled) return;
    const root = stateRoot();
    for (const agentId of recordedAgents(root)) {
      for (const r of await addon().listSpawns(agentId, root)) {
        const at = Date.parse(r.startedAt ?? '');
        if (r.claudeSessionId || !r.cwd || tracker.has(r.nonce) || !(tracker.now() - at < tracker.policy.learnForMs)) continue;
        tracker.track({
          nonce: r.nonce,
          agentId,
          requesterSessionKey: r.requesterSessionKey,
          cwd: r.cwd,
          repoPath: r.repoPath,
          mode: r.mode === 'session' ? 'session' : 'run',
          startedAt: at,
          childSessionKey: r.childSessionKey,
          ended: Boolean(r.endedAt),
          closed: Boolean(r.endedAt),
        });
      }
    }
    if (tracker.toLearn().length) startLearning(api, tracker);
  } catch (e) {
    api.logger.warn(`${PLUGIN_ID}: recorded spawns not looked up again (${describe(coded(e))})`);
  }
}
