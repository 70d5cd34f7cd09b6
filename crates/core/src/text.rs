//! Text helpers that must count the way JavaScript counts: in UTF-16 units.

/// The first `max_units` UTF-16 code units of `s`, like JavaScript's
/// `s.slice(0, max_units)` but never splitting a surrogate pair (a character
/// that would straddle the limit is left out whole).
pub fn truncate_utf16(s: &str, max_units: usize) -> &str {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        units += c.len_utf16();
        if units > max_units {
            return &s[..i];
        }
    }
    s
}

/// Length of `s` in UTF-16 code units (JavaScript's `length`).
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncates_by_utf16_units_without_splitting_pairs() {
        assert_eq!(truncate_utf16("abcdef", 3), "abc");
        assert_eq!(truncate_utf16("ab", 3), "ab");
        assert_eq!(truncate_utf16("a\u{e9}b", 2), "a\u{e9}");
        // The emoji takes units 2 and 3: with a limit of 2 it is left out whole.
        assert_eq!(truncate_utf16("a\u{1F600}b", 2), "a");
        assert_eq!(truncate_utf16("a\u{1F600}b", 3), "a\u{1F600}");
        assert_eq!(utf16_len("a\u{1F600}"), 3);
    }
}
