//! OpenClaw's own agent transcripts (pi `SessionManager` entries), in
//! either of OpenClaw's stores: JSONL files (up to 2026.7) or the per-agent
//! SQLite database (2026.8 and later).

pub mod backups;
pub mod edit;
pub mod entry;
pub mod events;
pub mod gateway;
pub mod state_dir;
pub mod store;
pub mod strip;
pub mod transcripts;
pub mod tree;
