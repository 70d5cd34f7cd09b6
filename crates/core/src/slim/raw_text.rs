//! A long JSON string cut to its head and tail without decoding all of it:
//! its decoded length and the character boundaries a cut needs are found
//! by walking its escapes 64 bytes at a time, and only the head and tail
//! kept are looked at. A tool output of megabytes full of escapes (quotes,
//! tabs, newlines) is passed over without a step per escape, and a head and
//! tail whose escapes are the ones JSON.stringify writes are copied as they
//! are instead of being decoded and written again.

use super::rules::{plan_cut_by, SlimSettings};
use memchr::memchr;

/// The inner bytes of a raw JSON string (between its quotes), read as the
/// text they decode to.
pub struct RawText<'a> {
    inner: &'a [u8],
    /// The decoded length, in bytes.
    len: usize,
    /// `(raw, decoded)` offsets of character starts outside any escape, at least
    /// [`CHECKPOINT_GAP`] raw bytes apart, in order, from `(0, 0)`: a
    /// boundary is looked for from the last one before it, so that the
    /// tail's is found without walking the whole string again.
    checkpoints: Vec<(usize, usize)>,
    /// Every escape is one JSON.stringify writes (`\"`, `\\`, `\b`, `\f`,
    /// `\n`, `\r`, `\t`; no `\u`, no `\/`): a kept part of it that is UTF-8
    /// without raw control characters is already the JSON of its text.
    stringify_escapes: bool,
}

/// Raw bytes between two checkpoints of a [`RawText`].
const CHECKPOINT_GAP: usize = 2 * 1024;

/// What the byte after an escaping backslash makes of its escape: one
/// JSON.stringify writes.
const STRINGIFY: u8 = 0;
/// `\/`: valid, but not written by JSON.stringify.
const SLASH: u8 = 1;
/// `\u`: its digits decide.
const UNICODE: u8 = 2;
/// Not an escape.
const INVALID: u8 = 4;

/// [`STRINGIFY`], [`SLASH`], [`UNICODE`] or [`INVALID`], per byte.
const ESCAPE_KINDS: [u8; 256] = {
    let mut kinds = [INVALID; 256];
    let stringify = b"\"\\bfnrt";
    let mut i = 0;
    while i < stringify.len() {
        kinds[stringify[i] as usize] = STRINGIFY;
        i += 1;
    }
    kinds[b'/' as usize] = SLASH;
    kinds[b'u' as usize] = UNICODE;
    kinds
};

impl<'a> RawText<'a> {
    /// The string `raw` (quotes included), when its escapes are valid;
    /// `None` otherwise (decode it the plain way). What is kept of it is
    /// checked to be UTF-8 when it is decoded; what is cut is not looked at.
    pub fn new(raw: &'a [u8]) -> Option<RawText<'a>> {
        let inner = raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
        // Raw bytes less decoded bytes of the escapes counted so far.
        let mut shrink = 0;
        // The end of the last `\u` escape, and the `u` of the low surrogate
        // counted with the high one before it.
        let (mut unicode_end, mut low_u) = (0, usize::MAX);
        let mut kinds = STRINGIFY;
        let mut checkpoints = vec![(0, 0)];
        let invalid = crate::json_blocks::escaped_bytes(inner, |pos, escaped| {
            let last = checkpoints.last().map_or(0, |&(r, _)| r);
            let starts_char = inner.get(pos).is_some_and(|b| b & 0xc0 != 0x80);
            if pos - last >= CHECKPOINT_GAP && escaped & 1 == 0 && pos >= unicode_end && starts_char
            {
                // Every escape before `pos` is counted: what it decodes to
                // is known. (A boundary is never looked for before a
                // checkpoint: it starts a character.)
                checkpoints.push((pos, pos - shrink));
            }
            // Each escape but `\u` is two bytes that decode to one.
            shrink += escaped.count_ones() as usize;
            let mut block_kinds = STRINGIFY;
            let mut bits = escaped;
            while bits != 0 {
                let i = pos + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                block_kinds |= inner.get(i).map_or(INVALID, |&b| ESCAPE_KINDS[b as usize]);
            }
            kinds |= block_kinds;
            if block_kinds & INVALID != 0 {
                return Some(());
            }
            let mut bits = if block_kinds & UNICODE != 0 {
                escaped
            } else {
                0
            };
            while bits != 0 {
                let i = pos + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if inner[i] != b'u' || i == low_u {
                    continue;
                }
                let Some((raw_len, decoded)) = escape(&inner[i - 1..]) else {
                    return Some(());
                };
                // A surrogate pair is two escapes, both counted above.
                shrink += raw_len - decoded - raw_len / 6;
                unicode_end = i - 1 + raw_len;
                if raw_len == 12 {
                    low_u = i + 6;
                }
            }
            None
        });
        if invalid.is_some() {
            return None;
        }
        Some(RawText {
            inner,
            len: inner.len() - shrink,
            checkpoints,
            stringify_escapes: kinds == STRINGIFY,
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
        let (head_end, tail_start, marker) = self.plan(settings, max)?;
        let head = self.decode(0, head_end)?;
        let tail = self.decode(tail_start, self.inner.len())?;
        let mut out = String::with_capacity(head.len() + marker.len() + tail.len());
        out.push_str(&head);
        out.push_str(&marker);
        out.push_str(&tail);
        Some(out)
    }

    /// [`RawText::cut`] as a JSON string, byte for byte what
    /// `serde_json::to_vec` writes of it. A head and tail whose escapes are
    /// the ones JSON.stringify writes, UTF-8 without raw control characters,
    /// are copied as they are: written again, they come out the same.
    pub fn cut_json(&self, settings: &SlimSettings, max: usize) -> Option<Vec<u8>> {
        let (head_end, tail_start, marker) = self.plan(settings, max)?;
        let (head, tail) = (&self.inner[..head_end], &self.inner[tail_start..]);
        // (A fold without an early exit, which the compiler vectorises.)
        let as_written = |part: &[u8]| {
            !part.iter().fold(false, |control, &b| control | (b < 0x20))
                && std::str::from_utf8(part).is_ok()
        };
        if !(self.stringify_escapes && as_written(head) && as_written(tail)) {
            let text = self.cut(settings, max)?;
            return serde_json::to_vec(&text).ok();
        }
        let quoted = serde_json::to_vec(&marker).ok()?;
        let marker = &quoted[1..quoted.len() - 1];
        let mut out = Vec::with_capacity(head.len() + marker.len() + tail.len() + 2);
        out.push(b'"');
        out.extend_from_slice(head);
        out.extend_from_slice(marker);
        out.extend_from_slice(tail);
        out.push(b'"');
        Some(out)
    }

    /// Where the text is cut when it is over `max` bytes: the raw end of
    /// the head kept, the raw start of the tail kept, and the marker
    /// between them; `None` when it is left as it is.
    fn plan(&self, settings: &SlimSettings, max: usize) -> Option<(usize, usize, String)> {
        if self.len <= max {
            return None;
        }
        // Each boundary found from the checkpoint before it.
        let head_end = self.boundary(settings.keep_head_bytes.min(self.len), false);
        let tail_start = self.boundary(
            self.len
                .saturating_sub(settings.keep_tail_bytes)
                .max(head_end.1),
            true,
        );
        let plan = plan_cut_by(self.len, settings, max, |_| head_end.1, |_| tail_start.1)?;
        Some((head_end.0, tail_start.0, plan.marker))
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

/// Four hex digits as a number.
fn hex4(digits: &[u8]) -> Option<u32> {
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slim::rules::{cut_copy, preset};

    /// `text` as JSON with every character outside ASCII as `\u` escapes
    /// (surrogate pairs beyond the first plane), as some writers do.
    fn ascii_json(text: &str) -> Vec<u8> {
        let json = String::from_utf8(serde_json::to_vec(text).unwrap()).unwrap();
        let mut out = String::new();
        for c in json.chars() {
            if c.is_ascii() {
                out.push(c);
            } else {
                for unit in c.encode_utf16(&mut [0; 2]) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
        out.into_bytes()
    }

    #[test]
    fn cuts_as_the_decoded_text_is_cut() {
        let settings = preset("default").unwrap();
        let texts = [
            "line \"quoted\"\tand é\n".repeat(2_000),
            "\u{1f600}\\/\u{1}é".repeat(5_000),
            format!("{}\u{1f600}{}", "a".repeat(4_095), "b\n".repeat(20_000)),
            "x".repeat(30_000),
            // Backslash runs of every length, across block boundaries.
            (0..3_000)
                .map(|i| format!("{}\\{}\"", "\\".repeat(i % 7), "é".repeat(i % 5)))
                .collect(),
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
                ascii_json(text),
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
                    let cut = cut_copy(text, &s, max);
                    assert_eq!(r.cut(&s, max), cut, "{max} {head} {tail}");
                    assert_eq!(
                        r.cut_json(&s, max),
                        cut.map(|c| serde_json::to_vec(&c).unwrap()),
                        "{max} {head} {tail}"
                    );
                }
            }
        }
        assert!(RawText::new(br#""\ud800 lone""#).is_none());
        assert!(RawText::new(br#""\udc00 lone low""#).is_none());
        assert!(RawText::new(br#""bad \x escape""#).is_none());
        assert!(RawText::new(br#""ends escaping \""#).is_none());
        let at_block_end = format!("\"{}\\\"", "a".repeat(63));
        assert!(RawText::new(at_block_end.as_bytes()).is_none());
    }

    #[test]
    fn a_head_or_tail_json_does_not_read_is_not_cut() {
        // Raw control characters and bytes that are not UTF-8, where a cut
        // keeps them: decoding fails, so the string stays as it is.
        let s = SlimSettings {
            tool_result_max_bytes: 100,
            keep_head_bytes: 10,
            keep_tail_bytes: 10,
            ..preset("default").unwrap()
        };
        for bad in [&b"\t"[..], b"\xff"] {
            let mut raw = b"\"".to_vec();
            raw.extend_from_slice(bad);
            raw.extend_from_slice(&[b'x'; 500]);
            raw.extend_from_slice(bad);
            raw.push(b'"');
            let r = RawText::new(&raw).unwrap();
            assert_eq!(r.cut(&s, 100), None);
            assert_eq!(r.cut_json(&s, 100), None);
        }
    }
}
