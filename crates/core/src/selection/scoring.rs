//! The five-factor score of a candidate session (reference
//! `session-selection.ts` @ 645e0c6c, with its constants).

use super::candidate::{Candidate, Relevance};
use chrono::{DateTime, Utc};

/// 3 or more compactions: the context is too degraded to resume.
pub const HARD_CEILING_COMPACTIONS: f64 = 3.0;
/// 70 % or more of the budget used: too little left to resume.
pub const HARD_CEILING_BUDGET_PCT: f64 = 0.7;
/// A conversation longer than this many messages is large: with an
/// unrelated task, it is not resumed.
pub const LARGE_CONVERSATION: f64 = 200.0;
/// A conversation longer than this many messages is unhealthy.
pub const VERY_LARGE_CONVERSATION: f64 = 500.0;
/// Tokens per message above the context window divided by this (4,000 of
/// a 200,000-token window) lower the context capacity.
pub const DENSE_MESSAGES_PER_WINDOW: f64 = 50.0;

/// The five factors (their sum, floored at 0, is the score).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ScoreFactors {
    /// 0.25 when the session is on the current branch, else 0.
    pub branch_match: f64,
    /// 0.20 under an hour old, down to 0 at a week.
    pub recency: f64,
    /// 0.25 from relevance 0.6; 0.10–0.25 from 0.3; 0 from 0.1; -0.15 below.
    pub task_relevance: f64,
    /// 0–0.15: less for over 500 messages, over 5 MB, over a week old.
    pub session_health: f64,
    /// 0–0.15: less for compactions, budget used over 30 %, and over 4000
    /// tokens per message.
    pub context_capacity: f64,
}

/// A candidate's score and what it recommends.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionScore {
    /// The session scored.
    pub session_id: String,
    /// The sum of the factors, floored at 0 (0 when a hard ceiling applies).
    pub score: f64,
    /// The five factors (all 0 when a hard ceiling applies).
    pub factors: ScoreFactors,
    /// `resume` when `score` reaches the caller's threshold, else `fresh`.
    pub recommendation: &'static str,
    /// The reference's human-readable explanation, e.g. `Resume (score: 0.72) —
    /// same branch, …`.
    pub reason: String,
}

/// `budgetUsedPct`, or `totalCostUsd / maxBudgetUsd` when both are known.
pub fn budget_used(c: &Candidate, max_budget_usd: Option<f64>) -> Option<f64> {
    c.budget_used_pct
        .or_else(|| match (c.total_cost_usd, max_budget_usd) {
            (Some(cost), Some(max)) if max > 0.0 => Some(cost / max),
            _ => None,
        })
}

fn pct(p: f64) -> String {
    format!("{:.0}", p * 100.0)
}

/// Scores `c` for a task on `current_branch` with relevance `rel`, at `now`.
pub fn score_session(
    c: &Candidate,
    current_branch: &str,
    rel: &Relevance,
    max_budget_usd: Option<f64>,
    threshold: f64,
    now: DateTime<Utc>,
) -> SessionScore {
    let budget = budget_used(c, max_budget_usd);
    let ceiling = |reason: String| SessionScore {
        session_id: c.session_id.clone(),
        score: 0.0,
        factors: ScoreFactors::default(),
        recommendation: "fresh",
        reason,
    };
    if c.compaction_count >= HARD_CEILING_COMPACTIONS {
        return ceiling(format!(
            "Force fresh \u{2014} session compacted {} times (context too degraded)",
            c.compaction_count
        ));
    }
    if let Some(b) = budget.filter(|b| *b >= HARD_CEILING_BUDGET_PCT) {
        return ceiling(format!(
            "Force fresh \u{2014} session used {}% of budget",
            pct(b)
        ));
    }
    let length = c.conversation_length();
    if rel.relevance < 0.1 && length > LARGE_CONVERSATION {
        return ceiling(format!(
            "Force fresh \u{2014} unrelated task ({}) + large session ({} messages)",
            rel.reasoning, length
        ));
    }

    let age_hours = (now - c.last_modified).num_milliseconds() as f64 / 3_600_000.0;
    let mut f = ScoreFactors {
        branch_match: if c.branch == current_branch {
            0.25
        } else {
            0.0
        },
        ..ScoreFactors::default()
    };
    f.recency = match age_hours {
        a if a < 1.0 => 0.2,
        a if a < 6.0 => 0.16,
        a if a < 24.0 => 0.12,
        a if a < 72.0 => 0.08,
        a if a < 168.0 => 0.04,
        _ => 0.0,
    };
    f.task_relevance = match rel.relevance {
        r if r >= 0.6 => 0.25,
        r if r >= 0.3 => 0.1 + (r - 0.3) * 0.5,
        r if r >= 0.1 => 0.0,
        _ => -0.15,
    };
    let mut health: f64 = 0.15;
    if length > VERY_LARGE_CONVERSATION {
        health -= 0.07;
    }
    if c.file_size_bytes > 5_000_000.0 {
        health -= 0.04;
    }
    if age_hours > 168.0 {
        health -= 0.04;
    }
    f.session_health = health.max(0.0);
    let mut capacity: f64 = 0.15;
    if c.compaction_count == 1.0 {
        capacity -= 0.04;
    } else if c.compaction_count == 2.0 {
        capacity -= 0.09;
    }
    match budget {
        Some(b) if b > 0.5 => capacity -= 0.04,
        Some(b) if b > 0.3 => capacity -= 0.02,
        _ => {}
    }
    let total_tokens = c.total_input_tokens + c.total_output_tokens;
    let per_message = if length > 0.0 {
        total_tokens / length
    } else {
        0.0
    };
    if per_message > c.context_window() / DENSE_MESSAGES_PER_WINDOW {
        capacity -= 0.03;
    }
    f.context_capacity = capacity.max(0.0);

    let score =
        (f.branch_match + f.recency + f.task_relevance + f.session_health + f.context_capacity)
            .max(0.0);
    SessionScore {
        session_id: c.session_id.clone(),
        score,
        factors: f,
        recommendation: if score >= threshold {
            "resume"
        } else {
            "fresh"
        },
        reason: reason(&f, score, c, budget, rel, threshold),
    }
}

/// The reference's human-readable explanation.
fn reason(
    f: &ScoreFactors,
    score: f64,
    c: &Candidate,
    budget: Option<f64>,
    rel: &Relevance,
    threshold: f64,
) -> String {
    let mut parts: Vec<String> = Vec::new();
    if f.branch_match > 0.0 {
        parts.push("same branch".into());
    }
    if f.recency >= 0.16 {
        parts.push("recent".into());
    } else if f.recency == 0.0 {
        parts.push("stale (>1 week)".into());
    }
    if f.task_relevance >= 0.15 {
        parts.push(format!("related: {}", rel.reasoning));
    } else if f.task_relevance < 0.0 {
        parts.push(format!("unrelated: {}", rel.reasoning));
    }
    if f.session_health < 0.08 {
        parts.push("large/unhealthy session".into());
    }
    if f.context_capacity < 0.08 {
        parts.push("low context capacity".into());
    }
    if c.compaction_count > 0.0 {
        parts.push(format!("{}x compacted", c.compaction_count));
    }
    if let Some(b) = budget.filter(|b| *b > 0.3) {
        parts.push(format!("{}% budget used", pct(b)));
    }
    let action = if score >= threshold {
        "Resume"
    } else {
        "Start fresh"
    };
    let signals = if parts.is_empty() {
        "no strong signals".to_owned()
    } else {
        parts.join(", ")
    };
    format!("{action} (score: {score:.2}) \u{2014} {signals}")
}
