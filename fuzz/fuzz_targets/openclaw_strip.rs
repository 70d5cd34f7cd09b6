//! The OpenClaw context cleaner's transform: never panics; every line it
//! writes anew is JSON; the rendered size is the planned one; the
//! transcript it leaves can be cleaned again, and cleaning it again with
//! the same settings changes nothing, whatever the input (lines OpenClaw
//! would skip, flawed deep inside included, are left as they are).
#![no_main]

use libfuzzer_sys::fuzz_target;
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
    let again = strip_tools(&cleaned, keep, percent).expect("the cleaned transcript reads");
    assert!(
        !again.changes_anything(),
        "cleaning twice with the same settings changes nothing"
    );
});
