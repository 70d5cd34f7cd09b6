//! Making a spawn's worktree: `<repo>/.claude/worktrees/<name>` on a new
//! branch `worktree-<name>` from the repository's `HEAD`, Claude Code's own
//! layout, kept out of the main tree's `git status` as Claude Code keeps it
//! (a `**/.claude/worktrees/` line in the repository's `info/exclude`).
//!
//! Every step that fails undoes the ones before it: no folder, no branch, no
//! `.git/worktrees` entry and no `info/exclude` change is left behind. One
//! worktree is made at a time per repository (the lock file
//! `<git dir>/worktrees.lock`, in OpenClaw's lock format).

use super::git::{failed, git};
use super::layout::{BASE_FILE, SPAWN_MARKER_FILE, WORKTREES_DIR};
use super::spare::take_spare;
use super::steps::{ensure_excluded, locate, lock_worktrees, main_tree, symlink_error, Made};
use crate::error::{Error, ErrorCode, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How many names are tried after the one asked for is taken.
const NAME_TRIES: usize = 20;

/// A worktree made for a spawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatedWorktree {
    /// The worktree's root, `<repo>/.claude/worktrees/<name>`.
    pub worktree_path: String,
    /// Its branch, `worktree-<name>`.
    pub branch: String,
    /// The commit it starts from: the repository's `HEAD` when it was made.
    pub base_commit: String,
    /// The main working tree's root.
    pub repo_path: String,
    /// Where the spawn's `cwd` lay below the repository root (`""`: at it).
    pub subfolder: String,
    /// The spawn's `cwd` in the worktree: its root joined with `subfolder`.
    pub cwd: String,
    /// It is the repository's spare worktree, taken (see [`super::spare`]),
    /// not one checked out for this spawn.
    pub from_spare: bool,
}

/// A name for the worktree: `name` itself when free, else `name-2`,
/// `name-3`…: free means no such folder, branch or `.git/worktrees` entry.
fn free_name(
    repo: &Path,
    common_dir: &Path,
    name: &str,
    deadline: Instant,
) -> Result<(String, String)> {
    for n in 1..=NAME_TRIES {
        let candidate = if n == 1 {
            name.to_owned()
        } else {
            format!("{name}-{n}")
        };
        let branch = format!("worktree-{}", candidate.replace('/', "+"));
        let taken_dir = fs::symlink_metadata(repo.join(WORKTREES_DIR).join(&candidate)).is_ok()
            || fs::symlink_metadata(common_dir.join("worktrees").join(&candidate)).is_ok();
        if taken_dir {
            continue;
        }
        let branch_ref = format!("refs/heads/{branch}");
        let exists = git(
            repo,
            &["rev-parse", "--verify", "--quiet", &branch_ref],
            deadline,
        )?;
        if !exists.ok {
            return Ok((candidate, branch));
        }
    }
    Err(Error::new(
        ErrorCode::WriteFailed,
        format!("no free worktree name like {name} under {WORKTREES_DIR}"),
    )
    .with_hint("remove kept spawn worktrees (pruneSpawnWorktrees, /worktrees prune)"))
}

/// Makes a worktree for a spawn whose `cwd` is `cwd`: `<repo>/.claude/
/// worktrees/<name>` (or the first free `name-N`) on a new branch
/// `worktree-<name>` from `HEAD`, the `cwd`'s subfolder kept. `tag` is
/// written into the worktree's git folder (the spawn's nonce), by which
/// [`super::list_spawn_worktrees`] tells spawn worktrees from others.
///
/// Fails when `cwd` is not in a git repository with a commit, when the
/// main tree's index is locked by another git process, when a folder on
/// the way is a symbolic link, or when git fails or runs past `deadline`;
/// nothing is left behind then.
pub fn create_spawn_worktree(
    cwd: &Path,
    name: &str,
    tag: &str,
    deadline: Instant,
) -> Result<CreatedWorktree> {
    let located = locate(cwd, deadline)?;
    let repo = main_tree(&located.common_dir, &located.top);
    let subfolder = cwd
        .strip_prefix(&located.top)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    // A git process changing the main tree's index now may be about to
    // move `HEAD`: the base would be a commit the repository just left.
    if located.common_dir.join("index.lock").exists() {
        return Err(Error::new(
            ErrorCode::SessionBusy,
            format!(
                "the index of {} is locked (.git/index.lock): another git process is changing it",
                repo.display()
            ),
        )
        .with_hint(
            "wait for that git command to finish, or remove .git/index.lock if no git process runs",
        ));
    }
    let worktrees = repo.join(WORKTREES_DIR);
    symlink_error(&repo, &worktrees)?;
    // One creation at a time per repository, across processes: git's own
    // `worktree add` run twice at once can read the other's half-made
    // entry, and the free name and `info/exclude` are read, then written.
    let _lock = lock_worktrees(&located.common_dir, deadline)?;
    let (name, branch) = free_name(&repo, &located.common_dir, name, deadline)?;
    let mut made = Made {
        trash_in: Some(located.common_dir.clone()),
        ..Made::default()
    };
    let mut from_spare = false;
    let result = (|| -> Result<CreatedWorktree> {
        // The folders, as far as they are missing, each undone on failure.
        made.make_dirs(&repo, &worktrees)?;
        let path = worktrees.join(&name);
        let path_str = path.to_string_lossy().into_owned();
        made.worktree = Some(path.clone());
        made.branch = Some(branch.clone());
        // The repository's spare, when one is ready: only what differs
        // from the commit it was made at is checked out.
        let spare_admin = take_spare(&repo, &path, &branch, &located.head, deadline);
        from_spare = spare_admin.is_some();
        made.admin = Some(
            spare_admin
                .clone()
                .unwrap_or_else(|| located.common_dir.join("worktrees").join(&name)),
        );
        let add = match spare_admin {
            Some(_) => None,
            None => Some(git(
                &repo,
                &[
                    "worktree",
                    "add",
                    "--quiet",
                    "-b",
                    &branch,
                    &path_str,
                    &located.head,
                ],
                deadline,
            )?),
        };
        if let Some(add) = add.filter(|a| !a.ok) {
            return Err(failed("git worktree add", &add.stderr));
        }
        // The worktree's own git folder, as its `.git` file names it.
        let admin = fs::read_to_string(path.join(".git"))
            .ok()
            .and_then(|t| {
                t.trim()
                    .strip_prefix("gitdir:")
                    .map(|g| PathBuf::from(g.trim()))
            })
            .ok_or_else(|| failed("git worktree add", "no .git file in the new worktree"))?;
        made.admin = Some(admin.clone());
        fs::write(admin.join(BASE_FILE), format!("{}\n", located.head))
            .and_then(|()| fs::write(admin.join(SPAWN_MARKER_FILE), format!("{tag}\n")))
            .map_err(|e| {
                Error::new(
                    ErrorCode::WriteFailed,
                    format!("could not write into {}: {e}", admin.display()),
                )
            })?;
        made.exclude = ensure_excluded(&located.common_dir)?;
        // `join("")` would end the path with a separator: Claude Code's
        // project folder for that `cwd` would not be the worktree's.
        let cwd_in = if subfolder.as_os_str().is_empty() {
            path.clone()
        } else {
            path.join(&subfolder)
        };
        Ok(CreatedWorktree {
            worktree_path: path_str,
            branch: branch.clone(),
            base_commit: located.head.clone(),
            repo_path: repo.to_string_lossy().into_owned(),
            subfolder: subfolder.to_string_lossy().into_owned(),
            cwd: cwd_in.to_string_lossy().into_owned(),
            from_spare,
        })
    })();
    match result {
        Ok(created) => Ok(created),
        Err(e) => {
            made.undo(
                &repo,
                deadline.max(Instant::now() + std::time::Duration::from_secs(5)),
            );
            Err(e)
        }
    }
}
