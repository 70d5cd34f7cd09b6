//! The status of a working tree as `git status --short` prints it: git's own
//! stat-based fast path where it applies (Unix), else libgit2's walk.

#[cfg(unix)]
use super::fast_status::fast_short_status;
use super::short_status::{short_status_libgit2, ShortStatus};
use git2::Repository;

/// Reads the status of the working tree of `repo` (empty for a bare
/// repository): through the fast path of [`fast_status`](super::fast_status) when it
/// applies, else through libgit2's own status walk.
pub fn short_status(repo: &Repository) -> Result<ShortStatus, git2::Error> {
    if repo.is_bare() {
        return Ok(ShortStatus::default());
    }
    #[cfg(unix)]
    if let Some(status) = fast_short_status(repo) {
        return Ok(status);
    }
    short_status_libgit2(repo)
}
