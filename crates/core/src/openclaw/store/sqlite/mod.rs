//! The SQLite session store of OpenClaw 2026.8 and later: one database per
//! agent, `<state>/agents/<agent>/agent/openclaw-agent.sqlite`
//! (docs/formats.md, "The SQLite store"). Sessions are `session_windows` rows (one per
//! transcript generation), reached through `session_nodes` keys; a
//! transcript is the session's `transcript_events` rows in `seq` order.
//!
//! Reads decode every row exactly (`event_json`, or the zstd frame in
//! `event_zstd`) into JSONL ([`Events`](crate::openclaw::events::Events)); edits run in one short
//! `BEGIN IMMEDIATE` transaction that re-checks what the plan was made from
//! and invalidates OpenClaw's derived rows the way OpenClaw itself does
//! (see [`write`]).

mod database;
mod errors;
mod in_process;
mod operations;
pub mod schema;
pub mod write;

pub use database::{
    Connected, Fence, SqliteStore, BUSY_TIMEOUT, MAX_EVENT_BYTES, MAX_SESSION_BYTES,
};
pub(crate) use errors::sql_error;
