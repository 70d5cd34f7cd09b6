//! A long JSON string cut to its head and tail without decoding all of it:
//! its decoded length and the character boundaries a cut needs are found
//! by walking its escapes, and only the head and tail kept are decoded. A
//! tool output of megabytes full of escapes (quotes, tabs, newlines) is
//! passed over at `memchr` speed instead of being copied out whole.

use super::rules::{plan_cut_by, SlimSettings};
use memchr::memchr;

/// The inner bytes of a raw JSON string (between its quotes), read as the
/// text they decode to.
pub struct RawText<'a> {
    inner: &'a [u8],
    /// The decoded length, in bytes.
    len: usize,
    /// `(raw, decoded)` offsets of points outside any escape, at least
    /// [`CHECKPOINT_GAP`] raw bytes apart, in order, from `(0, 0)`: a
    /// boundary is looked for from the last one before it, so that the
    /// tail's is found without walking the whole string again.
    checkpoints: Vec<(usize, usize)>,
}

/// Raw bytes between two checkpoints of a [`RawText`].
const CHECKPOINT_GAP: usize = 16 * 1024;

impl<'a> RawText<'a> {
    /// The string `raw` (quotes included), when its escapes are valid;
    /// `None` otherwise (decode it the plain way). What is kept of it is
    /// checked to be UTF-8 when it is decoded; what is cut is not looked at.
    pub fn new(raw: &'a [u8]) -> Option<RawText<'a>> {
        let inner = raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
        let mut len = inner.len();
        let mut at = 0;
        let mut checkpoints = vec![(0, 0)];
        // Eight bytes at a time: an escape-dense string (a backslash every
        // few bytes) is walked without a search per escape.
        let mut word = 0;
        while word + 8 <= inner.len() {
            let bytes: [u8; 8] = inner[word..word + 8].try_into().ok()?;
            let mut backslashes = backslash_bytes(u64::from_le_bytes(bytes));
            while backslashes != 0 {
                let p = word + (backslashes.trailing_zeros() / 8) as usize;
                backslashes &= backslashes - 1;
                // Not the second byte of an escape already walked.
                if p >= at {
                    let (raw_len, decoded) = escape(&inner[p..])?;
                    len -= raw_len - decoded;
                    at = p + raw_len;
                }
            }
            word += 8;
            at = at.max(word);
            if checkpoints
                .last()
                .is_some_and(|&(r, _)| at - r >= CHECKPOINT_GAP)
            {
                checkpoints.push((at, at - (inner.len() - len)));
            }
        }
        while let Some(i) = memchr(b'\\', &inner[at..]) {
            let (raw_len, decoded) = escape(&inner[at + i..])?;
            len -= raw_len - decoded;
            at += i + raw_len;
            if checkpoints
                .last()
                .is_some_and(|&(r, _)| at - r >= CHECKPOINT_GAP)
            {
                // Every byte up to `at` is walked: what it decodes to is
                // known.
                checkpoints.push((at, at - (inner.len() - len)));
            }
        }
        Some(RawText {
            inner,
            len,
            checkpoints,
        })
    }

    /// The decoded length, in bytes.
    pub fn decoded_len(&self) -> usize {
        self.len
    }

    /// The raw offset and decoded offset of the character boundary at or
    /// before (`ceil` false) or at or after (`ceil` true) decoded offset
    /// `at`.
    fn boundary(&self, at: usize, ceil: bool) -> (usize, usize) {
        let inner = self.inner;
        let from = self.checkpoints.partition_point(|&(_, d)| d <= at);
        let (mut r, mut d) = self.checkpoints[from.saturating_sub(1)];
        loop {
            let next = memchr(b'\\', &inner[r..]).map_or(inner.len(), |i| r + i);
            if at <= d + (next - r) {
                // In a run of literal bytes, which decode to themselves.
                let mut p = r + (at - d);
                let continuation = |p: usize| inner.get(p).is_some_and(|b| b & 0xc0 == 0x80);
                while continuation(p) {
                    if ceil {
                        p += 1;
                    } else {
                        p -= 1;
                    }
                }
                return (p, d + (p - r));
            }
            d += next - r;
            r = next;
            // Escapes were checked in `new`.
            let (raw_len, decoded) = escape(&inner[r..]).unwrap_or((inner.len() - r, 0));
            if at < d + decoded {
                return if ceil {
                    (r + raw_len, d + decoded)
                } else {
                    (r, d)
                };
            }
            d += decoded;
            r += raw_len;
        }
    }

    /// The text of the raw bytes `inner[range]`, which start and end at
    /// character boundaries.
    fn decode(&self, from: usize, to: usize) -> Option<String> {
        let mut quoted = Vec::with_capacity(to - from + 2);
        quoted.push(b'"');
        quoted.extend_from_slice(&self.inner[from..to]);
        quoted.push(b'"');
        serde_json::from_slice(&quoted).ok()
    }

    /// The text cut as [`cut_copy`](super::rules::cut_copy) cuts the
    /// decoded text; `None` when it is left as it is.
    pub fn cut(&self, settings: &SlimSettings, max: usize) -> Option<String> {
        if self.len <= max {
            return None;
        }
        // Each boundary found once: the tail's walks the whole string.
        let head_end = self.boundary(settings.keep_head_bytes.min(self.len), false);
        let tail_start = self.boundary(
            self.len
                .saturating_sub(settings.keep_tail_bytes)
                .max(head_end.1),
            true,
        );
        let plan = plan_cut_by(self.len, settings, max, |_| head_end.1, |_| tail_start.1)?;
        let head = self.decode(0, head_end.0)?;
        let tail = self.decode(tail_start.0, self.inner.len())?;
        let mut out = String::with_capacity(head.len() + plan.marker.len() + tail.len());
        out.push_str(&head);
        out.push_str(&plan.marker);
        out.push_str(&tail);
        Some(out)
    }
}

/// The escape at the start of `bytes` (a backslash): its raw length and the
/// length of the text it decodes to; `None` for an invalid one or a lone
/// surrogate.
fn escape(bytes: &[u8]) -> Option<(usize, usize)> {
    match bytes.get(1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some((2, 1)),
        b'u' => {
            let unit = hex4(bytes.get(2..6)?)?;
            match unit {
                0xd800..=0xdbff => {
                    let low = bytes
                        .get(6..8)
                        .filter(|u| *u == b"\\u")
                        .and(hex4(bytes.get(8..12)?))?;
                    (0xdc00..=0xdfff).contains(&low).then_some((12, 4))
                }
                0xdc00..=0xdfff => None,
                0..0x80 => Some((6, 1)),
                0x80..0x800 => Some((6, 2)),
                _ => Some((6, 3)),
            }
        }
        _ => None,
    }
}

/// The high bit of each byte of `word` that is a backslash, and no other.
fn backslash_bytes(word: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = word ^ 0x5c5c_5c5c_5c5c_5c5c;
    !(((x & LOW7) + LOW7) | x) & !LOW7
}

/// Four hex digits as a number.
fn hex4(digits: &[u8]) -> Option<u32> {
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slim::rules::{cut_copy, preset};

    #[test]
    fn cuts_as_the_decoded_text_is_cut() {
        let settings = preset("default").unwrap();
        let texts = [
            "line \"quoted\"\tand é\n".repeat(2_000),
            "\u{1f600}\\/\u{1}é".repeat(5_000),
            format!("{}\u{1f600}{}", "a".repeat(4_095), "b\n".repeat(20_000)),
            "x".repeat(30_000),
        ];
        for text in &texts {
            for raw in [
                serde_json::to_vec(text).unwrap(),
                // The escapes JSON.stringify does not write, and \u ones.
                serde_json::to_vec(text)
                    .unwrap()
                    .iter()
                    .flat_map(|&b| match b {
                        b'/' => b"\\/".to_vec(),
                        b'a' => b"\\u0061".to_vec(),
                        _ => vec![b],
                    })
                    .collect(),
            ] {
                let r = RawText::new(&raw).unwrap();
                assert_eq!(r.decoded_len(), text.len());
                for (max, head, tail) in [(16_384, 4_096, 2_048), (100, 7, 9), (1_000, 1, 1)] {
                    let s = SlimSettings {
                        tool_result_max_bytes: max,
                        keep_head_bytes: head,
                        keep_tail_bytes: tail,
                        ..settings.clone()
                    };
                    assert_eq!(
                        r.cut(&s, max),
                        cut_copy(text, &s, max),
                        "{max} {head} {tail}"
                    );
                }
            }
        }
        assert!(RawText::new(br#""\ud800 lone""#).is_none());
        assert!(RawText::new(br#""bad \x escape""#).is_none());
    }
}
