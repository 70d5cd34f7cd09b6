//! The spare worktree: one worktree of a repository made ahead of need, so
//! that isolating a spawn into a large repository does not wait for a full
//! checkout.
//!
//! The spare is `<repo>/.claude/worktrees/osi-spare-<id>`, detached at the
//! commit it was checked out at, kept out of the main tree's `git status`
//! like every worktree there (see [`super::EXCLUDE_LINE`]). It is ready
//! once its git folder holds [`SPARE_READY_FILE`] (that commit).
//!
//! - Taking it ([`super::create_spawn_worktree`], under the repository's
//!   worktree lock): only a ready spare with no local change (untracked
//!   files included) is taken; its ready file is removed first, so it is
//!   taken once; `git worktree move` gives it the spawn's name and
//!   `git checkout -B <branch> <HEAD>` puts it on the spawn's branch at the
//!   repository's `HEAD`, which writes only the files that differ from the
//!   commit the spare was made at (a spare older than `HEAD` is brought
//!   forward then). A take that fails removes what it made, and the
//!   worktree is made the full way.
//! - Preparing it ([`prepare_spare_worktree`], in the background after a
//!   pre-flight found the repository busy or isolated a spawn): one
//!   preparation at a time per repository (the lock file
//!   `<git dir>/worktrees-spare.lock`, in OpenClaw's lock format; a second
//!   one returns at once). It removes every spare that is not ready (left
//!   by a preparation that died), has local changes, or is one too many;
//!   brings a ready spare older than `HEAD` forward; else makes one. The
//!   long checkout runs without the worktree lock, so a spawn being
//!   isolated meanwhile never waits for it.
//!
//! Spares carry no spawn marker: listing, finishing and pruning spawn
//! worktrees pass them by ([`super::prune_spawn_worktrees`] removes only
//! the abandoned ones).

use super::git::git;
use super::layout::WORKTREES_DIR;
use super::steps::{
    admin_dir, ensure_excluded, locate, lock_worktrees, main_tree, move_to_trash, symlink_error,
    Made,
};
use crate::error::Result;
use crate::fs_safe::{write_atomic, FileLock, LockOptions};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The name every spare's folder starts with.
pub const SPARE_PREFIX: &str = "osi-spare-";

/// The file in a spare's git folder that says it is ready, holding the
/// commit it was checked out at.
pub const SPARE_READY_FILE: &str = "OPENCLAW_SPARE";

/// How long one preparation may take (a checkout of a very large
/// repository on a slow disk).
pub const SPARE_TIMEOUT: Duration = Duration::from_secs(20 * 60);

/// The lock file a preparation holds, in the repository's git folder.
const SPARE_LOCK: &str = "worktrees-spare";

/// The preparation lock of the repository whose git folder is
/// `common_dir`, when no preparation holds it now.
fn lock_preparation(common_dir: &Path) -> Option<FileLock> {
    FileLock::acquire(
        &common_dir.join(SPARE_LOCK),
        LockOptions {
            timeout: Duration::ZERO,
            stale_after: SPARE_TIMEOUT + Duration::from_secs(60),
        },
    )
    .ok()
}

/// The spare a preparation left ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpareWorktree {
    /// The spare's root, `<repo>/.claude/worktrees/osi-spare-<id>`.
    pub path: String,
    /// The commit it is checked out at: the repository's `HEAD` when it
    /// was prepared.
    pub commit: String,
    /// What the preparation did: `"made"` (a new spare), `"brought
    /// forward"` (an older spare checked out at `HEAD`) or `"current"`
    /// (the spare was at `HEAD` already).
    pub action: &'static str,
}

/// The spare folders of the repository whose main tree is `repo`, by name.
fn spares(repo: &Path) -> Vec<PathBuf> {
    let Ok(dir) = fs::read_dir(repo.join(WORKTREES_DIR)) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = dir
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(SPARE_PREFIX))
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// The commit the spare at `spare` is ready at (`None`: not ready).
fn ready_at(spare: &Path) -> Option<String> {
    let text = fs::read_to_string(admin_dir(spare)?.join(SPARE_READY_FILE)).ok()?;
    Some(text.trim().to_owned()).filter(|t| !t.is_empty())
}

/// Whether the worktree at `dir` has no local change, untracked files
/// included (`false` when git cannot tell).
fn clean(dir: &Path, deadline: Instant) -> bool {
    git(dir, &["status", "--porcelain"], deadline).is_ok_and(|o| o.ok && o.stdout.is_empty())
}

/// A short random id for a spare's name.
fn short_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..8].to_owned()
}

/// Takes a ready spare of the repository whose main tree is `repo` for a
/// spawn: moves it to `target` and puts it on the new branch `branch` at
/// `head`. Returns its git folder, or `None` when no spare was usable; a
/// take that failed half-way has removed the worktree at `target` and
/// `branch` again. Called under the worktree lock, with `target` and
/// `branch` free.
pub(super) fn take_spare(
    repo: &Path,
    target: &Path,
    branch: &str,
    head: &str,
    deadline: Instant,
) -> Option<PathBuf> {
    let spare = spares(repo)
        .into_iter()
        .find(|s| ready_at(s).is_some() && clean(s, deadline))?;
    let admin = admin_dir(&spare)?;
    // Claimed: no other take or preparation uses it from here on.
    fs::remove_file(admin.join(SPARE_READY_FILE)).ok()?;
    let (spare_str, target_str) = (spare.to_string_lossy(), target.to_string_lossy());
    let moved = git(
        repo,
        &["worktree", "move", &spare_str, &target_str],
        deadline,
    )
    .is_ok_and(|o| o.ok);
    if !moved {
        // Left unready: the next preparation removes it.
        return None;
    }
    let switched = git(
        target,
        &["checkout", "--quiet", "-B", branch, head],
        deadline,
    )
    .is_ok_and(|o| o.ok);
    if switched {
        return Some(admin);
    }
    let undo = Made {
        worktree: Some(target.to_path_buf()),
        admin: Some(admin),
        branch: Some(branch.to_owned()),
        ..Made::default()
    };
    undo.undo(repo, deadline.max(Instant::now() + Duration::from_secs(5)));
    None
}

/// Removes the spare at `spare` unless it became ready meanwhile (when
/// `unready_only`): under the worktree lock it is moved into the git folder
/// and its git folder removed; the files are deleted after the lock is
/// released. Best effort.
fn discard(common_dir: &Path, spare: &Path, unready_only: bool, deadline: Instant) {
    let trash = {
        let Ok(_lock) = lock_worktrees(common_dir, deadline) else {
            return;
        };
        if !spare.exists() || (unready_only && ready_at(spare).is_some()) {
            return;
        }
        move_to_trash(common_dir, spare)
    };
    if let Some(trash) = trash {
        let _ = fs::remove_dir_all(&trash);
    }
}

/// Marks the spare at `spare` ready at `commit`, under the worktree lock.
fn mark_ready(common_dir: &Path, spare: &Path, commit: &str, deadline: Instant) -> Result<()> {
    let _lock = lock_worktrees(common_dir, deadline)?;
    let admin = admin_dir(spare)
        .ok_or_else(|| super::git::failed("the spare worktree", "its .git file is gone"))?;
    write_atomic(
        &admin.join(SPARE_READY_FILE),
        format!("{commit}\n").as_bytes(),
        None,
    )
}

/// Makes the repository's index of the worktree at `dir` hold its files'
/// current stat data once the clock has moved past the checkout's second,
/// so that later status reads compare stat data, not file contents (a file
/// written in the same second as the index is re-read every time).
fn settle_index(dir: &Path, deadline: Instant) {
    std::thread::sleep(Duration::from_millis(1100));
    let _ = git(dir, &["update-index", "-q", "--refresh"], deadline);
}

/// Prepares the spare worktree of the repository `cwd` lies in: removes
/// spares that cannot be used, brings a ready one at an older commit
/// forward to `HEAD`, or makes one. Returns the ready spare, or `None` when
/// another preparation of the repository runs now.
///
/// Fails when `cwd` is not in a git repository with a commit, when a folder
/// on the way to `.claude/worktrees` is a symbolic link, or when git fails
/// or runs past `deadline`; a spare that could not be made leaves nothing
/// behind.
pub fn prepare_spare_worktree(cwd: &Path, deadline: Instant) -> Result<Option<SpareWorktree>> {
    let located = locate(cwd, deadline)?;
    let repo = main_tree(&located.common_dir, &located.top);
    let worktrees = repo.join(WORKTREES_DIR);
    symlink_error(&repo, &worktrees)?;
    let common = &located.common_dir;
    let Some(_preparing) = lock_preparation(common) else {
        return Ok(None);
    };
    let head = &located.head;
    let mut kept = None;
    for spare in spares(&repo) {
        if kept.is_none() && ready_at(&spare).is_some() && clean(&spare, deadline) {
            kept = Some(spare);
        } else {
            discard(common, &spare, false, deadline);
        }
    }
    if let Some(spare) = kept {
        let path = spare.to_string_lossy().into_owned();
        if ready_at(&spare).as_deref() == Some(head.as_str()) {
            return Ok(Some(SpareWorktree {
                path,
                commit: head.clone(),
                action: "current",
            }));
        }
        // Claimed while it is checked out anew; taken meanwhile: made anew.
        let claimed = lock_worktrees(common, deadline).is_ok_and(|_lock| {
            admin_dir(&spare).is_some_and(|a| fs::remove_file(a.join(SPARE_READY_FILE)).is_ok())
        });
        if claimed {
            let forward = git(&spare, &["checkout", "--quiet", "--detach", head], deadline)
                .is_ok_and(|o| o.ok);
            if forward {
                settle_index(&spare, deadline);
                mark_ready(common, &spare, head, deadline)?;
                return Ok(Some(SpareWorktree {
                    path,
                    commit: head.clone(),
                    action: "brought forward",
                }));
            }
            discard(common, &spare, false, deadline);
        }
    }
    make_spare(&repo, common, head, deadline).map(Some)
}

/// Makes a new spare of the repository whose main tree is `repo` at `head`:
/// registered without a checkout under the worktree lock, checked out
/// without it, then marked ready. Undone whole when a step fails.
fn make_spare(repo: &Path, common: &Path, head: &str, deadline: Instant) -> Result<SpareWorktree> {
    let worktrees = repo.join(WORKTREES_DIR);
    let path = worktrees.join(format!("{SPARE_PREFIX}{}", short_id()));
    let path_str = path.to_string_lossy().into_owned();
    let mut made = Made::default();
    let registered = (|| -> Result<()> {
        let _lock = lock_worktrees(common, deadline)?;
        made.make_dirs(repo, &worktrees)?;
        made.exclude = ensure_excluded(common)?;
        made.worktree = Some(path.clone());
        let add = git(
            repo,
            &[
                "worktree",
                "add",
                "--quiet",
                "--no-checkout",
                "--detach",
                &path_str,
                head,
            ],
            deadline,
        )?;
        if !add.ok {
            return Err(super::git::failed("git worktree add", &add.stderr));
        }
        made.admin = admin_dir(&path);
        Ok(())
    })();
    let checked_out = registered.and_then(|()| {
        git(&path, &["reset", "--quiet", "--hard", head], deadline)?
            .into_result("git reset --hard")?;
        settle_index(&path, deadline);
        mark_ready(common, &path, head, deadline)
    });
    match checked_out {
        Ok(()) => Ok(SpareWorktree {
            path: path_str,
            commit: head.to_owned(),
            action: "made",
        }),
        Err(e) => {
            let grace = deadline.max(Instant::now() + Duration::from_secs(5));
            if let Ok(_lock) = lock_worktrees(common, grace) {
                // The exclude line stays while other worktrees rely on it.
                let others = fs::read_dir(&worktrees)
                    .map(|d| d.flatten().any(|e| e.path() != path))
                    .unwrap_or(false);
                if others {
                    made.exclude = None;
                }
                made.undo(repo, grace);
            }
            Err(e)
        }
    }
}

/// Prepares the spare worktree of the repository `repo` lies in on a thread
/// of its own and returns at once; a preparation already under way (in
/// this process or another) makes it return at once too. Errors are
/// dropped: the next isolation then makes its worktree the full way.
pub fn prepare_spare_in_background(repo: PathBuf) {
    let _ = std::thread::Builder::new()
        .name("spare-worktree".into())
        .spawn(move || {
            let _ = prepare_spare_worktree(&repo, Instant::now() + SPARE_TIMEOUT);
        });
}

/// Removes the spares of the repository whose main tree is `repo` that
/// are abandoned: not ready while no preparation runs. Returns how many
/// went.
pub(super) fn remove_abandoned_spares(repo: &Path, deadline: Instant) -> usize {
    let Ok(located) = locate(repo, deadline) else {
        return 0;
    };
    let common_dir = &located.common_dir;
    let Some(_preparing) = lock_preparation(common_dir) else {
        return 0;
    };
    let mut gone = 0;
    for spare in spares(repo).iter().filter(|s| ready_at(s).is_none()) {
        discard(common_dir, spare, true, deadline);
        gone += usize::from(!spare.exists());
    }
    gone
}
