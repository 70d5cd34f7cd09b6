//! Session handoff (seed 003): what an agent was doing, carried to its next
//! session.

pub mod patterns;
