//! The `sessions.ts` drop-in: Claude Code session discovery and the OpenClaw
//! session registry.

use crate::error::{run_sync, CoreTask};
use chrono::{DateTime, Utc};
use indexmap::IndexMap;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use rayon::prelude::*;
use session_intel_core::claude_code::layout::{history, paths};
use session_intel_core::claude_code::records::registry as reg;
use session_intel_core::claude_code::{self as cc, discovery, DiscoveryCache};
use session_intel_core::now_iso;
use session_intel_core::openclaw::state_dir::resolve_state_dir;
use session_intel_core::repo_path::RepoPath;
use std::path::PathBuf;
use std::sync::Arc;

/// Options of `discoverSessions` (all optional). The reference takes none:
/// each one here defaults to what the reference does.
#[napi(object)]
#[derive(Default)]
pub struct DiscoverOptions {
    /// Claude Code's config root. Default: `$CLAUDE_CONFIG_DIR`, else
    /// `~/.claude`.
    pub claude_config_dir: Option<String>,
    /// OpenClaw's state root holding the registries. Default: OpenClaw's own
    /// resolution (`$OPENCLAW_STATE_DIR`, profiles, `~/.openclaw`, legacy
    /// `~/.clawdbot`).
    pub registry_root: Option<String>,
    /// Session ids the host knows to be running now (in addition to those a
    /// Claude Code process runs by its liveness record). Default none.
    pub running_session_ids: Option<Vec<String>>,
    /// The host is running Claude Code in this repository: every registry
    /// session of it is marked running (the reference's behaviour). Default
    /// false.
    pub repo_busy: Option<bool>,
    /// Keep what was read of each transcript in a cache file, so that a fresh
    /// process reads only what changed: in `$OPENCLAW_SESSION_INTEL_CACHE_DIR`,
    /// else the user's cache folder, unless `OPENCLAW_SESSION_INTEL_CACHE=off`.
    /// The addon keeps it unless this is `false`.
    pub persistent_cache: Option<bool>,
    /// Context windows (tokens) by model id, for models the built-in table does
    /// not know or knows otherwise (a gateway's own ids, say); see
    /// `contextWindow` of a session.
    pub context_windows: Option<std::collections::HashMap<String, f64>>,
    /// Claude Desktop's folder of session metadata
    /// (`<dir>/<account>/<workspace>/local_*.json`), whose titles and archived
    /// flags discovery reports. Default: `~/Library/Application
    /// Support/Claude/claude-code-sessions` on macOS,
    /// `%APPDATA%\Claude\claude-code-sessions` on Windows, none elsewhere.
    pub claude_desktop_dir: Option<String>,
}

/// The context windows an option gives, as core reads them.
pub fn context_windows(
    option: Option<&std::collections::HashMap<String, f64>>,
) -> cc::fold::context_window::ContextWindows {
    let mut overrides: Vec<(String, u64)> = option
        .into_iter()
        .flatten()
        .filter(|(_, w)| w.is_finite() && **w >= 1.0)
        .map(|(model, w)| (model.clone(), *w as u64))
        .collect();
    // One order for one set of windows: a repeat call finds it unchanged.
    overrides.sort();
    cc::fold::context_window::ContextWindows { overrides }
}

impl From<DiscoverOptions> for cc::DiscoverOptions {
    fn from(o: DiscoverOptions) -> Self {
        cc::DiscoverOptions {
            claude_config_dir: o.claude_config_dir.map(PathBuf::from),
            registry_root: o.registry_root.map(PathBuf::from),
            running_session_ids: o.running_session_ids.unwrap_or_default(),
            repo_busy: o.repo_busy.unwrap_or_default(),
            persistent_cache: cc::PersistentCache::unless_turned_off(o.persistent_cache),
            stat_every_file: false,
            context_windows: context_windows(o.context_windows.as_ref()),
            claude_desktop_dir: o.claude_desktop_dir.map(PathBuf::from),
        }
    }
}

/// A Claude Code session of a repository: the reference's
/// `DiscoveredSession` (same names, same meaning unless a field says
/// otherwise) plus titles, token and cache counts, models and files.
/// Functions that take a session back take a `DiscoveredSessionInput`.
#[napi(object, object_from_js = false)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveredSession {
    /// Claude Code's session id (the transcript's file name without `.jsonl`).
    pub session_id: String,
    /// `openclaw` when an OpenClaw registry lists the session, `native-only`
    /// when only Claude Code's own folders hold it.
    #[napi(ts_type = "\"openclaw\" | \"native-only\"")]
    pub source: String,
    /// The repository path given to `discoverSessions`, made absolute and
    /// normalised as Node's `path.resolve` does (no symlinks resolved).
    pub repo_path: String,
    /// Git branch the session is on (its last main-chain line), or "unknown".
    /// The reference reads the first line's branch instead.
    pub branch: String,
    /// First real prompt, at most 200 UTF-16 units, or "(no message)".
    pub first_message: String,
    /// The transcript's modification time; for a registry session, the later of
    /// that and the registry's `lastResumedAt`; the epoch when neither is
    /// known.
    #[serde(serialize_with = "millis")]
    pub last_modified: DateTime<Utc>,
    /// Non-blank lines of the main transcript (the reference's measure); 0 when
    /// it was not found.
    pub message_count: i64,
    /// Size of the main transcript in bytes; 0 when it was not found.
    pub file_size_bytes: i64,
    /// Bytes slimming the main transcript with the `default` preset would
    /// cut (`slimClaudeSession`, docs/api/cleaning.md); 0 when there is
    /// nothing to cut.
    pub slim_savings_bytes: i64,
    /// Input tokens every resumed turn would no longer send once the session
    /// is slimmed (message content cut, about 4 bytes a token); 0 when there
    /// is nothing to cut.
    pub slim_savings_tokens: i64,
    /// A Claude Code process runs the session now (its liveness record in
    /// `<config>/sessions/`, with the process alive and started when the record
    /// says), or the host said so (`runningSessionIds`, `repoBusy`).
    pub is_running: bool,
    /// Input tokens the API billed under the session's id: the CLI's own
    /// accounting (its last `cost-state`: compaction calls and subagents
    /// included; for a fork, beyond what it inherited) where the transcript
    /// has it, else its responses deduplicated (subagents included, a
    /// fork's copied responses not).
    pub total_input_tokens: i64,
    /// Output tokens, counted as `totalInputTokens` (largest count per
    /// response where read from the responses).
    pub total_output_tokens: i64,
    /// `compact_boundary` records of the main chain (automatic and manual
    /// compactions).
    pub compaction_count: i64,
    /// Custom title, else generated title, else summary title, else first
    /// prompt, else the first 8 characters of the session id.
    pub title: String,
    /// Cache-read tokens, counted as `totalInputTokens`.
    pub cache_read_tokens: i64,
    /// Cache-write tokens (both lifetimes), counted as `totalInputTokens`.
    pub cache_creation_tokens: i64,
    /// What the context holds now, in tokens: prompt size (input plus cache
    /// reads and writes) of the last main-chain response; 0 before the first.
    pub context_tokens: i64,
    /// Models the session's responses came from, its subagents' included, in
    /// order of first use (`<synthetic>` never).
    pub models: Vec<String>,
    /// Subagent transcripts folded into this session.
    pub subagent_count: u32,
    /// Prompts a person or host typed on the main conversation: not the prompts
    /// the CLI generated (task notifications, compaction summaries, meta lines,
    /// local commands and their output); a fork's copied history included.
    pub prompt_count: i64,
    /// API responses of the main conversation, each counted once however many
    /// transcript lines it spans; a fork's copied history included, compaction
    /// calls and subagents' responses not.
    pub response_count: i64,
    /// Files the session's tool calls named, most recent last (at most 64).
    pub files_touched: Vec<String>,
    // Options last: Node-API sets the fields that are always there first,
    // so the JSON of `discoverSessionsJson` lists keys in the same order.
    /// The OpenClaw agent whose registry lists the session; absent for
    /// `native-only` sessions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// US dollars. A session OpenClaw spawned: what its registry recorded. Any
    /// other: the CLI's own figure from its last `cost-state` (for a fork,
    /// beyond what it inherited); absent where the transcript has none, or
    /// where the CLI had no price for a model it used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_cost_usd: Option<f64>,
    /// Turns the registry recorded; absent for `native-only` sessions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_turns: Option<f64>,
    /// The last task of the registry's task history; absent for `native-only`
    /// sessions and for a registry entry without tasks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_task: Option<String>,
    /// The registry label of a labelled session; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Claude Code's nickname of the session (the transcript's last `slug`);
    /// absent when the transcript has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slug: Option<String>,
    /// The agent id of the `[openclaw:agent=<id>]` marker that opens the first
    /// real prompt (an OpenClaw spawn); absent when it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin_marker: Option<String>,
    /// Never set by discovery (as in the reference); `selectSession` reads it
    /// as `totalCostUsd / maxBudgetUsd`, 0–1, when a caller sets it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_used_pct: Option<f64>,
    /// Directory the session was started in: the first `cwd` the transcript
    /// records; absent when no line records one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Time of the transcript's earliest timestamped line; absent when no line
    /// has a timestamp.
    #[serde(serialize_with = "optional_millis")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_activity: Option<DateTime<Utc>>,
    /// Time of the transcript's latest timestamped line; absent when no line
    /// has a timestamp.
    #[serde(serialize_with = "optional_millis")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_activity: Option<DateTime<Utc>>,
    /// The last real prompt, at most 200 UTF-16 units; absent when there is
    /// none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_user_message: Option<String>,
    /// Path of the main transcript, when it was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<String>,
    /// Tokens the context window of the session's model holds (the model of its
    /// last main-chain response): 1000000 for today's models such as
    /// `claude-opus-5-5`, 200000 for older ones and unknown ids, or as the
    /// `contextWindows` option says. Absent before the first response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window: Option<f64>,
    /// How the session was started, as its transcript records it: `cli` (a
    /// terminal), `sdk-cli` (`claude -p`), `sdk-ts` (the SDK, ACP adapters), or
    /// an editor's kind. Absent where no line names it (Claude Code before
    /// 2.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entrypoint: Option<String>,
    /// The Claude Code version that last wrote to the transcript (e.g.
    /// `2.1.328`). Absent where no line names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Archived in Claude Desktop (such sessions are listed after all others);
    /// in JavaScript `true`, or absent when not archived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archived: Option<bool>,
}

/// A discovered session as it comes back in (`selectSession`,
/// `assessTaskRelevance`, `keywordFallback`, `scoreSession`,
/// `sessionListToolPayload`, `projectStatusToolPayload`): a
/// `DiscoveredSession`, or an object built to the reference's
/// `DiscoveredSession` type. Only the session's id, branch, first message,
/// last change and `messageCount` are required; every other field may be
/// absent, with the meaning its doc gives (the size, token and compaction
/// counts: 0).
#[napi(object, object_to_js = false)]
pub struct DiscoveredSessionInput {
    /// Claude Code's session id (the transcript's file name without `.jsonl`).
    pub session_id: String,
    /// `openclaw` when an OpenClaw registry lists the session, `native-only`
    /// when only Claude Code's own folders hold it. Left out: `openclaw` when
    /// `agentId` is given, else `native-only`.
    #[napi(ts_type = "\"openclaw\" | \"native-only\"")]
    pub source: Option<String>,
    /// The repository path given to `discoverSessions`, made absolute and
    /// normalised as Node's `path.resolve` does (no symlinks resolved). Not
    /// read.
    pub repo_path: Option<String>,
    /// Git branch the session is on (its last main-chain line), or "unknown".
    /// The reference reads the first line's branch instead.
    pub branch: String,
    /// First real prompt, at most 200 UTF-16 units, or "(no message)".
    pub first_message: String,
    /// The transcript's modification time; for a registry session, the later of
    /// that and the registry's `lastResumedAt`; the epoch when neither is
    /// known.
    pub last_modified: DateTime<Utc>,
    /// Non-blank lines of the main transcript (the reference's measure); 0 when
    /// it was not found.
    pub message_count: f64,
    /// Size of the main transcript in bytes; 0 when it was not found.
    pub file_size_bytes: Option<f64>,
    /// Bytes slimming the main transcript with the `default` preset would
    /// cut (`slimClaudeSession`, docs/api/cleaning.md); 0 when there is
    /// nothing to cut.
    /// Left out: 0.
    pub slim_savings_bytes: Option<f64>,
    /// Input tokens every resumed turn would no longer send once the session
    /// is slimmed (message content cut, about 4 bytes a token); 0 when there
    /// is nothing to cut.
    /// Left out: 0.
    pub slim_savings_tokens: Option<f64>,
    /// A Claude Code process runs the session now (its liveness record in
    /// `<config>/sessions/`, with the process alive and started when the record
    /// says), or the host said so (`runningSessionIds`, `repoBusy`). Left out:
    /// `false`.
    pub is_running: Option<bool>,
    /// Input tokens the API billed under the session's id: the CLI's own
    /// accounting (its last `cost-state`: compaction calls and subagents
    /// included; for a fork, beyond what it inherited) where the transcript has
    /// it, else its responses deduplicated (subagents included, a fork's copied
    /// responses not).
    pub total_input_tokens: Option<f64>,
    /// Output tokens, counted as `totalInputTokens` (largest count per response
    /// where read from the responses).
    pub total_output_tokens: Option<f64>,
    /// `compact_boundary` records of the main chain (automatic and manual
    /// compactions).
    pub compaction_count: Option<f64>,
    /// The OpenClaw agent whose registry lists the session; absent for
    /// `native-only` sessions.
    pub agent_id: Option<String>,
    /// US dollars. A session OpenClaw spawned: what its registry recorded. Any
    /// other: the CLI's own figure from its last `cost-state` (for a fork,
    /// beyond what it inherited); absent where the transcript has none, or
    /// where the CLI had no price for a model it used.
    pub total_cost_usd: Option<f64>,
    /// Turns the registry recorded; absent for `native-only` sessions.
    pub total_turns: Option<f64>,
    /// The last task of the registry's task history; absent for `native-only`
    /// sessions and for a registry entry without tasks.
    pub last_task: Option<String>,
    /// The registry label of a labelled session; absent otherwise.
    pub label: Option<String>,
    /// Claude Code's nickname of the session (the transcript's last `slug`);
    /// absent when the transcript has none.
    pub slug: Option<String>,
    /// The agent id of the `[openclaw:agent=<id>]` marker that opens the first
    /// real prompt (an OpenClaw spawn); absent when it has none.
    pub origin_marker: Option<String>,
    /// Never set by discovery (as in the reference); `selectSession` reads it
    /// as `totalCostUsd / maxBudgetUsd`, 0–1, when a caller sets it.
    pub budget_used_pct: Option<f64>,
    /// Custom title, else generated title, else summary title, else first
    /// prompt, else the first 8 characters of the session id. Left out:
    /// selection's offline relevance reads the other texts.
    pub title: Option<String>,
    /// The last real prompt, at most 200 UTF-16 units; absent when there is
    /// none. Left out: the project status payload's `lastTask` falls back to
    /// `firstMessage`.
    pub last_user_message: Option<String>,
    /// Files the session's tool calls named, most recent last (at most 64).
    /// Left out: none.
    pub files_touched: Option<Vec<String>>,
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

impl From<&cc::DiscoveredSession> for DiscoveredSession {
    fn from(s: &cc::DiscoveredSession) -> Self {
        s.clone().into()
    }
}

impl From<cc::DiscoveredSession> for DiscoveredSession {
    fn from(s: cc::DiscoveredSession) -> Self {
        DiscoveredSession {
            session_id: s.session_id,
            source: match s.source {
                cc::SessionSource::Openclaw => "openclaw".into(),
                cc::SessionSource::NativeOnly => "native-only".into(),
            },
            agent_id: s.agent_id,
            repo_path: s.repo_path,
            branch: s.branch,
            first_message: s.first_message,
            last_modified: s.last_modified,
            message_count: s.message_count as i64,
            file_size_bytes: s.file_size_bytes as i64,
            slim_savings_bytes: s.slim_savings_bytes as i64,
            slim_savings_tokens: s.slim_savings_tokens as i64,
            total_cost_usd: s.total_cost_usd,
            total_turns: s.total_turns,
            last_task: s.last_task,
            label: s.label,
            slug: s.slug,
            is_running: s.is_running,
            origin_marker: s.origin_marker,
            total_input_tokens: s.tokens.input as i64,
            total_output_tokens: s.tokens.output as i64,
            compaction_count: s.compaction_count as i64,
            budget_used_pct: s.budget_used_pct,
            title: s.title,
            cwd: s.cwd,
            first_activity: s.first_activity,
            last_activity: s.last_activity,
            cache_read_tokens: s.tokens.cache_read as i64,
            cache_creation_tokens: s.tokens.cache_creation as i64,
            context_tokens: s.context_tokens as i64,
            models: s.models,
            subagent_count: s.subagent_count,
            last_user_message: s.last_user_message,
            transcript_path: s.transcript_path,
            files_touched: s.files_touched,
            prompt_count: s.prompt_count as i64,
            response_count: s.response_count as i64,
            context_window: s.context_window.map(|w| w as f64),
            entrypoint: s.entrypoint,
            version: s.version,
            archived: s.archived.then_some(true),
        }
    }
}

/// Header facts of one Claude Code transcript: the reference's
/// `JsonlHeader` (without `permissionMode`), read from the whole file.
#[napi(object)]
pub struct JsonlHeader {
    /// The last non-empty main-chain `gitBranch`; absent when no line has one
    /// (the reference reads the first one instead).
    pub git_branch: Option<String>,
    /// The first real prompt, at most 200 UTF-16 units; absent when there is
    /// none.
    pub first_user_message: Option<String>,
    /// The last session nickname (`slug`); absent when there is none.
    pub slug: Option<String>,
    /// The last Claude Code version that wrote to the file; absent when no line
    /// names one.
    pub version: Option<String>,
    /// Non-blank lines, parsable or not.
    pub line_count: i64,
    /// The agent id of the `[openclaw:agent=<id>]` marker that opens the first
    /// real prompt; absent when it has none.
    pub origin_marker: Option<String>,
    /// Input tokens, each API response counted once (cache reads and writes not
    /// included).
    pub total_input_tokens: i64,
    /// Output tokens, each API response counted once with its largest count.
    pub total_output_tokens: i64,
    /// Main-chain `compact_boundary` records (automatic and manual).
    pub compaction_count: i64,
}

impl From<cc::JsonlHeader> for JsonlHeader {
    fn from(h: cc::JsonlHeader) -> Self {
        JsonlHeader {
            git_branch: h.git_branch,
            first_user_message: h.first_user_message,
            slug: h.slug,
            version: h.version,
            line_count: h.line_count as i64,
            origin_marker: h.origin_marker,
            total_input_tokens: h.total_input_tokens as i64,
            total_output_tokens: h.total_output_tokens as i64,
            compaction_count: h.compaction_count as i64,
        }
    }
}

/// One task OpenClaw ran in a session (a `taskHistory` item of the registry).
#[napi(object)]
pub struct ClaudeCodeTaskHistoryEntry {
    /// When the task was recorded (ISO-8601 string); `""` when the file has
    /// none.
    pub at: String,
    /// The task text as `saveSession` was given it.
    pub task: String,
    /// What the run cost in USD, as the caller reported it (0 when unknown).
    pub cost_usd: f64,
}

impl From<reg::TaskHistoryEntry> for ClaudeCodeTaskHistoryEntry {
    fn from(t: reg::TaskHistoryEntry) -> Self {
        ClaudeCodeTaskHistoryEntry {
            at: t.at,
            task: t.task,
            cost_usd: t.cost_usd,
        }
    }
}

/// Who triggered the spawn that created a session.
#[napi(object)]
pub struct ClaudeCodeTriggeredBy {
    /// The chat user who asked for it; absent when the caller did not say.
    pub user_id: Option<String>,
    /// The chat channel it came from; absent when the caller did not say.
    pub channel: Option<String>,
}

impl From<reg::TriggeredBy> for ClaudeCodeTriggeredBy {
    fn from(t: reg::TriggeredBy) -> Self {
        ClaudeCodeTriggeredBy {
            user_id: t.user_id,
            channel: t.channel,
        }
    }
}

/// A registry entry (the reference's `ClaudeCodeSessionEntry`), read
/// leniently: a missing string is `""`, a missing number 0.
#[napi(object)]
pub struct ClaudeCodeSessionEntry {
    /// The Claude Code session OpenClaw resumes under this key.
    pub session_id: String,
    /// When the entry was first saved (ISO-8601 string; `""` when missing).
    pub created_at: String,
    /// When the session was last saved or resumed (ISO-8601 string; `""` when
    /// missing).
    pub last_resumed_at: String,
    /// Cost in USD summed over the runs recorded (0 when missing).
    pub total_cost_usd: f64,
    /// Turns summed over the runs recorded (0 when missing).
    pub total_turns: f64,
    /// Who started the session; absent in entries written without it.
    pub triggered_by: Option<ClaudeCodeTriggeredBy>,
    /// The tasks run in the session, oldest first.
    pub task_history: Vec<ClaudeCodeTaskHistoryEntry>,
    /// The label of a labelled session (its key is `repoPath::label`); absent
    /// otherwise.
    pub label: Option<String>,
}

/// A registry entry with its agent and repository (`listAllSessions`):
/// the fields of `ClaudeCodeSessionEntry` plus `agentId` and `repoPath`.
#[napi(object)]
pub struct ClaudeCodeSessionRow {
    /// The Claude Code session OpenClaw resumes under this key.
    pub session_id: String,
    /// When the entry was first saved (ISO-8601 string; `""` when missing).
    pub created_at: String,
    /// When the session was last saved or resumed (ISO-8601 string; `""` when
    /// missing).
    pub last_resumed_at: String,
    /// Cost in USD summed over the runs recorded (0 when missing).
    pub total_cost_usd: f64,
    /// Turns summed over the runs recorded (0 when missing).
    pub total_turns: f64,
    /// Who started the session; absent in entries written without it.
    pub triggered_by: Option<ClaudeCodeTriggeredBy>,
    /// The tasks run in the session, oldest first.
    pub task_history: Vec<ClaudeCodeTaskHistoryEntry>,
    /// The label of a labelled session; absent otherwise.
    pub label: Option<String>,
    /// The agent whose registry holds the entry.
    pub agent_id: String,
    /// The repository part of the entry's key (before any `::label`).
    pub repo_path: String,
}

impl From<reg::RegistryEntry> for ClaudeCodeSessionEntry {
    fn from(e: reg::RegistryEntry) -> Self {
        ClaudeCodeSessionEntry {
            triggered_by: e.triggered_by.map(Into::into),
            task_history: e.task_history.into_iter().map(Into::into).collect(),
            session_id: e.session_id,
            created_at: e.created_at,
            last_resumed_at: e.last_resumed_at,
            total_cost_usd: e.total_cost_usd,
            total_turns: e.total_turns,
            label: e.label,
        }
    }
}

impl From<reg::RegistryRow> for ClaudeCodeSessionRow {
    fn from(r: reg::RegistryRow) -> Self {
        let e = ClaudeCodeSessionEntry::from(r.entry);
        ClaudeCodeSessionRow {
            session_id: e.session_id,
            created_at: e.created_at,
            last_resumed_at: e.last_resumed_at,
            total_cost_usd: e.total_cost_usd,
            total_turns: e.total_turns,
            triggered_by: e.triggered_by,
            task_history: e.task_history,
            label: e.label,
            agent_id: r.agent_id,
            repo_path: r.repo_path,
        }
    }
}

/// What `saveSession` records besides the session id (all optional).
#[napi(object)]
pub struct SaveSessionMeta {
    /// The chat user who asked for the run (`triggeredBy.userId` of a new entry).
    pub user_id: Option<String>,
    /// The chat channel it came from (`triggeredBy.channel` of a new entry).
    pub channel: Option<String>,
    /// The task run: appended to `taskHistory` unless absent or empty.
    pub task: Option<String>,
    /// What the run cost in USD: added to `totalCostUsd` and recorded with the
    /// task. Absent or not finite: 0.
    pub cost_usd: Option<f64>,
    /// Saves under `repoPath::label` instead of `repoPath`.
    pub label: Option<String>,
}

impl From<SaveSessionMeta> for reg::SaveMeta {
    fn from(m: SaveSessionMeta) -> Self {
        reg::SaveMeta {
            user_id: m.user_id,
            channel: m.channel,
            task: m.task,
            cost_usd: m.cost_usd,
            label: m.label,
        }
    }
}

/// Turns and cost to add to a registry entry (absent, 0 or not finite:
/// left as it is).
#[napi(object)]
pub struct SessionStats {
    /// Turns to add to `totalTurns`.
    pub turns: Option<f64>,
    /// Cost in USD to add to `totalCostUsd`.
    pub cost_usd: Option<f64>,
}

/// Limits of `peekSessionHistory`, read as the reference reads them (0 or
/// NaN messages keep all of them, -n drops the first n).
#[napi(object)]
pub struct PeekOptions {
    /// How many messages to keep, newest last (default 6; 0 or NaN: all; -n:
    /// all but the first n).
    pub max_messages: Option<f64>,
    /// Character budget in UTF-16 units (default 4000; 0 or below: nothing;
    /// NaN: no cut).
    pub max_chars: Option<f64>,
}

impl From<PeekOptions> for history::PeekLimits {
    fn from(o: PeekOptions) -> Self {
        let defaults = history::PeekLimits::default();
        history::PeekLimits {
            max_messages: o.max_messages.unwrap_or(defaults.max_messages),
            max_chars: o.max_chars.unwrap_or(defaults.max_chars),
        }
    }
}

fn registry() -> reg::Registry {
    reg::Registry::new(resolve_state_dir(None))
}

/// The Claude Code project folder name of a launch directory: every UTF-16
/// unit that is not ASCII alphanumeric becomes `-`; past 200 characters, the
/// first 200, `-` and the path's 32-bit string hash in base 36, as Claude
/// Code names it.
#[napi(catch_unwind)]
pub fn repo_path_to_slug(repo_path: String) -> String {
    paths::project_slug(&repo_path)
}

/// The registry key: `repoPath`, or `repoPath::label` for a labelled session.
#[napi(catch_unwind)]
pub fn registry_key(repo_path: String, label: Option<String>) -> String {
    reg::registry_key(&repo_path, label.as_deref())
}

/// The session OpenClaw resumes for this agent and repository (and label),
/// if its transcript still exists. Unlike the reference, a missing transcript
/// does not delete the entry.
#[napi(catch_unwind)]
pub fn resolve_session(
    env: Env,
    agent_id: String,
    repo_path: String,
    label: Option<String>,
) -> Result<Either<String, Undefined>> {
    run_sync(&env, || {
        let claude_dir = paths::claude_config_dir(None);
        let found = session_intel_core::selection::resolve_session(
            &registry(),
            &claude_dir,
            &agent_id,
            &repo_path,
            label.as_deref(),
        )?;
        Ok(match found {
            Some(id) => Either::A(id),
            None => Either::B(()),
        })
    })
}

/// Records a session in the agent's registry (locked, atomic).
#[napi(catch_unwind)]
pub fn save_session(
    env: Env,
    agent_id: String,
    repo_path: String,
    session_id: String,
    meta: Option<SaveSessionMeta>,
) -> Result<()> {
    run_sync(&env, || {
        let meta = meta.map(reg::SaveMeta::from).unwrap_or_default();
        registry().save(&agent_id, &repo_path, &session_id, &meta, &now_iso())
    })
}

/// Adds turns and cost to a registry entry after a run (locked, atomic).
#[napi(catch_unwind)]
pub fn update_session_stats(
    env: Env,
    agent_id: String,
    repo_path: String,
    stats: SessionStats,
    label: Option<String>,
) -> Result<()> {
    run_sync(&env, || {
        let key = reg::registry_key(&repo_path, label.as_deref());
        registry().update_stats(&agent_id, &key, stats.turns, stats.cost_usd)
    })
}

/// Removes a registry entry; `false` when there was none.
#[napi(catch_unwind)]
pub fn delete_session(
    env: Env,
    agent_id: String,
    repo_path: String,
    label: Option<String>,
) -> Result<bool> {
    run_sync(&env, || {
        registry().delete(&agent_id, &reg::registry_key(&repo_path, label.as_deref()))
    })
}

/// Every registry entry of one agent, keyed as on disk.
#[napi(catch_unwind)]
pub fn list_sessions(
    env: Env,
    agent_id: String,
) -> Result<IndexMap<String, ClaudeCodeSessionEntry>> {
    run_sync(&env, || {
        Ok(registry()
            .list(&agent_id)?
            .into_iter()
            .map(|(k, e)| (k, e.into()))
            .collect())
    })
}

/// Every registry entry of every agent, with `agentId` and `repoPath`.
#[napi(catch_unwind)]
pub fn list_all_sessions(env: Env) -> Result<Vec<ClaudeCodeSessionRow>> {
    run_sync(&env, || {
        Ok(registry().list_all().into_iter().map(Into::into).collect())
    })
}

/// The last few text messages of a session as `[User]: …` / `[CC]: …`
/// blocks; `""` when the transcript cannot be found or read.
#[napi(catch_unwind)]
pub fn peek_session_history(
    env: Env,
    repo_path: String,
    session_id: String,
    opts: Option<PeekOptions>,
) -> Result<String> {
    run_sync(&env, || {
        let limits = opts.map(history::PeekLimits::from).unwrap_or_default();
        let claude_dir = paths::claude_config_dir(None);
        let repo = RepoPath::resolve(&repo_path);
        Ok(cc::find_transcript(&claude_dir, &repo, &session_id)
            .map(|p| history::peek_session_history(&p, limits))
            .unwrap_or_default())
    })
}

/// Header facts of one Claude Code transcript: branch, first prompt, origin
/// marker, line count, deduplicated token totals and compactions.
#[napi(catch_unwind, ts_return_type = "Promise<JsonlHeader>")]
pub fn parse_jsonl_header(file_path: String) -> AsyncTask<CoreTask<cc::JsonlHeader, JsonlHeader>> {
    AsyncTask::new(CoreTask::new(
        move || discovery::parse_jsonl_header(&PathBuf::from(file_path), DiscoveryCache::global()),
        JsonlHeader::from,
    ))
}

/// Every Claude Code session of a repository: OpenClaw registry entries and
/// Claude Code's own transcripts (the repository's and its worktrees'
/// folders), running sessions first, then newest first.
#[napi(catch_unwind, ts_return_type = "Promise<Array<DiscoveredSession>>")]
pub fn discover_sessions(
    repo_path: String,
    options: Option<DiscoverOptions>,
) -> AsyncTask<CoreTask<Arc<Vec<cc::DiscoveredSession>>, Vec<DiscoveredSession>>> {
    let options = cc::DiscoverOptions::from(options.unwrap_or_default());
    AsyncTask::new(CoreTask::new(
        move || {
            Ok(cc::discover_sessions(
                &RepoPath::resolve(&repo_path),
                &options,
                DiscoveryCache::global(),
            ))
        },
        |v| v.iter().map(Into::into).collect(),
    ))
}

/// `discoverSessions` with the sessions as JSON text (times in milliseconds),
/// written on the worker thread. The package's `discoverSessions` is built
/// on it: it parses the text and makes the times `Date`s, because V8 builds
/// 150 sessions from JSON in a third of the time Node-API takes to build
/// them property by property on the main thread. Every number is finite
/// (counts, and costs read from JSON), so the text holds exactly what
/// `discoverSessions` returns. A repeat call that finds nothing changed
/// returns the text written before.
#[napi(catch_unwind, ts_return_type = "Promise<string>")]
pub fn discover_sessions_json(
    repo_path: String,
    options: Option<DiscoverOptions>,
) -> AsyncTask<CoreTask<String, String>> {
    let options = cc::DiscoverOptions::from(options.unwrap_or_default());
    AsyncTask::new(CoreTask::new(
        move || {
            let json = cc::discover_sessions_as(
                &RepoPath::resolve(&repo_path),
                &options,
                DiscoveryCache::global(),
                sessions_json,
            );
            json.0.clone().map_err(|e| {
                session_intel_core::Error::new(
                    session_intel_core::ErrorCode::Internal,
                    format!("cannot write the sessions as JSON: {e}"),
                )
            })
        },
        |json| json,
    ))
}

/// The JSON text of sessions as `discoverSessions` returns them (the form
/// discovery keeps for this binding: a type of its own).
struct SessionsJson(std::result::Result<String, String>);

/// Writes `sessions` as [`SessionsJson`], each session on its own, in
/// parallel: there may be thousands.
fn sessions_json(sessions: Vec<cc::DiscoveredSession>) -> SessionsJson {
    let parts = sessions
        .into_par_iter()
        .map(|s| serde_json::to_vec(&DiscoveredSession::from(s)))
        .collect::<std::result::Result<Vec<Vec<u8>>, _>>();
    SessionsJson(parts.map_err(|e| e.to_string()).and_then(|parts| {
        let mut text = Vec::with_capacity(parts.iter().map(|p| p.len() + 1).sum::<usize>() + 2);
        text.push(b'[');
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                text.push(b',');
            }
            text.extend_from_slice(part);
        }
        text.push(b']');
        String::from_utf8(text).map_err(|e| e.to_string())
    }))
}

/// A time as `Date` holds it: milliseconds since the epoch.
fn millis<S: serde::Serializer>(t: &DateTime<Utc>, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_i64(t.timestamp_millis())
}

fn optional_millis<S: serde::Serializer>(
    t: &Option<DateTime<Utc>>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    match t {
        Some(t) => millis(t, s),
        None => s.serialize_none(),
    }
}
