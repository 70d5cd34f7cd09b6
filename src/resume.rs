//! Resume pinning, failure classification and origin markers.

use crate::error::{run_sync, CoreTask};
use indexmap::IndexMap;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core::claude_code::fold::origin;
use session_intel_core::claude_code::layout::paths;
use session_intel_core::now_iso;
use session_intel_core::openclaw::state_dir::resolve_state_dir;
use session_intel_core::resume::{failure, pins};

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
    /// The host's conversation (chat thread) the session belongs to; not empty.
    pub conversation_id: String,
    /// The OpenClaw agent running Claude Code for it.
    pub agent_id: String,
    /// The Claude Code session to resume next time; `""` pins nothing.
    pub session_id: String,
    /// The directory Claude Code ran in (its transcript is looked for in
    /// this directory's Claude Code project folder).
    pub work_dir: String,
    /// The host's id of the Claude Code runtime it ran (a different one
    /// later means a fresh start).
    pub runtime_id: String,
    /// The conversation's history epoch the session was built on: a whole
    /// number (see `bumpHistoryEpoch`).
    pub history_epoch: f64,
    /// The model the session ran with; absent: any model may resume it.
    pub model: Option<String>,
    /// OpenClaw's state dir. Default: OpenClaw's own resolution.
    pub state_dir: Option<String>,
    /// Claude Code's config root. Default: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub claude_config_dir: Option<String>,
}

impl PinSessionOptions {
    /// The core's pin request, or `E_INVALID_ARGUMENT` for an epoch that
    /// is not a count.
    fn request(self) -> session_intel_core::Result<pins::PinRequest> {
        Ok(pins::PinRequest {
            conversation_id: self.conversation_id,
            agent_id: self.agent_id,
            session_id: self.session_id,
            work_dir: self.work_dir,
            runtime_id: self.runtime_id,
            history_epoch: history_epoch(self.history_epoch)?,
            model: self.model,
        })
    }
}

/// What became of a pin.
#[napi(object)]
pub struct PinResult {
    /// Whether the pin was written.
    pub pinned: bool,
    /// `pinned`, `empty_session_id` (a good pin is never overwritten by
    /// nothing), `retired`, or `no_transcript` (the session has not persisted a
    /// turn yet, so `--resume` could not find it).
    pub reason: String,
}

impl From<pins::PinOutcome> for PinResult {
    fn from(o: pins::PinOutcome) -> Self {
        PinResult {
            pinned: o.pinned,
            reason: o.reason.into(),
        }
    }
}

/// The facts of the turn about to run.
#[napi(object)]
pub struct ResumeDecisionOptions {
    /// The host's conversation (chat thread); not empty.
    pub conversation_id: String,
    /// The OpenClaw agent about to run Claude Code.
    pub agent_id: String,
    /// The directory Claude Code will run in: it must be the pinned one on
    /// disk (same directory, however spelled).
    pub work_dir: String,
    /// The host's id of the Claude Code runtime it will run: it must equal
    /// the pinned one.
    pub runtime_id: String,
    /// The conversation's history epoch now, a whole number: the pin must
    /// have been made on the newer of it and the stored epoch.
    pub history_epoch: f64,
    /// The model it will run with; when both it and the pin name a model,
    /// they must be equal.
    pub model: Option<String>,
    /// Start fresh whatever the pin says (default false).
    pub force_fresh: Option<bool>,
    /// The resolved CLI can `--resume` at all (default true).
    pub supports_resume: Option<bool>,
    /// The conversation has an assistant turn to continue (default true).
    pub has_prior_assistant_turn: Option<bool>,
    /// OpenClaw's state dir. Default: OpenClaw's own resolution.
    pub state_dir: Option<String>,
    /// Claude Code's config root. Default: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub claude_config_dir: Option<String>,
}

impl ResumeDecisionOptions {
    /// The core's decision request, or `E_INVALID_ARGUMENT` for an epoch
    /// that is not a count.
    fn request(self) -> session_intel_core::Result<pins::DecisionRequest> {
        let d = pins::DecisionRequest::default();
        Ok(pins::DecisionRequest {
            conversation_id: self.conversation_id,
            agent_id: self.agent_id,
            work_dir: self.work_dir,
            runtime_id: self.runtime_id,
            history_epoch: history_epoch(self.history_epoch)?,
            model: self.model,
            force_fresh: self.force_fresh.unwrap_or(d.force_fresh),
            supports_resume: self.supports_resume.unwrap_or(d.supports_resume),
            has_prior_assistant_turn: self
                .has_prior_assistant_turn
                .unwrap_or(d.has_prior_assistant_turn),
        })
    }
}

/// Resume or not, as one decision.
#[napi(object)]
pub struct ResumeDecision {
    /// Whether this turn resumes the pinned session.
    pub resume: bool,
    /// The session to resume; absent when not resuming.
    pub session_id: Option<String>,
    /// `resume`, or the failed guard: `no_capability`, `force_fresh`,
    /// `no_prior_turn`, `no_pin`, `agent_switched`, `retired`, `epoch_changed`,
    /// `workdir_changed`, `runtime_changed`, `model_changed`,
    /// `transcript_gone`.
    pub reason: String,
    /// `["--resume", sessionId]` when resuming, else `[]`: pass as is.
    pub cli_args: Vec<String>,
    /// Send only the new prompt (the session holds the rest). Always equal to
    /// `resume`.
    pub skip_transcript: bool,
}

impl From<pins::ResumeDecision> for ResumeDecision {
    fn from(d: pins::ResumeDecision) -> Self {
        ResumeDecision {
            resume: d.resume,
            session_id: d.session_id,
            reason: d.reason.into(),
            cli_args: d.cli_args,
            skip_transcript: d.skip_transcript,
        }
    }
}

/// A compare-and-clear of a pin.
#[napi(object)]
pub struct ClearPinOptions {
    /// The host's conversation (chat thread); not empty.
    pub conversation_id: String,
    /// The agent whose pin to clear.
    pub agent_id: String,
    /// Clear only if the pin still holds this id.
    pub expected_session_id: String,
    /// OpenClaw's state dir. Default: OpenClaw's own resolution.
    pub state_dir: Option<String>,
}

/// What a finished `--resume` run left behind.
#[napi(object)]
pub struct ResumeFailureInput {
    /// The id passed to `--resume`.
    pub requested_session_id: String,
    /// The stream-json `result` line, if one was printed.
    pub result_line: Option<String>,
    /// The tail of stderr, if any.
    pub stderr: Option<String>,
    /// The process exit code, as the host's JavaScript holds it; absent when
    /// not known. The run failed when it is given and is not 0 (as `code !== 0`
    /// reads it, so NaN is a failure, never a success).
    pub exit_code: Option<f64>,
}

impl From<ResumeFailureInput> for failure::RunOutcome {
    fn from(i: ResumeFailureInput) -> Self {
        failure::RunOutcome {
            requested_session_id: i.requested_session_id,
            result_line: i.result_line,
            stderr: i.stderr,
            exit_code: i.exit_code,
        }
    }
}

/// The verdict on a resume.
#[napi(object)]
pub struct ResumeFailure {
    /// The resume itself was refused, or the history cannot be replayed.
    pub rejected: bool,
    /// Retry this turn once as a fresh session: only when rejected and no tool
    /// ran (a retry reuses the work dir and has no idempotency key).
    pub retry_fresh: bool,
    /// The id to retire so that no later decision hands it out again: pass it
    /// to `retireSession`.
    pub retire_session_id: Option<String>,
    /// `resume_rejected`, `session_mismatch`, `failed_before_api`,
    /// `unresumable_history`, `rate_limited`, `auth_failed`, `network`,
    /// `succeeded` or `failed_other`.
    pub reason: String,
}

impl From<failure::ResumeFailure> for ResumeFailure {
    fn from(v: failure::ResumeFailure) -> Self {
        ResumeFailure {
            rejected: v.rejected,
            retry_fresh: v.retry_fresh,
            retire_session_id: v.retire_session_id,
            reason: v.reason.into(),
        }
    }
}

/// Records the session a conversation resumes with an agent, once it has a
/// persisted turn (its transcript exists in `workDir`'s Claude Code folder).
/// An empty id never overwrites a good pointer; a retired id is refused.
#[napi(catch_unwind, ts_return_type = "Promise<PinResult>")]
pub fn pin_session(options: PinSessionOptions) -> AsyncTask<CoreTask<pins::PinOutcome, PinResult>> {
    let store = store(options.state_dir.clone(), options.claude_config_dir.clone());
    AsyncTask::new(CoreTask::new(
        move || store.pin(&options.request()?, &now_iso()),
        PinResult::from,
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
    let store = store(options.state_dir.clone(), options.claude_config_dir.clone());
    AsyncTask::new(CoreTask::new(
        move || store.decide(&options.request()?),
        ResumeDecision::from,
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
    failure::classify_resume_failure(&input.into()).into()
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
