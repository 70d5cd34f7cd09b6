//! Per-file scan results, kept between calls and extended incrementally.
//!
//! Transcripts are append-only. A file whose (device, inode, size, mtime) is
//! unchanged is not read at all; a file that grew is read only from where the
//! last scan stopped, after checking that the bytes before that point are the
//! ones scanned (hashes of the first and last 4 KiB). Anything else — a new
//! inode, a shrink, a changed prefix — is scanned again from the start.

use super::transcript::TranscriptFacts;
use super::usage::{Usage, UsageGroups};
use crate::platform::{self, FileId};
use memmap2::Mmap;
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs::{File, Metadata};
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

/// Files at least this large are memory-mapped instead of read.
const MMAP_THRESHOLD: u64 = 1 << 20;
/// Bytes hashed at each end of the scanned prefix to detect rewrites.
const CHECK_LEN: u64 = 4096;

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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    id: FileId,
    size: u64,
    mtime_ns: i128,
}

impl Identity {
    fn of(id: FileId, meta: &Metadata) -> Self {
        Identity {
            id,
            size: meta.len(),
            mtime_ns: platform::mtime_ns(meta),
        }
    }
}

#[derive(Debug)]
struct Entry {
    identity: Identity,
    /// Bytes folded into `committed` (up to and including the last newline).
    consumed: u64,
    committed: TranscriptFacts,
    head_hash: u64,
    tail_hash: u64,
    scan: FileScan,
}

/// Merged usage of one session's files, valid while it is built from the
/// same scans (the `Arc`s are held, so their addresses cannot be reused).
#[derive(Debug)]
struct MergedUsage {
    parts: Vec<Arc<TranscriptFacts>>,
    totals: Usage,
}

/// A cache of file scans, safe to share between threads.
#[derive(Debug, Default)]
pub struct ScanCache {
    /// Deduplicated totals of sessions, keyed by the main transcript's path.
    merged: Mutex<HashMap<OsString, MergedUsage>>,
    /// Keyed by the path's bytes: hashing a `PathBuf` walks its components.
    entries: Mutex<HashMap<OsString, Arc<Entry>>>,
}

impl ScanCache {
    /// An empty cache.
    pub fn new() -> Self {
        ScanCache::default()
    }

    /// The process-wide cache that the public API uses.
    pub fn global() -> &'static ScanCache {
        static CACHE: OnceLock<ScanCache> = OnceLock::new();
        CACHE.get_or_init(ScanCache::new)
    }

    /// Scans `path`, reusing or extending an earlier scan where possible.
    /// Never fails: an unreadable file gives empty facts and an `error`.
    pub fn scan(&self, path: &Path) -> FileScan {
        self.scan_with(path, std::fs::metadata(path).ok().as_ref())
    }

    /// [`ScanCache::scan`] for a caller that has just stat'ed the file.
    pub fn scan_with(&self, path: &Path, meta: Option<&Metadata>) -> FileScan {
        let key = path.as_os_str();
        let previous = self.lock().get(key).cloned();
        if let (Some(prev), Some(meta)) = (&previous, meta) {
            let id = platform::entry_id(path, meta).ok();
            if id.is_some_and(|id| prev.identity == Identity::of(id, meta)) {
                return prev.scan.clone();
            }
        }
        match scan_file(path, previous.as_deref()) {
            Ok(entry) => {
                let scan = entry.scan.clone();
                self.lock().insert(key.to_owned(), Arc::new(entry));
                scan
            }
            Err(err) => {
                self.lock().remove(key);
                FileScan {
                    facts: Arc::default(),
                    size: 0,
                    modified: SystemTime::UNIX_EPOCH,
                    error: Some(err.to_string()),
                }
            }
        }
    }

    /// The usage of a session made of `parts` (its main transcript first, then
    /// its subagents), deduplicated across them. Recomputed only when one of
    /// the parts was rescanned.
    pub fn session_usage(&self, main: &Path, parts: &[&Arc<TranscriptFacts>]) -> Usage {
        let key = main.as_os_str();
        let mut merged = self.merged.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = merged.get(key) {
            let same = m.parts.len() == parts.len()
                && m.parts.iter().zip(parts).all(|(a, b)| Arc::ptr_eq(a, b));
            if same {
                return m.totals;
            }
        }
        let totals = match parts {
            [] => Usage::default(),
            [only] => only.usage.totals(),
            [first, rest @ ..] => {
                let mut usage: UsageGroups = first.usage.clone();
                for part in rest {
                    usage.merge(&part.usage);
                }
                usage.totals()
            }
        };
        let parts = parts.iter().map(|p| Arc::clone(p)).collect();
        merged.insert(key.to_owned(), MergedUsage { parts, totals });
        totals
    }

    /// Drops the scans of files inside `dir` for which `keep` says no.
    pub fn forget_missing(&self, dir: &Path, keep: &dyn Fn(&OsStr) -> bool) {
        let inside = |path: &OsStr| {
            let path = Path::new(path);
            path != dir && path.starts_with(dir)
        };
        self.lock().retain(|path, _| !inside(path) || keep(path));
        let mut merged = self.merged.lock().unwrap_or_else(|e| e.into_inner());
        merged.retain(|path, _| !inside(path) || keep(path));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<OsString, Arc<Entry>>> {
        // A panic while holding the lock cannot leave the map inconsistent.
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
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
    let mut buf = vec![0; len as usize];
    let mut done = 0;
    while done < buf.len() {
        match platform::read_at(file, &mut buf[done..], from + done as u64)? {
            0 => break, // shrank meanwhile: scan what is there
            n => done += n,
        }
    }
    buf.truncate(done);
    Ok(Bytes::Read(buf))
}

fn hash_range(file: &File, from: u64, to: u64) -> std::io::Result<u64> {
    let bytes = read_range(file, from, to)?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    Ok(h.finish())
}

fn check_hashes(file: &File, consumed: u64) -> std::io::Result<(u64, u64)> {
    let head = hash_range(file, 0, consumed.min(CHECK_LEN))?;
    let tail = hash_range(file, consumed.saturating_sub(CHECK_LEN), consumed)?;
    Ok((head, tail))
}

fn scan_file(path: &Path, previous: Option<&Entry>) -> std::io::Result<Entry> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let identity = Identity::of(platform::file_id(&file)?, &meta);
    let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
    let resumable = previous.filter(|p| {
        p.identity.id == identity.id
            && identity.size >= p.consumed
            && check_hashes(&file, p.consumed).ok() == Some((p.head_hash, p.tail_hash))
    });
    let (mut committed, start) = match resumable {
        Some(prev) => (prev.committed.clone(), prev.consumed),
        None => (TranscriptFacts::default(), 0),
    };
    let bytes = read_range(&file, start, identity.size)?;
    let used = committed.feed(&bytes);
    let consumed = start + used as u64;
    let facts = Arc::new(committed.with_partial_line(&bytes[used..]).into_owned());
    drop(bytes);
    let (head_hash, tail_hash) = check_hashes(&file, consumed)?;
    Ok(Entry {
        identity,
        consumed,
        committed,
        head_hash,
        tail_hash,
        scan: FileScan {
            facts,
            size: identity.size,
            modified,
            error: None,
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
    fn unreadable_files_report_an_error() {
        let cache = ScanCache::new();
        let scan = cache.scan(Path::new("/nonexistent/x.jsonl"));
        assert!(scan.error.is_some());
        assert_eq!(scan.facts.line_count, 0);
    }
}
