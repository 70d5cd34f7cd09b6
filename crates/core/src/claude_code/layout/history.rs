//! `peekSessionHistory`: the last few text messages of a transcript, as a
//! compact block to hand to a model.

use crate::js_number::slice_start;
use crate::json_scan::{as_str, field, Elements, Fields};
use crate::text::{truncate_utf16, utf16_len};
use memchr::memchr_iter;
use std::path::Path;

/// Limits of [`peek_session_history`] (the reference's defaults: 6 and 4000),
/// as the JavaScript numbers a caller gave. They are read as the reference
/// reads them: `messages.slice(-maxMessages)` (so 0 or NaN keeps every
/// message and -n drops the first n), and a budget that stops at 0 or below
/// and does not cut when it is NaN.
#[derive(Debug, Clone, Copy)]
pub struct PeekLimits {
    /// How many messages to keep, newest last (default 6; 0 or NaN: all; -n:
    /// all but the first n).
    pub max_messages: f64,
    /// Character budget in UTF-16 units (default 4000; 0 or below: nothing;
    /// NaN: no cut).
    pub max_chars: f64,
}

impl Default for PeekLimits {
    fn default() -> Self {
        PeekLimits {
            max_messages: 6.0,
            max_chars: 4000.0,
        }
    }
}

/// The text of one line's message: `(is_assistant, text)`, or `None` for
/// lines without user/assistant text.
fn message_text(line: &[u8]) -> Option<(bool, String)> {
    let msg = field(line, b"message")
        .filter(|m| m.first() == Some(&b'{'))
        .unwrap_or(line);
    let mut role = None;
    let mut content = None;
    for (k, v) in Fields::new(msg) {
        match k {
            b"role" => role = as_str(v),
            b"content" => content = Some(v),
            _ => {}
        }
    }
    let assistant = match role.as_deref() {
        Some("assistant") => true,
        Some("user") => false,
        _ => return None,
    };
    let content = content?;
    let text = match content.first()? {
        b'"' => as_str(content)?.into_owned(),
        b'[' => Elements::new(content)
            .filter(|b| field(b, b"type") == Some(&b"\"text\""[..]))
            .map(|b| {
                field(b, b"text")
                    .and_then(as_str)
                    .unwrap_or_default()
                    .into_owned()
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => return None,
    };
    let text = text.trim();
    (!text.is_empty()).then(|| (assistant, text.to_owned()))
}

/// The last `max_messages` user/assistant text messages of the transcript at
/// `path`, as `[User]: …` / `[CC]: …` blocks within `max_chars` UTF-16 units;
/// `""` when the file cannot be read.
pub fn peek_session_history(path: &Path, limits: PeekLimits) -> String {
    let Ok(bytes) = std::fs::read(path) else {
        return String::new();
    };
    let mut messages = Vec::new();
    let mut start = 0;
    let ends = memchr_iter(b'\n', &bytes).chain(std::iter::once(bytes.len()));
    for end in ends {
        if let Some(m) = message_text(&bytes[start..end]) {
            messages.push(m);
        }
        start = end + 1;
        if start > bytes.len() {
            break;
        }
    }
    let recent = &messages[slice_start(-limits.max_messages, messages.len())..];
    let mut parts = Vec::new();
    let mut total = 0.0;
    for (assistant, text) in recent {
        let remaining = limits.max_chars - total;
        if remaining <= 0.0 {
            break;
        }
        let mut content = text.as_str().to_owned();
        if utf16_len(&content) as f64 > remaining {
            // `remaining` is positive and below the length here.
            content = format!("{}\u{2026}", truncate_utf16(text, remaining as usize));
        }
        total += utf16_len(&content) as f64;
        parts.push(format!(
            "[{}]: {content}",
            if *assistant { "CC" } else { "User" }
        ));
    }
    parts.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_text_messages_within_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(
            &path,
            concat!(
                r#"{"type":"user","message":{"role":"user","content":"first"}}"#, "\n",
                r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"tool_use","name":"Bash"},{"type":"text","text":"b"}]}}"#, "\n",
                r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"x"}]}}"#, "\n",
                "garbage\n",
                r#"{"type":"user","message":{"role":"user","content":"  last question  "}}"#,
            ),
        )
        .unwrap();
        let all = peek_session_history(&path, PeekLimits::default());
        assert_eq!(all, "[User]: first\n\n[CC]: a\nb\n\n[User]: last question");
        let two = peek_session_history(
            &path,
            PeekLimits {
                max_messages: 2.0,
                max_chars: 5.0,
            },
        );
        assert_eq!(two, "[CC]: a\nb\n\n[User]: la\u{2026}");
        let peek = |max_messages: f64, max_chars: f64| {
            peek_session_history(
                &path,
                PeekLimits {
                    max_messages,
                    max_chars,
                },
            )
        };
        // The reference's `slice(-maxMessages)`: 0 and NaN keep all, -2
        // drops the first two, 2.9 keeps two.
        assert_eq!(peek(0.0, 4000.0), all);
        assert_eq!(peek(f64::NAN, 4000.0), all);
        assert_eq!(peek(-2.0, 4000.0), "[User]: last question");
        assert_eq!(peek(2.9, 4000.0), peek(2.0, 4000.0));
        // Its budget: none left at 0 or below, no cut when NaN, a fraction
        // cuts at its whole part.
        assert_eq!(peek(6.0, 0.0), "");
        assert_eq!(peek(6.0, -1.0), "");
        assert_eq!(peek(6.0, f64::NAN), all);
        assert_eq!(peek(6.0, f64::INFINITY), all);
        assert_eq!(peek(1.0, 2.5), "[User]: la\u{2026}");
        assert_eq!(
            peek_session_history(Path::new("/nope"), PeekLimits::default()),
            ""
        );
    }
}
