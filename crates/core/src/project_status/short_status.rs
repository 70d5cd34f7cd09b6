//! Lines of `git status --short`, built from libgit2's status entries.

use git2::{Repository, Status, StatusOptions, SubmoduleIgnore, SubmoduleStatus};

/// The working tree state, as `git status --short` prints it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShortStatus {
    /// Every line, in git's order.
    pub lines: Vec<String>,
    /// Paths of untracked files and folders (folders end in `/`), unquoted.
    pub untracked: Vec<String>,
}

impl ShortStatus {
    /// Lines with a change staged in the index (`X` is one of `MADRCT`).
    pub fn staged(&self) -> Vec<String> {
        self.lines
            .iter()
            .filter(|l| b"MADRCT".contains(&l.as_bytes()[0]))
            .cloned()
            .collect()
    }

    /// Lines with a change in the working tree, untracked included (`Y` is
    /// one of `MADRCT?m`), as the reference selects them.
    pub fn unstaged(&self) -> Vec<String> {
        self.lines
            .iter()
            .filter(|l| b"MADRCT?m".contains(&l.as_bytes()[1]))
            .cloned()
            .collect()
    }
}

/// The same answer from libgit2's `git_status_list` (single-threaded): the
/// fallback, and the yardstick the fast path is tested against.
pub fn short_status_libgit2(repo: &Repository) -> Result<ShortStatus, git2::Error> {
    if repo.is_bare() {
        return Ok(ShortStatus::default());
    }
    let mut opts = StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(false)
        .include_ignored(false)
        .renames_head_to_index(true)
        .exclude_submodules(false);
    let statuses = repo.statuses(Some(&mut opts))?;
    let mut untracked = Vec::new();
    let mut entries: Vec<(String, String)> = Vec::new();
    for entry in statuses.iter() {
        let s = entry.status();
        let path = String::from_utf8_lossy(entry.path_bytes()).into_owned();
        if s.contains(Status::WT_NEW) && !s.intersects(INDEX_ANY) {
            untracked.push(path);
            continue;
        }
        if s.contains(Status::CONFLICTED) {
            entries.push((path.clone(), format!("UU {}", quote_path(&path))));
            continue;
        }
        let x = index_code(s);
        let y = submodule_aware(repo, &path, worktree_code(s));
        if x == ' ' && y == ' ' {
            continue;
        }
        let rename = entry
            .head_to_index()
            .filter(|_| x == 'R' || x == 'C')
            .map(|delta| {
                let side = |f: git2::DiffFile<'_>| {
                    f.path_bytes()
                        .map(|p| String::from_utf8_lossy(p).into_owned())
                        .unwrap_or_default()
                };
                (side(delta.old_file()), side(delta.new_file()))
            });
        entries.push(match rename {
            Some((old, new)) => status_line(x, y, &new, Some(&old)),
            None => status_line(x, y, &path, None),
        });
    }
    Ok(finish(entries, untracked))
}

/// One tracked path's line and the key git sorts it by (where the file is
/// now: the new path of a rename).
pub(super) fn status_line(
    x: char,
    y: char,
    path: &str,
    renamed_from: Option<&str>,
) -> (String, String) {
    let shown = match renamed_from {
        Some(old) => format!("{} -> {}", quote_path(old), quote_path(path)),
        None => quote_path(path),
    };
    (path.to_owned(), format!("{x}{y} {shown}"))
}

/// Sorts as git prints: tracked changes by path, then untracked paths.
pub(super) fn finish(
    mut tracked: Vec<(String, String)>,
    mut untracked: Vec<String>,
) -> ShortStatus {
    tracked.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    untracked.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    let mut lines: Vec<String> = tracked.into_iter().map(|(_, l)| l).collect();
    lines.extend(untracked.iter().map(|p| format!("?? {}", quote_path(p))));
    ShortStatus { lines, untracked }
}

/// The worktree code of `path`, refined for submodules (`M`, `m`, `?`).
pub(super) fn submodule_aware(repo: &Repository, path: &str, y: char) -> char {
    match repo.submodule_status(path, SubmoduleIgnore::Unspecified) {
        Ok(sub) if sub.intersects(SubmoduleStatus::IN_WD | SubmoduleStatus::IN_INDEX) => {
            submodule_code(sub, y)
        }
        _ => y,
    }
}

const INDEX_ANY: Status = Status::INDEX_NEW
    .union(Status::INDEX_MODIFIED)
    .union(Status::INDEX_DELETED)
    .union(Status::INDEX_RENAMED)
    .union(Status::INDEX_TYPECHANGE);

pub(super) fn index_code(s: Status) -> char {
    if s.contains(Status::INDEX_NEW) {
        'A'
    } else if s.contains(Status::INDEX_RENAMED) {
        'R'
    } else if s.contains(Status::INDEX_DELETED) {
        'D'
    } else if s.contains(Status::INDEX_TYPECHANGE) {
        'T'
    } else if s.contains(Status::INDEX_MODIFIED) {
        'M'
    } else {
        ' '
    }
}

pub(super) fn worktree_code(s: Status) -> char {
    if s.contains(Status::WT_DELETED) {
        'D'
    } else if s.contains(Status::WT_TYPECHANGE) {
        'T'
    } else if s.contains(Status::WT_RENAMED) {
        'R'
    } else if s.contains(Status::WT_MODIFIED) {
        'M'
    } else {
        ' '
    }
}

/// A submodule's `Y`: `M` for new commits, `m` for modified content, `?` for
/// untracked content only (git's short format).
fn submodule_code(sub: SubmoduleStatus, fallback: char) -> char {
    if sub.contains(SubmoduleStatus::WD_MODIFIED) {
        'M'
    } else if sub.intersects(SubmoduleStatus::WD_WD_MODIFIED | SubmoduleStatus::WD_INDEX_MODIFIED) {
        'm'
    } else if sub.contains(SubmoduleStatus::WD_UNTRACKED) {
        '?'
    } else if fallback == 'M' {
        ' '
    } else {
        fallback
    }
}

/// A path as `git status --short` shows it: in double quotes with C escapes
/// (octal for bytes outside ASCII, as `core.quotePath` does by default) when
/// it holds a space, a quote, a backslash, a control or a non-ASCII byte.
pub fn quote_path(path: &str) -> String {
    let needs = path
        .bytes()
        .any(|b| b == b' ' || b == b'"' || b == b'\\' || !(0x20..0x7f).contains(&b));
    if !needs {
        return path.to_owned();
    }
    let mut out = String::with_capacity(path.len() + 2);
    out.push('"');
    for b in path.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            0x0b => out.push_str("\\v"),
            0x0c => out.push_str("\\f"),
            b'\r' => out.push_str("\\r"),
            b if !(0x20..0x7f).contains(&b) => out.push_str(&format!("\\{b:03o}")),
            b => out.push(b as char),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::quote_path;

    #[test]
    fn quotes_like_git() {
        assert_eq!(quote_path("plain/file.txt"), "plain/file.txt");
        assert_eq!(quote_path("a b.txt"), "\"a b.txt\"");
        assert_eq!(quote_path("caf\u{e9}.txt"), "\"caf\\303\\251.txt\"");
        assert_eq!(quote_path("q\"b\\"), "\"q\\\"b\\\\\"");
        assert_eq!(quote_path("t\tn"), "\"t\\tn\"");
    }
}
