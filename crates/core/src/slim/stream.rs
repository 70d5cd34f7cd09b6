//! One streaming pass over a Claude Code transcript: line by line through a
//! buffered reader into a buffered writer (memory bounded by the longest
//! line, never the file), slimming each line and folding both the original
//! and the written line, so the caller can check that what discovery reads
//! did not change before anything is renamed.

use super::cuts::{slim_line, LineFate};
use super::rules::{SlimSettings, SlimStats};
use crate::claude_code::fold::transcript::TranscriptFacts;
use crate::error::{Error, ErrorCode, Result};
use crate::json_scan::field;
use crate::platform;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// Rewrites a line after slimming (a fork re-stamps the session id).
pub type Restamp<'a> = &'a dyn Fn(&[u8]) -> Option<Vec<u8>>;

/// What one pass read and wrote.
#[derive(Debug, Default)]
pub struct Pass {
    /// What was cut.
    pub stats: SlimStats,
    /// The fold of the lines read.
    pub before: TranscriptFacts,
    /// The fold of the lines written.
    pub after: TranscriptFacts,
    /// Bytes read (whole lines; a last line without its newline is left
    /// for [`carry_appends`]).
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
}

/// Slims the whole lines of the first `len` bytes of `file` into `out` (no
/// `out` for a dry run). A last line without its newline is neither read
/// into the pass nor written.
pub fn slim_lines(
    file: &File,
    len: u64,
    settings: &SlimSettings,
    restamp: Option<Restamp<'_>>,
    mut out: Option<&mut dyn Write>,
    path: &Path,
) -> Result<Pass> {
    let mut reader = BufReader::with_capacity(1 << 20, file.take(len));
    let mut pass = Pass::default();
    let mut line = Vec::new();
    // Dropped lines' uuids → their parents: a later line naming one as its
    // parent is re-linked to the nearest kept ancestor.
    let mut relinked: HashMap<Vec<u8>, Vec<u8>> = HashMap::new();
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| read_failed(path, &e))?;
        if n == 0 || !line.ends_with(b"\n") {
            break;
        }
        pass.bytes_read += n as u64;
        let body = &line[..line.len() - 1];
        pass.before.feed_line_without_savings(body);
        let fate = slim_line(body, settings, &mut pass.stats);
        let slimmed: &[u8] = match &fate {
            LineFate::Drop => {
                if let Some(uuid) = field(body, b"uuid") {
                    let parent = field(body, b"parentUuid").unwrap_or(b"null");
                    let parent = relinked
                        .get(parent)
                        .cloned()
                        .unwrap_or_else(|| parent.to_vec());
                    relinked.insert(uuid.to_vec(), parent);
                }
                continue;
            }
            LineFate::Keep => body,
            LineFate::Replace(bytes) => bytes,
        };
        let relinked_line = relink(slimmed, &relinked);
        let slimmed = relinked_line.as_deref().unwrap_or(slimmed);
        let stamped = restamp.and_then(|f| f(slimmed));
        let written = stamped.as_deref().unwrap_or(slimmed);
        pass.after.feed_line_without_savings(written);
        pass.bytes_written += written.len() as u64 + 1;
        if let Some(out) = out.as_deref_mut() {
            out.write_all(written)
                .and_then(|()| out.write_all(b"\n"))
                .map_err(|e| Error::write_failed(path, &e))?;
        }
    }
    Ok(pass)
}

/// `line` with its `parentUuid` / `logicalParentUuid` re-linked past dropped
/// lines; `None` when it names none of them.
fn relink(line: &[u8], relinked: &HashMap<Vec<u8>, Vec<u8>>) -> Option<Vec<u8>> {
    if relinked.is_empty() {
        return None;
    }
    let mut out: Option<Vec<u8>> = None;
    for key in [&b"parentUuid"[..], b"logicalParentUuid"] {
        let current = out.as_deref().unwrap_or(line);
        let Some(raw) = field(current, key) else {
            continue;
        };
        let Some(parent) = relinked.get(raw) else {
            continue;
        };
        let mut from = b"\"".to_vec();
        from.extend_from_slice(key);
        from.extend_from_slice(b"\":");
        let Some(at) = memchr::memmem::find(current, &[&from[..], raw].concat()) else {
            continue;
        };
        let start = at + from.len();
        let mut next = current[..start].to_vec();
        next.extend_from_slice(parent);
        next.extend_from_slice(&current[start + raw.len()..]);
        out = Some(next);
    }
    out
}

/// A buffered writer to a new temporary file.
pub fn temp_writer(tmp: &Path, mode: u32) -> Result<BufWriter<File>> {
    let file = platform::create_new(tmp, mode).map_err(|e| Error::write_failed(tmp, &e))?;
    Ok(BufWriter::with_capacity(1 << 20, file))
}

/// Flushes and syncs a temporary file.
pub fn finish(writer: BufWriter<File>, tmp: &Path) -> Result<File> {
    let file = writer
        .into_inner()
        .map_err(|e| Error::write_failed(tmp, e.error()))?;
    file.sync_all().map_err(|e| Error::write_failed(tmp, &e))?;
    Ok(file)
}

fn read_failed(path: &Path, e: &std::io::Error) -> Error {
    Error::new(
        ErrorCode::Parse,
        format!("could not read {}: {e}", path.display()),
    )
}

/// The length of `bytes` up to and including its last newline.
pub fn whole_lines(bytes: &[u8]) -> usize {
    memchr::memrchr(b'\n', bytes).map_or(0, |p| p + 1)
}

/// Copies into `out` what other processes append to `file` (the live name
/// `path`) after `consumed`, until the file holds still: complete lines as
/// they are, and a last line without its newline that does not grow for a
/// moment (a crash's half-written line) as it is. Returns the new
/// `consumed` and how many lines were carried. A file that keeps growing
/// for 2 s, or is replaced or shortened, is refused
/// (`E_CONCURRENT_MODIFICATION`): nothing has been renamed yet.
pub fn carry_appends(
    file: &File,
    path: &Path,
    mut consumed: u64,
    out: &mut dyn Write,
) -> Result<(u64, u64)> {
    const STALLED: Duration = Duration::from_millis(300);
    const QUIET: Duration = Duration::from_millis(10);
    let identity = platform::file_id(file).map_err(|e| read_failed(path, &e))?;
    let deadline = Instant::now() + Duration::from_secs(2);
    let start = consumed;
    let mut carried = 0;
    let mut partial: Option<(u64, Instant)> = None;
    let mut quiet_since: Option<Instant> = None;
    loop {
        let now = std::fs::metadata(path).map_err(|e| read_failed(path, &e))?;
        if platform::path_id(path).ok() != Some(identity) || now.len() < consumed {
            return Err(concurrent(path, "it was replaced or shortened"));
        }
        if now.len() == consumed {
            let since = *quiet_since.get_or_insert_with(Instant::now);
            if consumed == start || since.elapsed() >= QUIET {
                return Ok((consumed, carried));
            }
            std::thread::sleep(Duration::from_millis(2));
            continue;
        }
        quiet_since = None;
        let tail = platform::read_vec_at(file, (now.len() - consumed) as usize, consumed)
            .map_err(|e| read_failed(path, &e))?;
        let mut complete = whole_lines(&tail);
        if complete == 0 {
            match partial {
                Some((len, since)) if len == now.len() && since.elapsed() >= STALLED => {
                    complete = tail.len();
                }
                Some((len, _)) if len == now.len() => {}
                _ => partial = Some((now.len(), Instant::now())),
            }
        }
        out.write_all(&tail[..complete])
            .map_err(|e| Error::write_failed(path, &e))?;
        carried += tail[..complete].iter().filter(|&&b| b == b'\n').count() as u64;
        consumed += complete as u64;
        if Instant::now() > deadline {
            return Err(concurrent(
                path,
                "another process kept appending to it without a pause",
            ));
        }
        if complete < tail.len() {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// Bytes appended to the old file (`file`, detached from the live name by
/// the rename) after `consumed`, once its writer has finished its line or
/// settled: to be appended to the new file.
pub fn late_appends(file: &File, consumed: u64) -> std::io::Result<Vec<u8>> {
    let settle = Instant::now() + Duration::from_secs(2);
    loop {
        let len = file.metadata()?.len();
        let tail = platform::read_vec_at(file, len.saturating_sub(consumed) as usize, consumed)?;
        if tail.is_empty() || tail.ends_with(b"\n") || Instant::now() > settle {
            return Ok(tail);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// `E_CONCURRENT_MODIFICATION` for `path`.
pub fn concurrent(path: &Path, why: &str) -> Error {
    Error::new(
        ErrorCode::ConcurrentModification,
        format!("{} changed during the slim: {why}", path.display()),
    )
    .with_hint("nothing was changed; run the slim again once the session is idle")
}
