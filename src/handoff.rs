//! Session handoff (seed 003): pattern detection.

use napi_derive::napi;
use session_intel_core::handoff::patterns;

/// A blocker, decision, insight or accomplishment found in a message.
#[napi(object)]
pub struct DetectedPattern {
    #[napi(
        js_name = "type",
        ts_type = "\"blocker\" | \"decision\" | \"insight\" | \"accomplishment\""
    )]
    pub kind: String,
    /// 0.5 (a weak phrase or a question) to 0.9 (an explicit phrase).
    pub confidence: f64,
    /// The sentence that showed it, at most 200 characters.
    pub content: String,
}

/// The patterns of one message, at most one per type; none for greetings,
/// thanks and casual chatter.
#[napi(catch_unwind)]
pub fn detect_patterns(text: String) -> Vec<DetectedPattern> {
    patterns::detect_patterns(&text)
        .into_iter()
        .map(|p| DetectedPattern {
            kind: p.kind.as_str().to_string(),
            confidence: p.confidence,
            content: p.content,
        })
        .collect()
}
