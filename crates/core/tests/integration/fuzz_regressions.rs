//! Inputs the fuzz targets (`fuzz/`) crashed on, kept so the crash stays
//! fixed. Each file is a fuzz input: keep and truncate-percent bytes, then
//! the transcript.

use session_intel_core::openclaw::strip::{strip_tools, LineEdit, StripOutput};
use std::path::Path;

/// The settings and transcript of a kept fuzz input.
fn input(name: &str) -> (u32, u32, Vec<u8>) {
    let data = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/fuzz")
            .join(name),
    )
    .unwrap();
    (data[0] as u32 % 6, data[1] as u32 % 101, data[2..].to_vec())
}

/// What the `openclaw_strip` target asserts: every rewritten line is JSON,
/// the rendered size is the planned one, and the cleaned transcript can be
/// cleaned again. Returns both plans.
fn clean_twice(name: &str) -> (StripOutput, StripOutput) {
    let (keep, percent, bytes) = input(name);
    let first = strip_tools(&bytes, keep, percent).unwrap();
    for edit in &first.edits {
        if let LineEdit::Replace(json) = edit {
            serde_json::from_slice::<serde_json::Value>(json).expect("a rewritten line is JSON");
        }
    }
    let cleaned = first.render(&bytes);
    assert_eq!(cleaned.len() as u64, first.size_after);
    let second = strip_tools(&cleaned, keep, percent).expect("the cleaned transcript reads");
    assert!(
        !second.changes_anything(),
        "cleaning twice with the same settings changes nothing"
    );
    (first, second)
}

/// The cleaner's transform once panicked ("changed lines are JSON") when
/// cleaning its own output of this input again.
#[test]
fn the_cleaner_answers_on_the_input_it_once_panicked_on() {
    clean_twice("openclaw_strip-changed-unparsed");
}

/// A tool-call message whose only flaw is invalid UTF-8 inside a string was
/// deleted after a lenient check, then had to be brought back as the last
/// assistant message, which needs it parsed: "line 3 was changed unparsed".
/// A line is now deleted only when it parses as it would be edited.
#[test]
fn a_deleted_line_can_always_be_brought_back_as_the_last_assistant_message() {
    let (_, second) = clean_twice("openclaw_strip-deleted-line-that-does-not-parse");
    assert!(
        !second.changes_anything(),
        "the line that does not parse is left as it is"
    );
}

/// A message with two `content` keys: the selective reading (first key)
/// saw no tool call, the parse (last key, as `JSON.parse`) removed one, and
/// the preserved count underflowed.
#[test]
fn a_duplicate_content_key_does_not_underflow_the_counts() {
    let (first, _) = clean_twice("openclaw_strip-duplicate-content-key");
    let s = &first.stats;
    assert_eq!(
        (
            s.tool_calls_original,
            s.tool_calls_removed,
            s.tool_calls_preserved
        ),
        (1, 2, 0)
    );
}

/// Cleaning the cleaned transcript again once edited it more (keep 0 on a
/// real moltbot transcript): a compaction whose `parentId` names no entry
/// hangs, as OpenClaw reads it, on the entry before it, which the edit
/// deleted. That parent is now written out, re-linked.
#[test]
fn the_cleaned_transcript_can_be_cleaned_again() {
    clean_twice("openclaw_strip-cleaning-twice-changes-more");
}

/// Mutated transcripts where the first edit had to keep entries to leave
/// OpenClaw's path as it was (an unreadable line hanging on one, a leaf
/// whose deletion moved the branch): keeping the leaf along with the
/// entries an unreadable line hangs on, when only the latter was needed,
/// kept more than a second edit then kept, and it deleted the rest.
#[test]
fn only_what_has_to_be_kept_is_kept() {
    clean_twice("openclaw_strip-pins-only-what-the-second-edit-pins");
    clean_twice("openclaw_strip-pins-only-what-the-second-edit-pins-2");
}

/// Found once every input was checked for idempotence: the only assistant
/// message left by a first edit holds invalid UTF-8 in a string, which
/// OpenClaw reads as text (replaced) but a strict parse refused, so the
/// second edit could not keep it as a note and failed where the first had
/// succeeded. Lines are now parsed as OpenClaw reads them.
#[test]
fn a_line_with_invalid_utf8_in_a_string_parses_as_openclaw_reads_it() {
    clean_twice("openclaw_strip-invalid-utf8-only-assistant-left");
}
