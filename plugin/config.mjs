// @ts-check
// The plugin's config (`plugins.entries.openclaw-session-intel.config`, its
// schema in openclaw.plugin.json), with the plugin's own switches filled
// in. Every number and every option the addon takes is passed on as given:
// the addon fills in its own defaults (the spawn pre-flight's, the
// handoff's expiry), so that each default has one source.

/** @typedef {import('./host.mjs').Api} Api */
/** @typedef {'block' | 'warn' | 'off'} GuardMode */
/**
 * The spawn pre-flight's config, as given.
 * @typedef {object} PreflightConfig
 * @property {boolean} [enabled]
 * @property {number} [budgetMs]
 * @property {{ enabled?: boolean, maxChars?: number }} [briefing]
 * @property {{ missingCwd?: GuardMode, invalidCwd?: GuardMode, busy?: GuardMode, missingResume?: GuardMode }} [guards]
 * @property {{ resume?: boolean, context?: boolean, slimOverMb?: number }} [continuation]
 * @property {number} [busyWindowSeconds]
 * @property {number} [githubTimeoutMs]
 * @property {'busy' | 'always' | 'off'} [isolation] when a spawn runs in a git worktree of its own
 */
/**
 * The config, as given.
 * @typedef {object} PluginConfig
 * @property {string} [claudeConfigDir]
 * @property {'default' | 'aggressive' | 'extreme'} [defaultPreset]
 * @property {number} [handoffExpiryHours]
 * @property {{ capture?: boolean, offer?: boolean }} [hooks]
 * @property {PreflightConfig} [spawnPreflight]
 * @property {NodesConfig} [nodes]
 */
/**
 * Paired nodes' config, as given.
 * @typedef {object} NodesConfig
 * @property {boolean} [enabled] ask paired nodes at all
 * @property {number} [timeoutMs] the longest one node is waited for
 * @property {boolean} [fallback] ask OpenClaw's Claude session catalog on nodes without the plugin
 * @property {number} [limit] sessions asked of each node (1 to 1000; a node's page holds at most 200, the rest come page after page)
 * @property {number} [briefingLines] the most lines the pre-flight's briefing gives to other machines
 */
/**
 * The config with the plugin's own switches filled in.
 * @typedef {object} Settings
 * @property {string} [claudeConfigDir] absent: the addon's default
 * @property {'default' | 'aggressive' | 'extreme'} defaultPreset the preset `/clean` uses when none is given
 * @property {number} [handoffExpiryHours] absent: the addon's default
 * @property {{ capture: boolean, offer: boolean }} hooks which handoff hooks run
 * @property {PreflightConfig & { enabled: boolean }} spawnPreflight the pre-flight's config as given, and whether it runs
 * @property {{ enabled: boolean, timeoutMs: number, fallback: boolean, limit: number, briefingLines?: number }} nodes paired nodes' config with the plugin's defaults
 */

/** The plugin's defaults of paired nodes (the addon's own fill in `briefingLines`). */
export const NODES_DEFAULTS = Object.freeze({ enabled: true, timeoutMs: 2500, fallback: true, limit: 50 });

/** The cleaner's presets, the first one `/clean`'s default. */
export const PRESETS = /** @type {const} */ (['default', 'aggressive', 'extreme']);

/**
 * The plugin's settings now (the host may reload its config at any time).
 * @param {Api} api
 * @returns {Settings}
 */
export function settings(api) {
  const c = /** @type {PluginConfig} */ (api.pluginConfig ?? {});
  return {
    claudeConfigDir: c.claudeConfigDir,
    defaultPreset: c.defaultPreset ?? PRESETS[0],
    handoffExpiryHours: c.handoffExpiryHours,
    hooks: { capture: c.hooks?.capture ?? true, offer: c.hooks?.offer ?? true },
    spawnPreflight: { ...c.spawnPreflight, enabled: c.spawnPreflight?.enabled ?? true },
    nodes: {
      enabled: c.nodes?.enabled ?? NODES_DEFAULTS.enabled,
      timeoutMs: c.nodes?.timeoutMs ?? NODES_DEFAULTS.timeoutMs,
      fallback: c.nodes?.fallback ?? NODES_DEFAULTS.fallback,
      limit: c.nodes?.limit ?? NODES_DEFAULTS.limit,
      briefingLines: c.nodes?.briefingLines,
    },
  };
}
