//! Inputs the fuzz targets (`fuzz/`) crashed on, kept so the crash stays
//! fixed. Each file is a fuzz input: keep and truncate-percent bytes, then
//! the transcript.

use session_intel_core::openclaw::strip::strip_tools;
use std::path::Path;

fn input(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/fuzz")
            .join(name),
    )
    .unwrap()
}

/// The cleaner's transform once panicked ("changed lines are JSON") when
/// cleaning its own output of this input again; it must answer, with a
/// result or a coded error.
#[test]
fn the_cleaner_answers_on_the_input_it_once_panicked_on() {
    let data = input("openclaw_strip-changed-unparsed");
    let (keep, percent) = (data[0] as u32 % 6, data[1] as u32 % 101);
    let bytes = &data[2..];
    if let Ok(out) = strip_tools(bytes, keep, percent) {
        let _ = strip_tools(&out.render(bytes), keep, percent);
    }
}

/// Not fixed yet: cleaning the cleaned transcript again still edits it
/// (keep 0 on a real moltbot transcript). The transform must at least read
/// its own output.
#[test]
fn the_cleaned_transcript_can_be_cleaned_again() {
    let data = input("openclaw_strip-cleaning-twice-changes-more");
    let (keep, percent) = (data[0] as u32 % 6, data[1] as u32 % 101);
    let bytes = &data[2..];
    let out = strip_tools(bytes, keep, percent).unwrap();
    strip_tools(&out.render(bytes), keep, percent).unwrap();
}
