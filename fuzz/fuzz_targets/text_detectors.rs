//! Pane-state detection, pattern detection, recent-message extraction and
//! the derived handoff summary on arbitrary text: never panic, and clipping
//! keeps its bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use session_intel_core::handoff::messages::recent_messages;
use session_intel_core::handoff::patterns::{clip_chars, detect_patterns, is_chatter, sentences};
use session_intel_core::handoff::summary::derive_summary;
use session_intel_core::hooks::pane::detect_pane_state;

fuzz_target!(|data: &[u8]| {
    let Some((&max, bytes)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(bytes);
    let _ = detect_pane_state(&text);
    let _ = detect_patterns(&text);
    for s in sentences(&text) {
        let _ = is_chatter(s);
    }
    let clipped = clip_chars(&text, max as usize);
    assert!(clipped.chars().count() <= max as usize + 1);
    let recent = recent_messages(bytes, max as usize % 20);
    assert!(recent.transcript_bytes <= bytes.len() as u64);
    let _ = derive_summary(&recent.messages, &[]);
});
