//! Session intelligence for the OpenClaw gateway, with no Node dependency.
//!
//! The Node addon (the crate at the repository root) only converts arguments
//! and results; every rule lives here and is tested here.

#![warn(missing_docs)]

pub mod change_monitor;
pub mod claude_code;
pub mod error;
mod fast_map;
pub mod fs_safe;
pub mod handoff;
pub mod hooks;
pub mod host_rows;
pub mod host_status;
pub mod js_number;
mod json_blocks;
pub mod json_scan;
pub mod mcp;
pub mod openclaw;
pub mod platform;
pub mod preflight;
pub mod project_status;
pub mod repo_identity;
pub mod repo_path;
pub mod resume;
pub mod selection;
pub mod slim;
pub mod spawn_outcome;
pub mod spawns;
pub mod switches;
pub mod text;
pub mod time;
pub mod worktree;

pub use error::{catch_panic, Error, ErrorCode, Result};
pub use js_number::{optional_whole_number, timer_ms, whole_number};
pub use time::now_iso;
