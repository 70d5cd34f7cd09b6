//! The root commit of a repository: the oldest parentless commit reachable
//! from HEAD, as `git rev-list --max-parents=0 HEAD` lists it last (git
//! reads its commit-graph; libgit2 walks the objects, the fallback when
//! git is not there).

use git2::{Oid, Repository, Sort};
use std::path::Path;
use std::time::{Duration, Instant};

/// How long one `git rev-list` may take (a history of millions of commits
/// without a commit-graph).
const REV_LIST_TIMEOUT: Duration = Duration::from_secs(60);

/// The root commit of the repository `repo` whose work tree (or git dir)
/// is `dir`; `None` before its first commit.
pub fn root_commit(repo: &Repository, dir: &Path) -> Option<String> {
    repo.head().ok()?.target()?;
    let deadline = Instant::now() + REV_LIST_TIMEOUT;
    let listed = crate::worktree::git::git(dir, &["rev-list", "--max-parents=0", "HEAD"], deadline)
        .ok()
        .filter(|out| out.ok)
        .and_then(|out| {
            out.stdout
                .lines()
                .rev()
                .map(str::trim)
                .find(|l| is_hash(l))
                .map(str::to_owned)
        });
    listed.or_else(|| walk(repo).map(|oid| oid.to_string()))
}

/// The last parentless commit of a walk of HEAD's history in git's order.
fn walk(repo: &Repository) -> Option<Oid> {
    let mut walk = repo.revwalk().ok()?;
    walk.set_sorting(Sort::TIME).ok()?;
    walk.push_head().ok()?;
    let mut root = None;
    for oid in walk.flatten() {
        if repo.find_commit(oid).is_ok_and(|c| c.parent_count() == 0) {
            root = Some(oid);
        }
    }
    root
}

/// A full SHA-1 or SHA-256 object name.
fn is_hash(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}
