//! Claude Code's transcripts and OpenClaw's registry of the sessions it spawned.

pub mod context_window;
pub mod dir_cache;
pub mod discovery;
mod fixed128;
pub mod history;
pub mod liveness;
pub mod origin;
pub mod paths;
pub mod prompt;
pub mod registry;
mod result_memo;
pub mod scan_cache;
pub mod scan_store;
pub mod session_meta;
pub mod spawn_record;
pub mod transcript;
pub mod usage;

pub use discovery::{
    discover_sessions, discover_sessions_as, find_transcript, parse_jsonl_header, DiscoverOptions,
    DiscoveredSession, JsonlHeader, SessionSource, TokenTotals,
};
pub use liveness::{running_sessions, LiveSession};
pub use scan_cache::ScanCache;
pub use scan_store::PersistentCache;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a file or folder must have gone unchanged before its stat data
/// alone is trusted to tell, later, that it is still as it was. Timestamps
/// are coarse (a clock tick, or seconds on some file systems), so a change
/// within the tick of the one before can leave them as they were; like
/// git's "racily clean" index entries, only what had settled when it was
/// read is trusted on its timestamps.
const SETTLED: Duration = Duration::from_secs(2);

/// Whether a change stamped `changed_ns` (nanoseconds since the epoch; 0
/// for unknown) lies [`SETTLED`] or more before `observed`, a time taken
/// before what the stamp vouches for was read.
fn had_settled(changed_ns: i128, observed: SystemTime) -> bool {
    let settled_ns = observed
        .checked_sub(SETTLED)
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128);
    changed_ns > 0 && changed_ns < settled_ns
}

/// Whether the environment variable `name` turns a feature off (`off`, `0`,
/// `false` or `no`).
fn turned_off(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| matches!(v.trim(), "off" | "0" | "false" | "no"))
}
