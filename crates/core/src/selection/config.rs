//! The selection settings and their defaults (the reference's
//! `DEFAULT_SESSION_SELECTION_CONFIG`).

/// The reference's `SessionSelectionConfig`.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectionConfig {
    /// The model asked to rate relevance.
    pub relevance_model: String,
    /// The caller's number, sent to the model as the reference sends it
    /// (`JSON.stringify`): a value the API refuses gives the offline answer.
    pub relevance_max_tokens: f64,
    /// How long the relevance call may take, in milliseconds.
    pub relevance_timeout_ms: u64,
    /// The score (0–1) from which a session is resumed.
    pub resume_threshold: f64,
    /// Whether a model is asked at all (`false`: offline relevance only).
    pub enabled: bool,
}

/// Default `relevanceModel` (the values of `DEFAULT_SESSION_SELECTION_CONFIG`).
pub const DEFAULT_RELEVANCE_MODEL: &str = "claude-haiku";
/// Default `relevanceMaxTokens`.
pub const DEFAULT_RELEVANCE_MAX_TOKENS: f64 = 500.0;
/// Default `relevanceTimeoutMs`, in milliseconds.
pub const DEFAULT_RELEVANCE_TIMEOUT_MS: u64 = 3000;
/// Default `resumeThreshold`.
pub const DEFAULT_RESUME_THRESHOLD: f64 = 0.6;
/// Default `enabled`: a model is asked unless a caller turns it off.
pub const DEFAULT_RELEVANCE_ENABLED: bool = true;

impl Default for SelectionConfig {
    fn default() -> Self {
        SelectionConfig {
            relevance_model: DEFAULT_RELEVANCE_MODEL.into(),
            relevance_max_tokens: DEFAULT_RELEVANCE_MAX_TOKENS,
            relevance_timeout_ms: DEFAULT_RELEVANCE_TIMEOUT_MS,
            resume_threshold: DEFAULT_RESUME_THRESHOLD,
            enabled: DEFAULT_RELEVANCE_ENABLED,
        }
    }
}
