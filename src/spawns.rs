//! The numbers by which a host tracks its Claude Code spawns
//! (`SPAWN_POLICY`), as the core defines them.

use napi_derive::napi;
use session_intel_core::preflight::budget::DEFAULT_BUDGET;
use session_intel_core::spawns::SPAWN_POLICY as CORE;

/// The spawn tracking numbers, in milliseconds (see `docs/plugin.md`).
#[napi(object, object_from_js = false)]
pub struct SpawnPolicy {
    /// How long after the pre-flight let it through a spawn counts as
    /// running on the host's word alone; also how long a spawn the host has
    /// not been seen starting may still be matched to a child session the
    /// host reports.
    pub start_grace_ms: u32,
    /// How long after its start a spawn's Claude Code session is looked
    /// for; a spawn seen starting whose session is not learned by then no
    /// longer counts as running.
    pub learn_for_ms: u32,
    /// How often the sessions not learned yet are looked for.
    pub learn_every_ms: u32,
    /// How long before a spawn's start its transcript may have been
    /// written, when it is looked for (`findSpawnedSession`'s `sinceMs` is
    /// the start less this).
    pub lookup_slack_ms: u32,
    /// How long after its start a spawn is forgotten whatever it shows.
    pub forget_after_ms: u32,
    /// How many sessions of ended spawns are remembered as ended.
    pub finished_kept: u32,
    /// The time a host gives the pre-flight unless configured otherwise
    /// (`PreflightOptions.budgetMs`).
    pub preflight_budget_ms: u32,
}

/// The spawn tracking numbers, taken from the core (`spawns::SPAWN_POLICY`
/// and the pre-flight's default budget); a host takes them from here rather
/// than keeping its own.
#[napi]
pub const SPAWN_POLICY: SpawnPolicy = SpawnPolicy {
    start_grace_ms: CORE.start_grace.as_millis() as u32,
    learn_for_ms: CORE.learn_for.as_millis() as u32,
    learn_every_ms: CORE.learn_every.as_millis() as u32,
    lookup_slack_ms: CORE.lookup_slack.as_millis() as u32,
    forget_after_ms: CORE.forget_after.as_millis() as u32,
    finished_kept: CORE.finished_kept as u32,
    preflight_budget_ms: DEFAULT_BUDGET.as_millis() as u32,
};
