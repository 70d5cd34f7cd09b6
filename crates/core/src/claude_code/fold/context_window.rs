//! How many tokens a Claude model's context window holds, for the model ids
//! Claude Code writes into its transcripts (`message.model`).
//!
//! The table follows Claude Code 2.1's own model list: the models it runs
//! with a native 1,000,000-token window, and the older ones whose standard
//! window is 200,000 tokens. A `[1m]` suffix (a model run with the long
//! context) means 1,000,000. Dated ids (`claude-sonnet-4-5-20250929`) are
//! the model they date. Any other model gets [`DEFAULT_CONTEXT_WINDOW`].
//! Callers can override the window of any model id ([`ContextWindows`]).

/// The window of a model this table does not know, in tokens.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 200_000;

/// The window of a model run with the long context, in tokens.
pub const LONG_CONTEXT_WINDOW: u64 = 1_000_000;

/// Model ids (without a date) and their standard window, in tokens.
const KNOWN: [(&str, u64); 21] = [
    ("claude-opus-5-5", LONG_CONTEXT_WINDOW),
    ("claude-opus-5", LONG_CONTEXT_WINDOW),
    ("claude-opus-4-8", LONG_CONTEXT_WINDOW),
    ("claude-opus-4-7", LONG_CONTEXT_WINDOW),
    ("claude-opus-4-6", 200_000),
    ("claude-opus-4-5", 200_000),
    ("claude-opus-4-1", 200_000),
    ("claude-opus-4-0", 200_000),
    ("claude-sonnet-5-5", LONG_CONTEXT_WINDOW),
    ("claude-sonnet-5", LONG_CONTEXT_WINDOW),
    ("claude-sonnet-4-6", 200_000),
    ("claude-sonnet-4-5", 200_000),
    ("claude-sonnet-4-0", 200_000),
    ("claude-haiku-5-5", LONG_CONTEXT_WINDOW),
    ("claude-haiku-4-5", 200_000),
    ("claude-fable-5-2", LONG_CONTEXT_WINDOW),
    ("claude-fable-5-1", LONG_CONTEXT_WINDOW),
    ("claude-fable-5", LONG_CONTEXT_WINDOW),
    ("claude-mythos-5-2", LONG_CONTEXT_WINDOW),
    ("claude-mythos-5-1", LONG_CONTEXT_WINDOW),
    ("claude-mythos-5", LONG_CONTEXT_WINDOW),
];

/// The context window of `model`, in tokens, from the table above.
pub fn context_window(model: &str) -> u64 {
    if model.ends_with("[1m]") {
        return LONG_CONTEXT_WINDOW;
    }
    KNOWN
        .iter()
        .find(|(id, _)| is_model(model, id))
        .map_or(DEFAULT_CONTEXT_WINDOW, |(_, window)| *window)
}

/// Whether `model` is `id` or a dated id of it (`id-YYYYMMDD`); `id` must
/// not be a shorter id of another model (`claude-opus-5` of
/// `claude-opus-5-5`): the date is digits only, eight of them.
pub(super) fn is_model(model: &str, id: &str) -> bool {
    match model.strip_prefix(id) {
        Some("") => true,
        Some(rest) => rest
            .strip_prefix('-')
            .is_some_and(|date| date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit())),
        None => false,
    }
}

/// Context windows of model ids a caller knows better than the table
/// (a new model, a gateway's own ids), in tokens.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextWindows {
    /// `(model id, window)`; the first pair naming a model wins.
    pub overrides: Vec<(String, u64)>,
}

impl ContextWindows {
    /// The window of `model`: the caller's, else the table's.
    pub fn of(&self, model: &str) -> u64 {
        self.overrides
            .iter()
            .find(|(id, window)| id == model && *window > 0)
            .map_or_else(|| context_window(model), |(_, window)| *window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn current_models_have_a_million_and_older_ones_two_hundred_thousand() {
        assert_eq!(context_window("claude-opus-5-5"), 1_000_000);
        assert_eq!(context_window("claude-sonnet-5-5"), 1_000_000);
        assert_eq!(context_window("claude-haiku-5-5"), 1_000_000);
        assert_eq!(context_window("claude-opus-4-6"), 200_000);
        assert_eq!(context_window("claude-sonnet-4-5-20250929"), 200_000);
        assert_eq!(context_window("claude-opus-4-7-20260101"), 1_000_000);
        assert_eq!(context_window("claude-sonnet-4-5[1m]"), 1_000_000);
        assert_eq!(context_window("claude-haiku-4-5"), 200_000);
        // Not a dated id of a known model: the default.
        assert_eq!(context_window("claude-opus-5-9"), DEFAULT_CONTEXT_WINDOW);
        assert_eq!(context_window("claude-opus-5-5x"), DEFAULT_CONTEXT_WINDOW);
        assert_eq!(context_window("gpt-5"), DEFAULT_CONTEXT_WINDOW);
        assert_eq!(context_window(""), DEFAULT_CONTEXT_WINDOW);
    }

    #[test]
    fn a_callers_window_wins_over_the_table() {
        let windows = ContextWindows {
            overrides: vec![
                ("claude-opus-5-5".into(), 500_000),
                ("my-gateway-model".into(), 64_000),
                ("zero".into(), 0),
            ],
        };
        assert_eq!(windows.of("claude-opus-5-5"), 500_000);
        assert_eq!(windows.of("my-gateway-model"), 64_000);
        assert_eq!(windows.of("claude-opus-4-6"), 200_000);
        assert_eq!(windows.of("zero"), DEFAULT_CONTEXT_WINDOW);
    }
}
