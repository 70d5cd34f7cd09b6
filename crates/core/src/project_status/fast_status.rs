//! `git status --short` the way git computes it, faster than libgit2's walk.
//!
//! libgit2's status list stats and compares every path on one thread. Git
//! instead compares the stat data cached in the index with a parallel
//! `lstat` of the work tree and looks closer only at paths whose stat data
//! differ (or that are "racily clean": written in the same instant as the
//! index). We do the same, in three parts that run at once:
//!
//! - staged changes: the HEAD tree against the index (no work tree access);
//! - tracked paths: a parallel `lstat` of every index entry; the few whose
//!   stat data differ are handed to libgit2 for their exact status;
//! - untracked paths: a parallel walk that honours git's ignore rules
//!   (`.gitignore` files, `.git/info/exclude`, `core.excludesFile`), with
//!   folders holding no tracked file shown as `folder/` as git does.
//!
//! Whatever this path does not model (conflicts, sparse checkouts,
//! intent-to-add entries) returns `None`, and libgit2's own walk answers.

use super::short_status::{
    finish, index_code, status_line, submodule_aware, worktree_code, ShortStatus,
};
use super::status_cache::{self, Findings, Stamp, Tracked, TrackedKey, Worktree};
use crate::fast_map::FastSet;
use git2::{Delta, DiffFindOptions, IndexEntry, Repository, Status};
use ignore::{WalkBuilder, WalkState};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// `flags_extended` bits of index entries this path does not model.
const INTENT_TO_ADD: u16 = 1 << 13;
const SKIP_WORKTREE: u16 = 1 << 14;
/// File type bits of an index entry's mode.
const TYPE_MASK: u32 = 0o170000;
const GITLINK: u32 = 0o160000;
const SYMLINK: u32 = 0o120000;

/// The status, or `None` when the repository needs libgit2's full walk.
/// What did not change since the last status of the same work tree is
/// reused (see [`status_cache`]).
pub fn fast_short_status(repo: &Repository) -> Option<ShortStatus> {
    let root = repo.workdir()?.to_path_buf();
    let index_stamp = Stamp::of(&repo.path().join("index"));
    let head_tree = match repo.head() {
        Ok(h) => Some(h.peel_to_tree().ok()?.id()),
        Err(e) if e.code() == git2::ErrorCode::UnbornBranch => None,
        Err(_) => return None,
    };
    let config = repo.config().ok();
    let key = TrackedKey {
        index: index_stamp,
        head_tree,
        file_modes: config
            .as_ref()
            .and_then(|c| c.get_bool("core.fileMode").ok())
            .unwrap_or(true),
    };
    let cached = status_cache::tracked(&root, key);
    let mut index = match cached {
        Some(_) => None,
        None => {
            let mut index = repo.index().ok()?;
            // A repository kept open keeps its index: re-read it if it changed.
            index.read(false).ok()?;
            if index.has_conflicts() {
                return None;
            }
            Some(index)
        }
    };
    let loaded: Vec<IndexEntry> = index.iter().flat_map(|i| i.iter()).collect();
    let entries: &[IndexEntry] = cached.as_ref().map_or(&loaded, |t| &t.entries);
    if entries
        .iter()
        .any(|e| e.flags_extended & (INTENT_TO_ADD | SKIP_WORKTREE) != 0)
    {
        return None;
    }
    let candidates = exclude_candidates(repo, config.as_ref());
    let excludes: Vec<PathBuf> = candidates.iter().filter(|f| f.is_file()).cloned().collect();
    let index_mtime = index_stamp.map_or((0, 0), |s| s.mtime());

    let (staged, worktree) = std::thread::scope(|scope| {
        let worktree = scope.spawn(|| {
            rayon::join(
                || worktree_suspects(&root, key, entries, index_mtime),
                || {
                    status_cache::untracked(&root, key, &candidates).or_else(|| {
                        let started = SystemTime::now();
                        let (paths, dirs) = untracked_paths(&root, entries, &excludes)?;
                        status_cache::remember_untracked(
                            &root,
                            key,
                            &candidates,
                            dirs,
                            started,
                            &paths,
                        );
                        Some(paths)
                    })
                },
            )
        });
        let staged = index.as_mut().map(|i| staged_changes(repo, head_tree, i));
        (staged, worktree.join())
    });
    let (suspects, untracked) = worktree.ok()?;
    let tracked = match cached {
        Some(t) => t,
        None => {
            let t = Arc::new(Tracked {
                entries: loaded,
                staged: staged.flatten()?,
            });
            status_cache::remember_tracked(&root, key, t.clone());
            t
        }
    };

    // path -> (X, Y, renamed from)
    let mut changes: HashMap<String, (char, char, Option<String>)> = HashMap::new();
    for (path, (x, from)) in &tracked.staged {
        changes.insert(path.clone(), (*x, ' ', from.clone()));
    }
    for (path, state) in suspects {
        let y = match state {
            Worktree::Deleted => 'D',
            Worktree::Modified => 'M',
            Worktree::Suspect => {
                let status = repo.status_file(Path::new(&path)).ok()?;
                submodule_aware(repo, &path, worktree_code(status))
            }
        };
        if y != ' ' {
            changes.entry(path).or_insert((' ', ' ', None)).1 = y;
        }
    }
    let lines = changes
        .into_iter()
        .map(|(path, (x, y, from))| status_line(x, y, &path, from.as_deref()))
        .collect();
    Some(finish(lines, untracked?))
}

/// HEAD tree against the index, renames detected as `git status` does.
/// Returns path -> (X code, renamed from). Nothing is staged when the
/// index's cached trees say it holds HEAD's tree, as git concludes too.
fn staged_changes(
    repo: &Repository,
    head_tree: Option<git2::Oid>,
    index: &mut git2::Index,
) -> Option<HashMap<String, (char, Option<String>)>> {
    if head_tree.is_some() && cached_index_tree(index) == head_tree {
        return Some(HashMap::new());
    }
    let head = match head_tree {
        Some(id) => Some(repo.find_tree(id).ok()?),
        None => None,
    };
    let mut diff = repo
        .diff_tree_to_index(head.as_ref(), Some(index), None)
        .ok()?;
    diff.find_similar(Some(DiffFindOptions::new().renames(true)))
        .ok()?;
    let path_of = |f: git2::DiffFile<'_>| {
        f.path_bytes()
            .map(|p| String::from_utf8_lossy(p).into_owned())
    };
    let mut out = HashMap::new();
    for delta in diff.deltas() {
        let status = match delta.status() {
            Delta::Added => Status::INDEX_NEW,
            Delta::Deleted => Status::INDEX_DELETED,
            Delta::Modified => Status::INDEX_MODIFIED,
            Delta::Renamed => Status::INDEX_RENAMED,
            Delta::Typechange => Status::INDEX_TYPECHANGE,
            _ => continue,
        };
        let x = index_code(status);
        let (path, from) = match delta.status() {
            Delta::Deleted => (path_of(delta.old_file())?, None),
            Delta::Renamed => (path_of(delta.new_file())?, path_of(delta.old_file())),
            _ => (path_of(delta.new_file())?, None),
        };
        out.insert(path, (x, from));
    }
    Some(out)
}

/// The tree the index holds according to its cached trees (git's `TREE`
/// extension, which `git commit` leaves whole), when they cover all of it;
/// `None` otherwise. Nothing is written: libgit2 answers from a whole
/// cache without writing, and otherwise fails at its first write into an
/// object database that has nowhere to write to. On that failure libgit2
/// drops its in-memory copy of the cached trees (never the file), so the
/// statuses of that same index read afterwards compare trees again.
fn cached_index_tree(index: &mut git2::Index) -> Option<git2::Oid> {
    let nowhere = Repository::from_odb(git2::Odb::new().ok()?).ok()?;
    index.write_tree_to(&nowhere).ok()
}

/// The tracked paths whose work tree file may differ from the index.
///
/// The index is sorted by path, so entries of one folder are neighbours:
/// each folder is opened once and its files are stat'ed relative to it
/// (`fstatat`), sparing the kernel a walk down the whole path per file;
/// folders nothing happened in since the last status are not stat'ed again
/// ([`status_cache::tracked_findings`]).
fn worktree_suspects(
    root: &Path,
    key: TrackedKey,
    entries: &[IndexEntry],
    index_mtime: (i64, i64),
) -> Vec<(String, Worktree)> {
    let groups: Vec<&[IndexEntry]> = entries.chunk_by(|a, b| parent(a) == parent(b)).collect();
    let folders: Vec<PathBuf> = groups
        .iter()
        .map(|g| match parent(&g[0]) {
            b"" => root.to_path_buf(),
            dir => root.join(std::ffi::OsStr::from_bytes(dir)),
        })
        .collect();
    // Absent, or a file where a folder was: what `lstat` says of a path
    // that is gone. Anything else is a failure to not keep.
    let absent = |e: &std::io::Error| {
        matches!(
            e.kind(),
            std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
        )
    };
    status_cache::tracked_findings(root, key, &folders, |i| {
        let mut keep = true;
        let dir_fd = fs::File::open(&folders[i])
            .inspect_err(|e| keep &= absent(e))
            .ok();
        let findings = groups[i]
            .iter()
            .filter_map(|e| {
                let state = if e.mode & TYPE_MASK == GITLINK {
                    Some(Worktree::Suspect) // submodules: libgit2 decides
                } else {
                    let name = &e.path[e.path.len() - rel_name_len(&e.path)..];
                    match dir_fd.as_ref().map(|d| lstat_at(d, name)) {
                        Some(Ok(st)) => compare(e, &st, index_mtime, key.file_modes),
                        Some(Err(err)) => {
                            keep &= absent(&err);
                            Some(Worktree::Deleted)
                        }
                        None => Some(Worktree::Deleted),
                    }
                };
                state.map(|w| (String::from_utf8_lossy(&e.path).into_owned(), w))
            })
            .collect::<Findings>();
        (findings, keep)
    })
}

/// The folder part of an index path (`""` at the root).
fn parent(e: &IndexEntry) -> &[u8] {
    e.path
        .iter()
        .rposition(|&b| b == b'/')
        .map_or(&e.path[..0], |i| &e.path[..i])
}

fn rel_name_len(path: &[u8]) -> usize {
    path.iter()
        .rposition(|&b| b == b'/')
        .map_or(path.len(), |i| path.len() - i - 1)
}

/// `lstat` of `name` inside the open directory `dir`; a name that cannot
/// be a file name is not found.
fn lstat_at(dir: &fs::File, name: &[u8]) -> std::io::Result<libc::stat> {
    use std::os::fd::AsRawFd;
    let not_a_name = || std::io::Error::from(std::io::ErrorKind::NotFound);
    // Names are short: NUL-terminate on the stack, not in a heap CString.
    let len = name.len();
    let mut buf = [0u8; 256];
    let heap;
    let name: &std::ffi::CStr = if name.len() < buf.len() {
        buf[..name.len()].copy_from_slice(name);
        std::ffi::CStr::from_bytes_until_nul(&buf).map_err(|_| not_a_name())?
    } else {
        heap = std::ffi::CString::new(name).map_err(|_| not_a_name())?;
        &heap
    };
    if name.count_bytes() != len || len == 0 {
        return Err(not_a_name()); // empty, or holding a NUL
    }
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: a valid directory fd, a NUL-terminated name and a buffer the
    // size of `struct stat`; the buffer is read only when the call succeeds.
    let rc = unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            name.as_ptr(),
            st.as_mut_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if rc == 0 {
        Ok(unsafe { st.assume_init() })
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// `None` when the cached stat data vouch for the file being unchanged.
fn compare(
    e: &IndexEntry,
    st: &libc::stat,
    index_mtime: (i64, i64),
    file_modes: bool,
) -> Option<Worktree> {
    let kind = st.st_mode & libc::S_IFMT;
    let same_type = match e.mode & TYPE_MASK {
        SYMLINK => kind == libc::S_IFLNK,
        0o100000 => kind == libc::S_IFREG,
        _ => false,
    };
    if !same_type {
        return Some(Worktree::Suspect); // deleted and replaced, type change: libgit2 decides
    }
    // With core.fileMode off, git keeps the index's bit and does not look.
    let exec_changed =
        file_modes && kind == libc::S_IFREG && (e.mode & 0o100 != 0) != (st.st_mode & 0o100 != 0);
    if e.file_size != st.st_size as u32 || exec_changed {
        return Some(Worktree::Modified);
    }
    (!stat_matches(e, st, index_mtime)).then_some(Worktree::Suspect)
}

/// Whether the cached stat data (inode, owner, change and modification
/// times) vouch for a same-size file being unchanged, and it was not modified
/// in or after the instant the index was written (racily clean).
fn stat_matches(e: &IndexEntry, st: &libc::stat, index_mtime: (i64, i64)) -> bool {
    let racy = (e.mtime.seconds() as i64, e.mtime.nanoseconds() as i64) >= index_mtime;
    !racy
        && e.ino == st.st_ino as u32
        && e.uid == st.st_uid
        && e.gid == st.st_gid
        && e.mtime.seconds() == st.st_mtime as i32
        && e.mtime.nanoseconds() == st.st_mtime_nsec as u32
        && e.ctime.seconds() == st.st_ctime as i32
        && e.ctime.nanoseconds() == st.st_ctime_nsec as u32
}

/// The exclude files that apply besides `.gitignore`: the repository's
/// `info/exclude` (in the common git dir, shared by linked worktrees) and
/// `core.excludesFile` (any config level; default `$XDG_CONFIG_HOME/git/ignore`).
/// Every candidate is listed, present or not: a status reused from before
/// must notice one appearing.
fn exclude_candidates(repo: &Repository, config: Option<&git2::Config>) -> Vec<PathBuf> {
    let mut files = vec![repo.commondir().join("info").join("exclude")];
    // A relative path is relative to the top of the work tree, where git runs.
    let top = repo.workdir().unwrap_or_else(|| repo.path());
    let configured = config
        .and_then(|c| c.get_path("core.excludesFile").ok())
        .map(|p| top.join(p));
    let default = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .map(|c| c.join("git").join("ignore"));
    files.extend(configured.or(default));
    files
}

/// A walk of `dir` that applies git's ignore rules and nothing else.
/// Patterns of the exclude files are relative to `top`, the top of the work
/// tree, as git reads them.
fn git_walk(dir: &Path, top: &Path, parents: bool, excludes: &[PathBuf]) -> WalkBuilder {
    let mut w = WalkBuilder::new(dir);
    w.current_dir(top);
    w.standard_filters(false)
        .hidden(false)
        .parents(parents)
        .git_ignore(true)
        .git_exclude(false)
        .git_global(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git");
    for file in excludes {
        let _ = w.add_ignore(file);
    }
    w
}

/// Untracked, not ignored paths; a folder holding no tracked file is one
/// entry `folder/` (when it holds anything not ignored), as git shows it.
/// Also returns every directory listed on the way.
fn untracked_paths(
    root: &Path,
    entries: &[IndexEntry],
    excludes: &[PathBuf],
) -> Option<(Vec<String>, Vec<PathBuf>)> {
    let tracked: FastSet<&[u8]> = entries.iter().map(|e| e.path.as_slice()).collect();
    let mut tracked_dirs: FastSet<&[u8]> = FastSet::default();
    for e in entries {
        let p = e.path.as_slice();
        for (i, b) in p.iter().enumerate() {
            if *b == b'/' {
                tracked_dirs.insert(&p[..i]);
            }
        }
    }
    let files = Mutex::new(Vec::new());
    let folders: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let listed: Mutex<Vec<PathBuf>> = Mutex::new(vec![root.to_path_buf()]);
    git_walk(root, root, false, excludes)
        .build_parallel()
        .run(|| {
            Box::new(|entry| {
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                let Some(rel) = relative(entry.path(), root) else {
                    return WalkState::Continue;
                };
                if rel.is_empty() {
                    return WalkState::Continue;
                }
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                if is_dir {
                    if tracked_dirs.contains(rel) {
                        listed
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push(entry.into_path());
                        return WalkState::Continue;
                    }
                    if tracked.contains(rel) {
                        return WalkState::Skip; // a submodule (gitlink entry)
                    }
                    folders
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(entry.into_path());
                    return WalkState::Skip;
                }
                if !tracked.contains(rel) {
                    files
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(String::from_utf8_lossy(rel).into_owned());
                }
                WalkState::Continue
            })
        });
    let mut out = files.into_inner().ok()?;
    let folders = folders.into_inner().ok()?;
    let shown: Vec<String> = folders
        .par_iter()
        .filter(|dir| holds_untracked_content(dir, root, excludes, &listed))
        .filter_map(|dir| {
            Some(format!(
                "{}/",
                String::from_utf8_lossy(dir.strip_prefix(root).ok()?.as_os_str().as_bytes())
            ))
        })
        .collect();
    out.extend(shown);
    Some((out, listed.into_inner().ok()?))
}

/// `path` relative to `root`, which it is inside of, as bytes: the walk's
/// paths are `root` joined with names, so a byte prefix does (a `Path`
/// prefix would walk both paths' components for every entry).
fn relative<'a>(path: &'a Path, root: &Path) -> Option<&'a [u8]> {
    let root = root.as_os_str().as_bytes();
    let root = root.strip_suffix(b"/").unwrap_or(root);
    match path.as_os_str().as_bytes().strip_prefix(root)? {
        [] => Some(&[]),
        [b'/', rel @ ..] => Some(rel),
        _ => None,
    }
}

/// Whether an untracked folder holds anything git would list: a nested
/// repository, or a file its ignore rules do not exclude.
/// The directories it lists are added to `listed`.
fn holds_untracked_content(
    dir: &Path,
    root: &Path,
    excludes: &[PathBuf],
    listed: &Mutex<Vec<PathBuf>>,
) -> bool {
    if dir.join(".git").exists() {
        listed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(dir.to_path_buf());
        return true;
    }
    let found = std::sync::atomic::AtomicBool::new(false);
    git_walk(dir, root, true, excludes)
        .build_parallel()
        .run(|| {
            Box::new(|entry| match entry {
                Ok(e) if e.file_type().is_some_and(|t| t.is_dir()) => {
                    listed
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(e.into_path());
                    WalkState::Continue
                }
                Ok(_) => {
                    found.store(true, std::sync::atomic::Ordering::Relaxed);
                    WalkState::Quit
                }
                _ => WalkState::Continue,
            })
        });
    found.into_inner()
}
