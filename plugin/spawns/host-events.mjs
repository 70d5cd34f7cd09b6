// @ts-check
// What the host reports of a spawn after the pre-flight, onto the tracker
// and the spawn record:
// - `after_tool_call` of `sessions_spawn` (in the agent loop only, not
//   after `tools.invoke`): the child session it started, or the refusal
//   (a refused spawn has failed at once);
// - `subagent_progress`: `started` names the child session (matched to
//   the requester's oldest spawn still waiting for one when the call's
//   result was not seen), `ended` ends the run (failed, with an error);
// - `subagent_delivery_target`: the run has ended and OpenClaw is about to
//   announce its answer: the spawn is waiting, no longer at work, seconds
//   before OpenClaw reports its end;
// - `subagent_ended`: the child session is closed, and a persistent
//   spawn's session with it.
// A spawn isolated in a worktree has it finished (removed when it holds no
// work) once its session is over. Each handler catches everything and
// logs it: a spawn is never held up by its tracking.

import { PLUGIN_ID, coded, describe } from '../host.mjs';
import { record } from './records.mjs';
import { learnSessions } from './learning.mjs';
import { finishWorktree } from './worktrees.mjs';

/** @typedef {import('../host.mjs').Api} Api */
/** @typedef {import('./tracker.mjs').SpawnTracker} SpawnTracker */

/** Whether the host's outcome of a run is a failure (`error`, `timeout`, `killed`). @param {unknown} outcome */
const failedOutcome = (outcome) => typeof outcome === 'string' && ['error', 'timeout', 'killed'].includes(outcome);

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
      tracker.fail(s);
      await record(api, s.agentId, { nonce: s.nonce, childSessionKey: s.childSessionKey, outcome: 'rejected', endedAt: new Date(tracker.now()).toISOString(), finalState: tracker.hostState(s) });
      await finishWorktree(api, s);
    } else if (s.childSessionKey) {
      await record(api, s.agentId, { nonce: s.nonce, childSessionKey: s.childSessionKey, finalState: tracker.hostState(s) });
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
      if (claimed) await record(api, claimed.agentId, { nonce: claimed.nonce, childSessionKey: key, finalState: tracker.hostState(claimed) });
      return;
    }
    if (!s || event.phase !== 'ended') return;
    if (failedOutcome(event.outcome)) tracker.fail(s);
    else tracker.end(s);
    api.logger.info(`${PLUGIN_ID}: spawn ${s.nonce} (${key}) ended: ${event.outcome}`);
    await record(api, s.agentId, { nonce: s.nonce, childSessionKey: key, outcome: event.outcome, endedAt: new Date(tracker.now()).toISOString(), finalState: tracker.hostState(s) });
    if (!s.claudeSessionId) await learnSessions(api, tracker);
    if (s.failed || s.mode === 'run') await finishWorktree(api, s);
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
    const first = !s.closed;
    const outcome = event.outcome ?? event.reason;
    if (failedOutcome(outcome)) tracker.fail(s);
    else tracker.close(s);
    if (first) await record(api, s.agentId, { nonce: s.nonce, outcome, endedAt: new Date(event.endedAt ?? tracker.now()).toISOString(), finalState: tracker.hostState(s) });
    await finishWorktree(api, s);
  } catch (e) {
    api.logger.warn(`${PLUGIN_ID}: spawn end not tracked (${describe(coded(e))})`);
  }
}

/**
 * OpenClaw is about to announce a child's answer to its requester: the
 * run has ended, the spawn is waiting. Returns nothing (the announce goes
 * where OpenClaw sends it) and at once: OpenClaw awaits this hook before
 * the announce, so the record and the look-up of the session go on in the
 * background.
 * @param {Api} api
 * @param {SpawnTracker} tracker
 * @param {{ childSessionKey?: string }} event
 * @returns {undefined}
 */
export function onRunDelivered(api, tracker, event) {
  try {
    const s = tracker.byChild(event.childSessionKey);
    if (!s || s.ended || s.answered) return undefined;
    tracker.answer(s);
    api.logger.info(`${PLUGIN_ID}: spawn ${s.nonce} (${event.childSessionKey}) answered`);
    void record(api, s.agentId, { nonce: s.nonce, finalState: tracker.hostState(s) });
    if (!s.claudeSessionId) void learnSessions(api, tracker).catch((e) => api.logger.warn(`${PLUGIN_ID}: spawn session not looked up (${describe(coded(e))})`));
  } catch (e) {
    api.logger.warn(`${PLUGIN_ID}: spawn answer not tracked (${describe(coded(e))})`);
  }
  return undefined;
}
