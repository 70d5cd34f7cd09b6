//! Helpers for the Claude Code hooks OpenClaw installs (docs/api/hooks.md): the hook
//! registry's settings, the context pressure of a running session, and the
//! state of its terminal pane for the wake message.

pub mod pane;
pub mod pressure;
pub mod settings;
