//! Node binding of `session-intel-core`: argument and result conversion only.
//!
//! Every function here validates nothing and decides nothing beyond turning
//! JavaScript values into core types and back; errors become JS `Error`s with
//! a stable `code` (see [`error`]).

#![deny(clippy::all)]
#![warn(missing_docs)]

mod callback;
mod claude_code;
mod error;
mod handoff;
mod hooks;
mod host_pages;
mod mcp;
mod preflight;
mod project_status;
mod repo_identity;
mod resume;
mod selection;
mod slim;
mod spawn_outcomes;
mod spawns;
mod transcripts;
mod worktrees;

pub use claude_code::*;
pub use error::*;
pub use handoff::*;
pub use hooks::*;
pub use host_pages::*;
pub use mcp::*;
pub use preflight::*;
pub use project_status::*;
pub use repo_identity::*;
pub use resume::*;
pub use selection::*;
pub use slim::*;
pub use spawn_outcomes::*;
pub use spawns::*;
pub use transcripts::*;
pub use worktrees::*;
