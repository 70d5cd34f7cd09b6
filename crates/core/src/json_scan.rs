//! Selective reading of JSON objects without building a document tree.
//!
//! Claude Code lines can be many megabytes, almost all of it in strings we
//! never look at (tool output, file snapshots). [`Fields`] walks the top-level
//! members of one object and hands out each value as a raw byte slice; values
//! nobody asks for are skipped with `memchr`, and only the few small values we
//! need are decoded. Malformed input ends the walk early; it never panics.

use crate::json_blocks::{container_end, string_end};
use memchr::memchr;
use std::borrow::Cow;
use std::ops::Range;

/// Iterator over the `(key, raw value)` members of a JSON object.
///
/// Keys are the raw bytes between the quotes (escapes are not decoded: the keys
/// we look for never contain any). The iterator stops at the end of the object
/// or at the first syntax error.
///
/// With `IN_LINE`, the object must end before the next raw newline: the walk
/// stops at one (see [`Fields::in_line`]).
pub struct Fields<'a, const IN_LINE: bool = false> {
    buf: &'a [u8],
    pos: usize,
    done: bool,
    object: bool,
}

impl<'a> Fields<'a> {
    /// Starts walking the object that begins at the first non-space byte of
    /// `buf`. Anything that is not an object yields no members.
    pub fn new(buf: &'a [u8]) -> Self {
        Self::starting(buf)
    }
}

impl<'a> Fields<'a, true> {
    /// Starts walking the object at the start of `buf` (after spaces or
    /// tabs), where `buf` runs on past the end of its line: the walk stops at
    /// the first raw newline, wherever it is. Once the walk has stopped,
    /// [`Fields::line_end`] says whether the object was the whole line.
    pub fn in_line(buf: &'a [u8]) -> Self {
        Self::starting(buf)
    }

    /// Once the walk has stopped: the index of the newline that ends the
    /// line, when the object closed at its top level and only spaces, tabs
    /// or carriage returns follow it on the line.
    pub fn line_end(&self) -> Option<usize> {
        self.past_close()
            .filter(|&end| self.buf.get(end) == Some(&b'\n'))
    }
}

impl<'a, const IN_LINE: bool> Iterator for Fields<'a, IN_LINE> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        self.next_reading(|_, _| None)
    }
}

impl<'a, const IN_LINE: bool> Fields<'a, IN_LINE> {
    /// Starts walking the object at the first non-space byte of `buf`, as
    /// [`Fields::new`] does, or within a line as [`Fields::in_line`] does.
    pub fn of(buf: &'a [u8]) -> Self {
        Self::starting(buf)
    }

    /// The next member and its raw value, where `read` may find where the
    /// value ends: given the key and `buf` from the value's start on, it
    /// returns the value's length when it read the value through itself (a
    /// nested object walked member by member, so that its contents are
    /// passed over once, not once more by each reader), or `None` to have
    /// the value skipped as usual. [`Iterator::next`] is this with a `read`
    /// that never reads.
    pub fn next_reading(
        &mut self,
        read: impl FnOnce(&'a [u8], &'a [u8]) -> Option<usize>,
    ) -> Option<(&'a [u8], &'a [u8])> {
        self.member(|_, _| true, read)
    }

    /// The next member and its raw value when `want`, given its key and
    /// the first byte of its value, says so; otherwise the walk stays where
    /// it was.
    pub fn next_if(
        &mut self,
        want: impl FnOnce(&'a [u8], u8) -> bool,
    ) -> Option<(&'a [u8], &'a [u8])> {
        self.member(want, |_, _| None)
    }

    /// The next member, when `want` takes it (see [`Fields::next_if`]),
    /// its value's end found by `read` or skipped to (see
    /// [`Fields::next_reading`]). The walk stops at the first error.
    fn member(
        &mut self,
        want: impl FnOnce(&'a [u8], u8) -> bool,
        read: impl FnOnce(&'a [u8], &'a [u8]) -> Option<usize>,
    ) -> Option<(&'a [u8], &'a [u8])> {
        if self.done {
            return None;
        }
        let Some((key, start)) = self.key() else {
            self.done = true;
            return None;
        };
        if self.buf.get(start).is_some_and(|&first| !want(key, first)) {
            return None;
        }
        let end = match read(key, &self.buf[start..]) {
            Some(len) => Some(start + len),
            None => self.skip_value(start),
        };
        self.done = end.is_none();
        self.pos = end?;
        Some((key, &self.buf[start..self.pos]))
    }

    /// What is left of `buf` after the members read so far.
    pub fn rest(&self) -> &'a [u8] {
        self.buf.get(self.pos..).unwrap_or_default()
    }

    /// Moves past `members` when the object goes on with exactly these
    /// bytes and then a comma or its closing brace. `members` are whole
    /// members that another walk read from the same point of an object
    /// (just past a member's value), so that here they are the same
    /// members with the same values.
    pub fn skip_repeated(&mut self, members: &[u8]) -> bool {
        let rest = self.rest();
        let same = !self.done
            && rest.starts_with(members)
            && matches!(rest.get(members.len()), Some(b',' | b'}'));
        if same {
            self.pos += members.len();
        }
        same
    }

    /// Once the walk has stopped at the object's closing brace: the index
    /// just past that brace, which is the object's length when `buf`
    /// started with it.
    pub fn end(&self) -> Option<usize> {
        let p = skip_ws::<IN_LINE>(self.buf, self.pos);
        (self.object && self.buf.get(p) == Some(&b'}')).then_some(p + 1)
    }

    fn starting(buf: &'a [u8]) -> Self {
        let start = skip_ws::<IN_LINE>(buf, 0);
        let ok = buf.get(start) == Some(&b'{');
        Fields {
            buf,
            pos: start + 1,
            done: !ok,
            object: ok,
        }
    }

    /// Once the walk has stopped at the object's closing brace: where the
    /// whitespace after it ends.
    fn past_close(&self) -> Option<usize> {
        self.end().map(|end| skip_ws::<IN_LINE>(self.buf, end))
    }

    /// Whether the walk, once it has stopped, ended at the object's closing
    /// brace with nothing but whitespace after it: the object is whole at
    /// its top level (a line cut short or followed by more text is not).
    /// Nested values are checked only as far as finding their ends.
    pub fn closed(&self) -> bool {
        self.past_close() == Some(self.buf.len())
    }

    /// Reads the next key and its colon; returns the key and where its value starts.
    #[inline(always)]
    fn key(&self) -> Option<(&'a [u8], usize)> {
        let buf = self.buf;
        let mut p = skip_ws::<IN_LINE>(buf, self.pos);
        if buf.get(p) == Some(&b',') {
            p = skip_ws::<IN_LINE>(buf, p + 1);
        }
        if buf.get(p) != Some(&b'"') {
            return None; // `}` or garbage
        }
        let key_end = string_end::<IN_LINE>(buf, p)?;
        let key = &buf[p + 1..key_end - 1];
        p = skip_ws::<IN_LINE>(buf, key_end);
        if buf.get(p) != Some(&b':') {
            return None;
        }
        Some((key, skip_ws::<IN_LINE>(buf, p + 1)))
    }

    /// Moves past the value starting at `start`; returns its end.
    #[inline(always)]
    fn skip_value(&mut self, start: usize) -> Option<usize> {
        let end = value_end::<IN_LINE>(self.buf, start)?;
        self.pos = end;
        Some(end)
    }
}

/// Iterator over the elements of a JSON array; stops at the first syntax
/// error. Anything that is not an array yields no elements.
///
/// Each element is handed out as the slice *starting* at it (it runs on past
/// its end); the end is only searched for when the iterator moves on, so a
/// caller that stops at the first element never scans the rest. Walk an
/// element with [`Fields`] or [`field`], which stop at its closing brace.
pub struct Elements<'a> {
    buf: &'a [u8],
    pos: usize,
    current: Option<usize>,
    done: bool,
}

impl<'a> Elements<'a> {
    /// Starts walking the array that begins at the first non-space byte.
    pub fn new(buf: &'a [u8]) -> Self {
        let start = skip_ws::<false>(buf, 0);
        let ok = buf.get(start) == Some(&b'[');
        Elements {
            buf,
            pos: start + 1,
            current: None,
            done: !ok,
        }
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.done {
            return None;
        }
        if let Some(current) = self.current.take() {
            match value_end::<false>(self.buf, current) {
                Some(end) => self.pos = end,
                None => {
                    self.done = true;
                    return None;
                }
            }
        }
        let mut p = skip_ws::<false>(self.buf, self.pos);
        if self.buf.get(p) == Some(&b',') {
            p = skip_ws::<false>(self.buf, p + 1);
        }
        if matches!(self.buf.get(p), None | Some(b']')) {
            self.done = true;
            return None;
        }
        self.current = Some(p);
        Some(&self.buf[p..])
    }
}

/// The value of member `key` of `obj` as the slice starting at it (running on
/// past its end, see [`Elements`]): for objects and arrays that will be walked,
/// without first searching for their end.
pub fn field_start<'a>(obj: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let mut fields = Fields::new(obj);
    loop {
        let (k, start) = fields.key()?;
        if k == key {
            return Some(&obj[start..]);
        }
        fields.skip_value(start)?;
    }
}

/// Length of the JSON value at the start of `buf`.
pub fn value_len(buf: &[u8]) -> Option<usize> {
    value_end::<false>(buf, 0)
}

/// The raw value of member `key` of the object `obj`, if present.
pub fn field<'a>(obj: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    Fields::new(obj).find(|(k, _)| *k == key).map(|(_, v)| v)
}

/// The byte range of `part` in `whole`, when `part` is a slice of
/// `whole`'s bytes (as the values [`field`] and [`Fields`] hand out are of
/// the object they read); `None` when it is not.
pub fn range_in(whole: &[u8], part: &[u8]) -> Option<Range<usize>> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= whole.len()).then_some(start..end)
}

/// Past the whitespace at `p`; within a line, a newline is not whitespace.
#[inline(always)]
fn skip_ws<const IN_LINE: bool>(buf: &[u8], mut p: usize) -> usize {
    while let Some(&b) = buf.get(p) {
        // Compact JSON, as transcripts are written, has no whitespace: one
        // compare settles nearly every call.
        if b > b' ' || !(matches!(b, b' ' | b'\t' | b'\r') || (!IN_LINE && b == b'\n')) {
            break;
        }
        p += 1;
    }
    p
}

/// Returns the index just past the JSON value starting at `start`.
#[inline(always)]
fn value_end<const IN_LINE: bool>(buf: &[u8], start: usize) -> Option<usize> {
    match buf.get(start)? {
        b'"' => string_end::<IN_LINE>(buf, start),
        b'{' | b'[' => container_end::<IN_LINE>(buf, start),
        _ => {
            // number, true, false, null: runs until a delimiter
            let len = buf[start..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(buf.len() - start);
            (len > 0).then_some(start + len)
        }
    }
}

/// Decodes a raw JSON string value. Returns `None` for anything else.
/// Invalid UTF-8 inside the string is replaced, never rejected.
pub fn as_str(raw: &[u8]) -> Option<Cow<'_, str>> {
    if raw.len() < 2 || raw[0] != b'"' || raw[raw.len() - 1] != b'"' {
        return None;
    }
    let inner = &raw[1..raw.len() - 1];
    if let Some(text) = short_plain_text(inner) {
        return Some(Cow::Borrowed(text));
    }
    if memchr(b'\\', inner).is_none() {
        // Valid UTF-8 (nearly always) is checked far faster than it is repaired.
        return Some(match text(inner) {
            Some(text) => Cow::Borrowed(text),
            None => String::from_utf8_lossy(inner),
        });
    }
    match serde_json::from_slice::<String>(raw) {
        Ok(s) => Some(Cow::Owned(s)),
        Err(_) => {
            let lossy = String::from_utf8_lossy(raw);
            serde_json::from_str::<String>(&lossy).ok().map(Cow::Owned)
        }
    }
}

/// `bytes` as text when they are short (ids, times, names: at most 64
/// bytes), ASCII and free of backslashes, so that a JSON string of them
/// means them as they are. Checked eight bytes at a time, without the call
/// and set-up a `memchr` costs; `None` for anything else, which the caller
/// then checks the general way.
#[inline]
pub fn short_plain_text(bytes: &[u8]) -> Option<&str> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    if bytes.len() > 64 {
        return None;
    }
    // Per byte, the high bit set for a byte above ASCII or a backslash (a
    // zero byte of `word ^ backslashes`; the test finds any zero byte).
    let unplain = |word: u64| {
        let x = word ^ (ONES * u64::from(b'\\'));
        (word | (x.wrapping_sub(ONES) & !x)) & HIGH
    };
    let word_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let found = if bytes.len() >= 8 {
        // Whole words, then the last eight bytes (which may overlap the
        // words before: a byte looked at twice does no harm).
        let words = (0..bytes.len() / 8).fold(0, |found, i| found | unplain(word_at(8 * i)));
        words | unplain(word_at(bytes.len() - 8))
    } else {
        // Fewer than eight, padded with zero bytes, which are plain.
        let word = (bytes.iter().enumerate()).fold(0, |w, (i, &b)| w | u64::from(b) << (8 * i));
        unplain(word)
    };
    // SAFETY: every byte is ASCII, which is valid UTF-8.
    (found == 0).then(|| unsafe { std::str::from_utf8_unchecked(bytes) })
}

/// `bytes` as text, when they are valid UTF-8. ASCII, which nearly every
/// short value of a transcript line is (ids, times, names), is settled a
/// word at a time without a call.
#[inline]
pub fn text(bytes: &[u8]) -> Option<&str> {
    if bytes.is_ascii() {
        // SAFETY: ASCII is valid UTF-8.
        return Some(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    std::str::from_utf8(bytes).ok()
}

/// Decodes a raw JSON non-negative integer (a float is truncated).
pub fn as_u64(raw: &[u8]) -> Option<u64> {
    // Token counts: at most 19 plain digits cannot overflow, read directly.
    if (1..=19).contains(&raw.len()) && raw.iter().all(u8::is_ascii_digit) {
        return Some(raw.iter().fold(0, |n, d| n * 10 + u64::from(d - b'0')));
    }
    let text = std::str::from_utf8(raw).ok()?;
    // Exact up to u64::MAX (20 digits); only larger integers go by f64.
    if let Some(n) = text
        .parse()
        .ok()
        .filter(|_| raw.iter().all(u8::is_ascii_digit))
    {
        return Some(n);
    }
    let f: f64 = text.parse().ok()?;
    (f.is_finite() && f >= 0.0).then_some(f as u64)
}

/// `true` only for the literal `true`.
pub fn is_true(raw: &[u8]) -> bool {
    raw == b"true"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(s: &str) -> Vec<(String, String)> {
        Fields::new(s.as_bytes())
            .map(|(k, v)| {
                (
                    String::from_utf8_lossy(k).into_owned(),
                    String::from_utf8_lossy(v).into_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn a_value_read_has_its_range_in_the_object_and_other_bytes_have_none() {
        let obj = br#"{"uuid":"a","parentUuid":"b"}"#;
        let value = field(obj, b"parentUuid").unwrap();
        assert_eq!(range_in(obj, value), Some(25..28));
        assert_eq!(&obj[25..28], br#""b""#);
        let copy = obj.to_vec();
        assert_eq!(range_in(&copy, value), None);
        assert_eq!(range_in(value, obj), None);
    }

    #[test]
    fn walks_top_level_members_and_skips_nested_values() {
        let got = members(r#"{"a":1, "b" : {"x":[1,{"y":"}"}]}, "c":"q\"}", "d":true,"e":null}"#);
        assert_eq!(
            got,
            vec![
                ("a".into(), "1".into()),
                ("b".into(), r#"{"x":[1,{"y":"}"}]}"#.into()),
                ("c".into(), r#""q\"}""#.into()),
                ("d".into(), "true".into()),
                ("e".into(), "null".into()),
            ]
        );
    }

    #[test]
    fn an_object_is_closed_only_when_whole_at_its_top_level() {
        let closed = |s: &str| {
            let mut fields = Fields::new(s.as_bytes());
            fields.by_ref().for_each(drop);
            fields.closed()
        };
        for whole in [r#"{"a":1,"b":{"c":[1,2]}}"#, "{}", " { \"a\" : \"}\" } \r"] {
            assert!(closed(whole), "{whole}");
        }
        for broken in [
            r#"{"a":1,"b":{"c":[1,2"#,
            r#"{"a":1,"b":"cut"#,
            r#"{"a":1}{"b":2}"#,
            r#"{"a":1,}"#,
            r#"{"a":}"#,
            r#"{"a":1} x"#,
            "x}",
            "[1]",
            "",
        ] {
            assert!(!closed(broken), "{broken}");
        }
    }

    #[test]
    fn a_walk_within_a_line_stops_at_its_newline_and_finds_where_it_ends() {
        let walk = |s: &str| {
            let mut fields = Fields::in_line(s.as_bytes());
            let n = fields.by_ref().count();
            (n, fields.line_end())
        };
        assert_eq!(
            walk("{\"a\":1,\"b\":{\"c\":\"d\"}}\n{\"e\":2}\n"),
            (2, Some(21))
        );
        assert_eq!(walk(" {\"a\":[1]} \r\nrest"), (1, Some(12)));
        assert_eq!(walk("{}\n"), (0, Some(2)));
        // A raw newline anywhere before the object closes ends the walk.
        for cut in [
            "{\"a\":\"x\ny\"}\n",
            "{\"a\":{\"b\":\"x\ny\"}}\n",
            "{\"a\":\n1}\n",
            "{\"a\"\n:1}\n",
            "\n{\"a\":1}\n",
        ] {
            assert_eq!(walk(cut).1, None, "{cut:?}");
        }
        // Closed but not the whole line, or no newline yet.
        for other in ["{\"a\":1} x\n", "{\"a\":1}", "[1]\n", "{\"a\":1"] {
            assert_eq!(walk(other).1, None, "{other:?}");
        }
    }

    #[test]
    fn escaped_backslash_before_quote_ends_the_string() {
        let got = members(r#"{"a":"x\\","b":2}"#);
        assert_eq!(got[1], ("b".into(), "2".into()));
        assert_eq!(as_str(got[0].1.as_bytes()).unwrap(), "x\\");
    }

    #[test]
    fn truncated_or_garbage_input_stops_without_panicking() {
        assert_eq!(members(r#"{"a":1,"b":"unterminated"#).len(), 1);
        assert!(members("not json").is_empty());
        assert!(members("").is_empty());
        assert_eq!(members(r#"{"a":{"b":[1,2"#).len(), 0);
        assert!(members("[1,2]").is_empty());
    }

    #[test]
    fn walks_array_elements() {
        let raw = br#"[1, "a,]", {"b":[2]} ,[]]"#;
        let got: Vec<&[u8]> = Elements::new(raw).collect();
        assert_eq!(got.len(), 4);
        assert!(got[2].starts_with(br#"{"b":[2]} ,"#));
        assert_eq!(field(got[2], b"b"), Some(&b"[2]"[..]));
        assert_eq!(
            as_str(&got[1][..value_len(got[1]).unwrap()]).as_deref(),
            Some("a,]")
        );
        assert_eq!(Elements::new(b"[]").count(), 0);
        assert_eq!(Elements::new(b"{}").count(), 0);
        assert_eq!(field(br#"{"a":1,"b":[2]}"#, b"b"), Some(&b"[2]"[..]));
        assert_eq!(
            field_start(br#"{"a":1,"b":[2], "c":3}"#, b"b"),
            Some(&br#"[2], "c":3}"#[..])
        );
        assert_eq!(field_start(br#"{"a":1}"#, b"z"), None);
    }

    #[test]
    fn short_plain_text_is_every_short_ascii_run_without_a_backslash() {
        for len in 1..=64 {
            for at in 0..len {
                for byte in 0..=255u8 {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = byte;
                    let plain = byte < 0x80 && byte != b'\\';
                    assert_eq!(
                        short_plain_text(&bytes).is_some(),
                        plain,
                        "byte {byte:#x} at {at} of {len}"
                    );
                }
            }
        }
        assert_eq!(short_plain_text(b""), Some(""));
        assert_eq!(short_plain_text(&[b'a'; 64]).map(str::len), Some(64));
        assert_eq!(short_plain_text(&[b'a'; 65]), None);
    }

    #[test]
    fn decodes_strings_numbers_and_bools() {
        assert_eq!(as_str(br#""plain""#).unwrap(), "plain");
        assert_eq!(as_str(br#""a\nb\u00e9""#).unwrap(), "a\nb\u{e9}");
        assert_eq!(as_str(b"\"bad \xff utf8\"").unwrap(), "bad \u{fffd} utf8");
        assert_eq!(as_str(b"12"), None);
        assert_eq!(as_u64(b"12345"), Some(12345));
        // 20 digits are exact (json_walker fuzz finding: once read via f64).
        assert_eq!(as_u64(b"11111111111111111112"), Some(11111111111111111112));
        assert_eq!(as_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(as_u64(b"9999999999999999999"), Some(9999999999999999999));
        assert_eq!(as_u64(b"007"), Some(7));
        assert_eq!(as_u64(b""), None);
        assert_eq!(as_u64(b"12.9"), Some(12));
        assert_eq!(as_u64(b"-1"), None);
        assert_eq!(as_u64(b"null"), None);
        assert!(is_true(b"true") && !is_true(b"false"));
    }
}
