//! OpenClaw's own agent transcripts (pi `SessionManager` files, format v3).

pub mod edit;
pub mod state_dir;
pub mod strip;
pub mod transcripts;
