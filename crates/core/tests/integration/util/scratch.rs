//! A scratch world for the suites that brief, isolate or read back spawns:
//! a temporary folder holding a Claude config folder, a state folder and
//! git repositories made with the `git` CLI.

use std::fs;
use std::path::{Path, PathBuf};

use super::git_repo::{commit, git_in, new_repo, write};

/// A temporary folder (removed when dropped) with an empty Claude config
/// folder and an empty state folder in it.
pub struct Scratch {
    /// The temporary folder, held to remove it on drop.
    _tmp: tempfile::TempDir,
    /// Its canonical path, where repositories are made.
    pub base: PathBuf,
    /// `<base>/claude`: the Claude config folder.
    pub claude: PathBuf,
    /// `<base>/state`: OpenClaw's state folder.
    pub state: PathBuf,
}

impl Scratch {
    /// A new scratch folder.
    pub fn new() -> Scratch {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let claude = base.join("claude");
        let state = base.join("state");
        fs::create_dir_all(&claude).unwrap();
        fs::create_dir_all(&state).unwrap();
        Scratch {
            _tmp: tmp,
            base,
            claude,
            state,
        }
    }
}

/// A repository `shop` in `base` whose one commit, "Add the cart", made
/// `seconds_ago`, adds `src/cart.rs` and the `extra` files (path, text).
pub fn shop_repo(base: &Path, seconds_ago: i64, extra: &[(&str, &str)]) -> PathBuf {
    let repo = new_repo(base, "shop");
    write(&repo, "src/cart.rs", "fn cart() {}\n");
    for (rel, text) in extra {
        write(&repo, rel, text);
    }
    git_in(&repo, &["add", "."]);
    commit(&repo, "Add the cart", seconds_ago);
    repo
}

/// The spare worktree folders under the repository's `.claude/worktrees`, sorted.
pub fn spare_dirs(repo: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(repo.join(".claude/worktrees"))
        .map(|d| {
            d.flatten()
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with(session_intel_core::worktree::SPARE_PREFIX)
                })
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}
