//! The `session-selection.ts` drop-in: resume or fresh.

use crate::error::coded_error;
use chrono::{DateTime, Utc};
use napi::bindgen_prelude::*;
use napi::threadsafe_function::ThreadsafeFunction;
use napi_derive::napi;
use session_intel_core::claude_code::{paths, registry::Registry};
use session_intel_core::openclaw::state_dir::resolve_state_dir;
use session_intel_core::selection::{self as sel, anthropic::AnthropicApi, relevance, scoring};
use std::future::Future;
use std::pin::Pin;

/// The reference's selection settings.
#[napi(object, object_from_js = false)]
pub struct SessionSelectionConfig {
    pub relevance_model: &'static str,
    pub relevance_max_tokens: f64,
    pub relevance_timeout_ms: u32,
    pub resume_threshold: f64,
    pub enabled: bool,
}

/// The defaults: `claude-haiku`, 500 tokens, 3000 ms, threshold 0.6, enabled.
#[napi]
pub const DEFAULT_SESSION_SELECTION_CONFIG: SessionSelectionConfig = SessionSelectionConfig {
    relevance_model: sel::DEFAULT_RELEVANCE_MODEL,
    relevance_max_tokens: sel::DEFAULT_RELEVANCE_MAX_TOKENS,
    relevance_timeout_ms: sel::DEFAULT_RELEVANCE_TIMEOUT_MS as u32,
    resume_threshold: sel::DEFAULT_RESUME_THRESHOLD,
    enabled: true,
};

/// What the host's relevance callback is asked.
#[napi(object)]
pub struct RelevancePrompt {
    pub prompt: String,
    /// The resolved model id.
    pub model: String,
    /// The caller's `relevanceMaxTokens`, as given.
    pub max_tokens: f64,
    pub timeout_ms: u32,
}

type RelevanceCallback =
    ThreadsafeFunction<RelevancePrompt, Promise<String>, RelevancePrompt, Status, false>;

/// Selection settings, all optional, plus the host's relevance callback.
#[napi(object, object_to_js = false)]
pub struct SessionSelectionOptions {
    pub relevance_model: Option<String>,
    /// Sent to the model as given (a value it refuses gives the offline
    /// answer, as in the reference).
    pub relevance_max_tokens: Option<f64>,
    /// Read as Node's `setTimeout` reads a delay (below 1 ms: 1 ms).
    pub relevance_timeout_ms: Option<f64>,
    pub resume_threshold: Option<f64>,
    /// `false`: offline relevance only.
    pub enabled: Option<bool>,
    /// The host's own model call: takes the prompt, resolves to the model's
    /// text. Without it the Anthropic API is called (`ANTHROPIC_API_KEY`,
    /// `ANTHROPIC_BASE_URL`); without a key, offline relevance is used.
    #[napi(ts_type = "(request: RelevancePrompt) => Promise<string>")]
    pub relevance_callback: Option<RelevanceCallback>,
}

/// The fields of a discovered session that selection reads.
#[napi(object)]
pub struct SelectionSession {
    pub session_id: String,
    pub agent_id: Option<String>,
    pub branch: String,
    pub first_message: String,
    pub last_modified: DateTime<Utc>,
    pub message_count: f64,
    pub file_size_bytes: f64,
    pub total_cost_usd: Option<f64>,
    pub last_task: Option<String>,
    pub compaction_count: f64,
    pub budget_used_pct: Option<f64>,
    pub total_input_tokens: f64,
    pub total_output_tokens: f64,
    pub last_user_message: Option<String>,
    pub title: Option<String>,
    pub files_touched: Option<Vec<String>>,
    /// Prompts a person or host typed (`DiscoveredSession.promptCount`).
    /// With `responseCount`, the length of the conversation the
    /// long-session rules read; without both, `messageCount` is read.
    pub prompt_count: Option<f64>,
    /// API responses of the main conversation
    /// (`DiscoveredSession.responseCount`).
    pub response_count: Option<f64>,
    /// Tokens the context window of the session's model holds
    /// (`DiscoveredSession.contextWindow`); 200000 when absent.
    pub context_window: Option<f64>,
}

/// The branch part of a briefing.
#[napi(object)]
pub struct SelectionGit {
    pub current_branch: String,
}

/// The sessions part of a briefing.
#[napi(object)]
pub struct SelectionSessions {
    pub active: Vec<SelectionSession>,
    pub recent: Vec<SelectionSession>,
}

/// The parts of a `ProjectStatus` selection reads.
#[napi(object)]
pub struct SelectionStatus {
    pub git: SelectionGit,
    pub sessions: SelectionSessions,
}

/// How relevant a session is to the task.
#[napi(object)]
pub struct TaskRelevanceResult {
    pub session_id: String,
    pub relevance: f64,
    pub reasoning: String,
}

/// The five factors of a score.
#[napi(object)]
pub struct ScoreFactors {
    pub branch_match: f64,
    pub recency: f64,
    pub task_relevance: f64,
    pub session_health: f64,
    pub context_capacity: f64,
}

/// A candidate's score.
#[napi(object)]
pub struct SessionScore {
    pub session_id: String,
    pub score: f64,
    pub factors: ScoreFactors,
    #[napi(ts_type = "\"resume\" | \"fresh\"")]
    pub recommendation: String,
    pub reason: String,
}

/// What to do about a new task.
#[napi(object)]
pub struct SessionSelection {
    #[napi(ts_type = "\"resume\" | \"fresh\" | \"queue\"")]
    pub action: String,
    pub session_id: Option<String>,
    pub reason: String,
    pub scores: Option<Vec<SessionScore>>,
}

fn candidate(s: SelectionSession) -> sel::Candidate {
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
        file_size_bytes: s.file_size_bytes,
        compaction_count: s.compaction_count,
        budget_used_pct: s.budget_used_pct,
        total_cost_usd: s.total_cost_usd,
        total_input_tokens: s.total_input_tokens,
        total_output_tokens: s.total_output_tokens,
        prompt_count: s.prompt_count,
        response_count: s.response_count,
        context_window: s.context_window,
    }
}

fn relevance_out(r: sel::Relevance) -> TaskRelevanceResult {
    TaskRelevanceResult {
        session_id: r.session_id,
        relevance: r.relevance,
        reasoning: r.reasoning,
    }
}

fn score_out(s: scoring::SessionScore) -> SessionScore {
    SessionScore {
        session_id: s.session_id,
        score: s.score,
        factors: ScoreFactors {
            branch_match: s.factors.branch_match,
            recency: s.factors.recency,
            task_relevance: s.factors.task_relevance,
            session_health: s.factors.session_health,
            context_capacity: s.factors.context_capacity,
        },
        recommendation: s.recommendation.into(),
        reason: s.reason,
    }
}

/// The host's callback as a relevance source.
struct HostCallback(RelevanceCallback);

impl relevance::RelevanceSource for HostCallback {
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
            let promise = self
                .0
                .call_async_catch(arg)
                .await
                .map_err(|e| e.reason.clone())?;
            promise.await.map_err(|e| e.reason.clone())
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
        Some(cb) => Some(Box::new(HostCallback(cb))),
        None => {
            AnthropicApi::from_env().map(|a| Box::new(a) as Box<dyn relevance::RelevanceSource>)
        }
    };
    (config, source)
}

/// The reference's `keywordFallback`: keyword Jaccard, doubled, at most 1.
#[napi(catch_unwind, ts_args_type = "task: string, session: SelectionSession")]
pub fn keyword_fallback(task: String, session: SelectionSession) -> TaskRelevanceResult {
    relevance_out(relevance::keyword_fallback(&task, &candidate(session)))
}

/// Scores one session for a task (the reference's five factors). The
/// optional `resumeThreshold` (default 0.6) decides the recommendation.
#[napi(catch_unwind)]
pub fn score_session(
    session: SelectionSession,
    task: String,
    current_branch: String,
    relevance: TaskRelevanceResult,
    max_budget_usd: Option<f64>,
    resume_threshold: Option<f64>,
) -> SessionScore {
    let _ = task; // the reference takes it and does not use it either
    let rel = sel::Relevance {
        session_id: relevance.session_id,
        relevance: relevance.relevance,
        reasoning: relevance.reasoning,
    };
    score_out(scoring::score_session(
        &candidate(session),
        &current_branch,
        &rel,
        max_budget_usd,
        resume_threshold.unwrap_or(sel::DEFAULT_RESUME_THRESHOLD),
        Utc::now(),
    ))
}

/// Relevance of every session to the task in one model call, bounded by
/// `relevanceTimeoutMs`, with the offline fallback for anything that fails.
/// Never rejects.
#[napi(catch_unwind, ts_return_type = "Promise<Array<TaskRelevanceResult>>")]
pub fn assess_task_relevance<'env>(
    env: &'env Env,
    task: String,
    sessions: Vec<SelectionSession>,
    config: Option<SessionSelectionOptions>,
) -> Result<PromiseRaw<'env, Vec<TaskRelevanceResult>>> {
    let (config, source) = settings(config);
    let candidates: Vec<sel::Candidate> = sessions.into_iter().map(candidate).collect();
    let work = async move {
        let out =
            relevance::assess_task_relevance(&task, &candidates, &config, source.as_deref()).await;
        Ok(out.into_iter().map(relevance_out).collect())
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
    project_status: SelectionStatus,
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
            .map(candidate)
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
        Ok(s) => Ok(SessionSelection {
            action: s.action.into(),
            session_id: s.session_id,
            reason: s.reason,
            scores: s.scores.map(|v| v.into_iter().map(score_out).collect()),
        }),
        Err(e) => Err(coded_error(env, e)),
    })
}
