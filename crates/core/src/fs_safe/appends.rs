//! Lines another process appends to a file while it is being rewritten: an
//! edit of an OpenClaw transcript and a slim of a Claude Code one carry them
//! over into the new file before renaming it over the old, and once more
//! from the old file after the rename (docs/architecture.md, "Writing
//! files").

use crate::error::Error;
use crate::platform;
use std::fs::File;
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

/// Why what was appended could not be carried over: nothing has been
/// renamed yet, the caller leaves every file as it was.
#[derive(Debug)]
pub enum NotCarried {
    /// The file could not be looked at or read.
    Read(io::Error),
    /// What the caller does with the carried bytes failed.
    Carry(Error),
    /// Another file is under its name now, or it was shortened.
    Replaced,
    /// Another process kept appending to it for 2 s without a pause.
    NoPause,
    /// A line was still being written after 2 s (its newline never came).
    Unfinished,
}

/// Hands `carry` what other processes append to `file` (open on the live
/// name `path`) after `consumed`, until the file holds still: complete
/// lines as they are, and a last line without its newline that does not
/// grow for a moment (a crash's half-written line, or a writer that left
/// its newline out) as it is. Returns the new `consumed`.
///
/// A file that does not hold still for 2 s is refused: renamed under a
/// writer that never pauses, the lines it wrote to the old file meanwhile
/// could only be carried over after the ones it writes to the new one, out
/// of order. Once the file was seen growing, one look between two of its
/// writer's appends is no pause (nor is its writer being scheduled out for
/// a few ms): it holds still when it stays so for a while. Claude Code and
/// OpenClaw append a turn's lines together, then wait on the model.
pub fn carry_appends(
    file: &File,
    path: &Path,
    mut consumed: u64,
    mut carry: impl FnMut(&[u8]) -> Result<(), Error>,
) -> Result<u64, NotCarried> {
    const STALLED: Duration = Duration::from_millis(300);
    const QUIET: Duration = Duration::from_millis(10);
    let identity = platform::file_id(file).map_err(NotCarried::Read)?;
    let deadline = Instant::now() + Duration::from_secs(2);
    let start = consumed;
    let mut partial: Option<(u64, Instant)> = None;
    let mut quiet_since: Option<Instant> = None;
    loop {
        let now = std::fs::metadata(path).map_err(NotCarried::Read)?;
        if platform::path_id(path).ok() != Some(identity) || now.len() < consumed {
            return Err(NotCarried::Replaced);
        }
        if now.len() == consumed {
            let since = *quiet_since.get_or_insert_with(Instant::now);
            if consumed == start || since.elapsed() >= QUIET {
                return Ok(consumed);
            }
            std::thread::sleep(Duration::from_millis(2));
            continue;
        }
        quiet_since = None;
        let tail = platform::read_vec_at(file, (now.len() - consumed) as usize, consumed)
            .map_err(NotCarried::Read)?;
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
        if complete > 0 {
            carry(&tail[..complete]).map_err(NotCarried::Carry)?;
        }
        consumed += complete as u64;
        if Instant::now() > deadline {
            return Err(if complete > 0 {
                NotCarried::NoPause
            } else {
                NotCarried::Unfinished
            });
        }
        if complete < tail.len() {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// Bytes appended to the old file (`file`, detached from the live name by
/// the rename) after `consumed`, once a line being written there has
/// finished or 2 s have passed: to be appended to the new file.
pub fn late_appends(file: &File, consumed: u64) -> io::Result<Vec<u8>> {
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

/// The length of `bytes` up to and including its last newline.
pub fn whole_lines(bytes: &[u8]) -> usize {
    memchr::memrchr(b'\n', bytes).map_or(0, |p| p + 1)
}
