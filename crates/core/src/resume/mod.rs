//! Resuming a Claude Code session per conversation and agent: where the
//! pointer is kept, when it may be used, and what a failed resume means.

pub mod failure;
pub mod pins;
