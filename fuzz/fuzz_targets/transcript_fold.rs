//! The Claude Code transcript fold: never panics; folding in two pieces
//! (as the scan cache does when a file grows) gives what one fold gives, and
//! so does folding the lines one by one, split at their newlines first (the
//! fold reads most lines through their newline instead); appending lines
//! never lowers the line count or the output tokens.
#![no_main]

use libfuzzer_sys::fuzz_target;
use session_intel_core::claude_code::fold::transcript::TranscriptFacts;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    let mut whole = TranscriptFacts::default();
    let used = whole.feed(bytes);
    let _ = whole.with_partial_line(&bytes[used..]);

    let mut by_line = TranscriptFacts::default();
    for line in bytes[..used].split(|&b| b == b'\n') {
        by_line.feed_line(line);
    }
    assert_eq!(by_line, whole);

    let cut = bytes.len() * cut as usize / 255;
    let mut pieces = TranscriptFacts::default();
    let first = pieces.feed(&bytes[..cut]);
    let before = pieces.clone();
    let second = pieces.feed(&bytes[first..]);
    assert_eq!(first + second, used);
    assert_eq!(pieces, whole);

    assert!(before.line_count <= whole.line_count);
    assert!(before.usage.totals().output <= whole.usage.totals().output);
});
