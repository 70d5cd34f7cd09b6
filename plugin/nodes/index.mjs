// @ts-check
// Paired nodes (see docs/plugin.md#paired-nodes): the plugin's node
// commands on every node host where it is installed (commands.mjs), and
// the gateway's invoke policy that allows them on the usual platforms
// without a `gateway.nodes.commands.allow` entry. The gateway asks them
// through fanout.mjs, for the tools (listing.mjs) and the spawn
// pre-flight (briefing.mjs).

import { NODE_COMMANDS, NODE_PLATFORMS } from './protocol.mjs';
import { registerNodeCommands } from './commands.mjs';

/** @typedef {import('../host.mjs').Api} Api */

/**
 * Registers the node commands and their invoke policy. An OpenClaw without
 * paired nodes' plugin API (before node host commands) gets neither.
 * @param {Api} api
 */
export function registerNodes(api) {
  registerNodeCommands(api);
  if (typeof api.registerNodeInvokePolicy !== 'function') return;
  api.registerNodeInvokePolicy({
    commands: Object.values(NODE_COMMANDS),
    defaultPlatforms: [...NODE_PLATFORMS],
    dangerous: false,
    // Read-only answers of the node's own sessions: every caller allowed to invoke node commands may ask.
    handle: (ctx) => ctx.invokeNode(),
  });
}
