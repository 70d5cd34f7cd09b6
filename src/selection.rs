//! The `session-selection.ts` drop-in: resume or fresh.

use crate::callback::{call_host, HostCallback};
use crate::claude_code::DiscoveredSessionInput;
use crate::error::coded_error;
use crate::project_status::ProjectStatusInput;
use chrono::Utc;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core::claude_code::layout::paths;
use session_intel_core::claude_code::records::registry::Registry;
use session_intel_core::openclaw::state_dir::resolve_state_dir;
use session_intel_core::selection::{self as sel, anthropic::AnthropicApi, relevance, scoring};
use std::future::Future;
use std::pin::Pin;

/// The reference's selection settings (`SessionSelectionConfig`).
#[napi(object, object_from_js = false)]
pub struct SessionSelectionConfig {
    /// The model asked to rate relevance.
    pub relevance_model: &'static str,
    /// The most tokens the relevance answer may take.
    pub relevance_max_tokens: f64,
    /// How long the relevance call may take, in milliseconds, before the
    /// offline fallback answers.
    pub relevance_timeout_ms: u32,
    /// The score (0–1) from which a session is resumed.
    pub resume_threshold: f64,
    /// Whether relevance is asked of a model at all (`false`: offline only).
    pub enabled: bool,
}

/// The defaults: `claude-haiku`, 500 tokens, 3000 ms, threshold 0.6, enabled.
#[napi]
pub const DEFAULT_SESSION_SELECTION_CONFIG: SessionSelectionConfig = SessionSelectionConfig {
    relevance_model: sel::DEFAULT_RELEVANCE_MODEL,
    relevance_max_tokens: sel::DEFAULT_RELEVANCE_MAX_TOKENS,
    relevance_timeout_ms: sel::DEFAULT_RELEVANCE_TIMEOUT_MS as u32,
    resume_threshold: sel::DEFAULT_RESUME_THRESHOLD,
    enabled: sel::DEFAULT_RELEVANCE_ENABLED,
};

/// What the host's relevance callback is asked.
#[napi(object)]
pub struct RelevancePrompt {
    /// The whole prompt: the task, the numbered sessions and the JSON answer
    /// expected (`[{"index", "relevance", "reasoning"}]`).
    pub prompt: String,
    /// The resolved model id.
    pub model: String,
    /// The caller's `relevanceMaxTokens`, as given.
    pub max_tokens: f64,
    /// How long the answer may take, in milliseconds; a later answer is
    /// ignored and the offline fallback used.
    pub timeout_ms: u32,
}

type RelevanceCallback = HostCallback<RelevancePrompt, String>;

/// Selection settings, all optional, plus the host's relevance callback.
#[napi(object, object_to_js = false)]
pub struct SessionSelectionOptions {
    /// The model asked to rate relevance (default `claude-haiku`).
    pub relevance_model: Option<String>,
    /// Sent to the model as given (a value it refuses gives the offline
    /// answer, as in the reference).
    pub relevance_max_tokens: Option<f64>,
    /// How long the relevance call may take, in milliseconds (default
    /// 3000). Read as Node's `setTimeout` reads a delay (below 1 ms: 1 ms).
    pub relevance_timeout_ms: Option<f64>,
    /// The score (0–1) from which a session is resumed (default 0.6).
    pub resume_threshold: Option<f64>,
    /// `false`: offline relevance only.
    pub enabled: Option<bool>,
    /// The host's own model call: takes the prompt, resolves to the model's
    /// text. Without it the Anthropic API is called (`ANTHROPIC_API_KEY`,
    /// `ANTHROPIC_BASE_URL`); without a key, offline relevance is used.
    #[napi(ts_type = "(request: RelevancePrompt) => Promise<string>")]
    pub relevance_callback: Option<RelevanceCallback>,
}

/// How relevant a session is to the task.
#[napi(object)]
pub struct TaskRelevanceResult {
    /// The session rated.
    pub session_id: String,
    /// 0 (unrelated) to 1 (the same work), clamped.
    pub relevance: f64,
    /// One line on why: the model's words, or the offline fallback's counts.
    pub reasoning: String,
}

impl From<sel::Relevance> for TaskRelevanceResult {
    fn from(r: sel::Relevance) -> Self {
        TaskRelevanceResult {
            session_id: r.session_id,
            relevance: r.relevance,
            reasoning: r.reasoning,
        }
    }
}

impl From<TaskRelevanceResult> for sel::Relevance {
    fn from(r: TaskRelevanceResult) -> Self {
        sel::Relevance {
            session_id: r.session_id,
            relevance: r.relevance,
            reasoning: r.reasoning,
        }
    }
}

/// The five factors of a score (the reference's `ScoreFactors`); all 0
/// when a hard ceiling forced a fresh start.
#[napi(object)]
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

impl From<scoring::ScoreFactors> for ScoreFactors {
    fn from(f: scoring::ScoreFactors) -> Self {
        ScoreFactors {
            branch_match: f.branch_match,
            recency: f.recency,
            task_relevance: f.task_relevance,
            session_health: f.session_health,
            context_capacity: f.context_capacity,
        }
    }
}

/// A candidate's score.
#[napi(object)]
pub struct SessionScore {
    /// The session scored.
    pub session_id: String,
    /// The sum of the factors, floored at 0 (0 when a hard ceiling applies).
    pub score: f64,
    /// The five factors (all 0 when a hard ceiling applies).
    pub factors: ScoreFactors,
    /// `resume` when `score` reaches the caller's threshold, else `fresh`.
    #[napi(ts_type = "\"resume\" | \"fresh\"")]
    pub recommendation: String,
    /// The reference's human-readable explanation, e.g. `Resume (score: 0.72) —
    /// same branch, …`.
    pub reason: String,
}

impl From<scoring::SessionScore> for SessionScore {
    fn from(s: scoring::SessionScore) -> Self {
        SessionScore {
            session_id: s.session_id,
            score: s.score,
            factors: s.factors.into(),
            recommendation: s.recommendation.into(),
            reason: s.reason,
        }
    }
}

/// What to do about a new task.
#[napi(object)]
pub struct SessionSelection {
    /// `resume` the session, start `fresh`, or `queue` behind a session running
    /// in the repository.
    #[napi(ts_type = "\"resume\" | \"fresh\" | \"queue\"")]
    pub action: String,
    /// The session to resume; absent unless `action` is `resume`.
    pub session_id: Option<String>,
    /// Why, in the reference's words.
    pub reason: String,
    /// Every candidate's score, best first; absent when no scoring was done (a
    /// label, a running session, no own sessions).
    pub scores: Option<Vec<SessionScore>>,
}

impl From<sel::SessionSelection> for SessionSelection {
    fn from(s: sel::SessionSelection) -> Self {
        SessionSelection {
            action: s.action.into(),
            session_id: s.session_id,
            reason: s.reason,
            scores: s.scores.map(|v| v.into_iter().map(Into::into).collect()),
        }
    }
}

impl From<DiscoveredSessionInput> for sel::Candidate {
    fn from(s: DiscoveredSessionInput) -> Self {
        sel::Candidate {
            session_id: s.session_id,
            agent_id: s.agent_id,
            branch: s.branch,
            first_message: s.first_message,
            last_task: s.last_task,
            last_user_message: s.last_user_message,
            title: s.title,
            files_touched: s.files_touched.unwrap_or_default(),
            last_modified: s.last_modified,
            message_count: s.message_count,
            file_size_bytes: s.file_size_bytes.unwrap_or_default(),
            compaction_count: s.compaction_count.unwrap_or_default(),
            budget_used_pct: s.budget_used_pct,
            total_cost_usd: s.total_cost_usd,
            total_input_tokens: s.total_input_tokens.unwrap_or_default(),
            total_output_tokens: s.total_output_tokens.unwrap_or_default(),
            prompt_count: s.prompt_count,
            response_count: s.response_count,
            context_window: s.context_window,
        }
    }
}

/// The host's callback as a relevance source.
struct HostRelevance(RelevanceCallback);

impl relevance::RelevanceSource for HostRelevance {
    fn complete(
        &self,
        r: relevance::RelevanceRequest,
    ) -> Pin<Box<dyn Future<Output = std::result::Result<String, String>> + Send + '_>> {
        Box::pin(async move {
            let arg = RelevancePrompt {
                prompt: r.prompt,
                model: r.model,
                max_tokens: r.max_tokens,
                timeout_ms: r.timeout_ms as u32,
            };
            call_host(&self.0, arg).await
        })
    }
}

/// Settings and relevance source from the caller's options.
fn settings(
    options: Option<SessionSelectionOptions>,
) -> (
    sel::SelectionConfig,
    Option<Box<dyn relevance::RelevanceSource>>,
) {
    let d = sel::SelectionConfig::default();
    let Some(o) = options else {
        return (
            d,
            AnthropicApi::from_env().map(|a| Box::new(a) as Box<dyn relevance::RelevanceSource>),
        );
    };
    let config = sel::SelectionConfig {
        relevance_model: o.relevance_model.unwrap_or(d.relevance_model),
        relevance_max_tokens: o.relevance_max_tokens.unwrap_or(d.relevance_max_tokens),
        relevance_timeout_ms: o
            .relevance_timeout_ms
            .map_or(d.relevance_timeout_ms, session_intel_core::timer_ms),
        resume_threshold: o.resume_threshold.unwrap_or(d.resume_threshold),
        enabled: o.enabled.unwrap_or(d.enabled),
    };
    let source: Option<Box<dyn relevance::RelevanceSource>> = match o.relevance_callback {
        Some(cb) => Some(Box::new(HostRelevance(cb))),
        None => {
            AnthropicApi::from_env().map(|a| Box::new(a) as Box<dyn relevance::RelevanceSource>)
        }
    };
    (config, source)
}

/// The reference's `keywordFallback`: keyword Jaccard, doubled, at most 1.
#[napi(
    catch_unwind,
    ts_args_type = "task: string, session: DiscoveredSessionInput"
)]
pub fn keyword_fallback(task: String, session: DiscoveredSessionInput) -> TaskRelevanceResult {
    relevance::keyword_fallback(&task, &session.into()).into()
}

/// Scores one session for a task (the reference's five factors). The
/// optional `resumeThreshold` (default 0.6) decides the recommendation.
#[napi(catch_unwind)]
pub fn score_session(
    session: DiscoveredSessionInput,
    task: String,
    current_branch: String,
    relevance: TaskRelevanceResult,
    max_budget_usd: Option<f64>,
    resume_threshold: Option<f64>,
) -> SessionScore {
    let _ = task; // the reference takes it and does not use it either
    scoring::score_session(
        &session.into(),
        &current_branch,
        &relevance.into(),
        max_budget_usd,
        resume_threshold.unwrap_or(sel::DEFAULT_RESUME_THRESHOLD),
        Utc::now(),
    )
    .into()
}

/// Relevance of every session to the task in one model call, bounded by
/// `relevanceTimeoutMs`, with the offline fallback for anything that fails.
/// Never rejects.
#[napi(catch_unwind, ts_return_type = "Promise<Array<TaskRelevanceResult>>")]
pub fn assess_task_relevance<'env>(
    env: &'env Env,
    task: String,
    sessions: Vec<DiscoveredSessionInput>,
    config: Option<SessionSelectionOptions>,
) -> Result<PromiseRaw<'env, Vec<TaskRelevanceResult>>> {
    let (config, source) = settings(config);
    let candidates: Vec<sel::Candidate> = sessions.into_iter().map(Into::into).collect();
    let work = async move {
        let out =
            relevance::assess_task_relevance(&task, &candidates, &config, source.as_deref()).await;
        Ok(out.into_iter().map(Into::into).collect())
    };
    env.spawn_future_with_callback(work, |_, v| Ok(v))
}

/// Resume, fresh or queue for a new task in a repository, in the
/// reference's decision order. Relevance failures never reject.
#[napi(catch_unwind, ts_return_type = "Promise<SessionSelection>")]
#[allow(clippy::too_many_arguments)]
pub fn select_session<'env>(
    env: &'env Env,
    task: String,
    repo_path: String,
    agent_id: String,
    project_status: ProjectStatusInput,
    label: Option<String>,
    max_budget_usd: Option<f64>,
    config: Option<SessionSelectionOptions>,
) -> Result<PromiseRaw<'env, SessionSelection>> {
    let (config, source) = settings(config);
    let request = sel::SelectionRequest {
        task,
        repo_path,
        agent_id,
        current_branch: project_status.git.current_branch,
        active_count: project_status.sessions.active.len(),
        recent: project_status
            .sessions
            .recent
            .into_iter()
            .map(Into::into)
            .collect(),
        label,
        max_budget_usd,
        config,
    };
    let registry = Registry::new(resolve_state_dir(None));
    let claude_dir = paths::claude_config_dir(None);
    let work = async move {
        Ok(sel::select_session(
            &request,
            &registry,
            &claude_dir,
            source.as_deref(),
            Utc::now(),
        )
        .await)
    };
    env.spawn_future_with_callback(work, |env, r| match r {
        Ok(s) => Ok(s.into()),
        Err(e) => Err(coded_error(env, e)),
    })
}
