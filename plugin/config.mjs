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
 */
/**
 * The config with the plugin's own switches filled in.
 * @typedef {object} Settings
 * @property {string} [claudeConfigDir] absent: the addon's default
 * @property {'default' | 'aggressive' | 'extreme'} defaultPreset the preset `/clean` uses when none is given
 * @property {number} [handoffExpiryHours] absent: the addon's default
 * @property {{ capture: boolean, offer: boolean }} hooks which handoff hooks run
 * @property {PreflightConfig & { enabled: boolean }} spawnPreflight the pre-flight's config as given, and whether it runs
 */

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
  };
}
