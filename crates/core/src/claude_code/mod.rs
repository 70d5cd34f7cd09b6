//! Claude Code's transcripts and OpenClaw's registry of the sessions it spawned.

pub mod dir_cache;
pub mod discovery;
pub mod history;
pub mod origin;
pub mod paths;
pub mod prompt;
pub mod registry;
pub mod scan_cache;
pub mod scan_store;
pub mod transcript;
pub mod usage;

pub use discovery::{
    discover_sessions, find_transcript, parse_jsonl_header, DiscoverOptions, DiscoveredSession,
    JsonlHeader, SessionSource, TokenTotals,
};
pub use scan_cache::ScanCache;
pub use scan_store::PersistentCache;

/// Whether the environment variable `name` turns a feature off (`off`, `0`,
/// `false` or `no`).
fn turned_off(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| matches!(v.trim(), "off" | "0" | "false" | "no"))
}
