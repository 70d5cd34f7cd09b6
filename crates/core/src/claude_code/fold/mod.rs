//! What a Claude Code transcript says, read in one resumable pass: the fold
//! ([`transcript`]) and the readers of its parts.

pub mod context_window;
pub(crate) mod fixed128;
pub mod origin;
pub mod prices;
pub mod prompt;
pub mod savings;
pub mod transcript;
pub mod usage;
