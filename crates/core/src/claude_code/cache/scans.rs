//! Per-file scan results, kept between calls and extended incrementally.
//!
//! Transcripts are append-only. A file whose (device, inode, size, mtime,
//! ctime) is unchanged is not read at all; a file that grew is read only from
//! where the last scan stopped, after checking that the bytes before that
//! point are the ones scanned (hashes of the first and last KiB). Anything
//! else — a new inode, a shrink, a changed prefix — is scanned again from the
//! start.
//!
//! With a persistent cache attached ([`ScanCache::attach`]), the scans of a
//! config dir's files are loaded from disk on first use in a process and
//! saved back when enough changed (see [`scan_store`](super::scan_store)).
//! A loaded scan is used unread only when its file's stat data are what
//! they were and had settled when it was folded
//! ([`had_settled`](super::settled::had_settled)); any other is re-checked against
//! its file (the prefix check) first.

use super::scan_store::{self, EncodedFacts, Facts, StoredScan};
use crate::claude_code::fold::transcript::TranscriptFacts;
use crate::claude_code::fold::usage::{Usage, UsageGroups};
use crate::fast_map::FastMap;
use crate::platform::{self, FileId, FileStat};
use memmap2::Mmap;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};
use xxhash_rust::xxh3::xxh3_64;

/// Files at least this large are memory-mapped instead of read.
const MMAP_THRESHOLD: u64 = 1 << 20;
/// Files are read (mapped) this much at a time.
const WINDOW: u64 = 64 << 20;
/// Lines longer than this are counted, not read: no transcript line is this
/// long, and reading one would hold all of it in memory.
const MAX_LINE: usize = 64 << 20;
/// Bytes hashed at each end of the scanned prefix to detect rewrites.
const CHECK_LEN: u64 = 1024;
/// A persistent cache is saved once this many transcript bytes were read
/// since its last save...
const SAVE_AFTER_BYTES: u64 = 1 << 20;
/// ...or when anything changed and it was last saved this long ago.
const SAVE_AFTER: Duration = Duration::from_secs(30);

/// The result of scanning one file.
#[derive(Debug, Clone)]
pub struct FileScan {
    /// What the file says (empty when it could not be read).
    pub facts: Arc<TranscriptFacts>,
    /// Size in bytes when scanned.
    pub size: u64,
    /// Modification time when scanned.
    pub modified: SystemTime,
    /// Why the file could not be read, if it could not.
    pub error: Option<String>,
    /// Bytes of the file this scan read (0 when nothing had changed).
    pub read_bytes: u64,
}

impl FileScan {
    /// Whether both say the same of the same file: the very same facts
    /// (not merely equal ones; facts are never shared between two paths'
    /// scans), size, time and error.
    pub fn same_as(&self, other: &FileScan) -> bool {
        Arc::ptr_eq(&self.facts, &other.facts)
            && self.size == other.size
            && self.modified == other.modified
            && self.error == other.error
    }
}

/// How far a file has been folded: what a later scan resumes from.
#[derive(Debug, Clone)]
struct Folded {
    identity: FileStat,
    /// Bytes folded into `committed` (up to and including the last newline).
    consumed: u64,
    /// Shared with the scan's facts when the file ends with a whole line.
    committed: Arc<TranscriptFacts>,
    head_hash: u64,
    tail_hash: u64,
    /// The file had not changed for a while when `identity` was taken
    /// ([`had_settled`](super::settled::had_settled)), so a file that still has
    /// this identity has not changed since.
    settled: bool,
}

impl Folded {
    /// Whether this scan, loaded from disk, is the whole of the file whose
    /// stat is `stat`, with no need to check the file's bytes: the file has
    /// the same identity, size, modification time and status change time
    /// (which no call can set back) as when it was folded, it had settled
    /// then, and it ended with a whole line.
    fn still_whole(&self, stat: FileStat) -> bool {
        self.settled && self.identity == stat && self.consumed == stat.len
    }

    /// The scan of a file that is [`still_whole`](Self::still_whole),
    /// without reading it.
    fn unread(self) -> Entry {
        let modified = SystemTime::UNIX_EPOCH + Duration::from_nanos(self.identity.mtime_ns as u64);
        let scan = FileScan {
            facts: Arc::clone(&self.committed),
            size: self.identity.len,
            modified,
            error: None,
            read_bytes: 0,
        };
        Entry { folded: self, scan }
    }
}

#[derive(Debug)]
struct Entry {
    folded: Folded,
    scan: FileScan,
}

impl Entry {
    /// The scan, when the file's stat data is still `stat`.
    fn unchanged(&self, stat: Option<FileStat>) -> Option<FileScan> {
        (Some(self.folded.identity) == stat).then(|| FileScan {
            read_bytes: 0,
            ..self.scan.clone()
        })
    }
}

/// A persistent cache attached to this one, per config dir.
#[derive(Debug)]
struct Attached {
    file: PathBuf,
    /// The file held a whole cache of this format when it was loaded (or
    /// was written since).
    on_disk: bool,
    /// Transcript bytes read since the last save.
    unsaved_bytes: u64,
    /// Anything (a read, a forgotten file) since the last save.
    changed: bool,
    saved_at: Instant,
}

/// Merged usage of one session's files, valid while it is built from the
/// same scans (the `Arc`s are held, so their addresses cannot be reused).
#[derive(Debug)]
struct MergedUsage {
    parts: Vec<Arc<TranscriptFacts>>,
    totals: Usage,
}

/// A cache of file scans, safe to share between threads; one of the caches
/// a [`DiscoveryCache`](super::DiscoveryCache) holds.
#[derive(Debug, Default)]
pub struct ScanCache {
    /// Deduplicated totals of sessions, keyed by the main transcript's path.
    merged: Mutex<FastMap<OsString, MergedUsage>>,
    /// Keyed by the path's bytes: hashing a `PathBuf` walks its components.
    entries: Mutex<FastMap<OsString, Arc<Entry>>>,
    /// Scans loaded from persistent caches and not used yet in this
    /// process.
    loaded: Mutex<FastMap<OsString, Loaded>>,
    /// Persistent caches, by config dir.
    attached: Mutex<HashMap<PathBuf, Attached>>,
}

fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these locks cannot leave its map
    // inconsistent: every update is a single insert or remove.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl ScanCache {
    /// An empty cache.
    pub fn new() -> Self {
        ScanCache::default()
    }

    /// Scans `path`, reusing or extending an earlier scan where possible.
    /// Never fails: an unreadable file gives empty facts and an `error`.
    pub fn scan(&self, path: &Path) -> FileScan {
        let stat = std::fs::metadata(path).and_then(|m| FileStat::of(path, &m));
        self.scan_with(path, stat.ok())
    }

    /// [`ScanCache::scan`] for a caller that has just stat'ed the file.
    pub fn scan_with(&self, path: &Path, stat: Option<FileStat>) -> FileScan {
        let previous = self.lock().get(path.as_os_str()).cloned();
        let loaded = match previous {
            Some(_) => None,
            None => locked(&self.loaded).remove(path.as_os_str()),
        };
        let rescan = rescan(path, stat, previous.as_deref(), loaded.as_ref());
        record(&mut self.lock(), path, rescan)
    }

    /// [`ScanCache::scan_with`] for many files, scanned in parallel in the
    /// order given (longest first keeps every thread busy to the end). The
    /// maps are locked once for all of the files rather than per file, and
    /// the scans loaded from disk are taken out and freed by the calling
    /// thread. Freed by the threads that scan, each would lock the
    /// allocator arena of the thread that loaded it, busy decoding too: a
    /// fresh process waited on that lock for about one file in four.
    pub fn scan_many(&self, files: &[(&Path, Option<FileStat>)]) -> Vec<FileScan> {
        let previous: Vec<Option<Arc<Entry>>> = {
            let entries = self.lock();
            files
                .iter()
                .map(|(path, _)| entries.get(path.as_os_str()).cloned())
                .collect()
        };
        let loaded: Vec<Option<Loaded>> = {
            let mut loaded = locked(&self.loaded);
            files
                .iter()
                .zip(&previous)
                .map(|((path, _), previous)| match previous {
                    Some(_) => None,
                    None => loaded.remove(path.as_os_str()),
                })
                .collect()
        };
        let rescans: Vec<Rescan> = files
            .par_iter()
            .zip(previous.par_iter())
            .zip(loaded.par_iter())
            .with_max_len(1)
            .map(|(((path, stat), previous), loaded)| {
                rescan(path, *stat, previous.as_deref(), loaded.as_ref())
            })
            .collect();
        let mut entries = self.lock();
        entries.reserve(files.len());
        files
            .iter()
            .zip(rescans)
            .map(|((path, _), rescan)| record(&mut entries, path, rescan))
            .collect()
    }

    /// The scans of the files whose stat data is what it was when they were
    /// last scanned, by their index in `files`, looked up under one lock:
    /// the rest are for [`ScanCache::scan_with`].
    pub fn unchanged(&self, files: &[(&PathBuf, Option<FileStat>)]) -> Vec<Option<FileScan>> {
        let entries = self.lock();
        files
            .iter()
            .map(|(path, stat)| entries.get(path.as_os_str())?.unchanged(*stat))
            .collect()
    }

    /// Attaches the persistent cache of `config_dir` kept in the folder
    /// `dir`: loaded the first time in this process, so that the scans it
    /// holds are resumed rather than redone. A missing, damaged or foreign
    /// cache is ignored (and replaced at the next [`ScanCache::persist`]).
    pub fn attach(&self, config_dir: &Path, dir: &Path) {
        let mut attached = locked(&self.attached);
        if attached.contains_key(config_dir) {
            return;
        }
        let file = scan_store::cache_file(dir, config_dir);
        let stored = scan_store::load(&file, config_dir);
        let on_disk = stored.is_some();
        let in_memory = self.lock();
        let mut loaded = locked(&self.loaded);
        loaded.reserve(stored.as_ref().map_or(0, Vec::len));
        for (scan, facts) in stored.into_iter().flatten() {
            let key = OsString::from(scan.path.as_ref());
            if !in_memory.contains_key(&key) {
                loaded.insert(key, (scan, facts));
            }
        }
        attached.insert(
            config_dir.to_path_buf(),
            Attached {
                file,
                on_disk,
                unsaved_bytes: 0,
                changed: false,
                saved_at: Instant::now(),
            },
        );
    }

    /// Notes that a discovery over `config_dir` read `read_bytes` of
    /// transcripts (and whether it forgot files), and saves the attached
    /// persistent cache when that is worth it: when it was missing or
    /// damaged, after [`SAVE_AFTER_BYTES`] of reads, or when anything
    /// changed [`SAVE_AFTER`] after the last save. Saving is best effort: a
    /// cache that cannot be written costs speed, never a result.
    pub fn persist(&self, config_dir: &Path, read_bytes: u64, forgot: bool) {
        let mut attached = locked(&self.attached);
        let Some(state) = attached.get_mut(config_dir) else {
            return;
        };
        state.unsaved_bytes += read_bytes;
        state.changed |= read_bytes > 0 || forgot;
        let due = state.changed
            && (!state.on_disk
                || state.unsaved_bytes >= SAVE_AFTER_BYTES
                || state.saved_at.elapsed() >= SAVE_AFTER);
        if !due {
            return;
        }
        let saved = self.save(config_dir, &state.file).is_ok();
        state.on_disk |= saved;
        state.unsaved_bytes = 0;
        state.changed = false;
        state.saved_at = Instant::now();
    }

    /// Writes the scans of the files under `config_dir` (those used in this
    /// process, then those loaded and not used, most recently seen first).
    fn save(&self, config_dir: &Path, file: &Path) -> crate::error::Result<()> {
        let now = now_secs();
        let in_memory: Vec<(OsString, Arc<Entry>)> = self
            .lock()
            .iter()
            .filter(|(path, _)| is_inside(path, config_dir))
            .map(|(path, entry)| (path.clone(), Arc::clone(entry)))
            .collect();
        let loaded = locked(&self.loaded);
        let mut entries: Vec<(StoredScan<'_>, Facts<'_>)> = in_memory
            .iter()
            .map(|(path, entry)| {
                let facts = Facts::Decoded(&entry.folded.committed);
                (stored(path, &entry.folded, now), facts)
            })
            .collect();
        let mut rest: Vec<(StoredScan<'_>, Facts<'_>)> = loaded
            .iter()
            .filter(|(path, _)| is_inside(path, config_dir))
            .map(|(_, (scan, facts))| (scan.clone(), Facts::Encoded(facts)))
            .collect();
        rest.sort_by_key(|(s, _)| std::cmp::Reverse(s.last_seen));
        entries.extend(rest);
        scan_store::save(file, config_dir, &entries, scan_store::MAX_BYTES)
    }

    /// The usage of a session made of `parts` (its main transcript first, then
    /// its subagents), deduplicated across them. Recomputed only when one of
    /// the parts was rescanned.
    pub fn session_usage(&self, main: &Path, parts: &[&Arc<TranscriptFacts>]) -> Usage {
        let key = main.as_os_str();
        if let Some(m) = locked(&self.merged).get(key) {
            let same = m.parts.len() == parts.len()
                && m.parts.iter().zip(parts).all(|(a, b)| Arc::ptr_eq(a, b));
            if same {
                return m.totals;
            }
        }
        // Summed without the lock: the other sessions' threads need it.
        let totals = match parts {
            [only] => only.usage.totals(),
            _ => UsageGroups::merged_totals(&parts.iter().map(|p| &p.usage).collect::<Vec<_>>()),
        };
        let parts = parts.iter().map(|p| Arc::clone(p)).collect();
        locked(&self.merged).insert(key.to_owned(), MergedUsage { parts, totals });
        totals
    }

    /// Drops the scans of files inside `dir` for which `keep` says no;
    /// returns whether there were any.
    pub fn forget_missing(&self, dir: &Path, keep: &dyn Fn(&OsStr) -> bool) -> bool {
        let inside = |path: &OsStr| is_inside(path, dir);
        let mut forgot = false;
        let mut retain = |path: &OsStr| {
            let kept = !inside(path) || keep(path);
            forgot |= !kept;
            kept
        };
        self.lock().retain(|path, _| retain(path));
        locked(&self.loaded).retain(|path, _| retain(path));
        locked(&self.merged).retain(|path, _| !inside(path) || keep(path));
        forgot
    }

    fn lock(&self) -> MutexGuard<'_, FastMap<OsString, Arc<Entry>>> {
        locked(&self.entries)
    }
}

/// The bytes of a file, mapped or read.
enum Bytes {
    Mapped(Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Read(v) => v,
        }
    }
}

/// What follows the last newline of a file.
enum Tail {
    Bytes(Vec<u8>),
    /// The start of a line longer than [`MAX_LINE`].
    Oversized,
}

/// The result of folding part of a file.
struct FoldedRange {
    /// Offset just past the last newline folded.
    consumed: u64,
    tail: Tail,
    read_bytes: u64,
    /// The prefix check's hashes of `[0, consumed)`, when all of it lay in
    /// one window read from the start (nearly every file): taken from the
    /// bytes at hand instead of reading them again.
    hashes: Option<(u64, u64)>,
}

/// Folds the whole lines of bytes `[start, len)` of `file` into `facts`, a
/// window of at most [`WINDOW`] bytes at a time, so that memory stays
/// bounded however large the file or its lines are: a line is held whole
/// only when it spans windows and is at most [`MAX_LINE`] long; a longer
/// one is counted and skipped. `facts` is copied (`Arc::make_mut`) only
/// when there is a line to fold.
fn fold_range(
    file: &File,
    start: u64,
    len: u64,
    facts: &mut Arc<TranscriptFacts>,
) -> std::io::Result<FoldedRange> {
    fold_range_by(file, start, len, facts, (WINDOW, MAX_LINE))
}

/// [`fold_range`] with its window and line limit given.
fn fold_range_by(
    file: &File,
    start: u64,
    len: u64,
    facts: &mut Arc<TranscriptFacts>,
    (window_len, max_line): (u64, usize),
) -> std::io::Result<FoldedRange> {
    let mut pos = start;
    let mut consumed = start;
    let mut carry: Vec<u8> = Vec::new();
    let mut oversized = false;
    let mut hashes = None;
    while pos < len {
        let window = read_range(file, pos, len.min(pos + window_len))?;
        if window.is_empty() {
            break; // shrank meanwhile: fold what was there
        }
        let end = pos + window.len() as u64;
        let Some(first_nl) = memchr::memchr(b'\n', &window) else {
            if !oversized && carry.len() + window.len() <= max_line {
                carry.extend_from_slice(&window);
            } else {
                oversized = true;
                carry = Vec::new();
            }
            pos = end;
            continue;
        };
        // The line that started before this window ends here; it is
        // copied only when it began in an earlier window.
        let line: &[u8] = if carry.is_empty() {
            &window[..first_nl]
        } else {
            carry.extend_from_slice(&window[..first_nl]);
            &carry
        };
        if oversized || line.len() > max_line {
            Arc::make_mut(facts).feed_oversized_line();
        } else if !line.is_empty() {
            Arc::make_mut(facts).feed_line(line);
        }
        carry.clear();
        oversized = false;
        let rest = &window[first_nl + 1..];
        let used = match memchr::memrchr(b'\n', rest) {
            Some(_) => Arc::make_mut(facts).feed(rest),
            None => 0,
        };
        consumed = pos + (first_nl + 1 + used) as u64;
        hashes = (pos == 0).then(|| prefix_hashes(&window[..consumed as usize]));
        let tail = &rest[used..];
        if tail.len() <= max_line {
            carry.extend_from_slice(tail);
        } else {
            oversized = true;
        }
        pos = end;
    }
    Ok(FoldedRange {
        consumed,
        tail: if oversized {
            Tail::Oversized
        } else {
            Tail::Bytes(carry)
        },
        read_bytes: pos - start,
        hashes,
    })
}

/// Bytes `[from, to)` of `file`.
fn read_range(file: &File, from: u64, to: u64) -> std::io::Result<Bytes> {
    let len = to - from;
    if len >= MMAP_THRESHOLD {
        // SAFETY: the map is read-only and dropped before this scan returns.
        // Transcripts are append-only; a concurrent truncation is the one
        // case a map cannot survive (see COMPATIBILITY.md, "Risks").
        let map = unsafe {
            memmap2::MmapOptions::new()
                .offset(from)
                .len(len as usize)
                .map(file)?
        };
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        return Ok(Bytes::Mapped(map));
    }
    // A file that shrank meanwhile gives what is there: scanned as it is.
    Ok(Bytes::Read(platform::read_vec_at(
        file,
        len as usize,
        from,
    )?))
}

/// `path` lies below `dir` (a byte comparison: the paths were made by
/// joining names to `dir`).
fn is_inside(path: &OsStr, dir: &Path) -> bool {
    let (path, dir) = (path.as_encoded_bytes(), dir.as_os_str().as_encoded_bytes());
    let dir = dir.strip_suffix(b"/").unwrap_or(dir);
    path.len() > dir.len() + 1
        && path.starts_with(dir)
        && std::path::is_separator(path[dir.len()] as char)
}

/// What the persistent cache keeps of a file's scan, besides its facts.
fn stored<'a>(path: &'a OsStr, f: &Folded, last_seen: u64) -> StoredScan<'a> {
    StoredScan {
        path: path.to_string_lossy(),
        dev: f.identity.id.dev,
        ino: f.identity.id.ino,
        size: f.identity.len,
        mtime_ns: f.identity.mtime_ns,
        ctime_ns: f.identity.ctime_ns,
        settled: f.settled,
        consumed: f.consumed,
        head_hash: f.head_hash,
        tail_hash: f.tail_hash,
        last_seen,
    }
}

/// How far a file was folded, as a persistent cache kept it.
fn loaded_folded(s: &StoredScan<'_>, facts: TranscriptFacts) -> Folded {
    Folded {
        identity: FileStat {
            id: FileId {
                dev: s.dev,
                ino: s.ino,
            },
            len: s.size,
            mtime_ns: s.mtime_ns,
            ctime_ns: s.ctime_ns,
        },
        consumed: s.consumed,
        committed: Arc::new(facts),
        head_hash: s.head_hash,
        tail_hash: s.tail_hash,
        settled: s.settled,
    }
}

/// A file's scan as a persistent cache kept it.
type Loaded = (StoredScan<'static>, EncodedFacts);

/// What scanning one file came to.
enum Rescan {
    /// Its stat data is what it was: the scan in memory stands.
    Unchanged(FileScan),
    /// Folded into a new entry (read, or resumed unread), or failed.
    Scanned(std::io::Result<Entry>),
}

/// Scans `path`, whose stat data is `stat`, resuming from its `previous`
/// entry in memory or else from its `loaded` scan, when either still holds.
fn rescan(
    path: &Path,
    stat: Option<FileStat>,
    previous: Option<&Entry>,
    loaded: Option<&Loaded>,
) -> Rescan {
    if let Some(unchanged) = previous.and_then(|prev| prev.unchanged(stat)) {
        return Rescan::Unchanged(unchanged);
    }
    let resume = match previous {
        Some(prev) => Some(prev.folded.clone()),
        // Decoded here, by the thread scanning.
        None => loaded.and_then(|(scan, facts)| Some(loaded_folded(scan, facts.decode()?))),
    };
    Rescan::Scanned(match (resume, stat) {
        (Some(loaded), Some(stat)) if loaded.still_whole(stat) => Ok(loaded.unread()),
        (resume, _) => scan_file(path, resume),
    })
}

/// Keeps what scanning `path` came to in `entries`, and returns its scan:
/// an unreadable file gives empty facts and an `error`.
fn record(entries: &mut FastMap<OsString, Arc<Entry>>, path: &Path, rescan: Rescan) -> FileScan {
    match rescan {
        Rescan::Unchanged(scan) => scan,
        Rescan::Scanned(Ok(entry)) => {
            let scan = entry.scan.clone();
            entries.insert(path.as_os_str().to_owned(), Arc::new(entry));
            scan
        }
        Rescan::Scanned(Err(err)) => {
            entries.remove(path.as_os_str());
            FileScan {
                facts: Arc::default(),
                size: 0,
                modified: SystemTime::UNIX_EPOCH,
                error: Some(err.to_string()),
                read_bytes: 0,
            }
        }
    }
}

/// XXH3 of bytes `[from, to)`: a fixed algorithm, since the hashes are kept
/// on disk by the persistent cache.
fn hash_range(file: &File, from: u64, to: u64) -> std::io::Result<u64> {
    Ok(xxh3_64(&read_range(file, from, to)?))
}

/// Hashes of the first and the last [`CHECK_LEN`] bytes of `[0, consumed)`
/// (one read when they are close).
fn check_hashes(file: &File, consumed: u64) -> std::io::Result<(u64, u64)> {
    if consumed <= 2 * CHECK_LEN {
        return Ok(prefix_hashes(&read_range(file, 0, consumed)?));
    }
    let head = hash_range(file, 0, CHECK_LEN)?;
    let tail = hash_range(file, consumed - CHECK_LEN, consumed)?;
    Ok((head, tail))
}

/// [`check_hashes`] of `prefix`, the bytes `[0, consumed)` at hand.
fn prefix_hashes(prefix: &[u8]) -> (u64, u64) {
    let check = CHECK_LEN as usize;
    let head = &prefix[..prefix.len().min(check)];
    let tail = &prefix[prefix.len().saturating_sub(check)..];
    (xxh3_64(head), xxh3_64(tail))
}

fn scan_file(path: &Path, previous: Option<Folded>) -> std::io::Result<Entry> {
    let file = File::open(path)?;
    let observed = SystemTime::now();
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let identity = FileStat {
        id: platform::open_file_id(&file, &meta)?,
        len: meta.len(),
        mtime_ns: platform::mtime_ns(&meta),
        ctime_ns: platform::ctime_ns(&meta),
    };
    let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
    let resumable = previous.filter(|p| {
        p.identity.id == identity.id
            && identity.len >= p.consumed
            && check_hashes(&file, p.consumed).ok() == Some((p.head_hash, p.tail_hash))
    });
    let (mut committed, start, hashes) = match resumable {
        Some(prev) => (
            prev.committed,
            prev.consumed,
            Some((prev.head_hash, prev.tail_hash)),
        ),
        None => (Arc::default(), 0, None),
    };
    // Copies the facts only when another scan still shares them.
    let folded = fold_range(&file, start, identity.len, &mut committed)?;
    let used = folded.consumed - start;
    let consumed = folded.consumed;
    let facts = match &folded.tail {
        Tail::Bytes(tail) => match committed.with_partial_line(tail) {
            Cow::Borrowed(_) => Arc::clone(&committed),
            Cow::Owned(with_tail) => Arc::new(with_tail),
        },
        Tail::Oversized => {
            let mut with_tail = (*committed).clone();
            with_tail.feed_oversized_line();
            Arc::new(with_tail)
        }
    };
    let read_bytes = folded.read_bytes;
    let (head_hash, tail_hash) = match (hashes, folded.hashes) {
        (Some(same), _) if used == 0 => same,
        (_, Some(at_hand)) => at_hand,
        _ => check_hashes(&file, consumed)?,
    };
    Ok(Entry {
        folded: Folded {
            identity,
            consumed,
            committed,
            head_hash,
            tail_hash,
            settled: super::settled::had_settled(identity.ctime_ns, observed),
        },
        scan: FileScan {
            facts,
            size: identity.len,
            modified,
            error: None,
            read_bytes,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const LINE: &str = r#"{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":1,"output_tokens":2}},"requestId":"r1"}"#;

    #[test]
    fn appended_lines_are_folded_in_and_rewrites_rescan() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, format!("{LINE}\n")).unwrap();
        let cache = ScanCache::new();
        assert_eq!(cache.scan(&path).facts.line_count, 1);

        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        write!(f, "{}\n{{\"type\":\"user\"", LINE.replace("m1", "m2")).unwrap();
        drop(f);
        let scan = cache.scan(&path);
        assert_eq!(scan.facts.line_count, 3); // the partial line counts
        assert_eq!(scan.facts.usage.responses(), 2);

        // Finish the partial line: it must not be counted twice.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        writeln!(f, "}}").unwrap();
        drop(f);
        assert_eq!(cache.scan(&path).facts.line_count, 3);

        // Rewrite the file in place: the old prefix is gone, so it is rescanned.
        let text = std::fs::read_to_string(&path).unwrap().replace("m1", "m10");
        std::fs::write(&path, text).unwrap();
        let scan = cache.scan(&path);
        assert_eq!(scan.facts.line_count, 3);
        assert_eq!(scan.facts.usage.responses(), 2);
    }

    #[test]
    fn folding_by_windows_equals_folding_at_once_and_skips_overlong_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let user = |text: &str| {
            format!(r#"{{"type":"user","message":{{"role":"user","content":"{text}"}}}}"#)
        };
        let long = user(&"y".repeat(300));
        let text = format!(
            "{LINE}\n\n{}\n{long}\n{LINE}\n{}",
            user("short"),
            user("unterminated")
        );
        std::fs::write(&path, &text).unwrap();
        let file = File::open(&path).unwrap();
        let len = text.len() as u64;
        let whole = {
            let mut facts = TranscriptFacts::default();
            let used = facts.feed(text.as_bytes());
            (
                facts
                    .with_partial_line(&text.as_bytes()[used..])
                    .into_owned(),
                used as u64,
            )
        };
        for window in [1, 2, 7, 64, 299, 300, 301, 4096] {
            let mut facts = Arc::default();
            let folded = fold_range_by(&file, 0, len, &mut facts, (window, 1 << 20)).unwrap();
            let Tail::Bytes(tail) = &folded.tail else {
                panic!("no line is too long")
            };
            let folded_facts = facts.with_partial_line(tail).into_owned();
            assert_eq!(
                format!("{folded_facts:?}"),
                format!("{:?}", whole.0),
                "window {window}"
            );
            assert_eq!(folded.consumed, whole.1);
            assert_eq!(folded.read_bytes, len);
        }
        // Lines over the limit are counted and not read, the others are.
        for window in [5, 64, 4096] {
            let mut facts = Arc::default();
            let folded = fold_range_by(&file, 0, len, &mut facts, (window, 200)).unwrap();
            let Tail::Bytes(tail) = &folded.tail else {
                panic!("the last line is short")
            };
            let facts = facts.with_partial_line(tail).into_owned();
            assert_eq!(facts.line_count, whole.0.line_count, "window {window}");
            assert_eq!(facts.first_prompt.as_deref(), Some("short"));
            assert_eq!(facts.last_prompt.as_deref(), Some("unterminated"));
        }
        let mut facts = Arc::default();
        let cut = len - user("unterminated").len() as u64;
        let folded = fold_range_by(&file, 0, len, &mut facts, (64, 10)).unwrap();
        assert!(
            matches!(folded.tail, Tail::Oversized),
            "an unterminated overlong line"
        );
        assert_eq!(folded.consumed, cut);
        // Four whole lines (the blank one is no line); the fifth is the tail.
        assert_eq!(facts.line_count, 4);
    }

    #[test]
    fn hashes_taken_while_folding_are_the_prefix_checks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        // Short and long prefixes (one read or two for the check), and an
        // unterminated tail that the hashes must leave out.
        for lines in [1, 3, 40] {
            let text = format!("{}{{\"type\":\"user\"", format!("{LINE}\n").repeat(lines));
            std::fs::write(&path, &text).unwrap();
            let file = File::open(&path).unwrap();
            let len = text.len() as u64;
            for window in [64, len - 1, len, 4096] {
                let folded =
                    fold_range_by(&file, 0, len, &mut Arc::default(), (window, 1 << 20)).unwrap();
                let checked = check_hashes(&file, folded.consumed).unwrap();
                match folded.hashes {
                    Some(at_hand) => assert_eq!(at_hand, checked, "{lines} lines, window {window}"),
                    None => assert!(window < folded.consumed, "one window held it all"),
                }
            }
        }
    }

    /// Files in every state at once, in the order given: each result is the
    /// one `scan_with` gives for that file, and is kept as it keeps it.
    #[test]
    fn scanning_many_files_at_once_gives_each_what_scanning_it_alone_gives() {
        let dir = tempfile::tempdir().unwrap();
        let grown = dir.path().join("grown.jsonl");
        let same = dir.path().join("same.jsonl");
        let new = dir.path().join("new.jsonl");
        let missing = dir.path().join("missing.jsonl");
        std::fs::write(&grown, format!("{LINE}\n")).unwrap();
        std::fs::write(&same, format!("{LINE}\n{LINE}\n")).unwrap();
        let (many, alone) = (ScanCache::new(), ScanCache::new());
        for cache in [&many, &alone] {
            cache.scan(&grown);
            cache.scan(&same);
        }
        let line = LINE.replace("m1", "m2");
        std::fs::write(&grown, format!("{LINE}\n{line}\n{line}\n")).unwrap();
        std::fs::write(&new, format!("{line}\n")).unwrap();

        let paths = [&grown, &missing, &same, &new];
        let stat = |p: &Path| {
            let meta = std::fs::metadata(p).ok()?;
            FileStat::of(p, &meta).ok()
        };
        let files: Vec<(&Path, Option<FileStat>)> =
            paths.iter().map(|p| (p.as_path(), stat(p))).collect();
        let scans = many.scan_many(&files);
        let shown = |s: &FileScan| {
            let facts = (s.facts.line_count, s.facts.usage.responses());
            (facts, s.size, s.error.is_some(), s.read_bytes)
        };
        for (path, scan) in paths.iter().zip(&scans) {
            let expected = alone.scan_with(path, stat(path));
            assert_eq!(shown(scan), shown(&expected), "{}", path.display());
        }
        assert_eq!(shown(&scans[0]).0, (3, 2));
        assert_eq!(scans[2].read_bytes, 0, "an unchanged file is not read");
        // What scan_many kept is what the next call starts from.
        for (path, scan) in paths.iter().zip(&scans) {
            let again = many.scan_with(path, stat(path));
            assert_eq!(again.read_bytes, 0, "{}", path.display());
            assert_eq!(shown(&again).0, shown(scan).0);
        }
    }

    #[test]
    fn unreadable_files_report_an_error() {
        let cache = ScanCache::new();
        let scan = cache.scan(Path::new("/nonexistent/x.jsonl"));
        assert!(scan.error.is_some());
        assert_eq!(scan.facts.line_count, 0);
    }
}
