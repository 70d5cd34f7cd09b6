//! Where Claude Code keeps a repository's transcripts.
//!
//! Claude Code names a project folder after the directory it was launched in:
//! every UTF-16 code unit that is not ASCII `[A-Za-z0-9]` becomes `-`, and
//! names longer than 200 units are cut to 200 and given a hash suffix that
//! depends on the runtime (docs/formats.md, "Claude Code transcripts"). We therefore
//! match long names by prefix and confirm them with the `cwd` in the files.

use std::fs;
use std::path::{Component, Path, PathBuf};

/// Longest folder name Claude Code writes before cutting and hashing.
pub const MAX_SLUG_LEN: usize = 200;

/// The project folder name for a launch directory, before any length cut.
///
/// One `-` per UTF-16 code unit of every character that is not ASCII
/// alphanumeric, so an astral character (an emoji) becomes two dashes, exactly
/// as JavaScript's `replace(/[^a-zA-Z0-9]/g, "-")` does.
pub fn full_slug(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                out.push('-');
            }
        }
    }
    out
}

/// The folder name as far as it can be computed: the full slug, or its first
/// 200 characters when Claude Code would append a runtime-specific hash.
pub fn project_slug(path: &str) -> String {
    let mut slug = full_slug(path);
    slug.truncate(MAX_SLUG_LEN); // the slug is ASCII, so bytes == units
    slug
}

/// The home folder, the way Node's `os.homedir()` finds it (see [`crate::platform`]).
pub fn home_dir() -> PathBuf {
    crate::platform::home_dir()
}

/// Claude Code's config root: the option, else `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn claude_config_dir(option: Option<&Path>) -> PathBuf {
    if let Some(dir) = option {
        return dir.to_path_buf();
    }
    match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => home_dir().join(".claude"),
    }
}

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

/// A project folder that may hold a repository's sessions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectDir {
    /// The folder under `projects/`.
    pub path: PathBuf,
    /// The launch directory it was matched for.
    pub launch_dir: PathBuf,
    /// Matched by the 200-character prefix only: files must be confirmed by
    /// their `cwd` before they are counted as this repository's.
    pub needs_cwd_check: bool,
}

/// Every project folder under `projects_root` that belongs to `repo`: its own
/// (by the lexical path and by the real path, which is what Claude Code uses),
/// and those of the repository's linked git worktrees.
pub fn project_dirs_for_repo(projects_root: &Path, repo: &Path) -> Vec<ProjectDir> {
    let mut launch_dirs = vec![repo.to_path_buf()];
    if let Ok(real) = fs::canonicalize(repo) {
        launch_dirs.push(real);
    }
    for worktree in git_worktrees(repo) {
        launch_dirs.push(worktree);
    }
    let mut seen_launch = Vec::new();
    let mut dirs: Vec<ProjectDir> = Vec::new();
    let mut long_names: Option<Vec<String>> = None;
    for launch in launch_dirs {
        if seen_launch.contains(&launch) {
            continue;
        }
        seen_launch.push(launch.clone());
        let slug = full_slug(&launch.to_string_lossy());
        if slug.len() <= MAX_SLUG_LEN {
            let path = projects_root.join(&slug);
            if path.is_dir() && !dirs.iter().any(|d| d.path == path) {
                dirs.push(ProjectDir {
                    path,
                    launch_dir: launch,
                    needs_cwd_check: false,
                });
            }
            continue;
        }
        let names = long_names.get_or_insert_with(|| {
            fs::read_dir(projects_root)
                .map(|rd| {
                    rd.filter_map(|e| e.ok())
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .filter(|n| n.len() > MAX_SLUG_LEN)
                        .collect()
                })
                .unwrap_or_default()
        });
        let prefix = format!("{}-", &slug[..MAX_SLUG_LEN]);
        for name in names.iter().filter(|n| n.starts_with(&prefix)) {
            let path = projects_root.join(name);
            if !dirs.iter().any(|d| d.path == path) {
                dirs.push(ProjectDir {
                    path,
                    launch_dir: launch.clone(),
                    needs_cwd_check: true,
                });
            }
        }
    }
    dirs
}

/// The work trees of the repository at `repo` other than `repo` itself, read
/// from git's administrative files (no `git` process is spawned).
pub fn git_worktrees(repo: &Path) -> Vec<PathBuf> {
    let dot_git = repo.join(".git");
    let common_dir = if dot_git.is_dir() {
        dot_git
    } else if let Some(gitdir) = read_gitdir_file(&dot_git) {
        // A linked worktree: `<common>/worktrees/<name>`; its `commondir` says where.
        let common = fs::read_to_string(gitdir.join("commondir"))
            .ok()
            .map(|c| gitdir.join(c.trim()))
            .unwrap_or_else(|| gitdir.join("../.."));
        fs::canonicalize(&common).unwrap_or(common)
    } else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // The main work tree of a non-bare repository is the parent of its `.git`.
    if common_dir.file_name().is_some_and(|n| n == ".git") {
        if let Some(main) = common_dir.parent() {
            out.push(main.to_path_buf());
        }
    }
    if let Ok(entries) = fs::read_dir(common_dir.join("worktrees")) {
        for entry in entries.flatten() {
            if let Ok(text) = fs::read_to_string(entry.path().join("gitdir")) {
                // `gitdir` names `<worktree>/.git`.
                if let Some(tree) = Path::new(text.trim()).parent() {
                    out.push(tree.to_path_buf());
                }
            }
        }
    }
    let own = fs::canonicalize(repo).unwrap_or_else(|_| repo.to_path_buf());
    out.retain(|p| fs::canonicalize(p).unwrap_or_else(|_| p.clone()) != own);
    out
}

fn read_gitdir_file(dot_git: &Path) -> Option<PathBuf> {
    let text = fs::read_to_string(dot_git).ok()?;
    let target = text.trim().strip_prefix("gitdir:")?.trim();
    let path = Path::new(target);
    Some(if path.is_absolute() {
        path.to_path_buf()
    } else {
        dot_git.parent()?.join(path)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slug_replaces_every_utf16_unit_that_is_not_ascii_alphanumeric() {
        assert_eq!(full_slug("/home/u/my.proj"), "-home-u-my-proj");
        assert_eq!(full_slug("/home/u/my_proj"), "-home-u-my-proj");
        assert_eq!(
            full_slug("/Users/a/My Project (v2)"),
            "-Users-a-My-Project--v2-"
        );
        assert_eq!(full_slug("C:\\Users\\foo\\proj"), "C--Users-foo-proj");
        assert_eq!(full_slug("/a/.b"), "-a--b");
        assert_eq!(full_slug("/home/u/caf\u{e9}"), "-home-u-caf-");
        assert_eq!(full_slug("/home/u/\u{1F600}x"), "-home-u---x");
    }

    #[test]
    fn long_slugs_are_cut_to_200() {
        let long = format!("/{}", "a".repeat(250));
        assert_eq!(project_slug(&long).len(), 200);
        assert_eq!(project_slug("/short"), "-short");
    }

    #[test]
    fn resolves_like_node_path_resolve() {
        assert_eq!(resolve_lexically("/a/b/../c/./d/"), PathBuf::from("/a/c/d"));
        assert_eq!(resolve_lexically("/../.."), PathBuf::from("/"));
    }
}
