// @ts-check
// The OpenClaw plugin of openclaw-session-intel (see docs/plugin.md): its
// definition and registration. Each concern has its file:
// - host.mjs: the addon, OpenClaw's state dir, the `occ` child;
// - config.mjs: the plugin's config;
// - tools.mjs: the agent tools;
// - hooks.mjs: the handoff across /new and /reset;
// - commands.mjs: /handoff, /clean and `openclaw occ`;
// - nodes/: paired nodes: the plugin's node commands, and asking the
//   gateway's nodes for the tools and the pre-flight;
// - spawns/: the pre-flight of every Claude Code spawn (a briefing, guards,
//   continuation and a record of the spawn) and the tracking of each spawn
//   to its end.
//
// OpenClaw imports this module in every registration mode (CLI metadata,
// discovery, the gateway), a fresh copy each time, several times per
// process: `register` only registers. The native addon is loaded on first
// use inside a handler.

import { PLUGIN_ID, useServiceStateDir } from './host.mjs';
import { registerTools } from './tools.mjs';
import { registerHandoffHooks } from './hooks.mjs';
import { registerCli, registerCommands } from './commands.mjs';
import { registerSpawns } from './spawns/index.mjs';
import { registerNodes } from './nodes/index.mjs';

export { PLUGIN_ID } from './host.mjs';

export default {
  id: PLUGIN_ID,
  name: 'Session Intel',
  description: "Brief agents on a repository and its Claude Code sessions, pick resume or fresh, carry work across /new and /reset, and clean an agent's own context.",
  /** @param {import('./host.mjs').Api} api */
  register(api) {
    registerTools(api);
    registerHandoffHooks(api);
    const spawns = registerSpawns(api);
    registerCommands(api);
    registerCli(api);
    registerNodes(api);
    api.registerService({
      id: PLUGIN_ID,
      start(ctx) {
        useServiceStateDir(ctx.stateDir);
        spawns.start();
      },
      stop() {
        spawns.stop();
      },
    });
  },
};
