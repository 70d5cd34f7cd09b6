//! What the decision reads of a session that may be resumed, and how
//! relevant it is to the task.

use chrono::{DateTime, Utc};

/// A session that may be resumed (the fields of a discovered session the
/// decision reads).
#[derive(Debug, Clone, Default)]
pub struct Candidate {
    /// Claude Code's session id (the transcript's file name without `.jsonl`).
    pub session_id: String,
    /// The OpenClaw agent whose registry lists the session; absent for
    /// `native-only` sessions.
    pub agent_id: Option<String>,
    /// Git branch the session is on (its last main-chain line), or "unknown".
    /// The reference reads the first line's branch instead.
    pub branch: String,
    /// First real prompt, at most 200 UTF-16 units, or "(no message)".
    pub first_message: String,
    /// The last task of the registry's task history; absent for `native-only`
    /// sessions and for a registry entry without tasks.
    pub last_task: Option<String>,
    /// The last real prompt, at most 200 UTF-16 units; absent when there is
    /// none. Left out: the project status payload's `lastTask` falls back to
    /// `firstMessage`.
    pub last_user_message: Option<String>,
    /// Custom title, else generated title, else summary title, else first
    /// prompt, else the first 8 characters of the session id. Left out:
    /// selection's offline relevance reads the other texts.
    pub title: Option<String>,
    /// Files the session's tool calls named, most recent last (at most 64).
    /// Left out: none.
    pub files_touched: Vec<String>,
    /// The transcript's modification time; for a registry session, the later of
    /// that and the registry's `lastResumedAt`; the epoch when neither is
    /// known.
    pub last_modified: DateTime<Utc>,
    /// Non-blank lines of the main transcript (the reference's measure); 0 when
    /// it was not found.
    pub message_count: f64,
    /// Size of the main transcript in bytes; 0 when it was not found.
    pub file_size_bytes: f64,
    /// `compact_boundary` records of the main chain (automatic and manual
    /// compactions).
    pub compaction_count: f64,
    /// Never set by discovery (as in the reference); `selectSession` reads it
    /// as `totalCostUsd / maxBudgetUsd`, 0–1, when a caller sets it.
    pub budget_used_pct: Option<f64>,
    /// US dollars. A session OpenClaw spawned: what its registry recorded. Any
    /// other: the CLI's own figure from its last `cost-state` (for a fork,
    /// beyond what it inherited); absent where the transcript has none, or
    /// where the CLI had no price for a model it used.
    pub total_cost_usd: Option<f64>,
    /// Input tokens the API billed under the session's id: the CLI's own
    /// accounting (its last `cost-state`: compaction calls and subagents
    /// included; for a fork, beyond what it inherited) where the transcript has
    /// it, else its responses deduplicated (subagents included, a fork's copied
    /// responses not).
    pub total_input_tokens: f64,
    /// Output tokens, counted as `totalInputTokens` (largest count per response
    /// where read from the responses).
    pub total_output_tokens: f64,
    /// Prompts a person or host typed on the main conversation: not the prompts
    /// the CLI generated (task notifications, compaction summaries, meta lines,
    /// local commands and their output); a fork's copied history included. Left
    /// out (or `responseCount` left out): selection reads the conversation's
    /// length from `messageCount`, as the reference did.
    pub prompt_count: Option<f64>,
    /// API responses of the main conversation, each counted once however many
    /// transcript lines it spans; a fork's copied history included, compaction
    /// calls and subagents' responses not. Left out: see `promptCount`.
    pub response_count: Option<f64>,
    /// Tokens the context window of the session's model holds (the model of its
    /// last main-chain response): 1000000 for today's models such as
    /// `claude-opus-5-5`, 200000 for older ones and unknown ids, or as the
    /// `contextWindows` option says. Absent before the first response. Left
    /// out: 200000.
    pub context_window: Option<f64>,
}

impl Candidate {
    /// How long the conversation is, in messages: its prompts and
    /// responses where discovery counted them, else the reference's
    /// `messageCount` (a line count, which Claude Code 2.1 pads with
    /// bookkeeping lines).
    pub fn conversation_length(&self) -> f64 {
        match (self.prompt_count, self.response_count) {
            (Some(prompts), Some(responses)) => prompts + responses,
            _ => self.message_count,
        }
    }

    /// The context window of the session's model, in tokens: 200,000
    /// where it is not known.
    pub fn context_window(&self) -> f64 {
        self.context_window
            .filter(|w| w.is_finite() && *w > 0.0)
            .unwrap_or(crate::claude_code::fold::context_window::DEFAULT_CONTEXT_WINDOW as f64)
    }
}

impl From<&crate::claude_code::DiscoveredSession> for Candidate {
    fn from(s: &crate::claude_code::DiscoveredSession) -> Self {
        Candidate {
            session_id: s.session_id.clone(),
            agent_id: s.agent_id.clone(),
            branch: s.branch.clone(),
            first_message: s.first_message.clone(),
            last_task: s.last_task.clone(),
            last_user_message: s.last_user_message.clone(),
            title: Some(s.title.clone()),
            files_touched: s.files_touched.clone(),
            last_modified: s.last_modified,
            message_count: s.message_count as f64,
            file_size_bytes: s.file_size_bytes as f64,
            compaction_count: f64::from(s.compaction_count),
            budget_used_pct: s.budget_used_pct,
            total_cost_usd: s.total_cost_usd,
            total_input_tokens: s.tokens.input as f64,
            total_output_tokens: s.tokens.output as f64,
            prompt_count: Some(s.prompt_count as f64),
            response_count: Some(s.response_count as f64),
            context_window: s.context_window.map(|w| w as f64),
        }
    }
}

/// How relevant a session is to the task (0..1).
#[derive(Debug, Clone, PartialEq)]
pub struct Relevance {
    /// The session rated.
    pub session_id: String,
    /// 0 (unrelated) to 1 (the same work), clamped.
    pub relevance: f64,
    /// One line on why: the model's words, or the offline fallback's counts.
    pub reasoning: String,
}
