//! How full a running Claude Code session's context window is, from the
//! last main-chain response in its transcript. Only the tail of the file is
//! read: the window is doubled until it holds such a response, so a 500 MB
//! transcript costs a few hundred KB of reading.

use crate::claude_code::fold::context_window;
pub use crate::claude_code::fold::context_window::DEFAULT_CONTEXT_WINDOW;
use crate::claude_code::fold::transcript::TranscriptFacts;
use crate::{Error, ErrorCode, Result};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The first tail window read; doubled until a response is found.
const FIRST_WINDOW: u64 = 256 * 1024;

/// How pressing the context is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PressureLevel {
    /// Below the threshold.
    Ok,
    /// At or above the threshold.
    Warning,
    /// Halfway or more from the threshold to a full window.
    Critical,
}

impl PressureLevel {
    /// `"OK"`, `"WARNING"`, `"CRITICAL"`.
    pub fn as_str(self) -> &'static str {
        match self {
            PressureLevel::Ok => "OK",
            PressureLevel::Warning => "WARNING",
            PressureLevel::Critical => "CRITICAL",
        }
    }
}

/// The context pressure of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextPressure {
    /// Prompt tokens of the last main-chain response (input plus cache
    /// reads and writes); 0 before the first response.
    pub tokens: u64,
    /// `tokens` as a whole percentage of the context window, 0–100 (capped).
    pub percent: u32,
    /// The context window, in tokens: the caller's, else that of the model
    /// of the last main-chain response (see
    /// [`crate::claude_code::fold::context_window`]).
    pub window: u64,
    /// `WARNING` from `threshold` percent, `CRITICAL` from halfway between the
    /// threshold and 100, else `OK`.
    pub level: PressureLevel,
    /// The one-line form a wake message shows, e.g. `"context: 72% [WARNING]"`.
    pub line: String,
}

/// The level of `percent` for a `WARNING` threshold: `CRITICAL` from halfway
/// between the threshold and 100.
pub fn pressure_level(percent: u32, threshold: u32) -> PressureLevel {
    let critical = threshold + (100 - threshold.min(100)).div_ceil(2);
    if percent >= critical {
        PressureLevel::Critical
    } else if percent >= threshold {
        PressureLevel::Warning
    } else {
        PressureLevel::Ok
    }
}

/// The context pressure of the Claude Code transcript at `path`.
/// `context_window` defaults to the window of the model of the last
/// main-chain response (else [`DEFAULT_CONTEXT_WINDOW`]), `threshold` (the
/// `WARNING` percentage) to 70.
pub fn context_pressure(
    path: &Path,
    context_window: Option<u64>,
    threshold: Option<u32>,
) -> Result<ContextPressure> {
    let threshold = threshold.unwrap_or(70);
    if context_window == Some(0) || !(1..=100).contains(&threshold) {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "contextWindow {} / threshold {threshold} out of range",
                context_window.unwrap_or(DEFAULT_CONTEXT_WINDOW)
            ),
        )
        .with_hint("contextWindow must be positive and threshold a percentage from 1 to 100"));
    }
    let (tokens, model) = last_context(path)?;
    let window = context_window.unwrap_or_else(|| {
        model
            .as_deref()
            .map_or(DEFAULT_CONTEXT_WINDOW, context_window::context_window)
    });
    let percent = ((tokens as u128 * 100 + window as u128 / 2) / window as u128).min(100) as u32;
    let level = pressure_level(percent, threshold);
    Ok(ContextPressure {
        tokens,
        percent,
        window,
        level,
        line: format!("context: {percent}% [{}]", level.as_str()),
    })
}

/// The prompt tokens of the last main-chain response (0 without one) and
/// its model, reading the file from its end in growing windows.
fn last_context(path: &Path) -> Result<(u64, Option<String>)> {
    let not_readable = |e: std::io::Error| {
        let code = if e.kind() == std::io::ErrorKind::NotFound {
            ErrorCode::SessionNotFound
        } else {
            ErrorCode::Internal
        };
        Error::new(code, format!("cannot read {}: {e}", path.display()))
            .with_hint("pass the transcript_path Claude Code gives the hook")
    };
    let mut file = File::open(path).map_err(not_readable)?;
    let len = file.metadata().map_err(not_readable)?.len();
    let mut window = FIRST_WINDOW;
    loop {
        let start = len.saturating_sub(window);
        file.seek(SeekFrom::Start(start)).map_err(not_readable)?;
        let mut bytes = Vec::with_capacity((len - start) as usize);
        file.by_ref()
            .take(len - start)
            .read_to_end(&mut bytes)
            .map_err(not_readable)?;
        // A window that starts mid-line skips that partial line.
        let from = if start == 0 {
            0
        } else {
            memchr::memchr(b'\n', &bytes).map_or(bytes.len(), |i| i + 1)
        };
        let mut facts = TranscriptFacts::default();
        let used = facts.feed(&bytes[from..]);
        let facts = facts.with_partial_line(&bytes[from + used..]);
        if facts.context_tokens.is_some() || start == 0 {
            return Ok((
                facts.context_tokens.unwrap_or(0),
                facts.context_model.clone(),
            ));
        }
        window = window.saturating_mul(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_the_threshold() {
        assert_eq!(pressure_level(45, 70), PressureLevel::Ok);
        assert_eq!(pressure_level(72, 70), PressureLevel::Warning);
        assert_eq!(pressure_level(84, 70), PressureLevel::Warning);
        assert_eq!(pressure_level(85, 70), PressureLevel::Critical);
        assert_eq!(pressure_level(100, 100), PressureLevel::Critical);
        assert_eq!(pressure_level(50, 50), PressureLevel::Warning);
    }
}
