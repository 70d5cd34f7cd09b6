//! Resume pinning, failure classification and origin markers.

use crate::error::{run_sync, CoreTask};
use chrono::Utc;
use indexmap::IndexMap;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core::claude_code::{origin, paths};
use session_intel_core::openclaw::state_dir::resolve_state_dir;
use session_intel_core::resume::{failure, pins};

fn now_iso() -> String {
    Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn store(state_dir: Option<String>, claude_config_dir: Option<String>) -> pins::PinStore {
    let state = resolve_state_dir(state_dir.as_deref().map(std::path::Path::new));
    let claude = paths::claude_config_dir(claude_config_dir.as_deref().map(std::path::Path::new));
    pins::PinStore::new(state, claude)
}

/// Where pins are kept and transcripts looked for (both optional).
#[napi(object)]
#[derive(Default)]
pub struct PinStoreOptions {
    /// OpenClaw's state dir. Default: OpenClaw's own resolution
    /// (`$OPENCLAW_STATE_DIR`, profiles, `~/.openclaw`, legacy `~/.clawdbot`).
    pub state_dir: Option<String>,
    /// Claude Code's config root. Default: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub claude_config_dir: Option<String>,
}

/// A session to pin for a conversation and agent.
#[napi(object)]
pub struct PinSessionOptions {
    pub conversation_id: String,
    pub agent_id: String,
    pub session_id: String,
    pub work_dir: String,
    pub runtime_id: String,
    pub history_epoch: f64,
    pub model: Option<String>,
    pub state_dir: Option<String>,
    pub claude_config_dir: Option<String>,
}

/// What became of a pin.
#[napi(object)]
pub struct PinResult {
    pub pinned: bool,
    /// `pinned`, `empty_session_id`, `retired` or `no_transcript`.
    pub reason: String,
}

/// The facts of the turn about to run.
#[napi(object)]
pub struct ResumeDecisionOptions {
    pub conversation_id: String,
    pub agent_id: String,
    pub work_dir: String,
    pub runtime_id: String,
    pub history_epoch: f64,
    pub model: Option<String>,
    pub force_fresh: Option<bool>,
    /// The resolved CLI can `--resume` at all (default true).
    pub supports_resume: Option<bool>,
    /// The conversation has an assistant turn to continue (default true).
    pub has_prior_assistant_turn: Option<bool>,
    pub state_dir: Option<String>,
    pub claude_config_dir: Option<String>,
}

/// Resume or not, as one decision.
#[napi(object)]
pub struct ResumeDecision {
    pub resume: bool,
    pub session_id: Option<String>,
    /// `resume`, or the failed guard: `no_capability`, `force_fresh`,
    /// `no_prior_turn`, `no_pin`, `agent_switched`, `retired`,
    /// `epoch_changed`, `workdir_changed`, `runtime_changed`,
    /// `model_changed`, `transcript_gone`.
    pub reason: String,
    /// `["--resume", sessionId]` when resuming, else `[]`: pass as is.
    pub cli_args: Vec<String>,
    /// Send only the new prompt. Always equal to `resume`.
    pub skip_transcript: bool,
}

/// A compare-and-clear of a pin.
#[napi(object)]
pub struct ClearPinOptions {
    pub conversation_id: String,
    pub agent_id: String,
    /// Clear only if the pin still holds this id.
    pub expected_session_id: String,
    pub state_dir: Option<String>,
}

/// What a finished `--resume` run left behind.
#[napi(object)]
pub struct ResumeFailureInput {
    pub requested_session_id: String,
    /// The stream-json `result` line.
    pub result_line: Option<String>,
    pub stderr: Option<String>,
    pub exit_code: Option<f64>,
}

/// The verdict on a resume.
#[napi(object)]
pub struct ResumeFailure {
    pub rejected: bool,
    /// Retry once as a fresh session (only when no tool ran).
    pub retry_fresh: bool,
    /// Pass to `retireSession`.
    pub retire_session_id: Option<String>,
    /// `resume_rejected`, `session_mismatch`, `failed_before_api`,
    /// `unresumable_history`, `rate_limited`, `auth_failed`, `network`,
    /// `succeeded` or `failed_other`.
    pub reason: String,
}

/// Records the session a conversation resumes with an agent, once it has a
/// persisted turn (its transcript exists in `workDir`'s Claude Code folder).
/// An empty id never overwrites a good pointer; a retired id is refused.
#[napi(catch_unwind, ts_return_type = "Promise<PinResult>")]
pub fn pin_session(options: PinSessionOptions) -> AsyncTask<CoreTask<pins::PinOutcome, PinResult>> {
    let store = store(options.state_dir, options.claude_config_dir);
    AsyncTask::new(CoreTask::new(
        move || {
            let req = pins::PinRequest {
                conversation_id: options.conversation_id,
                agent_id: options.agent_id,
                session_id: options.session_id,
                work_dir: options.work_dir,
                runtime_id: options.runtime_id,
                history_epoch: history_epoch(options.history_epoch)?,
                model: options.model,
            };
            store.pin(&req, &now_iso())
        },
        |o| PinResult {
            pinned: o.pinned,
            reason: o.reason.into(),
        },
    ))
}

/// The caller's history epoch: a count, else `E_INVALID_ARGUMENT` (a
/// wrapped one could match a pin it should not).
fn history_epoch(value: f64) -> session_intel_core::Result<u64> {
    session_intel_core::whole_number("historyEpoch", value).map(u64::from)
}

/// Whether this turn resumes, and with which id: every guard of the resume design
/// (capability, force-fresh, prior turn, pin, agent switch, retired, history
/// epoch, same work dir on disk, runtime, model, transcript still there).
/// `--resume` and skipping the transcript come from this one decision.
#[napi(catch_unwind, ts_return_type = "Promise<ResumeDecision>")]
pub fn resolve_resume_decision(
    options: ResumeDecisionOptions,
) -> AsyncTask<CoreTask<pins::ResumeDecision, ResumeDecision>> {
    let store = store(options.state_dir, options.claude_config_dir);
    AsyncTask::new(CoreTask::new(
        move || {
            let req = pins::DecisionRequest {
                conversation_id: options.conversation_id,
                agent_id: options.agent_id,
                work_dir: options.work_dir,
                runtime_id: options.runtime_id,
                history_epoch: history_epoch(options.history_epoch)?,
                model: options.model,
                force_fresh: options.force_fresh.unwrap_or(false),
                supports_resume: options.supports_resume.unwrap_or(true),
                has_prior_assistant_turn: options.has_prior_assistant_turn.unwrap_or(true),
            };
            store.decide(&req)
        },
        |d| ResumeDecision {
            resume: d.resume,
            session_id: d.session_id,
            reason: d.reason.into(),
            cli_args: d.cli_args,
            skip_transcript: d.skip_transcript,
        },
    ))
}

/// Bumps the history epoch of a conversation for an agent (after an edit,
/// truncation or retry of that agent's history); resolves to the new epoch.
#[napi(catch_unwind, ts_return_type = "Promise<number>")]
pub fn bump_history_epoch(
    conversation_id: String,
    agent_id: String,
    options: Option<PinStoreOptions>,
) -> AsyncTask<CoreTask<u64, f64>> {
    let o = options.unwrap_or_default();
    let store = store(o.state_dir, o.claude_config_dir);
    AsyncTask::new(CoreTask::new(
        move || store.bump_epoch(&conversation_id, &agent_id),
        |n| n as f64,
    ))
}

/// Clears a pin only if it still holds `expectedSessionId`; resolves to
/// whether it did.
#[napi(catch_unwind, ts_return_type = "Promise<boolean>")]
pub fn clear_pin(options: ClearPinOptions) -> AsyncTask<CoreTask<bool, bool>> {
    let store = store(options.state_dir, None);
    AsyncTask::new(CoreTask::new(
        move || {
            store.clear(
                &options.conversation_id,
                &options.agent_id,
                &options.expected_session_id,
            )
        },
        |b| b,
    ))
}

/// Makes a session id unusable for every later decision of every agent.
#[napi(catch_unwind, ts_return_type = "Promise<void>")]
pub fn retire_session(
    session_id: String,
    reason: String,
    options: Option<PinStoreOptions>,
) -> AsyncTask<CoreTask<(), ()>> {
    let o = options.unwrap_or_default();
    let store = store(o.state_dir, o.claude_config_dir);
    AsyncTask::new(CoreTask::new(
        move || store.retire(&session_id, &reason, &now_iso()),
        |_| (),
    ))
}

/// Whether a `--resume` run was rejected, whether to retry fresh, and which
/// id to retire, from positive evidence only.
#[napi(catch_unwind)]
pub fn classify_resume_failure(input: ResumeFailureInput) -> ResumeFailure {
    let v = failure::classify_resume_failure(&failure::RunOutcome {
        requested_session_id: input.requested_session_id,
        result_line: input.result_line,
        stderr: input.stderr,
        exit_code: input.exit_code,
    });
    ResumeFailure {
        rejected: v.rejected,
        retry_fresh: v.retry_fresh,
        retire_session_id: v.retire_session_id,
        reason: v.reason.into(),
    }
}

/// The task with its origin marker: `[openclaw:agent=<id>]`, plus escaped
/// `key=value` pairs for any other field of `options`, a blank line, the task.
#[napi(
    catch_unwind,
    ts_args_type = "task: string, options: { agentId: string } & Record<string, string | number | boolean>"
)]
pub fn build_task_content(env: Env, task: String, options: serde_json::Value) -> Result<String> {
    run_sync(&env, || {
        let agent = options
            .get("agentId")
            .and_then(|v| v.as_str())
            .filter(|a| !a.is_empty())
            .ok_or_else(|| {
                session_intel_core::Error::new(
                    session_intel_core::ErrorCode::InvalidArgument,
                    "options.agentId is missing",
                )
                .with_hint("pass { agentId: '<agent id>' }")
            })?;
        let extra: Vec<(String, String)> = options
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, v)| k.as_str() != "agentId" && !v.is_null())
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| v.to_string()),
                )
            })
            .collect();
        Ok(origin::build_task_content(&task, agent, &extra))
    })
}

/// Every pair of the first origin marker in `text` (`agent` first), or
/// `undefined` when there is none.
#[napi(catch_unwind)]
pub fn parse_origin_marker(text: String) -> Either<IndexMap<String, String>, Undefined> {
    match origin::parse_origin_marker(&text) {
        Some(pairs) => Either::A(pairs.into_iter().collect()),
        None => Either::B(()),
    }
}
