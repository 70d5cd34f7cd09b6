//! The scan cache on disk: what [`ScanCache`](super::ScanCache) knows about
//! the transcripts of one Claude Code config dir, kept between processes so
//! that a fresh process (`occ`, a gateway just started) reads only what
//! changed since the last one.
//!
//! One file per config dir, `scans-<hash of the dir>.bin`, in the user's
//! cache directory ([`default_dir`]), mode 0600 (it holds prompts and
//! titles), replaced atomically. Layout: [`MAGIC`], the format number, the
//! addon version and the config dir it describes, the body's length and XXH3
//! checksum, then the body: the entries, most recently seen first, cut at
//! [`MAX_BYTES`]. An entry is its [`StoredScan`] (postcard), then its facts'
//! length (4 bytes) and the facts (postcard); the facts are decoded only
//! when their file's scan is used ([`EncodedFacts`]), so loading costs
//! little for the files of other repositories, and the decoding of the
//! others is spread over the threads that scan. A file that does not match in any way —
//! another format or version, another dir, a short or damaged body — is
//! ignored and replaced at the next save.
//!
//! An entry is only ever a starting point. It is used as it is when its
//! file's stat data (device, inode, size, modification and status change
//! times) are still what they were and the file had settled when it was
//! stat'ed, as git trusts its index. Otherwise it is checked against the
//! file (device, inode, a size at least what was scanned, and hashes of the
//! first and last bytes of the scanned prefix) before the rest is read, so
//! a stale or foreign entry costs a rescan of that file, never a wrong
//! total.

use crate::claude_code::fold::transcript::TranscriptFacts;
use crate::fs_safe::write_atomic;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Bumped whenever the entry layout, [`TranscriptFacts`], what the fold
/// puts in it, or the prefix check's hashed ranges change.
pub const FORMAT: u32 = 11;
/// The first bytes of every cache file.
pub const MAGIC: &[u8; 8] = b"OCSISCAN";
/// Largest body written; the least recently seen files are left out.
pub const MAX_BYTES: usize = 64 << 20;
/// Bytes of the header before the addon version.
const FIXED_HEADER: usize = MAGIC.len() + 4;

/// Where the persistent cache lives, if anywhere.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum PersistentCache {
    /// Not kept between processes.
    #[default]
    Off,
    /// In [`default_dir`], unless `OPENCLAW_SESSION_INTEL_CACHE=off`.
    Default,
    /// In this folder.
    In(PathBuf),
}

impl PersistentCache {
    /// The cache a caller's on/off option asks for: kept in the default
    /// folder unless the option is `false`.
    pub fn unless_turned_off(option: Option<bool>) -> PersistentCache {
        match option {
            Some(false) => PersistentCache::Off,
            _ => PersistentCache::Default,
        }
    }

    /// The folder of the cache files, or `None` when the cache is off.
    pub fn dir(&self) -> Option<PathBuf> {
        match self {
            PersistentCache::Off => None,
            PersistentCache::In(dir) => Some(dir.clone()),
            PersistentCache::Default => {
                let off = crate::switches::turned_off("OPENCLAW_SESSION_INTEL_CACHE");
                (!off).then(default_dir).flatten()
            }
        }
    }
}

/// `$OPENCLAW_SESSION_INTEL_CACHE_DIR`, else `openclaw-session-intel` in
/// `$XDG_CACHE_HOME`, else in the platform's cache folder
/// (`~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows, `~/.cache`
/// elsewhere).
pub fn default_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    if let Some(dir) = var("OPENCLAW_SESSION_INTEL_CACHE_DIR") {
        return Some(dir);
    }
    let base = var("XDG_CACHE_HOME").or_else(|| {
        if cfg!(windows) {
            var("LOCALAPPDATA")
        } else if cfg!(target_os = "macos") {
            Some(crate::platform::home_dir().join("Library").join("Caches"))
        } else {
            Some(crate::platform::home_dir().join(".cache"))
        }
    })?;
    Some(base.join("openclaw-session-intel"))
}

/// The cache file of `config_dir` in `dir`.
pub fn cache_file(dir: &Path, config_dir: &Path) -> PathBuf {
    let hash = xxhash_rust::xxh3::xxh3_64(config_dir.as_os_str().as_encoded_bytes());
    dir.join(format!("scans-{hash:016x}.bin"))
}

/// What is kept of one file's scan, besides its facts.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredScan<'a> {
    /// The transcript's path.
    pub path: Cow<'a, str>,
    /// Device of the file when stat'ed.
    pub dev: u64,
    /// Inode of the file when stat'ed.
    pub ino: u64,
    /// Size in bytes when stat'ed.
    pub size: u64,
    #[serde(with = "crate::claude_code::fold::fixed128::signed")]
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
    #[serde(with = "crate::claude_code::fold::fixed128::signed")]
    /// Status-change time, nanoseconds since the epoch.
    pub ctime_ns: i128,
    /// The file had settled when it was stat'ed: with the same stat data
    /// now, it is trusted unchanged without reading it.
    pub settled: bool,
    /// Bytes folded into the facts (whole lines).
    pub consumed: u64,
    /// XXH3 of the first bytes of the consumed part (checked before resuming).
    pub head_hash: u64,
    /// XXH3 of the last bytes of the consumed part (checked before resuming).
    pub tail_hash: u64,
    /// When a process last used the entry (seconds since the epoch).
    pub last_seen: u64,
}

/// A file's facts as a loaded cache holds them, still encoded: a range of
/// the cache file's bytes.
#[derive(Debug, Clone)]
pub struct EncodedFacts {
    bytes: Arc<Vec<u8>>,
    range: Range<usize>,
}

impl EncodedFacts {
    /// The facts, or `None` if they do not decode (the file is then read
    /// again).
    pub fn decode(&self) -> Option<TranscriptFacts> {
        postcard::from_bytes(&self.bytes[self.range.clone()]).ok()
    }
}

/// The facts of an entry to save.
#[derive(Debug, Clone, Copy)]
pub enum Facts<'a> {
    /// Decoded facts, encoded on save.
    Decoded(&'a TranscriptFacts),
    /// As they were loaded: written back without being decoded.
    Encoded(&'a EncodedFacts),
}

fn header(config_dir: &Path) -> Vec<u8> {
    let version = env!("CARGO_PKG_VERSION").as_bytes();
    let dir = config_dir.as_os_str().as_encoded_bytes();
    let mut out = Vec::with_capacity(FIXED_HEADER + 8 + version.len() + dir.len() + 16);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    for part in [version, dir] {
        out.extend_from_slice(&(part.len() as u32).to_le_bytes());
        out.extend_from_slice(part);
    }
    out
}

/// The entries of the cache file at `file` if it is whole, of this format
/// and version, and describes `config_dir`; `None` otherwise.
pub fn load(file: &Path, config_dir: &Path) -> Option<Vec<(StoredScan<'static>, EncodedFacts)>> {
    let bytes = fs::read(file).ok()?;
    let rest = bytes.strip_prefix(header(config_dir).as_slice())?;
    let (len, rest) = rest.split_first_chunk::<8>()?;
    let (sum, body) = rest.split_first_chunk::<8>()?;
    if u64::from_le_bytes(*len) != body.len() as u64
        || u64::from_le_bytes(*sum) != xxhash_rust::xxh3::xxh3_64(body)
    {
        return None;
    }
    // The entries' facts point into the bytes as read (a copy of a
    // megabyte or more would also fault in as many fresh pages again).
    let mut at = bytes.len() - body.len();
    let bytes = Arc::new(bytes);
    let mut entries = Vec::new();
    while at < bytes.len() {
        let (scan, rest): (StoredScan<'static>, _) =
            postcard::take_from_bytes(&bytes[at..]).ok()?;
        let (len, rest) = rest.split_first_chunk::<4>()?;
        let len = u32::from_le_bytes(*len) as usize;
        let start = bytes.len() - rest.len();
        let range = start..start.checked_add(len).filter(|&end| end <= bytes.len())?;
        at = range.end;
        let facts = EncodedFacts {
            bytes: Arc::clone(&bytes),
            range,
        };
        entries.push((scan, facts));
    }
    Some(entries)
}

/// Writes `entries` (most recently seen first) as the cache of `config_dir`,
/// leaving out those past `max_bytes` of body.
pub fn save(
    file: &Path,
    config_dir: &Path,
    entries: &[(StoredScan<'_>, Facts<'_>)],
    max_bytes: usize,
) -> crate::error::Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    create_private_dir(dir)?;
    let encoding_failed = |e: postcard::Error| {
        crate::error::Error::new(
            crate::ErrorCode::Internal,
            format!("cannot encode the scan cache: {e}"),
        )
    };
    let mut body = Vec::new();
    for (scan, facts) in entries {
        let before = body.len();
        body = postcard::to_extend(scan, body).map_err(encoding_failed)?;
        let len_at = body.len();
        body.extend_from_slice(&[0; 4]);
        body = match facts {
            Facts::Decoded(facts) => postcard::to_extend(facts, body).map_err(encoding_failed)?,
            Facts::Encoded(facts) => {
                body.extend_from_slice(&facts.bytes[facts.range.clone()]);
                body
            }
        };
        let len = u32::try_from(body.len() - len_at - 4).unwrap_or(u32::MAX);
        body[len_at..len_at + 4].copy_from_slice(&len.to_le_bytes());
        if body.len() > max_bytes {
            body.truncate(before);
            break;
        }
    }
    let mut out = header(config_dir);
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&body).to_le_bytes());
    out.extend_from_slice(&body);
    write_atomic(file, &out, Some(0o600))
}

fn create_private_dir(dir: &Path) -> crate::error::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(|e| crate::error::Error::write_failed(dir, &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, last_seen: u64) -> StoredScan<'static> {
        StoredScan {
            path: Cow::Owned(path.into()),
            dev: 1,
            ino: 2,
            size: 3,
            mtime_ns: 4,
            ctime_ns: 5,
            settled: true,
            consumed: 3,
            head_hash: 5,
            tail_hash: 6,
            last_seen,
        }
    }

    fn facts() -> TranscriptFacts {
        TranscriptFacts {
            line_count: 7,
            first_prompt: Some("fix the cart".into()),
            ..TranscriptFacts::default()
        }
    }

    #[test]
    fn round_trips_and_keeps_the_most_recent_within_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let config = Path::new("/home/u/.claude");
        let file = cache_file(dir.path(), config);
        let facts = facts();
        let entries: Vec<_> = (0..100)
            .map(|i| {
                (
                    entry(&format!("/p/{i}.jsonl"), 1000 - i),
                    Facts::Decoded(&facts),
                )
            })
            .collect();
        save(&file, config, &entries, MAX_BYTES).unwrap();
        let back = load(&file, config).unwrap();
        assert_eq!(back.len(), 100);
        assert_eq!(back[3].0.path, "/p/3.jsonl");
        let decoded = back[3].1.decode().unwrap();
        assert_eq!(decoded.first_prompt.as_deref(), Some("fix the cart"));
        // Facts loaded and written back undecoded are the same facts.
        let again: Vec<_> = back
            .iter()
            .map(|(scan, facts)| (scan.clone(), Facts::Encoded(facts)))
            .collect();
        save(&file, config, &again, MAX_BYTES).unwrap();
        let back = load(&file, config).unwrap();
        assert_eq!(back.len(), 100);
        assert_eq!(back[99].0.path, "/p/99.jsonl");
        assert_eq!(back[99].1.decode().unwrap().line_count, 7);
        // Another config dir's file, even under this name, is not taken.
        assert!(load(&file, Path::new("/home/v/.claude")).is_none());
        // A bound of a few entries keeps the first (most recently seen) ones.
        let one = postcard::to_stdvec(&entries[0].0).unwrap().len()
            + 4
            + postcard::to_stdvec(&facts).unwrap().len();
        save(&file, config, &entries, one * 10 + 5).unwrap();
        let cut = load(&file, config).unwrap();
        assert_eq!(cut.len(), 10);
        assert_eq!(cut[9].0.path, "/p/9.jsonl");
    }

    #[test]
    fn folded_facts_and_file_times_come_back_equal() {
        // Usage groups, leaves and summaries: the members with 128-bit keys.
        let lines = [
            r#"{"type":"user","uuid":"00000000-0000-4000-8000-000000000001","parentUuid":null,"message":{"role":"user","content":"fix the cart"},"timestamp":"2026-11-26T10:00:00.000Z"}"#,
            r#"{"type":"assistant","uuid":"00000000-0000-4000-8000-0000000000a2","parentUuid":"00000000-0000-4000-8000-000000000001","requestId":"r1","message":{"id":"m1","model":"claude-x","usage":{"input_tokens":10,"output_tokens":2,"cache_read_input_tokens":300}},"timestamp":"2026-11-26T10:00:01.000Z"}"#,
            r#"{"type":"assistant","uuid":"00000000-0000-4000-8000-0000000000b4","parentUuid":"00000000-0000-4000-8000-000000000001","requestId":"r2","message":{"id":"m2","usage":{"input_tokens":1,"output_tokens":5}},"timestamp":"2026-11-26T10:00:02.000Z"}"#,
            r#"{"type":"summary","summary":"Cart fixes","leafUuid":"ffffffff-ffff-4fff-bfff-ffffffffffff"}"#,
        ];
        let mut facts = TranscriptFacts::default();
        facts.feed(format!("{}\n", lines.join("\n")).as_bytes());
        assert_eq!(facts.leaves.len(), 2);
        assert_eq!(facts.usage.responses(), 2);
        let dir = tempfile::tempdir().unwrap();
        let config = Path::new("/home/u/.claude");
        let file = cache_file(dir.path(), config);
        let mut scan = entry("/p/s.jsonl", 1);
        (scan.mtime_ns, scan.ctime_ns) = (1_795_689_551_033_651_123, -(1 << 100));
        save(&file, config, &[(scan, Facts::Decoded(&facts))], MAX_BYTES).unwrap();
        let back = load(&file, config).unwrap();
        assert_eq!(back[0].1.decode().unwrap(), facts);
        assert_eq!(
            (back[0].0.mtime_ns, back[0].0.ctime_ns),
            (1_795_689_551_033_651_123, -(1 << 100))
        );
    }

    #[test]
    fn facts_that_do_not_decode_are_none() {
        let bytes = Arc::new(b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01".to_vec());
        for range in [0..0, 0..3, 0..bytes.len()] {
            let facts = EncodedFacts {
                bytes: Arc::clone(&bytes),
                range,
            };
            assert!(facts.decode().is_none());
        }
    }

    #[test]
    fn short_damaged_and_foreign_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let config = Path::new("/c");
        let file = cache_file(dir.path(), config);
        let facts = facts();
        let entries = [(entry("/p/a.jsonl", 1), Facts::Decoded(&facts))];
        save(&file, config, &entries, MAX_BYTES).unwrap();
        let good = fs::read(&file).unwrap();
        assert!(load(&file, config).is_some());
        for cut in [0, 5, FIXED_HEADER, good.len() - 1] {
            fs::write(&file, &good[..cut]).unwrap();
            assert!(load(&file, config).is_none(), "cut at {cut}");
        }
        let mut flipped = good.clone();
        let last = flipped.len() - 3;
        flipped[last] ^= 0x40;
        fs::write(&file, &flipped).unwrap();
        assert!(load(&file, config).is_none());
        let mut other_format = good.clone();
        other_format[MAGIC.len()] ^= 1;
        fs::write(&file, &other_format).unwrap();
        assert!(load(&file, config).is_none());
        let mut foreign = good.clone();
        let at = FIXED_HEADER + 4;
        foreign[at..at + env!("CARGO_PKG_VERSION").len()].fill(b'9');
        fs::write(&file, foreign).unwrap();
        assert!(load(&file, config).is_none());
    }
}
