//! Resume or start fresh (`selectSession`): the reference's decision order
//! and five-factor score, with relevance from one batched model call (the
//! host's, or the Anthropic API) and an offline fallback that never fails.

pub mod anthropic;
pub mod relevance;
pub mod scoring;

use crate::claude_code::layout::paths::resolve_lexically;
use crate::claude_code::layout::session_files::find_transcript;
use crate::claude_code::records::registry::{registry_key, Registry};
use crate::error::Result;
use chrono::{DateTime, Utc};
use relevance::{assess_task_relevance, RelevanceSource};
use scoring::{score_session, SessionScore};
use std::path::Path;

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

/// What to do.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSelection {
    /// `resume` the session, start `fresh`, or `queue` behind a session running
    /// in the repository.
    pub action: &'static str,
    /// The session to resume; absent unless `action` is `resume`.
    pub session_id: Option<String>,
    /// Why, in the reference's words.
    pub reason: String,
    /// Every candidate's score, best first; absent when no scoring was done (a
    /// label, a running session, no own sessions).
    pub scores: Option<Vec<SessionScore>>,
}

/// Everything `selectSession` decides from.
#[derive(Debug, Clone)]
pub struct SelectionRequest {
    /// The new task.
    pub task: String,
    /// The repository path (labelled sessions are looked up under it).
    pub repo_path: String,
    /// The agent asking; only its own sessions are candidates.
    pub agent_id: String,
    /// The repository's current branch.
    pub current_branch: String,
    /// Sessions running in the repository now.
    pub active_count: usize,
    /// The briefing's recent sessions (newest first).
    pub recent: Vec<Candidate>,
    /// Look up the session of this label directly, without scoring.
    pub label: Option<String>,
    /// The agent's budget in USD, for the budget share of a session.
    pub max_budget_usd: Option<f64>,
    /// The selection settings.
    pub config: SelectionConfig,
}

/// `resolveSession`: the labelled (or default) session OpenClaw resumes in
/// `repo_path`, if its transcript still exists. A missing transcript does not
/// delete the entry.
pub fn resolve_session(
    registry: &Registry,
    claude_dir: &Path,
    agent_id: &str,
    repo_path: &str,
    label: Option<&str>,
) -> Result<Option<String>> {
    let key = registry_key(repo_path, label);
    let repo = resolve_lexically(repo_path);
    Ok(registry
        .get(agent_id, &key)?
        .filter(|e| find_transcript(claude_dir, &repo, &e.session_id).is_some())
        .map(|e| e.session_id))
}

/// Decides between resuming, starting fresh and queueing, in the
/// reference's order: a label is looked up directly; a running session
/// queues; without the agent's own recent sessions it is fresh; otherwise
/// every own session is scored (one relevance call for all) and the best
/// resumes when it reaches the threshold.
pub async fn select_session(
    req: &SelectionRequest,
    registry: &Registry,
    claude_dir: &Path,
    source: Option<&dyn RelevanceSource>,
    now: DateTime<Utc>,
) -> Result<SessionSelection> {
    if let Some(label) = req.label.as_deref().filter(|l| !l.is_empty()) {
        return Ok(
            match resolve_session(
                registry,
                claude_dir,
                &req.agent_id,
                &req.repo_path,
                Some(label),
            )? {
                Some(id) => SessionSelection {
                    action: "resume",
                    session_id: Some(id),
                    reason: format!("Labeled session \"{label}\""),
                    scores: None,
                },
                None => SessionSelection {
                    action: "fresh",
                    session_id: None,
                    reason: format!("New labeled session \"{label}\""),
                    scores: None,
                },
            },
        );
    }
    if req.active_count > 0 {
        return Ok(SessionSelection {
            action: "queue",
            session_id: None,
            reason: "Active session running on this repo".into(),
            scores: None,
        });
    }
    let own: Vec<Candidate> = req
        .recent
        .iter()
        .filter(|c| c.agent_id.as_deref() == Some(req.agent_id.as_str()))
        .cloned()
        .collect();
    if own.is_empty() {
        return Ok(SessionSelection {
            action: "fresh",
            session_id: None,
            reason: "No previous sessions found".into(),
            scores: None,
        });
    }
    let relevances = assess_task_relevance(&req.task, &own, &req.config, source).await;
    let threshold = req.config.resume_threshold;
    let mut scores: Vec<SessionScore> = own
        .iter()
        .zip(&relevances)
        .map(|(c, r)| {
            score_session(
                c,
                &req.current_branch,
                r,
                req.max_budget_usd,
                threshold,
                now,
            )
        })
        .collect();
    scores.sort_by(|a, b| b.score.total_cmp(&a.score));
    let best = &scores[0];
    Ok(if best.score >= threshold {
        SessionSelection {
            action: "resume",
            session_id: Some(best.session_id.clone()),
            reason: best.reason.clone(),
            scores: Some(scores),
        }
    } else {
        SessionSelection {
            action: "fresh",
            session_id: None,
            reason: best.reason.clone(),
            scores: Some(scores),
        }
    })
}
