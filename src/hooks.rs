//! Claude Code hook helpers: context pressure, the hook registry, pane state
//! and the wake message.

use crate::error::{run_sync, CoreTask};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core::hooks::{pane, pressure, settings};

/// What `contextPressure` reads.
#[napi(object)]
pub struct ContextPressureOptions {
    /// The Claude Code transcript (the hook input's `transcript_path`).
    pub transcript_path: String,
    /// Tokens of the model's context window. Default: the window of the
    /// model of the last main-chain response (1000000 for today's models
    /// such as `claude-opus-5-5`, 200000 for older ones and unknown ids).
    pub context_window: Option<f64>,
    /// Percentage from which the level is `WARNING`, 1–100; default 70.
    pub threshold: Option<f64>,
}

/// How full a session's context window is.
#[napi(object, object_from_js = false)]
pub struct ContextPressure {
    /// `tokens` as a whole percentage of the context window, 0–100 (capped).
    pub percent: u32,
    /// Prompt tokens of the last main-chain response (input plus cache reads
    /// and writes); 0 before the first response.
    pub tokens: f64,
    /// The context window `percent` is of, in tokens: `contextWindow` when
    /// given, else that of the session's model.
    pub context_window: f64,
    /// `WARNING` from `threshold` percent, `CRITICAL` from halfway between the
    /// threshold and 100, else `OK`.
    #[napi(ts_type = "\"OK\" | \"WARNING\" | \"CRITICAL\"")]
    pub level: String,
    /// The one-line form a wake message shows, e.g. `"context: 72% [WARNING]"`.
    pub line: String,
}

/// A context pressure as it comes back in (`buildWakeMessage`): a
/// `ContextPressure`, also one from before `contextWindow` was added.
#[napi(object, object_to_js = false)]
pub struct ContextPressureInput {
    /// `tokens` as a whole percentage of the context window, 0–100 (capped).
    pub percent: u32,
    /// Prompt tokens of the last main-chain response (input plus cache reads
    /// and writes); 0 before the first response.
    pub tokens: f64,
    /// The context window `percent` is of, in tokens: `contextWindow` when
    /// given, else that of the session's model. Not read.
    pub context_window: Option<f64>,
    /// `WARNING` from `threshold` percent, `CRITICAL` from halfway between
    /// the threshold and 100, else `OK`.
    #[napi(ts_type = "\"OK\" | \"WARNING\" | \"CRITICAL\"")]
    pub level: String,
    /// The one-line form a wake message shows, e.g. `"context: 72% [WARNING]"`.
    pub line: String,
}

/// The context pressure of a Claude Code transcript, from the last
/// main-chain response near its end (only the tail is read).
#[napi(catch_unwind, ts_return_type = "Promise<ContextPressure>")]
pub fn context_pressure(
    options: ContextPressureOptions,
) -> AsyncTask<CoreTask<pressure::ContextPressure, ContextPressure>> {
    let window = options.context_window.map(|w| w.max(0.0) as u64);
    AsyncTask::new(CoreTask::new(
        move || {
            let threshold =
                session_intel_core::optional_whole_number("threshold", options.threshold)?;
            pressure::context_pressure(
                std::path::Path::new(&options.transcript_path),
                window,
                threshold,
            )
        },
        ContextPressure::from,
    ))
}

impl From<pressure::ContextPressure> for ContextPressure {
    fn from(p: pressure::ContextPressure) -> Self {
        ContextPressure {
            percent: p.percent,
            tokens: p.tokens as f64,
            context_window: p.window as f64,
            level: p.level.as_str().to_string(),
            line: p.line,
        }
    }
}

/// An agent's resolved hook settings, in the registry's snake_case keys.
#[napi(object)]
pub struct HookSettings {
    /// Terminal lines captured into a wake message (1–2000, default 120).
    #[napi(js_name = "pane_capture_lines")]
    pub pane_capture_lines: u32,
    /// Context percentage from which pressure is reported as `WARNING`
    /// (1–100, default 70).
    #[napi(js_name = "context_pressure_threshold")]
    pub context_pressure_threshold: u32,
    /// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` for the agent's Claude Code (1–100).
    /// Absent: Claude Code's own auto-compact point.
    #[napi(js_name = "autocompact_pct")]
    pub autocompact_pct: Option<u32>,
    /// `async` (default): the hook wakes the agent and returns at once;
    /// `bidirectional`: it waits for the agent's answer and hands it back to
    /// Claude Code.
    #[napi(js_name = "hook_mode", ts_type = "\"async\" | \"bidirectional\"")]
    pub hook_mode: String,
}

impl From<settings::HookSettings> for HookSettings {
    fn from(s: settings::HookSettings) -> Self {
        HookSettings {
            pane_capture_lines: s.pane_capture_lines,
            context_pressure_threshold: s.context_pressure_threshold,
            autocompact_pct: s.autocompact_pct,
            hook_mode: s.hook_mode.as_str().to_string(),
        }
    }
}

/// One problem of a hook registry.
#[napi(object)]
pub struct HookRegistryProblem {
    /// JSON path, e.g. `$.agents[1].hook_settings.hook_mode`.
    pub path: String,
    /// What is wrong there, in a sentence.
    pub message: String,
}

impl From<settings::RegistryProblem> for HookRegistryProblem {
    fn from(p: settings::RegistryProblem) -> Self {
        HookRegistryProblem {
            path: p.path,
            message: p.message,
        }
    }
}

/// The hook settings of `agentId`: per-agent, else global, else built-in
/// defaults, field by field. Throws `E_INVALID_ARGUMENT` on an invalid
/// registry and `E_AGENT_NOT_FOUND` for an agent it does not list.
#[napi(catch_unwind, ts_args_type = "registry: object, agentId: string")]
pub fn resolve_hook_settings(
    env: Env,
    registry: serde_json::Value,
    agent_id: String,
) -> Result<HookSettings> {
    run_sync(&env, || {
        settings::resolve_hook_settings(&registry, &agent_id)
    })
    .map(Into::into)
}

/// Every unknown key, wrong type, out-of-range value and missing or
/// duplicate agent id of a hook registry; empty when it is valid.
#[napi(catch_unwind, ts_args_type = "registry: unknown")]
pub fn validate_hook_registry(
    env: Env,
    registry: serde_json::Value,
) -> Result<Vec<HookRegistryProblem>> {
    run_sync(&env, || Ok(settings::validate_hook_registry(&registry)))
        .map(|problems| problems.into_iter().map(Into::into).collect())
}

/// What a Claude Code pane shows, from `tmux capture-pane` text.
#[napi(
    catch_unwind,
    ts_return_type = "\"menu\" | \"idle\" | \"permission_prompt\" | \"working\" | \"error\""
)]
pub fn detect_pane_state(pane_text: String) -> &'static str {
    pane::detect_pane_state(&pane_text).as_str()
}

/// What `buildWakeMessage` renders.
#[napi(object, object_to_js = false)]
pub struct WakeMessageOptions {
    /// The OpenClaw agent supervising the session (named in the message).
    pub agent_id: String,
    /// The tmux session Claude Code runs in (named in the message).
    pub tmux_session_name: String,
    /// Why the hook fired, e.g. `"response_complete"`, `"session_start"`.
    pub trigger: String,
    /// What the pane shows (`tmux capture-pane -p` text); its state is
    /// detected from it and its last lines are quoted.
    pub pane_text: String,
    /// Last pane lines to include; default 120 (`pane_capture_lines`).
    pub pane_capture_lines: Option<f64>,
    /// The `contextPressure` result (its `line` is shown); absent: the
    /// message says `context: unknown`.
    pub context_pressure: Option<ContextPressureInput>,
    /// Actions to offer; default: those that fit the detected state.
    pub actions: Option<Vec<String>>,
}

/// The wake message for the agent supervising a Claude Code session:
/// identity, trigger and pane state, then `[PANE CONTENT]`,
/// `[CONTEXT PRESSURE]` and `[AVAILABLE ACTIONS]`.
#[napi(catch_unwind)]
pub fn build_wake_message(env: Env, options: WakeMessageOptions) -> Result<String> {
    run_sync(&env, || {
        let pane_capture_lines = session_intel_core::optional_whole_number(
            "paneCaptureLines",
            options.pane_capture_lines,
        )?;
        Ok(pane::build_wake_message(&pane::WakeMessage {
            agent_id: &options.agent_id,
            tmux_session_name: &options.tmux_session_name,
            trigger: &options.trigger,
            pane_text: &options.pane_text,
            pane_capture_lines: pane_capture_lines.map(|n| n as usize),
            context_pressure: options.context_pressure.as_ref().map(|p| p.line.as_str()),
            actions: options.actions.as_deref(),
        }))
    })
}
