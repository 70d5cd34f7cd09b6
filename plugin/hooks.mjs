// @ts-check
// The handoff across /new and /reset: one hook captures where the session
// left off before the command hides it (through `occ`, as it reads the
// agent's transcript store), one offers the capture to the next session,
// once, as HANDOFF.md.

import path from 'node:path';
import { PLUGIN_ID, addon, coded, describe, occ, stateDir, stateRoot } from './host.mjs';
import { settings } from './config.mjs';

/** @typedef {import('./host.mjs').Api} Api */

/**
 * Registers the handoff's capture and offer hooks.
 * @param {Api} api
 */
export function registerHandoffHooks(api) {
  api.registerHook(['command:new', 'command:reset'], async (event) => {
    const config = settings(api);
    if (!config.hooks.capture) return;
    const context = /** @type {Record<string, any>} */ (event.context ?? {});
    const agentId = context.agentId ?? 'main';
    const sessionId = context.previousSessionEntry?.sessionId ?? context.sessionEntry?.sessionId;
    const r = await occ(['handoff', 'capture', ...(sessionId ? [sessionId] : []), '--trigger', `command:${event.action}`, '--agent', agentId]);
    if (r.ok) api.logger.info(`${PLUGIN_ID}: handoff captured from ${r.value.previousSessionId} on ${event.type}:${event.action}`);
    else api.logger.warn(`${PLUGIN_ID}: no handoff captured on ${event.type}:${event.action} (${r.error.code}: ${r.error.message})`);
  }, { name: `${PLUGIN_ID}-handoff-capture`, description: 'Captures where the session left off before /new or /reset hides it.' });

  api.registerHook('agent:bootstrap', async (event) => {
    const config = settings(api);
    if (!config.hooks.offer) return;
    const context = /** @type {Record<string, any>} */ (event.context ?? {});
    if (!Array.isArray(context.bootstrapFiles)) return;
    const agentId = context.agentId ?? 'main';
    try {
      const a = addon();
      const state = await a.checkForHandoff({ agentId, stateDir: stateDir(), expiryHours: config.handoffExpiryHours });
      if (!state) return;
      context.bootstrapFiles.push({ name: 'HANDOFF.md', path: path.join(stateRoot(), 'agents', agentId, 'handoff', 'session-state.json'), content: a.renderHandoffContext(state), missing: false });
      api.logger.info(`${PLUGIN_ID}: handoff from ${state.previousSessionId} offered to agent ${agentId}`);
    } catch (e) {
      api.logger.warn(`${PLUGIN_ID}: no handoff offered (${describe(coded(e))})`);
    }
  }, { name: `${PLUGIN_ID}-handoff-offer`, description: 'Offers the captured handoff to the next session, once, as HANDOFF.md.' });
}
