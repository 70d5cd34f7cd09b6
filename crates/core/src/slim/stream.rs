//! One streaming pass over a Claude Code transcript: block by block into a
//! buffered writer (memory bounded by the block and the longest line, never
//! the file), slimming each line and folding both the original and the
//! written line, so the caller can check that what discovery reads did not
//! change before anything is renamed.

use super::cuts::{slim_parts, LineFate};
use super::read_ahead::ReadAhead;
use super::rules::{SlimSettings, SlimStats};
use super::write_behind::{Batch, Part, Read, WriteBehind};
use crate::claude_code::fold::transcript::TranscriptFacts;
use crate::error::{Error, ErrorCode, Result};
use crate::fast_map::FastMap;
use crate::fs_safe::appends::{self, NotCarried};
use crate::json_scan::{field, range_in};
use crate::platform;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

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
///
/// The file is read in large blocks ahead of the slim and each line is
/// sliced out of its block: the fold's walk over a line finds its end and
/// the members the cuts look at, and a run of lines kept as they are is
/// written straight from the block. Reading and writing run on threads of
/// their own beside the slim ([`ReadAhead`], [`WriteBehind`]).
pub fn slim_lines(
    file: &File,
    len: u64,
    settings: &SlimSettings,
    restamp: Option<Restamp<'_>>,
    out: Option<&mut (dyn Write + Send)>,
    path: &Path,
) -> Result<Pass> {
    let mut slim = Slim {
        settings,
        restamp,
        pass: Pass::default(),
        relinked: FastMap::default(),
    };
    std::thread::scope(|scope| {
        let started = |e: std::io::Error| {
            Error::new(
                ErrorCode::Internal,
                format!("could not start a thread: {e}"),
            )
        };
        let mut blocks = ReadAhead::start(scope, file, len).map_err(started)?;
        let recycler = blocks.recycler();
        let mut out = match out {
            Some(out) => Some(WriteBehind::start(scope, out, recycler.clone()).map_err(started)?),
            None => None,
        };
        let mut write = |batch: Batch| match &mut out {
            Some(out) => out.send(batch).map_err(|e| Error::write_failed(path, &e)),
            None => {
                if let Read::Block(block) = batch.read {
                    recycler.recycle(block);
                }
                Ok(())
            }
        };
        // The unfinished line at the end of the blocks so far.
        let mut unfinished: Vec<u8> = Vec::new();
        while let Some(block) = blocks.next_block() {
            let mut block = block.map_err(|e| read_failed(path, &e))?;
            let mut from = 0;
            if !block.prepend(&unfinished) {
                // A line longer than the room in front of a block: gathered
                // until its newline comes, then slimmed on its own.
                let Some(nl) = memchr::memchr(b'\n', block.bytes()) else {
                    unfinished.extend_from_slice(block.bytes());
                    recycler.recycle(block);
                    continue;
                };
                unfinished.extend_from_slice(&block.bytes()[..=nl]);
                let line = std::mem::take(&mut unfinished);
                let mut parts = Vec::new();
                slim.lines(&line, 0, &mut parts);
                write(Batch {
                    read: Read::Line(line),
                    parts,
                })?;
                from = nl + 1;
            }
            unfinished.clear();
            let mut parts = Vec::new();
            let consumed = slim.lines(&block.bytes()[from..], from, &mut parts);
            unfinished.extend_from_slice(&block.bytes()[from + consumed..]);
            write(Batch {
                read: Read::Block(block),
                parts,
            })?;
        }
        if let Some(out) = out {
            out.finish().map_err(|e| Error::write_failed(path, &e))?;
        }
        Ok(())
    })?;
    Ok(slim.pass)
}

/// What slims the lines of one pass, block by block.
struct Slim<'a> {
    /// The cuts to make.
    settings: &'a SlimSettings,
    /// What re-stamps a line after its cuts (a fork's session id).
    restamp: Option<Restamp<'a>>,
    /// What was read, cut and written so far.
    pass: Pass,
    /// Dropped lines' uuids → their parents: a later line naming one as
    /// its parent is re-linked to the nearest kept ancestor.
    relinked: FastMap<LineId, LineId>,
}

impl Slim<'_> {
    /// Slims the whole lines of `bytes` (at `offset` in what was read):
    /// what is written of them goes to `parts`. Returns how many bytes the
    /// lines took (the rest is an unfinished line).
    fn lines(&mut self, bytes: &[u8], offset: usize, parts: &mut Vec<Part>) -> usize {
        let Slim {
            settings,
            restamp,
            pass,
            relinked,
        } = self;
        // Kept lines not handed over yet: `bytes[kept.clone()]`, newlines
        // included.
        let mut kept = 0..0;
        let hand_over = |kept: &std::ops::Range<usize>, parts: &mut Vec<Part>| {
            if !kept.is_empty() {
                parts.push(Part::Kept(kept.start + offset..kept.end + offset));
            }
        };
        let done: std::result::Result<usize, std::convert::Infallible> =
            pass.before.feed_lines(bytes, |line| {
                let body = line.raw;
                let at = body.as_ptr() as usize - bytes.as_ptr() as usize;
                let next = at + body.len() + 1;
                let fate = match line.slim_parts() {
                    Some(parts) => slim_parts(&parts, settings, &mut pass.stats),
                    None => LineFate::Keep,
                };
                let slimmed = match fate {
                    LineFate::Drop => {
                        let [uuid, parent, _] = line.ids().unwrap_or_else(|| {
                            [field(body, b"uuid"), field(body, b"parentUuid"), None]
                        });
                        if let Some(uuid) = uuid {
                            let parent = parent.unwrap_or(b"null");
                            let parent = LineId::of(parent);
                            let parent = relinked.get(&parent).cloned().unwrap_or(parent);
                            relinked.insert(LineId::of(uuid), parent);
                        }
                        hand_over(&kept, parts);
                        kept = next..next;
                        return Ok(());
                    }
                    LineFate::Keep => None,
                    LineFate::Replace(new) => Some(new),
                };
                // The cuts leave the line's members as they were.
                let parents = line.ids().map(|[_, parent, logical]| [parent, logical]);
                let current = slimmed.as_deref().unwrap_or(body);
                let slimmed = relink(current, relinked, parents).or(slimmed);
                let current = slimmed.as_deref().unwrap_or(body);
                let written = restamp.and_then(|f| f(current)).or(slimmed);
                let Some(written) = written else {
                    // As it was: folded from what was read, written with
                    // the run.
                    pass.bytes_written += body.len() as u64 + 1;
                    pass.after.fold_read_line(line);
                    kept.end = next;
                    return Ok(());
                };
                pass.bytes_written += written.len() as u64 + 1;
                pass.after.feed_line_without_savings(&written);
                hand_over(&kept, parts);
                parts.push(Part::Line(written));
                kept = next..next;
                Ok(())
            });
        let consumed = done.unwrap_or_else(|never| match never {});
        hand_over(&kept, parts);
        pass.bytes_read += consumed as u64;
        consumed
    }
}

/// `line` with its `parentUuid` / `logicalParentUuid` re-linked past dropped
/// lines; `None` when it names none of them. `parents` are the two
/// members' raw values as the line was read (the cuts leave them as they
/// were), when known; otherwise they are looked up in `line`.
fn relink(
    line: &[u8],
    relinked: &FastMap<LineId, LineId>,
    parents: Option<[Option<&[u8]>; 2]>,
) -> Option<Vec<u8>> {
    if relinked.is_empty() {
        return None;
    }
    let mut out: Option<Vec<u8>> = None;
    for (i, key) in [&b"parentUuid"[..], b"logicalParentUuid"]
        .into_iter()
        .enumerate()
    {
        let current = out.as_deref().unwrap_or(line);
        let named = match parents {
            Some(values) => values[i],
            None => field(current, key),
        };
        let Some(parent) = named.and_then(|named| relinked.get(&LineId::of(named))) else {
            continue;
        };
        // Where the member's value is in `current`: the one read, when
        // `current` is the line as read; otherwise looked up.
        let at = named.and_then(|named| range_in(current, named));
        let Some(at) = at.or_else(|| range_in(current, field(current, key)?)) else {
            continue;
        };
        let mut next = current[..at.start].to_vec();
        parent.write_to(&mut next);
        next.extend_from_slice(&current[at.end..]);
        out = Some(next);
    }
    out
}

/// The raw JSON value of a line's `uuid` or parent, held without an
/// allocation of its own when it is a quoted lowercase UUID (as the CLI
/// writes them) or `null`: a long session drops a hook progress line or
/// more per turn, and the map of their ids is the slim's one memory that
/// grows with the file. Every other value is kept as its bytes, so that
/// [`LineId::write_to`] gives back exactly the bytes it was made from.
#[derive(Clone, PartialEq, Eq, Hash)]
enum LineId {
    /// `"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"` (lowercase hex), as its 128 bits.
    Uuid(u128),
    /// `null`.
    Null,
    /// Any other raw value, byte for byte.
    Other(Box<[u8]>),
}

/// Where the dashes of a UUID's 36 characters are.
const UUID_DASHES: [usize; 4] = [8, 13, 18, 23];

impl LineId {
    /// The id of the raw JSON value `raw`.
    fn of(raw: &[u8]) -> LineId {
        if raw == b"null" {
            return LineId::Null;
        }
        uuid_bits(raw).map_or_else(|| LineId::Other(raw.into()), LineId::Uuid)
    }

    /// Appends the raw value this id was made from to `out`.
    fn write_to(&self, out: &mut Vec<u8>) {
        match self {
            LineId::Uuid(bits) => {
                let mut text = [b'-'; 38];
                (text[0], text[37]) = (b'"', b'"');
                let digits = (0..36).filter(|i| !UUID_DASHES.contains(i));
                for (n, i) in digits.enumerate() {
                    let nibble = (bits >> (124 - 4 * n)) as u8 & 0xf;
                    text[i + 1] = b"0123456789abcdef"[nibble as usize];
                }
                out.extend_from_slice(&text);
            }
            LineId::Null => out.extend_from_slice(b"null"),
            LineId::Other(raw) => out.extend_from_slice(raw),
        }
    }
}

/// The 128 bits of `raw` when it is a quoted UUID in lowercase hex with
/// its four dashes (an uppercase one is not: its bytes would not come back).
fn uuid_bits(raw: &[u8]) -> Option<u128> {
    let text = raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    if text.len() != 36 || UUID_DASHES.iter().any(|&i| text[i] != b'-') {
        return None;
    }
    let mut bits = 0u128;
    for range in [0..8, 9..13, 14..18, 19..23, 24..36] {
        for &b in &text[range] {
            let nibble = HEX_DIGITS[b as usize];
            if nibble > 0xf {
                return None;
            }
            bits = bits << 4 | u128::from(nibble);
        }
    }
    Some(bits)
}

/// The value of each lowercase hex digit, per byte; `0xff` for any other.
const HEX_DIGITS: [u8; 256] = {
    let mut values = [0xff; 256];
    let mut i = 0;
    while i < 16 {
        values[b"0123456789abcdef"[i] as usize] = i as u8;
        i += 1;
    }
    values
};

/// A buffered writer to a new temporary file.
pub fn temp_writer(tmp: &Path, mode: u32) -> Result<BufWriter<TempFile>> {
    let file = platform::create_new(tmp, mode).map_err(|e| Error::write_failed(tmp, &e))?;
    Ok(BufWriter::with_capacity(
        1 << 20,
        TempFile {
            file,
            written: 0,
            handed: 0,
        },
    ))
}

/// Flushes and syncs a temporary file.
pub fn finish(writer: BufWriter<TempFile>, tmp: &Path) -> Result<File> {
    let file = writer
        .into_inner()
        .map_err(|e| Error::write_failed(tmp, e.error()))?
        .file;
    file.sync_all().map_err(|e| Error::write_failed(tmp, &e))?;
    Ok(file)
}

/// Bytes written to a [`TempFile`] between two hand-overs to the disk.
const WRITEBACK_STEP: u64 = 4 << 20;

/// A temporary file whose bytes are handed to the disk every few MB as they
/// are written, so that the sync at the end of a slim waits for the last
/// few only, not for all of them.
pub struct TempFile {
    file: File,
    /// Bytes written.
    written: u64,
    /// Bytes handed to the disk.
    handed: u64,
}

impl Write for TempFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written - self.handed >= WRITEBACK_STEP {
            platform::start_writeback(&self.file, self.handed, self.written - self.handed);
            self.handed = self.written;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

fn read_failed(path: &Path, e: &std::io::Error) -> Error {
    Error::new(
        ErrorCode::Parse,
        format!("could not read {}: {e}", path.display()),
    )
}

/// Copies into `out` what other processes append to `file` (the live name
/// `path`) after `consumed`, until the file holds still (see
/// [`appends::carry_appends`]). Returns the new `consumed` and how many
/// lines were carried. A file that keeps growing for 2 s, or is replaced or
/// shortened, is refused (`E_CONCURRENT_MODIFICATION`): nothing has been
/// renamed yet.
pub fn carry_appends(
    file: &File,
    path: &Path,
    consumed: u64,
    out: &mut dyn Write,
) -> Result<(u64, u64)> {
    let mut carried = 0;
    let consumed = appends::carry_appends(file, path, consumed, |lines| {
        carried += lines.iter().filter(|&&b| b == b'\n').count() as u64;
        out.write_all(lines)
            .map_err(|e| Error::write_failed(path, &e))
    })
    .map_err(|why| match why {
        NotCarried::Read(e) => read_failed(path, &e),
        NotCarried::Carry(e) => e,
        NotCarried::Replaced => concurrent(path, "it was replaced or shortened"),
        NotCarried::NoPause | NotCarried::Unfinished => {
            concurrent(path, "another process kept appending to it without a pause")
        }
    })?;
    Ok((consumed, carried))
}

/// `E_CONCURRENT_MODIFICATION` for `path`.
pub fn concurrent(path: &Path, why: &str) -> Error {
    Error::new(
        ErrorCode::ConcurrentModification,
        format!("{} changed during the slim: {why}", path.display()),
    )
    .with_hint("nothing was changed; run the slim again once the session is idle")
}

#[cfg(test)]
mod tests {
    use super::LineId;

    #[test]
    fn a_line_id_gives_back_the_bytes_it_was_made_from() {
        let raws: [&[u8]; 7] = [
            b"\"0b1a7ed0-0000-4000-8000-00000000f00d\"",
            b"\"0B1A7ED0-0000-4000-8000-00000000F00D\"",
            b"\"0b1a7ed0-0000-4000-8000-00000000f00\"",
            b"\"0b1a7ed0_0000-4000-8000-00000000f00d\"",
            b"null",
            b"\"msg-1\"",
            b"42",
        ];
        for raw in raws {
            let mut out = Vec::new();
            LineId::of(raw).write_to(&mut out);
            assert_eq!(out, raw, "{}", String::from_utf8_lossy(raw));
        }
        assert!(matches!(LineId::of(raws[0]), LineId::Uuid(_)));
        assert!(matches!(LineId::of(raws[1]), LineId::Other(_)));
        assert!(LineId::of(raws[0]) != LineId::of(raws[1]));
    }
}
