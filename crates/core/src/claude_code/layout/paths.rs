//! Where Claude Code keeps a repository's transcripts.
//!
//! Claude Code names a project folder after the directory it was launched in:
//! every UTF-16 code unit that is not ASCII `[A-Za-z0-9]` becomes `-`. A name
//! that would be longer than 200 units is cut to 200 and given a suffix: `-`
//! and the 32-bit string hash of the whole path in base 36 ([`project_slug`]).
//! Names are lossy (`/x/a-b`, `/x/a/b` and `/x/a_b` share one), so a folder
//! found only by the start of its name holds a repository's sessions only
//! where their transcripts' `cwd` says so.
//!
//! A repository's sessions live in the folders of every directory they were
//! started in: the repository itself, its real path, its linked git
//! worktrees, and any folder below one of those (`repo/src` has its own
//! project folder, and so has a Claude Code worktree under
//! `repo/.claude/worktrees/<name>`, also once it is removed). See
//! [`project_dirs_in`].

use crate::repo_path::resolve_lexically;
use std::fs;
use std::path::{Path, PathBuf};

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

/// The 32-bit string hash Claude Code puts after a cut folder name: `h = 31 *
/// h + unit` over the UTF-16 code units of the path, wrapping at 32 bits
/// (JavaScript's `(h << 5) - h + unit | 0`, Java's `String.hashCode`).
pub fn path_hash(path: &str) -> i32 {
    path.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_shl(5)
            .wrapping_sub(h)
            .wrapping_add(i32::from(unit))
    })
}

/// `n` in base 36 with lowercase digits (JavaScript's `n.toString(36)`).
fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// The folder name Claude Code gives a launch directory: its full slug, or,
/// when that is over 200 characters, the first 200, `-`, and
/// `Math.abs(`[`path_hash`]`).toString(36)`.
pub fn project_slug(path: &str) -> String {
    let mut slug = full_slug(path);
    if slug.len() > MAX_SLUG_LEN {
        slug.truncate(MAX_SLUG_LEN); // the slug is ASCII, so bytes == units
        slug.push('-');
        slug.push_str(&base36(i64::from(path_hash(path)).unsigned_abs()));
    }
    slug
}

/// Claude Code's config root: the option, else `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn claude_config_dir(option: Option<&Path>) -> PathBuf {
    if let Some(dir) = option {
        return dir.to_path_buf();
    }
    match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => crate::platform::home_dir().join(".claude"),
    }
}

/// A project folder that may hold a repository's sessions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectDir {
    /// The folder under `projects/`.
    pub path: PathBuf,
    /// Found by the start of its name (a subfolder's, a sibling's that
    /// shares the start, a long name with another hash): a transcript in it
    /// is the repository's only when its `cwd` is one of the launch
    /// directories or lies below one ([`cwd_within`]).
    pub needs_cwd_check: bool,
}

/// The directories a repository's sessions may have been started in, each
/// with the folders below it: the path as given, its real path (which is
/// what Claude Code records), and the repository's linked git worktrees.
pub fn launch_dirs(repo: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![repo.to_path_buf()];
    if let Ok(real) = fs::canonicalize(repo) {
        dirs.push(real);
    }
    dirs.extend(git_worktrees(repo));
    let mut seen = Vec::with_capacity(dirs.len());
    dirs.retain(|d| {
        let new = !seen.contains(d);
        if new {
            seen.push(d.clone());
        }
        new
    });
    dirs
}

/// Whether the `cwd` a transcript records is one of `launch_dirs` or lies
/// below one (compared by whole path components, after folding `.` and
/// `..`).
pub fn cwd_within(cwd: &str, launch_dirs: &[PathBuf]) -> bool {
    let cwd = resolve_lexically(cwd);
    launch_dirs.iter().any(|dir| cwd.starts_with(dir))
}

/// The project folders among `names` (the entries of `projects_root` that
/// are folders) that may hold sessions started in `launch_dirs` or below
/// them: each launch directory's own folder, by the exact name Claude Code
/// gives it, and every folder whose name starts with that name's first 200
/// characters and a `-` (a folder below it, or a long name hashed another
/// way), to be confirmed by `cwd`. Own folders come first, in the order of
/// `launch_dirs`; a folder is named once.
pub fn project_dirs_in<'a>(
    projects_root: &Path,
    names: impl IntoIterator<Item = &'a str>,
    launch_dirs: &[PathBuf],
) -> Vec<ProjectDir> {
    let slugs: Vec<(String, String)> = launch_dirs
        .iter()
        .map(|dir| {
            let dir = dir.to_string_lossy();
            let mut prefix = full_slug(&dir);
            prefix.truncate(MAX_SLUG_LEN);
            prefix.push('-');
            (project_slug(&dir), prefix)
        })
        .collect();
    let mut own: Vec<(usize, &str)> = Vec::new();
    let mut below: Vec<&str> = Vec::new();
    for name in names {
        if let Some(at) = slugs.iter().position(|(exact, _)| exact == name) {
            own.push((at, name));
        } else if slugs
            .iter()
            .any(|(_, prefix)| name.starts_with(prefix.as_str()))
        {
            below.push(name);
        }
    }
    own.sort_unstable();
    below.sort_unstable();
    let folder = |name: &str, needs_cwd_check| ProjectDir {
        path: projects_root.join(name),
        needs_cwd_check,
    };
    own.into_iter()
        .map(|(_, name)| folder(name, false))
        .chain(below.into_iter().map(|name| folder(name, true)))
        .collect()
}

/// The folders of `projects_root` that may hold `repo`'s sessions (see
/// [`project_dirs_in`]), listing `projects_root` once.
pub fn project_dirs_for_repo(projects_root: &Path, repo: &Path) -> Vec<ProjectDir> {
    let Ok(entries) = fs::read_dir(projects_root) else {
        return Vec::new();
    };
    let names: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()) || e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    project_dirs_in(
        projects_root,
        names.iter().map(String::as_str),
        &launch_dirs(repo),
    )
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
    fn long_names_are_cut_to_200_and_end_in_the_path_hash_in_base_36() {
        // Vectors computed with JavaScript's own `(h << 5) - h + unit | 0`
        // and `Math.abs(h).toString(36)`.
        assert_eq!(path_hash("hello"), 99162322);
        assert_eq!(path_hash("polygenelubricants"), i32::MIN);
        let long = format!("/{}", "a".repeat(250));
        assert_eq!(path_hash(&long), -931632369);
        assert_eq!(project_slug(&long), format!("-{}-feo44x", "a".repeat(199)));
        // Non-ASCII is hashed by UTF-16 units: an emoji counts twice.
        let wide = format!(
            "/home/u/{}caf\u{e9}\u{1F600}",
            "very-long-folder-name/".repeat(10)
        );
        assert_eq!(path_hash(&wide), -1219829835);
        assert!(project_slug(&wide).ends_with("-k696q3"));
        assert_eq!(project_slug(&wide).len(), 207);
        // |i32::MIN| does not fit an i32; JavaScript's Math.abs gives 2^31.
        assert_eq!(base36(2147483648), "zik0zk");
        assert_eq!(project_slug("/short"), "-short");
        assert_eq!(project_slug(&"/x".repeat(100)), "-x".repeat(100));
    }

    #[test]
    fn a_repository_owns_its_folders_and_those_that_start_like_them() {
        let root = Path::new("/c/projects");
        let long_repo = format!("/r/{}", "l".repeat(220));
        let launch = [PathBuf::from("/x/repo"), PathBuf::from(&long_repo)];
        let long_own = project_slug(&long_repo);
        let long_other = format!("{}-zzzz", &full_slug(&long_repo)[..MAX_SLUG_LEN]);
        let names = [
            "-x-repo-src",
            "-x-repo",
            "-x-repo-foo",
            "-x-repo--claude-worktrees-w1",
            "-x-rep",
            "-x-repository",
            long_other.as_str(),
            long_own.as_str(),
            "-y-repo",
        ];
        let dirs = project_dirs_in(root, names, &launch);
        let got: Vec<(String, bool)> = dirs
            .iter()
            .map(|d| {
                let name = d.path.strip_prefix(root).unwrap().to_string_lossy();
                (name.into_owned(), d.needs_cwd_check)
            })
            .collect();
        let want: Vec<(String, bool)> = vec![
            ("-x-repo".into(), false),
            (long_own.clone(), false),
            (long_other.clone(), true),
            ("-x-repo--claude-worktrees-w1".into(), true),
            ("-x-repo-foo".into(), true),
            ("-x-repo-src".into(), true),
        ];
        let mut want_sorted = want[2..].to_vec();
        want_sorted.sort();
        assert_eq!(got[..2], want[..2]);
        assert_eq!(got[2..], want_sorted[..]);
    }

    #[test]
    fn a_cwd_belongs_at_or_below_a_launch_directory_by_whole_components() {
        let launch = [PathBuf::from("/x/repo"), PathBuf::from("/y/wt")];
        assert!(cwd_within("/x/repo", &launch));
        assert!(cwd_within("/x/repo/src", &launch));
        assert!(cwd_within("/x/repo/.claude/worktrees/gone", &launch));
        assert!(cwd_within("/y/wt/a/b", &launch));
        assert!(cwd_within("/x/repo/src/../lib", &launch));
        assert!(!cwd_within("/x/repo-foo", &launch));
        assert!(!cwd_within("/x/repo/../other", &launch));
        assert!(!cwd_within("/x", &launch));
    }
}
