//! Where spawn worktrees live and what marks them: Claude Code's layout.

/// Where worktrees live, relative to the main tree's root.
pub const WORKTREES_DIR: &str = ".claude/worktrees";

/// The file in a worktree's git folder holding its base commit (Claude
/// Code's name for it).
pub const BASE_FILE: &str = "CLAUDE_BASE";

/// The file in a worktree's git folder that marks it as a spawn's, holding
/// the spawn's nonce.
pub const SPAWN_MARKER_FILE: &str = "OPENCLAW_SPAWN";

/// How long a worktree operation may take unless told otherwise.
pub const DEFAULT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);
