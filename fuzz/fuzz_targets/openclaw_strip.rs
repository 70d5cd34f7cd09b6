//! The OpenClaw context cleaner's transform: never panics; every line it
//! writes anew is JSON; the rendered size is the planned one. On a
//! transcript whose lines are all valid JSON (what OpenClaw writes), the
//! transcript it leaves can be cleaned again, and cleaning it again with
//! the same settings changes nothing. A line flawed deep inside is read
//! only as far as its top level (validating every line would cost the edit
//! a fifth of its time), so on such input a second edit may still answer
//! with a coded error or edit more.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::de::IgnoredAny;
use session_intel_core::openclaw::strip::{strip_tools, LineEdit};

fuzz_target!(|data: &[u8]| {
    let [keep, percent, bytes @ ..] = data else {
        return;
    };
    let (keep, percent) = (*keep as u32 % 6, *percent as u32 % 101);
    let Ok(out) = strip_tools(bytes, keep, percent) else {
        return;
    };
    for edit in &out.edits {
        if let LineEdit::Replace(json) = edit {
            serde_json::from_slice::<serde_json::Value>(json).expect("a rewritten line is JSON");
        }
    }
    let cleaned = out.render(bytes);
    assert_eq!(cleaned.len() as u64, out.size_after);
    let again = strip_tools(&cleaned, keep, percent);
    let valid_json = |line: &&[u8]| serde_json::from_slice::<IgnoredAny>(line).is_ok();
    let mut lines = bytes.split(|&b| b == b'\n');
    let last = lines.next_back().filter(|l| !l.is_empty());
    if lines.all(|l| valid_json(&l)) && last.is_none_or(|l| valid_json(&l)) {
        let again = again.expect("the cleaned transcript reads");
        assert!(
            !again.changes_anything(),
            "cleaning twice with the same settings changes nothing"
        );
    }
});
