//! Git worktrees of Claude Code spawns: a spawn into a busy repository runs
//! in its own worktree instead of being refused (see
//! the pre-flight).
//!
//! The layout is Claude Code's own (`claude --worktree`):
//! `<repo>/.claude/worktrees/<name>` on a new branch `worktree-<name>` from
//! the repository's `HEAD`, the base commit in the worktree's git folder
//! (`CLAUDE_BASE`), and `.claude/worktrees/` kept out of the main tree's
//! `git status` by the repository's `info/exclude`. A worktree made for a
//! spawn also carries [`SPAWN_MARKER_FILE`] in its git folder: only those
//! are listed, finished and pruned here.
//!
//! Everything goes through the `git` CLI ([`git`]), with a deadline.

mod create;
pub mod git;
pub mod layout;
mod lifecycle;
mod spare;
mod steps;

pub use create::{create_spawn_worktree, CreatedWorktree};
pub use layout::{BASE_FILE, DEFAULT_TIMEOUT, SPAWN_MARKER_FILE, WORKTREES_DIR};
pub use lifecycle::{
    finish_spawn_worktree, inspect_worktree, list_spawn_worktrees, prune_spawn_worktrees,
    PruneOptions, SpawnWorktree,
};
pub use spare::{
    prepare_spare_in_background, prepare_spare_worktree, SpareWorktree, SPARE_PREFIX,
    SPARE_READY_FILE, SPARE_TIMEOUT,
};
pub use steps::EXCLUDE_LINE;
