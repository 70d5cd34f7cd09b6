//! What several suites share.

pub mod claude_fixture;
pub mod git_repo;
pub mod scratch;
pub mod spotter;
