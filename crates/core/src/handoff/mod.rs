//! Session handoff (docs/api/handoff.md): what an agent was doing, carried
//! to its next session.

pub mod messages;
pub mod patterns;
pub mod state;
pub mod store;
pub mod summary;
