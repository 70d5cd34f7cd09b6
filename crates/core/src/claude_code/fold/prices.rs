//! What the Anthropic API charges per token for each Claude model, to
//! estimate what a session cost where Claude Code wrote no accounting of its
//! own (a session run through the ACP adapter has no `cost-state` record).
//!
//! The rates are Anthropic's published list prices in US dollars per
//! million tokens (the "Model pricing" table of
//! <https://platform.claude.com/docs/en/about-claude/pricing>): base input,
//! 5-minute cache writes, cache hits, output. An estimate: prompt-cache
//! writes are priced at the 5-minute rate (a 1-hour write costs more), and
//! neither the long-prompt rates, fast mode, batch discounts nor a
//! provider's own prices (Bedrock, Vertex AI, a gateway) are applied. A
//! model the table does not name has no price.

use super::context_window::is_model;
use super::usage::Usage;

/// One model's prices, in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelPrices {
    /// Base input tokens (`input_tokens`).
    pub input: f64,
    /// Prompt tokens written to the cache (`cache_creation_input_tokens`),
    /// at the 5-minute rate.
    pub cache_write: f64,
    /// Prompt tokens read from the cache (`cache_read_input_tokens`).
    pub cache_read: f64,
    /// Output tokens.
    pub output: f64,
}

const fn p(input: f64, cache_write: f64, cache_read: f64, output: f64) -> ModelPrices {
    ModelPrices {
        input,
        cache_write,
        cache_read,
        output,
    }
}

/// Model ids (without a date) and their prices. An id that is a shorter id
/// of another (`claude-opus-5` of `claude-opus-5-5`) never matches it
/// (see [`is_model`]).
const PRICES: [(&str, ModelPrices); 28] = [
    ("claude-fable-5-2", p(8.0, 10.0, 0.20, 40.0)),
    ("claude-fable-5-1", p(10.0, 12.50, 0.25, 50.0)),
    ("claude-fable-5", p(10.0, 12.50, 1.0, 50.0)),
    ("claude-mythos-5-2", p(8.0, 10.0, 0.20, 40.0)),
    ("claude-mythos-5-1", p(10.0, 12.50, 0.25, 50.0)),
    ("claude-mythos-5", p(10.0, 12.50, 1.0, 50.0)),
    ("claude-opus-5-5", p(4.0, 5.0, 0.20, 20.0)),
    ("claude-opus-5", p(5.0, 6.25, 0.50, 25.0)),
    ("claude-opus-4-8", p(5.0, 6.25, 0.50, 25.0)),
    ("claude-opus-4-7", p(5.0, 6.25, 0.50, 25.0)),
    ("claude-opus-4-6", p(5.0, 6.25, 0.50, 25.0)),
    ("claude-opus-4-5", p(5.0, 6.25, 0.50, 25.0)),
    ("claude-opus-4-1", p(15.0, 18.75, 1.50, 75.0)),
    ("claude-opus-4-0", p(15.0, 18.75, 1.50, 75.0)),
    ("claude-opus-4", p(15.0, 18.75, 1.50, 75.0)),
    ("claude-3-opus", p(15.0, 18.75, 1.50, 75.0)),
    ("claude-sonnet-5-5", p(2.0, 2.50, 0.10, 10.0)),
    ("claude-sonnet-5", p(2.0, 2.50, 0.20, 10.0)),
    ("claude-sonnet-4-6", p(3.0, 3.75, 0.30, 15.0)),
    ("claude-sonnet-4-5", p(3.0, 3.75, 0.30, 15.0)),
    ("claude-sonnet-4-0", p(3.0, 3.75, 0.30, 15.0)),
    ("claude-sonnet-4", p(3.0, 3.75, 0.30, 15.0)),
    ("claude-3-7-sonnet", p(3.0, 3.75, 0.30, 15.0)),
    ("claude-3-5-sonnet", p(3.0, 3.75, 0.30, 15.0)),
    // Prompts of up to 100,000 tokens; longer ones cost five times more.
    ("claude-haiku-5-5", p(0.10, 0.125, 0.01, 0.50)),
    ("claude-haiku-4-5", p(1.0, 1.25, 0.10, 5.0)),
    ("claude-3-5-haiku", p(0.80, 1.0, 0.08, 4.0)),
    ("claude-3-haiku", p(0.25, 0.30, 0.03, 1.25)),
];

/// The prices of `model` (a `[1m]` suffix, the long context, is priced as
/// the model), or `None` for a model the table does not name.
pub fn model_prices(model: &str) -> Option<ModelPrices> {
    let model = model.strip_suffix("[1m]").unwrap_or(model);
    PRICES
        .iter()
        .find(|(id, _)| is_model(model, id))
        .map(|(_, prices)| *prices)
}

/// What `usage` of `model` costs at the list prices, in US dollars
/// (`None` for a model the table does not name).
pub fn estimate_cost(model: &str, usage: Usage) -> Option<f64> {
    let p = model_prices(model)?;
    let dollars = (usage.input as f64 * p.input
        + usage.cache_creation as f64 * p.cache_write
        + usage.cache_read as f64 * p.cache_read
        + usage.output as f64 * p.output)
        / 1e6;
    // Rounded to a billionth of a cent: the products carry noise below it.
    Some((dollars * 1e11).round() / 1e11)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dated_and_long_context_ids_are_their_model_and_unknown_ones_have_no_price() {
        let usage = Usage {
            input: 1_000_000,
            output: 1_000_000,
            cache_creation: 1_000_000,
            cache_read: 1_000_000,
        };
        // A million tokens of each kind: the four prices added up.
        for (model, want) in [
            ("claude-opus-4-6", 5.0 + 6.25 + 0.5 + 25.0),
            ("claude-sonnet-4-5-20250929", 3.0 + 3.75 + 0.3 + 15.0),
            ("claude-opus-5-5[1m]", 4.0 + 5.0 + 0.2 + 20.0),
            ("claude-sonnet-4-20250514", 3.0 + 3.75 + 0.3 + 15.0),
        ] {
            assert_eq!(estimate_cost(model, usage), Some(want), "{model}");
        }
        // A shorter id never prices a longer one.
        assert_eq!(
            model_prices("claude-opus-5-5"),
            Some(p(4.0, 5.0, 0.20, 20.0))
        );
        assert_eq!(model_prices("claude-opus-5-9"), None);
        assert_eq!(estimate_cost("gpt-5", usage), None);
        assert_eq!(estimate_cost("<synthetic>", usage), None);
        assert_eq!(
            estimate_cost("claude-haiku-4-5", Usage::default()),
            Some(0.0)
        );
    }
}
