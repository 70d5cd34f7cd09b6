//! Session intelligence for the OpenClaw gateway, with no Node dependency.
//!
//! The Node addon (the crate at the repository root) only converts arguments
//! and results; every rule lives here and is tested here.

pub mod claude_code;
pub mod error;
pub mod fs_safe;
pub mod handoff;
pub mod hooks;
mod json_blocks;
pub mod json_scan;
pub mod mcp;
pub mod openclaw;
pub mod platform;
pub mod project_status;
pub mod resume;
pub mod selection;
pub mod text;

pub use error::{catch_panic, Error, ErrorCode, Result};
