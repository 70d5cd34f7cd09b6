//! What one status of a work tree found that the next may reuse: the
//! gateway asks before every spawn, and most of a status is unchanged
//! between two asks.
//!
//! - The index and what it stages against HEAD, while `.git/index` has the
//!   same stat data (git replaces it by rename, so any write changes it) and
//!   HEAD names the same tree.
//! - The untracked paths, while additionally every directory the walk listed
//!   and every ignore file it applied has the same stat data: adding,
//!   removing or renaming an entry changes its directory's mtime and change
//!   time, as git's own untracked cache relies on. A listing made within a
//!   second of a change is never reused (the change may have raced it).
//!
//! - What the `lstat`s of a folder's tracked files found, while the index
//!   is the same, inotify (the [`ChangeMonitor`]) reported nothing at all in
//!   the folder and no entry created, removed or renamed in any folder above
//!   it up to the root. Folders are watched from the second status of a work
//!   tree on, each before its files are stat'ed and after the folders above
//!   it, so a one-off status adds no watches. Where nothing can be watched
//!   (macOS, Windows, network file systems, the watch budget spent) tracked
//!   files are always `lstat`-ed again: an edit in place changes no
//!   directory. What inotify does not report is not seen until something
//!   else happens in the folder: a write through a memory map, or through a
//!   hard link in a folder outside the work tree, and a file system mounted
//!   over a tracked folder. Watches go back to the budget when their folder
//!   no longer holds tracked files, and with their work tree when it is the
//!   least recently used of more than 16.

use crate::change_monitor::{ChangeMonitor, Ticket};
use git2::{IndexEntry, Oid};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The stat data that change when a file or directory does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    /// Changes with any change to the entry, and cannot be set back.
    ctime: (i64, i64),
}

impl Stamp {
    /// The path's stamp (not following a final symlink); `None` if absent.
    pub fn of(path: &Path) -> Option<Stamp> {
        fs::symlink_metadata(path).ok().map(|m| Stamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        })
    }

    /// `(seconds, nanoseconds)` of the last modification.
    pub fn mtime(&self) -> (i64, i64) {
        self.mtime
    }
}

/// The index as the status reads it, and the staged changes it holds.
pub struct Tracked {
    pub entries: Vec<IndexEntry>,
    /// path -> (X code, renamed from)
    pub staged: HashMap<String, (char, Option<String>)>,
}

/// What the tracked part depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrackedKey {
    pub index: Option<Stamp>,
    /// The tree HEAD names (`None`: unborn branch).
    pub head_tree: Option<Oid>,
    /// `core.fileMode`: whether a changed executable bit is a change.
    pub file_modes: bool,
}

/// What the `lstat` of a tracked path says, when it does not vouch for the
/// file being unchanged.
#[derive(Debug, Clone, Copy)]
pub enum Worktree {
    /// Gone from the work tree.
    Deleted,
    /// Same type, different size or executable bit: modified, as git
    /// concludes without reading it (the index records the on-disk size).
    Modified,
    /// Stat data differ otherwise, or too recent to trust: ask libgit2.
    Suspect,
}

/// The tracked paths of one folder whose stat data do not vouch for them.
pub type Findings = Vec<(String, Worktree)>;

/// What the last status of a work tree found per folder of tracked files.
struct TrackedScans {
    key: TrackedKey,
    /// The folder the root named.
    root_id: Option<crate::platform::FileId>,
    /// Each folder, its findings and whether they may be reused, in index
    /// order.
    folders: Vec<(PathBuf, Arc<Findings>, bool)>,
    /// The tickets of those folders and of every folder above them up to
    /// the root, taken before the files were stat'ed (`None`: not watched).
    tickets: HashMap<PathBuf, Option<Ticket>>,
}

/// Untracked paths and what they were read from.
struct Untracked {
    key: TrackedKey,
    /// Every directory listed, with its stamp and its `.gitignore`'s.
    dirs: Vec<(PathBuf, Option<Stamp>, Option<Stamp>)>,
    /// The exclude files that may apply (present or not).
    excludes: Vec<(PathBuf, Option<Stamp>)>,
    paths: Vec<String>,
}

#[derive(Default)]
struct Entry {
    /// When the entry was last used (a process-wide count).
    used: u64,
    tracked: Option<(TrackedKey, Arc<Tracked>)>,
    untracked: Option<Arc<Untracked>>,
    /// Untracked walks made (diagnostics: reuse shows as no new walk).
    listings: u64,
    scans: Option<Arc<TrackedScans>>,
    /// Folders of tracked files stat'ed (diagnostics, as `listings`).
    folders_stated: u64,
}

/// Work trees remembered at once; more evict the least recently used one,
/// and its folders' watches go back to the budget.
const MAX_WORK_TREES: usize = 16;
/// A stamp this close to the listing may have raced it.
const RACY: Duration = Duration::from_secs(1);

/// The work trees, and the count their `used` is taken from.
static CACHE: LazyLock<Mutex<(HashMap<PathBuf, Entry>, u64)>> = LazyLock::new(Default::default);

/// The watches of tracked folders, for every work tree of the process: a
/// budget of their own, apart from discovery's, and smaller (a 60,000-file
/// tree has about 450 folders), so that both stay well inside the kernel's
/// per-user limit (8,192 before Linux 5.11) that editors share.
static MONITOR: LazyLock<ChangeMonitor> = LazyLock::new(|| ChangeMonitor::with_max_watches(2048));

fn with_entry<R>(root: &Path, f: impl FnOnce(&mut Entry) -> R) -> R {
    let (result, evicted) = {
        let mut guard = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        let (cache, clock) = &mut *guard;
        let mut evicted = None;
        if !cache.contains_key(root) && cache.len() >= MAX_WORK_TREES {
            let oldest = cache
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(r, _)| r.clone());
            evicted = oldest.and_then(|r| cache.remove(&r));
        }
        *clock += 1;
        let entry = cache.entry(root.to_path_buf()).or_default();
        entry.used = *clock;
        (f(entry), evicted)
    };
    if let Some(scans) = evicted.and_then(|e| e.scans) {
        unwatch(&scans, None);
    }
    result
}

/// Gives back the watches of the folders `scans` watched, except those
/// `kept` still watches.
fn unwatch(scans: &TrackedScans, kept: Option<&TrackedScans>) {
    let still_watched =
        |dir: &PathBuf| kept.is_some_and(|k| matches!(k.tickets.get(dir), Some(Some(_))));
    MONITOR.unwatch(
        scans
            .tickets
            .iter()
            .filter(|(dir, ticket)| ticket.is_some() && !still_watched(dir))
            .map(|(dir, _)| dir.as_path()),
    );
}

/// The tracked part remembered for `root` under `key`, if any.
pub fn tracked(root: &Path, key: TrackedKey) -> Option<Arc<Tracked>> {
    with_entry(root, |e| {
        e.tracked
            .as_ref()
            .filter(|(k, _)| *k == key)
            .map(|(_, t)| t.clone())
    })
}

/// Remembers the tracked part of `root`.
pub fn remember_tracked(root: &Path, key: TrackedKey, tracked: Arc<Tracked>) {
    with_entry(root, |e| e.tracked = Some((key, tracked)));
}

/// What the `lstat`s of the tracked files of each folder of `folders` (in
/// index order) found: the last status's findings for a folder that
/// nothing was reported in since (see the module doc), `stat(i)` for the
/// others. `stat` also says whether its findings may be kept: not when
/// opening the folder or a `lstat` failed for another reason than absence
/// (out of descriptors, say).
pub fn tracked_findings(
    root: &Path,
    key: TrackedKey,
    folders: &[PathBuf],
    stat: impl Fn(usize) -> (Findings, bool) + Sync,
) -> Vec<(String, Worktree)> {
    let last = with_entry(root, |e| e.scans.clone());
    // From the second status of a work tree on.
    let watching = last.is_some();
    if watching {
        MONITOR.refresh();
    }
    // Nothing above the root is watched: a root that is another folder
    // now (a folder above it renamed) starts afresh.
    let root_id = crate::platform::path_id(root).ok();
    let above = |dir: &Path| -> Vec<PathBuf> {
        dir.ancestors()
            .skip(1)
            .take_while(|a| a.starts_with(root))
            .map(Path::to_path_buf)
            .collect()
    };
    // Unwatched (a first status), nothing is kept to compare with later.
    let chains: Vec<Vec<PathBuf>> = match watching {
        true => folders.iter().map(|d| above(d)).collect(),
        false => Vec::new(),
    };
    let mut tickets: HashMap<PathBuf, Option<Ticket>> = HashMap::new();
    for dir in chains
        .iter()
        .zip(folders)
        .flat_map(|(c, d)| c.iter().chain([d]))
    {
        if !tickets.contains_key(dir) {
            tickets.insert(dir.clone(), MONITOR.ticket(dir));
        }
    }
    let last = last.filter(|l| {
        l.key == key
            && l.root_id.is_some()
            && l.root_id == root_id
            && l.folders.len() == folders.len()
    });
    let unchanged = |i: usize| -> Option<Arc<Findings>> {
        let last = last.as_ref()?;
        let (dir, findings, kept) = &last.folders[i];
        let same = |d: &PathBuf, contents: bool| match (last.tickets.get(d), tickets.get(d)) {
            (Some(Some(then)), Some(Some(now))) if contents => then.same_contents(now),
            (Some(Some(then)), Some(Some(now))) => then.same_entries(now),
            _ => false,
        };
        (*kept && *dir == folders[i] && same(dir, true) && chains[i].iter().all(|d| same(d, false)))
            .then(|| findings.clone())
    };
    let reused: Vec<Option<Arc<Findings>>> = (0..folders.len()).map(unchanged).collect();
    if watching {
        // Watched (again) before their files are stat'ed below, once each
        // and every folder after those above it: a folder replaced once
        // the one above it is watched is reported there.
        let mut to_watch: Vec<&PathBuf> = (0..folders.len())
            .filter(|&i| reused[i].is_none())
            .flat_map(|i| std::iter::once(&folders[i]).chain(&chains[i]))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        to_watch.sort_by_key(|d| d.components().count());
        for dir in to_watch {
            tickets.insert(dir.clone(), MONITOR.watch(dir));
        }
    }
    let stated = reused.iter().filter(|r| r.is_none()).count() as u64;
    let found: Vec<(Arc<Findings>, bool)> = reused
        .into_par_iter()
        .enumerate()
        .map(|(i, kept)| match kept {
            Some(findings) => (findings, true),
            None => {
                let (findings, keep) = stat(i);
                (Arc::new(findings), keep)
            }
        })
        .collect();
    let scans = Arc::new(TrackedScans {
        key,
        root_id,
        folders: folders
            .iter()
            .zip(&found)
            .map(|(dir, (findings, keep))| (dir.clone(), findings.clone(), *keep))
            .collect(),
        tickets,
    });
    let replaced = with_entry(root, |e| {
        e.folders_stated += stated;
        e.scans.replace(scans.clone())
    });
    // Folders that no longer hold tracked files are not watched for them.
    if let Some(replaced) = replaced {
        unwatch(&replaced, Some(&scans));
    }
    found.iter().flat_map(|(f, _)| f.iter().cloned()).collect()
}

fn dir_stamps(dir: &Path) -> (Option<Stamp>, Option<Stamp>) {
    (Stamp::of(dir), Stamp::of(&dir.join(".gitignore")))
}

/// The untracked paths remembered for `root`, if nothing they were read
/// from has changed since.
pub fn untracked(
    root: &Path,
    key: TrackedKey,
    exclude_candidates: &[PathBuf],
) -> Option<Vec<String>> {
    let snapshot = with_entry(root, |e| e.untracked.clone())?;
    let unchanged = snapshot.key == key
        && snapshot.excludes.len() == exclude_candidates.len()
        && snapshot
            .excludes
            .iter()
            .zip(exclude_candidates)
            .all(|((path, stamp), candidate)| path == candidate && Stamp::of(path) == *stamp)
        && snapshot
            .dirs
            .par_iter()
            .all(|(dir, stamp, ignore)| dir_stamps(dir) == (*stamp, *ignore));
    unchanged.then(|| snapshot.paths.clone())
}

/// Remembers the untracked paths of a walk that started at `started` and
/// listed `dirs`, unless something changed too close to the walk to trust.
pub fn remember_untracked(
    root: &Path,
    key: TrackedKey,
    exclude_candidates: &[PathBuf],
    dirs: Vec<PathBuf>,
    started: SystemTime,
    paths: &[String],
) {
    let dirs: Vec<(PathBuf, Option<Stamp>, Option<Stamp>)> = dirs
        .into_par_iter()
        .map(|d| {
            let (stamp, ignore) = dir_stamps(&d);
            (d, stamp, ignore)
        })
        .collect();
    let excludes: Vec<(PathBuf, Option<Stamp>)> = exclude_candidates
        .iter()
        .map(|p| (p.clone(), Stamp::of(p)))
        .collect();
    let cutoff = started
        .checked_sub(RACY)
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or((0, 0), |d| {
            (d.as_secs() as i64, i64::from(d.subsec_nanos()))
        });
    let settled = |s: &Option<Stamp>| s.is_none_or(|s| s.mtime < cutoff);
    let trustworthy = dirs
        .iter()
        .all(|(_, s, i)| s.is_some() && settled(s) && settled(i))
        && excludes.iter().all(|(_, s)| settled(s));
    let snapshot = trustworthy.then(|| {
        Arc::new(Untracked {
            key,
            dirs,
            excludes,
            paths: paths.to_vec(),
        })
    });
    with_entry(root, |e| {
        e.untracked = snapshot;
        e.listings += 1;
    });
}

/// How many times the untracked paths of the work tree at `root` were
/// listed by walking it in this process (the other statuses reused a
/// listing).
pub fn untracked_listings(root: &Path) -> u64 {
    diagnostic(root, |e| e.listings)
}

/// How many folders of tracked files of the work tree at `root` had their
/// files stat'ed in this process (the others reused their findings).
pub fn tracked_folders_stated(root: &Path) -> u64 {
    diagnostic(root, |e| e.folders_stated)
}

/// A count kept for the work tree at `root` (0 when none is remembered).
fn diagnostic(root: &Path, count: impl Fn(&Entry) -> u64) -> u64 {
    CACHE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .0
        .get(root)
        .map_or(0, count)
}

/// Whether project status watches the folder `dir` for changes (Linux).
pub fn folder_watched(dir: &Path) -> bool {
    MONITOR.ticket(dir).is_some()
}
