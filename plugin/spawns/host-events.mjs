// @ts-check
// What the host reports of a spawn after the pre-flight, onto the tracker
// and the spawn record:
// - `after_tool_call` of `sessions_spawn` (in the agent loop only, not
//   after `tools.invoke`): the child session it started, or the refusal
//   (a refused spawn is over at once);
// - `subagent_progress`: `started` names the child session (matched to
//   the requester's oldest spawn still waiting for one when the call's
//   result was not seen), `ended` ends the run;
// - `subagent_ended`: the child session is closed, and a persistent
//   spawn's session with it.
// Each handler catches everything and logs it: a spawn is never held up
// by its tracking.

import { PLUGIN_ID, coded, describe } from '../host.mjs';
import { record } from './records.mjs';
import { learnSessions } from './learning.mjs';

/** @typedef {import('../host.mjs').Api} Api */
/** @typedef {import('./tracker.mjs').SpawnTracker} SpawnTracker */

/**
 * The host's answer to a `sessions_spawn` call.
 * @param {Api} api
 * @param {SpawnTracker} tracker
 * @param {{ toolName: string, toolCallId?: string, result?: unknown, error?: unknown }} event
 * @param {{ toolCallId?: string } | undefined} ctx
 */
export async function onSpawnResult(api, tracker, event, ctx) {
  try {
    if (event.toolName !== 'sessions_spawn') return;
    const s = tracker.byToolCall(event.toolCallId ?? ctx?.toolCallId);
    if (!s) return;
    const details = /** @type {any} */ (event.result)?.details ?? {};
    if (typeof details.childSessionKey === 'string') tracker.childStarted(s, details.childSessionKey);
    if (event.error || (details.status && details.status !== 'accepted')) {
      tracker.close(s);
      await record(api, s.agentId, { nonce: s.nonce, childSessionKey: s.childSessionKey, outcome: 'rejected', endedAt: new Date(tracker.now()).toISOString() });
    } else if (s.childSessionKey) {
      await record(api, s.agentId, { nonce: s.nonce, childSessionKey: s.childSessionKey });
    }
  } catch (e) {
    api.logger.warn(`${PLUGIN_ID}: spawn result not tracked (${describe(coded(e))})`);
  }
}

/**
 * A child session's progress: its start, or the end of its run.
 * @param {Api} api
 * @param {SpawnTracker} tracker
 * @param {{ childSessionKey?: string, phase?: string, outcome?: string }} event
 * @param {{ requesterSessionKey?: string } | undefined} ctx
 */
export async function onChildProgress(api, tracker, event, ctx) {
  try {
    const key = event.childSessionKey;
    if (typeof key !== 'string' || !key.includes(':acp:')) return;
    const s = tracker.byChild(key);
    if (!s && event.phase === 'started') {
      const claimed = tracker.claimChild(key, ctx?.requesterSessionKey);
      if (claimed) await record(api, claimed.agentId, { nonce: claimed.nonce, childSessionKey: key });
      return;
    }
    if (!s || event.phase !== 'ended') return;
    tracker.end(s);
    api.logger.info(`${PLUGIN_ID}: spawn ${s.nonce} (${key}) ended: ${event.outcome}`);
    await record(api, s.agentId, { nonce: s.nonce, childSessionKey: key, outcome: event.outcome, endedAt: new Date(tracker.now()).toISOString() });
    if (!s.claudeSessionId) await learnSessions(api, tracker);
  } catch (e) {
    api.logger.warn(`${PLUGIN_ID}: spawn progress not tracked (${describe(coded(e))})`);
  }
}

/**
 * A child session closed.
 * @param {Api} api
 * @param {SpawnTracker} tracker
 * @param {{ targetSessionKey?: string, outcome?: string, reason?: string, endedAt?: number }} event
 */
export async function onChildEnded(api, tracker, event) {
  try {
    const s = tracker.byChild(event.targetSessionKey);
    if (!s) return;
    const first = !s.ended;
    tracker.close(s);
    if (first) await record(api, s.agentId, { nonce: s.nonce, outcome: event.outcome ?? event.reason, endedAt: new Date(event.endedAt ?? tracker.now()).toISOString() });
  } catch (e) {
    api.logger.warn(`${PLUGIN_ID}: spawn end not tracked (${describe(coded(e))})`);
  }
}
