//! Paths as Node's `path.resolve` makes them, and [`RepoPath`]: a
//! repository's path resolved once where a call enters the core and passed
//! on, so that every part compares the same form.

use std::fmt;
use std::ops::Deref;
use std::path::{Component, Path, PathBuf};

/// Node's `path.resolve`: absolute, `.` and `..` folded, no symlinks followed.
pub fn resolve_lexically(path: &str) -> PathBuf {
    let joined = if Path::new(path).is_absolute() {
        PathBuf::from(path)
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("/"))
            .join(path)
    };
    let mut out = PathBuf::from("/");
    for part in joined.components() {
        match part {
            Component::Normal(p) => out.push(p),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// A repository's (or any folder's) path, resolved lexically
/// ([`resolve_lexically`]): made once from what a caller gave, then handed
/// on as it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RepoPath(PathBuf);

impl RepoPath {
    /// Resolves `path` as a caller gave it (relative to the process's
    /// current folder when it is relative).
    pub fn resolve(path: &str) -> RepoPath {
        RepoPath(resolve_lexically(path))
    }

    /// The path of a folder found on disk (a repository's work tree, say),
    /// resolved like any other so that it compares equal to what callers
    /// give for it.
    pub fn of(path: &Path) -> RepoPath {
        RepoPath::resolve(&path.to_string_lossy())
    }

    /// The path.
    pub fn as_path(&self) -> &Path {
        &self.0
    }

    /// Whether `dir`, resolved, is this folder.
    pub fn is(&self, dir: &str) -> bool {
        resolve_lexically(dir) == self.0
    }

    /// Whether `dir`, resolved, is this folder or lies below it (by whole
    /// components).
    pub fn holds(&self, dir: &str) -> bool {
        resolve_lexically(dir).starts_with(&self.0)
    }
}

impl Deref for RepoPath {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for RepoPath {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl From<RepoPath> for PathBuf {
    fn from(repo: RepoPath) -> PathBuf {
        repo.0
    }
}

impl fmt::Display for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.display().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_like_node_path_resolve() {
        assert_eq!(resolve_lexically("/a/b/../c/./d/"), PathBuf::from("/a/c/d"));
        assert_eq!(resolve_lexically("/../.."), PathBuf::from("/"));
    }

    #[test]
    fn a_repository_holds_its_folders_by_whole_components() {
        let repo = RepoPath::resolve("/x/repo/");
        assert_eq!(repo.as_path(), Path::new("/x/repo"));
        assert!(repo.is("/x/repo/src/.."));
        assert!(repo.holds("/x/repo"));
        assert!(repo.holds("/x/repo/src"));
        assert!(!repo.holds("/x/repo-foo"));
        assert!(!repo.holds("/x/repo/../other"));
        assert_eq!(RepoPath::of(Path::new("/x/repo/")), repo);
    }
}
