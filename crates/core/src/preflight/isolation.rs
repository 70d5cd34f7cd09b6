//! Isolation: a spawn into a busy git repository runs in a worktree of
//! its own (see [`crate::worktree`]) instead of being refused, and the
//! briefing tells it so.

use super::busy::RunningSession;
use crate::error::{Error, ErrorCode, Result};
use crate::project_status::ProjectStatus;
use crate::worktree::{create_spawn_worktree, CreatedWorktree};
use std::path::Path;
use std::time::Instant;

/// Uncommitted paths of the main tree named in the briefing before the
/// rest are only counted.
const CHANGES_SHOWN: usize = 8;

/// When a spawn runs in a worktree of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Isolation {
    /// Only when its repository is busy (the busy rule, [`super::busy`]).
    #[default]
    Busy,
    /// Every spawn into a git repository.
    Always,
    /// Never: the busy guard decides, as without isolation.
    Off,
}

impl Isolation {
    /// The mode named `name` (`busy`, `always`, `off`).
    pub fn parse(name: &str) -> Result<Isolation> {
        match name {
            "busy" => Ok(Isolation::Busy),
            "always" => Ok(Isolation::Always),
            "off" => Ok(Isolation::Off),
            other => Err(Error::new(
                ErrorCode::InvalidArgument,
                format!("isolation must be 'busy', 'always' or 'off', not {other:?}"),
            )
            .with_hint("set isolation to busy (the default), always or off")),
        }
    }
}

/// The worktree a spawn was isolated into, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnIsolation {
    /// The worktree, its branch, base commit, repository and subfolder.
    pub worktree: CreatedWorktree,
    /// The session editing the main working tree, when one was found by id.
    pub busy_session_id: Option<String>,
    /// Why, in a sentence: who is working in the main tree, or that every
    /// spawn is isolated.
    pub reason: String,
}

/// Why a spawn is isolated: the session at work in the main tree, another
/// spawn starting there, or the `always` mode.
fn why(running: Option<&RunningSession>) -> String {
    match running {
        Some(RunningSession {
            session_id: Some(id),
            ..
        }) => format!("session {id} is editing the main working tree"),
        Some(_) => "another spawn is starting in the main working tree".to_owned(),
        None => "every spawn runs in a worktree of its own (isolation: always)".to_owned(),
    }
}

/// Makes the worktree of the spawn with `nonce` whose `cwd` is `cwd`,
/// because of `running` (none: isolation `always`).
pub fn isolate(
    cwd: &Path,
    nonce: &str,
    running: Option<&RunningSession>,
    deadline: Instant,
) -> Result<SpawnIsolation> {
    // Without a nonce, the first free `spawn-N`.
    let name = if nonce.is_empty() {
        "spawn".to_owned()
    } else {
        format!("spawn-{nonce}")
    };
    let worktree = create_spawn_worktree(cwd, &name, nonce, deadline)?;
    Ok(SpawnIsolation {
        worktree,
        busy_session_id: running.and_then(|r| r.session_id.clone()),
        reason: why(running),
    })
}

/// The briefing's lines on the isolation: where the spawn works and why,
/// the main tree's uncommitted changes it does not have (named, bounded),
/// and that its work is to be committed on its branch.
pub fn isolation_lines(iso: &SpawnIsolation, status: &ProjectStatus) -> Vec<String> {
    let wt = &iso.worktree;
    let short = wt.base_commit.get(..7).unwrap_or(&wt.base_commit);
    let mut lines = vec![format!(
        "Isolated worktree: you work in {}, a git worktree of {} on its own branch {} (from {short}), because {}.",
        wt.cwd, wt.repo_path, wt.branch, iso.reason
    )];
    let changes = &status.git.status.lines;
    if !status.status_read {
        lines.push("The main working tree's uncommitted changes (not read in time) are not in your worktree.".to_owned());
    } else if !changes.is_empty() {
        let paths: Vec<&str> = changes
            .iter()
            .map(|l| l.get(3..).unwrap_or(l))
            .take(CHANGES_SHOWN)
            .collect();
        let more = changes.len().saturating_sub(CHANGES_SHOWN);
        lines.push(format!(
            "The main working tree's uncommitted changes are not in your worktree: {}{}.",
            paths.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    lines.push(format!(
        "Commit your work on branch {} in your worktree; do not edit {} itself. Merging it is left to the operator.",
        wt.branch, wt.repo_path
    ));
    lines
}

/// The full id of the commit `HEAD` of the work tree at `repo` points at
/// (`None` outside git or before the first commit).
pub fn head_commit(repo: &Path) -> Option<String> {
    let repo = git2::Repository::open(repo).ok()?;
    let id = repo.head().ok()?.peel_to_commit().ok()?.id();
    Some(id.to_string())
}
