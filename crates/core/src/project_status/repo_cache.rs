//! Repositories kept open between briefings. A fresh libgit2 repository
//! reads every object it needs from the packs again (the first revwalk of a
//! 1,000-commit history costs 4 ms, the next 0.4 ms); the gateway briefs the
//! same few repositories over and over.
//!
//! libgit2 re-reads what can change (references, the reflog, new packs) on
//! each use; the index is re-read by the status when its file changed.
//!
//! Objects read from the repository are not hashed again to check them,
//! as `git` does not (libgit2 does by default: 2 % of the CPU of a first
//! status of a 60,000-file work tree).

use git2::Repository;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};

/// Repositories kept at once; more close an arbitrary one.
const MAX_OPEN: usize = 16;

/// An open repository and the identity of its git dir when it was opened.
struct Kept {
    repo: Repository,
    git_dir: (u64, u64),
}

static OPEN: LazyLock<Mutex<HashMap<PathBuf, Kept>>> = LazyLock::new(Default::default);

/// Device and inode of a repository's git dir: a repository deleted and
/// created again at the same path is another repository.
fn identity(repo: &Repository) -> Option<(u64, u64)> {
    crate::platform::path_id(repo.path())
        .ok()
        .map(|id| (id.dev, id.ino))
}

/// Runs `f` on the repository found from `path` (as `git` finds it from a
/// directory inside it); `None` when there is none. A repository is used by
/// one caller at a time: a concurrent caller opens its own.
pub fn with_repository<R>(path: &Path, f: impl FnOnce(&Repository) -> R) -> Option<R> {
    let kept = OPEN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(path)
        .filter(|k| identity(&k.repo) == Some(k.git_dir));
    let kept = match kept {
        Some(k) => k,
        None => {
            static NO_REHASH: std::sync::Once = std::sync::Once::new();
            NO_REHASH.call_once(|| git2::opts::strict_hash_verification(false));
            let repo = Repository::discover(path).ok()?;
            let git_dir = identity(&repo)?;
            Kept { repo, git_dir }
        }
    };
    let out = f(&kept.repo);
    let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    if open.len() >= MAX_OPEN {
        if let Some(evict) = open.keys().next().cloned() {
            open.remove(&evict);
        }
    }
    open.insert(path.to_path_buf(), kept);
    Some(out)
}
