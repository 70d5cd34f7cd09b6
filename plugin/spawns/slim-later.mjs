// @ts-check
// A resumed session whose transcript the pre-flight could not slim within
// its budget (`resumeSlim.deferred`, `spawnPreflight.continuation.slimOverMb`)
// is slimmed in place once the spawn's run has ended, before the session is
// resumed again: in the background (the addon's `slimClaudeSession` works
// on a thread of its own, the event loop never waits for it), never while
// its CLI runs (the addon refuses then, and it is tried again later). The
// next pre-flight's briefing says what it cut (docs/plugin.md).

import { PLUGIN_ID, addon, coded, describe } from '../host.mjs';

/** @typedef {import('../host.mjs').Api} Api */
/** @typedef {import('./tracker.mjs').SpawnTracker} SpawnTracker */

/** How long the run's end (and then the CLI's exit) is waited for. */
const GIVE_UP_MS = 6 * 3_600_000;

/**
 * Slims `sessionId` once the spawn of `nonce` has ended its run and no CLI
 * runs the session, looking every `everyMs`; logs what it did. Returns at
 * once.
 * @param {Api} api
 * @param {SpawnTracker} tracker
 * @param {{ nonce: string, sessionId: string, claudeConfigDir?: string, everyMs?: number }} what
 */
export function slimAfterRun(api, tracker, { nonce, sessionId, claudeConfigDir, everyMs = 10_000 }) {
  const until = tracker.now() + GIVE_UP_MS;
  const runEnded = () => {
    const s = tracker.state.spawns.get(nonce);
    return !s || s.ended || s.answered || s.failed;
  };
  const later = () => {
    if (tracker.now() < until) setTimeout(() => void attempt(), everyMs).unref();
    else api.logger.warn(`${PLUGIN_ID}: Claude Code session ${sessionId} was not slimmed: its run did not end, or its CLI kept running`);
  };
  const attempt = async () => {
    if (!runEnded()) return later();
    try {
      /** @type {any} */
      const r = await addon().slimClaudeSession(sessionId, { claudeConfigDir });
      api.logger.info(`${PLUGIN_ID}: slimmed Claude Code session ${sessionId} after its run: ${r.sizeOriginal} → ${r.sizeAfter} bytes, original kept at ${r.backupPath}`);
    } catch (e) {
      const error = coded(e);
      if (error.code === 'E_SESSION_BUSY') return later();
      api.logger.warn(`${PLUGIN_ID}: could not slim Claude Code session ${sessionId} after its run (${describe(error)})`);
    }
    return undefined;
  };
  later();
}
