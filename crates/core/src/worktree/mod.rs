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
mod lifecycle;

pub use create::{create_spawn_worktree, CreatedWorktree, EXCLUDE_LINE};
pub use lifecycle::{
    finish_spawn_worktree, inspect_worktree, list_spawn_worktrees, prune_spawn_worktrees,
    PruneOptions, SpawnWorktree,
};

/// Where worktrees live, relative to the main tree's root.
pub const WORKTREES_DIR: &str = ".claude/worktrees";

/// The file in a worktree's git folder holding its base commit (Claude
/// Code's name for it).
pub const BASE_FILE: &str = "CLAUDE_BASE";

/// The file in a worktree's git folder that marks it as a spawn's, holding
/// the spawn's nonce.
pub const SPAWN_MARKER_FILE: &str = "OPENCLAW_SPAWN";

/// How long a worktree operation may take unless told otherwise.
pub const DEFAULT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);
