//! What several suites share.

pub mod git_repo;
pub mod scratch;
pub mod spotter;
