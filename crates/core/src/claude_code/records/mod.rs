//! OpenClaw's own records of the Claude Code sessions it spawned.

pub mod registry;
pub mod spawn_record;
