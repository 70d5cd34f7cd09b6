//! Helpers for the Claude Code hooks OpenClaw installs (seed 004): the hook
//! registry's settings and the context pressure of a running session.

pub mod pressure;
pub mod settings;
