//! Spawn worktrees: `finishSpawnWorktree`, `listSpawnWorktrees`,
//! `pruneSpawnWorktrees`, and the spare worktree, `prepareSpareWorktree`.

use crate::error::CoreTask;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core::claude_code::layout::paths::claude_config_dir;
use session_intel_core::worktree::{self as wt, DEFAULT_TIMEOUT};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A spawn's git worktree and what it holds.
#[napi(object, object_from_js = false)]
pub struct SpawnWorktree {
    /// The worktree's root.
    pub path: String,
    /// Its branch (`""` when its `HEAD` is detached or it is gone).
    pub branch: String,
    /// The commit it was made from (`""` when unknown).
    pub base_commit: String,
    /// Commits on its `HEAD` that its base does not have.
    pub commits_ahead: u32,
    /// It has uncommitted changes (untracked files included).
    pub dirty: bool,
    /// Its `HEAD` is in the main tree's `HEAD` (nothing of it is unmerged).
    pub merged: bool,
    /// It was removed (by this call, or it was gone already).
    pub removed: bool,
    /// The nonce of the spawn it was made for.
    pub nonce: Option<String>,
    /// A Claude Code process works in it now, or it was made within the
    /// spawn start grace; pruning leaves it unless forced.
    pub in_use: bool,
}

impl From<wt::SpawnWorktree> for SpawnWorktree {
    fn from(w: wt::SpawnWorktree) -> Self {
        SpawnWorktree {
            path: w.path,
            branch: w.branch,
            base_commit: w.base_commit,
            commits_ahead: w.commits_ahead,
            dirty: w.dirty,
            merged: w.merged,
            removed: w.removed,
            nonce: w.nonce,
            in_use: w.in_use,
        }
    }
}

fn convert_all(v: Vec<wt::SpawnWorktree>) -> Vec<SpawnWorktree> {
    v.into_iter().map(Into::into).collect()
}

/// Ends a spawn's worktree: removes it and its branch when it has no
/// commits beyond its base and no changes; else keeps it. Resolves to what
/// it holds, `removed` saying whether it went (also when it was gone
/// already). Runs off the JavaScript thread; rejects with `E_WRITE_FAILED`
/// when git fails.
#[napi(catch_unwind, ts_return_type = "Promise<SpawnWorktree>")]
pub fn finish_spawn_worktree(
    worktree_path: String,
) -> AsyncTask<CoreTask<wt::SpawnWorktree, SpawnWorktree>> {
    AsyncTask::new(CoreTask::new(
        move || {
            wt::finish_spawn_worktree(Path::new(&worktree_path), Instant::now() + DEFAULT_TIMEOUT)
        },
        SpawnWorktree::from,
    ))
}

/// Options of `listSpawnWorktrees`.
#[napi(object)]
#[derive(Default)]
pub struct ListWorktreesOptions {
    /// Claude Code's config root, whose liveness records say which worktrees
    /// a session works in now (default `$CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub claude_config_dir: Option<String>,
}

/// The kept spawn worktrees of the repository `repoPath` lies in (those
/// under `.claude/worktrees/` made for a spawn), with what each holds.
/// Runs off the JavaScript thread; rejects with `E_WRITE_FAILED` when git
/// fails (e.g. not a git repository).
#[napi(catch_unwind, ts_return_type = "Promise<Array<SpawnWorktree>>")]
pub fn list_spawn_worktrees(
    repo_path: String,
    options: Option<ListWorktreesOptions>,
) -> AsyncTask<CoreTask<Vec<wt::SpawnWorktree>, Vec<SpawnWorktree>>> {
    let o = options.unwrap_or_default();
    let claude_dir = claude_config_dir(o.claude_config_dir.as_deref().map(Path::new));
    AsyncTask::new(CoreTask::new(
        move || {
            wt::list_spawn_worktrees(
                Path::new(&repo_path),
                &claude_dir,
                Instant::now() + DEFAULT_TIMEOUT,
            )
        },
        convert_all,
    ))
}

/// Options of `pruneSpawnWorktrees`.
#[napi(object)]
#[derive(Default)]
pub struct PruneWorktreesOptions {
    /// Remove the chosen worktrees whatever they hold: uncommitted changes
    /// and unmerged commits are lost.
    pub force: Option<bool>,
    /// Only these worktrees (by path; default every spawn worktree).
    pub paths: Option<Vec<String>>,
    /// Claude Code's config root, whose liveness records say which worktrees
    /// a session works in now (default `$CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub claude_config_dir: Option<String>,
}

/// Removes the spawn worktrees of the repository (or those named in
/// `paths`) whose branch is merged into the main tree's `HEAD` or that hold
/// nothing, with their branches; never one with uncommitted changes,
/// unmerged commits or a Claude Code at work in it unless `force`.
/// Resolves to every chosen worktree, `removed` saying which went.
#[napi(catch_unwind, ts_return_type = "Promise<Array<SpawnWorktree>>")]
pub fn prune_spawn_worktrees(
    repo_path: String,
    options: Option<PruneWorktreesOptions>,
) -> AsyncTask<CoreTask<Vec<wt::SpawnWorktree>, Vec<SpawnWorktree>>> {
    let o = options.unwrap_or_default();
    let opts = wt::PruneOptions {
        force: o.force.unwrap_or_default(),
        paths: o.paths.unwrap_or_default(),
        claude_config_dir: o.claude_config_dir.map(PathBuf::from),
    };
    AsyncTask::new(CoreTask::new(
        move || {
            wt::prune_spawn_worktrees(
                Path::new(&repo_path),
                &opts,
                Instant::now() + DEFAULT_TIMEOUT,
            )
        },
        convert_all,
    ))
}

/// The spare worktree a preparation left ready.
#[napi(object, object_from_js = false)]
pub struct SpareWorktree {
    /// The spare's root, `<repo>/.claude/worktrees/osi-spare-<id>`.
    pub path: String,
    /// The commit it is checked out at: the repository's `HEAD` when it
    /// was prepared.
    pub commit: String,
    /// What the preparation did.
    #[napi(ts_type = "'made' | 'brought forward' | 'current'")]
    pub action: String,
}

/// Prepares the spare worktree of the repository `repoPath` lies in, which
/// the next spawn isolated into it takes instead of a full checkout:
/// removes spares that cannot be used (unready, with local changes), brings
/// a ready one at an older commit forward to `HEAD`, or makes one. Resolves
/// to the ready spare, or `null` when another preparation of the repository
/// runs now (one at a time, by a lock file in its git folder). The
/// pre-flight does this by itself in the background; this call waits for
/// it. Runs off the JavaScript thread; rejects with `E_INVALID_ARGUMENT`
/// outside a git repository with a commit, `E_WRITE_FAILED` when git fails.
#[napi(catch_unwind, ts_return_type = "Promise<SpareWorktree | null>")]
pub fn prepare_spare_worktree(
    repo_path: String,
) -> AsyncTask<CoreTask<Option<wt::SpareWorktree>, Option<SpareWorktree>>> {
    AsyncTask::new(CoreTask::new(
        move || {
            wt::prepare_spare_worktree(Path::new(&repo_path), Instant::now() + wt::SPARE_TIMEOUT)
        },
        |s| {
            s.map(|s| SpareWorktree {
                path: s.path,
                commit: s.commit,
                action: s.action.to_owned(),
            })
        },
    ))
}
