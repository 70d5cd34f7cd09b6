//! The steps every change to a repository's worktrees shares: where a
//! folder lies in git, the repository's worktree lock, the folders and
//! `info/exclude` line a worktree needs, and undoing what was made.

use super::git::git;
use crate::error::{Error, ErrorCode, Result};
use crate::fs_safe::{write_atomic, FileLock, LockOptions};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The line Claude Code puts in `info/exclude` to keep its worktrees out of
/// the main tree's status (one of its `# claude-code-runtime` lines).
pub const EXCLUDE_LINE: &str = "**/.claude/worktrees/";

/// Where a folder lies in git: its work tree root, the repository's common
/// git folder, and `HEAD`'s commit.
pub(super) struct Located {
    /// The work tree's root.
    pub top: PathBuf,
    /// The repository's common git folder.
    pub common_dir: PathBuf,
    /// `HEAD`'s commit.
    pub head: String,
}

/// Where `cwd` lies in git; fails outside git and before the first commit.
pub(super) fn locate(cwd: &Path, deadline: Instant) -> Result<Located> {
    let out = git(
        cwd,
        &[
            "rev-parse",
            "--path-format=absolute",
            "--show-toplevel",
            "--git-common-dir",
            "HEAD",
        ],
        deadline,
    )?;
    let lines: Vec<&str> = out.stdout.lines().collect();
    if !out.ok || lines.len() < 3 {
        let msg = if out.stderr.contains("not a git repository") {
            format!("{} is not in a git repository", cwd.display())
        } else {
            "the repository has no commit to start a worktree from".to_owned()
        };
        return Err(Error::new(ErrorCode::InvalidArgument, msg)
            .with_hint("isolation needs a git repository with at least one commit"));
    }
    let top = PathBuf::from(lines[0]);
    let common = PathBuf::from(lines[1]);
    Ok(Located {
        common_dir: if common.is_absolute() {
            common
        } else {
            cwd.join(common)
        },
        top,
        head: lines[2].trim().to_owned(),
    })
}

/// The main working tree of the repository whose common git folder is
/// `common_dir` (its parent when it is a `.git` folder).
pub(super) fn main_tree(common_dir: &Path, top: &Path) -> PathBuf {
    match common_dir.file_name() {
        Some(n) if n == ".git" => common_dir
            .parent()
            .map_or(top.to_path_buf(), Path::to_path_buf),
        _ => top.to_path_buf(),
    }
}

/// Whether `path` or any folder between `root` and it is a symbolic link
/// (a committed symlink at `.claude` could send the worktree anywhere).
fn symlink_on_the_way(root: &Path, path: &Path) -> Option<PathBuf> {
    let rel = path.strip_prefix(root).ok()?;
    let mut at = root.to_path_buf();
    for part in rel.components() {
        at.push(part);
        if fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return Some(at);
        }
    }
    None
}

/// Fails when a folder between `repo` and `dir` is a symbolic link.
pub(super) fn symlink_error(repo: &Path, dir: &Path) -> Result<()> {
    match symlink_on_the_way(repo, dir) {
        Some(link) => Err(Error::new(
            ErrorCode::WriteFailed,
            format!(
                "{} is a symbolic link; no worktree is made through it",
                link.display()
            ),
        )
        .with_hint("remove the symbolic link and try again")),
        None => Ok(()),
    }
}

/// The repository's worktree lock (`<git dir>/worktrees.lock`), waited for
/// until `deadline`.
pub(super) fn lock_worktrees(common_dir: &Path, deadline: Instant) -> Result<FileLock> {
    FileLock::acquire(
        &common_dir.join("worktrees"),
        LockOptions {
            timeout: deadline.saturating_duration_since(Instant::now()),
            ..LockOptions::default()
        },
    )
}

/// What has been made so far, undone in reverse order on failure.
#[derive(Default)]
pub(super) struct Made {
    /// Folders made on the way to the worktree, outermost first.
    pub dirs: Vec<PathBuf>,
    /// The worktree's folder.
    pub worktree: Option<PathBuf>,
    /// The worktree's git folder.
    pub admin: Option<PathBuf>,
    /// Its branch.
    pub branch: Option<String>,
    /// `info/exclude` and its content before.
    pub exclude: Option<(PathBuf, Option<Vec<u8>>)>,
    /// The repository's common git folder: when set, the worktree's folder
    /// is moved into it and its files deleted on a thread of their own, so
    /// that undoing a checkout cut short by its deadline (tens of thousands
    /// of files, say) does not keep the caller past it.
    pub trash_in: Option<PathBuf>,
}

impl Made {
    /// Makes the folders between `repo` and `dir` that are missing, each
    /// remembered to be undone.
    pub fn make_dirs(&mut self, repo: &Path, dir: &Path) -> Result<()> {
        let mut missing = Vec::new();
        let mut at = dir.to_path_buf();
        while !at.exists() && at.starts_with(repo) && at != repo {
            missing.push(at.clone());
            at.pop();
        }
        for dir in missing.into_iter().rev() {
            fs::create_dir(&dir).map_err(|e| {
                Error::new(
                    ErrorCode::WriteFailed,
                    format!("could not make {}: {e}", dir.display()),
                )
                .with_hint("make the repository's .claude folder writable")
            })?;
            self.dirs.push(dir);
        }
        Ok(())
    }

    /// Undoes everything made, best effort, newest first.
    pub fn undo(self, repo: &Path, deadline: Instant) {
        if let Some((path, before)) = self.exclude {
            let _ = match before {
                Some(bytes) => write_atomic(&path, &bytes, None),
                None => fs::remove_file(&path).map_err(|e| Error::write_failed(&path, &e)),
            };
        }
        if let Some(wt) = &self.worktree {
            if !self
                .trash_in
                .as_deref()
                .is_some_and(|c| trash(repo, c, wt, deadline))
            {
                let wt_str = wt.to_string_lossy();
                let _ = git(
                    repo,
                    &["worktree", "remove", "--force", "--force", &wt_str],
                    deadline,
                );
                let _ = fs::remove_dir_all(wt);
            }
        }
        if let Some(admin) = &self.admin {
            let _ = fs::remove_dir_all(admin);
        }
        if let Some(branch) = &self.branch {
            let _ = git(repo, &["branch", "-D", branch], deadline);
        }
        for dir in self.dirs.iter().rev() {
            let _ = fs::remove_dir(dir);
        }
    }
}

/// Adds [`EXCLUDE_LINE`] to the repository's `info/exclude` unless a line
/// there already keeps `.claude/worktrees/` out (Claude Code's own block,
/// say); returns the file and its former content, to undo it.
pub(super) fn ensure_excluded(common_dir: &Path) -> Result<Option<(PathBuf, Option<Vec<u8>>)>> {
    let path = common_dir.join("info").join("exclude");
    let before = fs::read(&path).ok();
    let text = before
        .as_deref()
        .map(String::from_utf8_lossy)
        .unwrap_or_default();
    if text
        .lines()
        .any(|l| l.trim().trim_start_matches("**/").trim_start_matches('/') == ".claude/worktrees/")
    {
        return Ok(None);
    }
    let mut next = text.into_owned();
    if !next.is_empty() && !next.ends_with('\n') {
        next.push('\n');
    }
    next.push_str("# spawn worktrees of openclaw-session-intel (Claude Code's layout)\n");
    next.push_str(EXCLUDE_LINE);
    next.push('\n');
    fs::create_dir_all(path.parent().unwrap_or(common_dir))
        .map_err(|e| Error::write_failed(&path, &e))?;
    write_atomic(&path, next.as_bytes(), None)?;
    Ok(Some((path, before)))
}

/// Moves the worktree folder `wt` into the repository's common git folder
/// `common_dir` (under a new `osi-trash-` name, out of every status) and
/// removes the git folder its `.git` file names there. Returns where its
/// files now lie, to be deleted; `None` when `wt` could not be moved
/// (nothing was changed then).
pub(super) fn move_to_trash(common_dir: &Path, wt: &Path) -> Option<PathBuf> {
    let name = wt.file_name().unwrap_or_default().to_string_lossy();
    let bin = common_dir.join(format!(
        "osi-trash-{name}-{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    ));
    let admin = admin_dir(wt).filter(|a| a.starts_with(common_dir.join("worktrees")));
    if !wt.exists() || fs::rename(wt, &bin).is_err() {
        return None;
    }
    if let Some(admin) = admin {
        let _ = fs::remove_dir_all(admin);
    }
    Some(bin)
}

/// Undoes the worktree folder `wt` of the repository whose main tree is
/// `repo` through [`move_to_trash`] (pruning git's record of it when `wt`
/// had no `.git` file yet); its files are deleted on a thread of their
/// own. False when `wt` could not be moved.
fn trash(repo: &Path, common_dir: &Path, wt: &Path, deadline: Instant) -> bool {
    let named = admin_dir(wt).is_some();
    let Some(bin) = move_to_trash(common_dir, wt) else {
        return false;
    };
    if !named {
        let _ = git(repo, &["worktree", "prune"], deadline);
    }
    std::thread::spawn(move || {
        let _ = fs::remove_dir_all(&bin);
    });
    true
}

/// The git folder a worktree's `.git` file names.
pub(super) fn admin_dir(worktree: &Path) -> Option<PathBuf> {
    let text = fs::read_to_string(worktree.join(".git")).ok()?;
    let dir = PathBuf::from(text.trim().strip_prefix("gitdir:")?.trim());
    Some(if dir.is_absolute() {
        dir
    } else {
        worktree.join(dir)
    })
}
