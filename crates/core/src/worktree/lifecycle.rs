//! A spawn worktree after its spawn: what it holds (commits beyond its
//! base, uncommitted changes, merged or not), removing it when it holds
//! nothing ([`finish_spawn_worktree`]), listing the kept ones and pruning
//! those whose work is merged or that hold nothing.
//!
//! Nothing with uncommitted changes or unmerged commits is removed without
//! `force`; git itself is asked to remove a worktree without `--force`, so
//! that a change made between the look and the removal still stops it.

use super::git::{failed, git};
use super::layout::{BASE_FILE, SPAWN_MARKER_FILE, WORKTREES_DIR};
use super::steps::admin_dir;
use crate::claude_code::liveness::running_sessions;
use crate::error::Result;
use crate::repo_path::resolve_lexically;
use crate::spawns::SPAWN_POLICY;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

/// A spawn's worktree and what it holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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

/// How [`prune_spawn_worktrees`] runs.
#[derive(Debug, Clone, Default)]
pub struct PruneOptions {
    /// Remove the chosen worktrees whatever they hold.
    pub force: bool,
    /// Only these worktrees (by path); empty: every spawn worktree.
    pub paths: Vec<String>,
    /// Claude Code's config root, whose liveness records say which worktrees
    /// a session works in now (default `$CLAUDE_CONFIG_DIR`, else
    /// `~/.claude`).
    pub claude_config_dir: Option<PathBuf>,
}

/// The main working tree of the worktree whose git folder is `admin`
/// (`<main>/.git/worktrees/<name>`).
fn main_tree_of(admin: &Path) -> Option<PathBuf> {
    let common = admin.parent()?.parent()?;
    Some(match common.file_name() {
        Some(n) if n == ".git" => common.parent()?.to_path_buf(),
        _ => common.to_path_buf(),
    })
}

fn read_trimmed(path: &Path) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// What the worktree at `path` holds. A folder that is gone is reported
/// `removed`.
pub fn inspect_worktree(path: &Path, deadline: Instant) -> Result<SpawnWorktree> {
    let mut wt = SpawnWorktree {
        path: path.to_string_lossy().into_owned(),
        ..SpawnWorktree::default()
    };
    let Some(admin) = admin_dir(path).filter(|_| path.is_dir()) else {
        wt.removed = true;
        return Ok(wt);
    };
    wt.base_commit = read_trimmed(&admin.join(BASE_FILE)).unwrap_or_default();
    wt.nonce = read_trimmed(&admin.join(SPAWN_MARKER_FILE));
    let heads = git(
        path,
        &["rev-parse", "HEAD", "--abbrev-ref", "HEAD"],
        deadline,
    )?
    .into_result("git rev-parse")?;
    let mut lines = heads.lines();
    let head = lines.next().unwrap_or("").to_owned();
    wt.branch = lines
        .next()
        .filter(|b| *b != "HEAD")
        .unwrap_or("")
        .to_owned();
    if !wt.base_commit.is_empty() {
        let range = format!("{}..{head}", wt.base_commit);
        let count =
            git(path, &["rev-list", "--count", &range], deadline)?.into_result("git rev-list")?;
        wt.commits_ahead = count.trim().parse().unwrap_or(0);
    }
    let status = git(path, &["status", "--porcelain"], deadline)?.into_result("git status")?;
    wt.dirty = !status.trim().is_empty();
    if let Some(main) = main_tree_of(&admin) {
        wt.merged = git(
            &main,
            &["merge-base", "--is-ancestor", &head, "HEAD"],
            deadline,
        )?
        .ok;
    }
    Ok(wt)
}

/// Whether a Claude Code process works in `wt` now (by the liveness records
/// under `claude_dir`) or it was made within the spawn start grace.
fn in_use(wt: &Path, claude_dir: &Path) -> bool {
    let young = admin_dir(wt)
        .and_then(|a| fs::metadata(a.join(SPAWN_MARKER_FILE)).ok())
        .and_then(|m| m.modified().ok())
        .is_some_and(|t| {
            SystemTime::now().duration_since(t).unwrap_or_default() < SPAWN_POLICY.start_grace
        });
    young
        || running_sessions(claude_dir).iter().any(|l| {
            l.cwd
                .as_deref()
                .is_some_and(|cwd| resolve_lexically(cwd).starts_with(wt))
        })
}

/// Removes the worktree `wt` and its branch: without `force` only through
/// `git worktree remove` (which refuses a worktree with changes), and the
/// branch only while it points where the worktree's `HEAD` was seen.
fn remove(main: &Path, wt: &mut SpawnWorktree, force: bool, deadline: Instant) -> Result<()> {
    let mut args = vec!["worktree", "remove"];
    if force {
        args.extend(["--force", "--force"]);
    }
    args.push(&wt.path);
    git(main, &args, deadline)?.into_result("git worktree remove")?;
    wt.removed = true;
    if !wt.branch.is_empty() {
        let out = git(main, &["branch", "-D", &wt.branch], deadline)?;
        if !out.ok {
            return Err(failed("git branch -D", &out.stderr));
        }
    }
    Ok(())
}

/// Ends a spawn's worktree: removes it and its branch when it has no
/// commits beyond its base and no changes; else keeps it. Returns what it
/// holds and whether it was removed.
pub fn finish_spawn_worktree(path: &Path, deadline: Instant) -> Result<SpawnWorktree> {
    let mut wt = inspect_worktree(path, deadline)?;
    if wt.removed || wt.dirty || wt.commits_ahead > 0 || wt.base_commit.is_empty() {
        return Ok(wt);
    }
    let Some(main) = admin_dir(path).as_deref().and_then(main_tree_of) else {
        return Ok(wt);
    };
    remove(&main, &mut wt, false, deadline)?;
    Ok(wt)
}

/// The main tree's root of the repository `repo` lies in.
fn main_tree(repo: &Path, deadline: Instant) -> Result<PathBuf> {
    let out = git(
        repo,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
        deadline,
    )?
    .into_result("git rev-parse")?;
    let common = PathBuf::from(out.trim());
    Ok(match common.file_name() {
        Some(n) if n == ".git" => common.parent().map_or(common.clone(), Path::to_path_buf),
        _ => common,
    })
}

/// The spawn worktrees of the repository `repo` lies in (those under
/// `.claude/worktrees/` made for a spawn), with what each holds, in git's
/// order.
pub fn list_spawn_worktrees(
    repo: &Path,
    claude_dir: &Path,
    deadline: Instant,
) -> Result<Vec<SpawnWorktree>> {
    let main = main_tree(repo, deadline)?;
    let under = main.join(WORKTREES_DIR);
    let listing = git(&main, &["worktree", "list", "--porcelain"], deadline)?
        .into_result("git worktree list")?;
    let mut out = Vec::new();
    for line in listing.lines() {
        let Some(path) = line.strip_prefix("worktree ") else {
            continue;
        };
        let path = PathBuf::from(path);
        let marked = admin_dir(&path).is_some_and(|a| a.join(SPAWN_MARKER_FILE).is_file());
        if !path.starts_with(&under) || !marked {
            continue;
        }
        let mut wt = inspect_worktree(&path, deadline)?;
        wt.in_use = in_use(&path, claude_dir);
        out.push(wt);
    }
    Ok(out)
}

/// Removes the spawn worktrees of `repo` (or those of `options.paths`) whose
/// work is merged into the main tree's `HEAD` or that hold nothing (no
/// commits beyond their base), and have no uncommitted changes and no
/// Claude Code at work in them; with `force`, every chosen one. The
/// repository's spare worktrees that a preparation left unready are
/// removed as well (not returned); a ready one is kept. Returns
/// every chosen worktree, `removed` saying which went.
pub fn prune_spawn_worktrees(
    repo: &Path,
    options: &PruneOptions,
    deadline: Instant,
) -> Result<Vec<SpawnWorktree>> {
    let claude_dir =
        crate::claude_code::layout::paths::claude_config_dir(options.claude_config_dir.as_deref());
    let main = main_tree(repo, deadline)?;
    let wanted: Vec<PathBuf> = options.paths.iter().map(|p| resolve_lexically(p)).collect();
    let mut chosen: Vec<SpawnWorktree> = list_spawn_worktrees(&main, &claude_dir, deadline)?
        .into_iter()
        .filter(|w| wanted.is_empty() || wanted.iter().any(|p| *p == resolve_lexically(&w.path)))
        .collect();
    // A spare left half-made by a preparation that died goes too; a ready
    // spare stays (it is no spawn's and holds nothing).
    super::spare::remove_abandoned_spares(&main, deadline);
    for wt in &mut chosen {
        let clean = !wt.dirty && !wt.in_use && (wt.merged || wt.commits_ahead == 0);
        if options.force || clean {
            remove(&main, wt, options.force, deadline)?;
        }
    }
    Ok(chosen)
}
