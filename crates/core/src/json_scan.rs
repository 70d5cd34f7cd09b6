//! Selective reading of JSON objects without building a document tree.
//!
//! Claude Code lines can be many megabytes, almost all of it in strings we
//! never look at (tool output, file snapshots). [`Fields`] walks the top-level
//! members of one object and hands out each value as a raw byte slice; values
//! nobody asks for are skipped with `memchr`, and only the few small values we
//! need are decoded. Malformed input ends the walk early; it never panics.

use memchr::memchr;
use std::borrow::Cow;

/// Iterator over the `(key, raw value)` members of a JSON object.
///
/// Keys are the raw bytes between the quotes (escapes are not decoded: the keys
/// we look for never contain any). The iterator stops at the end of the object
/// or at the first syntax error.
pub struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
    done: bool,
}

impl<'a> Fields<'a> {
    /// Starts walking the object that begins at the first non-space byte of
    /// `buf`. Anything that is not an object yields no members.
    pub fn new(buf: &'a [u8]) -> Self {
        let start = skip_ws(buf, 0);
        let ok = buf.get(start) == Some(&b'{');
        Fields {
            buf,
            pos: start + 1,
            done: !ok,
        }
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.member();
        if item.is_none() {
            self.done = true;
        }
        item
    }
}

impl<'a> Fields<'a> {
    fn member(&mut self) -> Option<(&'a [u8], &'a [u8])> {
        let buf = self.buf;
        let mut p = skip_ws(buf, self.pos);
        if buf.get(p) == Some(&b',') {
            p = skip_ws(buf, p + 1);
        }
        if buf.get(p) != Some(&b'"') {
            return None; // `}` or garbage
        }
        let key_end = string_end(buf, p)?;
        let key = &buf[p + 1..key_end - 1];
        p = skip_ws(buf, key_end);
        if buf.get(p) != Some(&b':') {
            return None;
        }
        let value_start = skip_ws(buf, p + 1);
        let value_end = value_end(buf, value_start)?;
        self.pos = value_end;
        Some((key, &buf[value_start..value_end]))
    }
}

/// Iterator over the raw elements of a JSON array; stops at the first syntax
/// error. Anything that is not an array yields no elements.
pub struct Elements<'a> {
    buf: &'a [u8],
    pos: usize,
    done: bool,
}

impl<'a> Elements<'a> {
    /// Starts walking the array that begins at the first non-space byte.
    pub fn new(buf: &'a [u8]) -> Self {
        let start = skip_ws(buf, 0);
        let ok = buf.get(start) == Some(&b'[');
        Elements {
            buf,
            pos: start + 1,
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
        let mut p = skip_ws(self.buf, self.pos);
        if self.buf.get(p) == Some(&b',') {
            p = skip_ws(self.buf, p + 1);
        }
        if matches!(self.buf.get(p), None | Some(b']')) {
            self.done = true;
            return None;
        }
        match value_end(self.buf, p) {
            Some(end) => {
                self.pos = end;
                Some(&self.buf[p..end])
            }
            None => {
                self.done = true;
                None
            }
        }
    }
}

/// The raw value of member `key` of the object `obj`, if present.
pub fn field<'a>(obj: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    Fields::new(obj).find(|(k, _)| *k == key).map(|(_, v)| v)
}

fn skip_ws(buf: &[u8], mut p: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = buf.get(p) {
        p += 1;
    }
    p
}

/// Given `buf[start] == b'"'`, returns the index just past the closing quote.
fn string_end(buf: &[u8], start: usize) -> Option<usize> {
    let mut p = start + 1;
    loop {
        let q = p + memchr(b'"', &buf[p..])?;
        // The quote is escaped when an odd number of backslashes precede it.
        let backslashes = buf[p..q].iter().rev().take_while(|&&b| b == b'\\').count();
        if backslashes % 2 == 0 {
            return Some(q + 1);
        }
        p = q + 1;
    }
}

/// Returns the index just past the JSON value starting at `start`.
fn value_end(buf: &[u8], start: usize) -> Option<usize> {
    match buf.get(start)? {
        b'"' => string_end(buf, start),
        b'{' | b'[' => container_end(buf, start),
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

fn container_end(buf: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut p = start;
    while p < buf.len() {
        match buf[p] {
            b'"' => {
                p = string_end(buf, p)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(p + 1);
                }
            }
            _ => {}
        }
        p += 1;
    }
    None
}

/// Decodes a raw JSON string value. Returns `None` for anything else.
/// Invalid UTF-8 inside the string is replaced, never rejected.
pub fn as_str(raw: &[u8]) -> Option<Cow<'_, str>> {
    if raw.len() < 2 || raw[0] != b'"' || raw[raw.len() - 1] != b'"' {
        return None;
    }
    let inner = &raw[1..raw.len() - 1];
    if memchr(b'\\', inner).is_none() {
        return Some(String::from_utf8_lossy(inner));
    }
    match serde_json::from_slice::<String>(raw) {
        Ok(s) => Some(Cow::Owned(s)),
        Err(_) => {
            let lossy = String::from_utf8_lossy(raw);
            serde_json::from_str::<String>(&lossy).ok().map(Cow::Owned)
        }
    }
}

/// Decodes a raw JSON non-negative integer (a float is truncated).
pub fn as_u64(raw: &[u8]) -> Option<u64> {
    if raw.iter().all(u8::is_ascii_digit) && !raw.is_empty() && raw.len() <= 19 {
        return std::str::from_utf8(raw).ok()?.parse().ok();
    }
    let f: f64 = std::str::from_utf8(raw).ok()?.parse().ok()?;
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
        assert_eq!(got, vec![&b"1"[..], br#""a,]""#, br#"{"b":[2]}"#, b"[]"]);
        assert_eq!(Elements::new(b"[]").count(), 0);
        assert_eq!(Elements::new(b"{}").count(), 0);
        assert_eq!(field(br#"{"a":1,"b":[2]}"#, b"b"), Some(&b"[2]"[..]));
    }

    #[test]
    fn decodes_strings_numbers_and_bools() {
        assert_eq!(as_str(br#""plain""#).unwrap(), "plain");
        assert_eq!(as_str(br#""a\nb\u00e9""#).unwrap(), "a\nb\u{e9}");
        assert_eq!(as_str(b"\"bad \xff utf8\"").unwrap(), "bad \u{fffd} utf8");
        assert_eq!(as_str(b"12"), None);
        assert_eq!(as_u64(b"12345"), Some(12345));
        assert_eq!(as_u64(b"12.9"), Some(12));
        assert_eq!(as_u64(b"-1"), None);
        assert_eq!(as_u64(b"null"), None);
        assert!(is_true(b"true") && !is_true(b"false"));
    }
}
