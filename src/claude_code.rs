//! The `sessions.ts` drop-in: Claude Code session discovery and the OpenClaw
//! session registry.

use crate::error::{run_sync, CoreTask};
use chrono::{DateTime, Utc};
use indexmap::IndexMap;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use rayon::prelude::*;
use session_intel_core::claude_code::{
    self as cc, discovery, history, paths, registry as reg, ScanCache,
};
use session_intel_core::openclaw::state_dir::resolve_state_dir;
use std::path::PathBuf;
use std::sync::Arc;

/// Options of `discoverSessions` (all optional).
#[napi(object)]
#[derive(Default)]
pub struct DiscoverOptions {
    /// Claude Code's config root. Default: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub claude_config_dir: Option<String>,
    /// OpenClaw's state root holding the registries. Default: OpenClaw's own
    /// resolution (`$OPENCLAW_STATE_DIR`, profiles, `~/.openclaw`, legacy `~/.clawdbot`).
    pub registry_root: Option<String>,
    /// Session ids the host knows to be running now (in addition to those a
    /// Claude Code process runs by its liveness record).
    pub running_session_ids: Option<Vec<String>>,
    /// The host is running Claude Code in this repository: every registry
    /// session of it is marked running (the reference's behaviour).
    pub repo_busy: Option<bool>,
    /// Keep what was read of each transcript in a cache file, so that a
    /// fresh process reads only what changed (default true; also off with
    /// `OPENCLAW_SESSION_INTEL_CACHE=off`; the folder is
    /// `$OPENCLAW_SESSION_INTEL_CACHE_DIR`, else the user's cache folder).
    pub persistent_cache: Option<bool>,
}

/// The persistent scan cache an option asks for.
pub fn persistent_cache(option: Option<bool>) -> cc::PersistentCache {
    match option {
        Some(false) => cc::PersistentCache::Off,
        _ => cc::PersistentCache::Default,
    }
}

/// A Claude Code session of a repository (the reference's shape plus extras).
#[napi(object)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveredSession {
    pub session_id: String,
    #[napi(ts_type = "\"openclaw\" | \"native-only\"")]
    pub source: String,
    pub repo_path: String,
    /// Git branch the session is on (its last main-chain line), or "unknown".
    pub branch: String,
    /// First real prompt, at most 200 UTF-16 units, or "(no message)".
    pub first_message: String,
    #[serde(serialize_with = "millis")]
    pub last_modified: DateTime<Utc>,
    /// Non-blank lines of the transcript (the reference's measure).
    pub message_count: i64,
    pub file_size_bytes: i64,
    /// A Claude Code process runs the session now (its liveness record in
    /// `<config>/sessions/`, with the process alive and started when the
    /// record says), or the host said so (`runningSessionIds`, `repoBusy`).
    pub is_running: bool,
    /// Deduplicated input tokens, subagents included.
    pub total_input_tokens: i64,
    /// Deduplicated output tokens (largest count per response), subagents included.
    pub total_output_tokens: i64,
    /// `compact_boundary` records of the main chain.
    pub compaction_count: i64,
    /// Custom title, else generated title, else summary title, else first prompt.
    pub title: String,
    pub cache_read_tokens: i64,
    pub cache_creation_tokens: i64,
    /// What the context holds now: prompt size of the last main-chain response.
    pub context_tokens: i64,
    pub models: Vec<String>,
    pub subagent_count: u32,
    /// Files the session's tool calls named, most recent last (at most 64).
    pub files_touched: Vec<String>,
    // Options last: Node-API sets the fields that are always there first,
    // so the JSON of `discoverSessionsJson` lists keys in the same order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_cost_usd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_turns: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_task: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slug: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin_marker: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_used_pct: Option<f64>,
    /// Directory the session was started in, as recorded in the transcript.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(serialize_with = "optional_millis")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_activity: Option<DateTime<Utc>>,
    #[serde(serialize_with = "optional_millis")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_activity: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_user_message: Option<String>,
    /// Path of the main transcript, when it was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<String>,
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
        }
    }
}

/// Header facts of one Claude Code transcript.
#[napi(object)]
pub struct JsonlHeader {
    pub git_branch: Option<String>,
    pub first_user_message: Option<String>,
    pub slug: Option<String>,
    pub version: Option<String>,
    pub line_count: i64,
    pub origin_marker: Option<String>,
    pub total_input_tokens: i64,
    pub total_output_tokens: i64,
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

/// One task OpenClaw ran in a session.
#[napi(object)]
pub struct ClaudeCodeTaskHistoryEntry {
    pub at: String,
    pub task: String,
    pub cost_usd: f64,
}

/// Who triggered the spawn that created a session.
#[napi(object)]
pub struct ClaudeCodeTriggeredBy {
    pub user_id: Option<String>,
    pub channel: Option<String>,
}

/// A registry entry.
#[napi(object)]
pub struct ClaudeCodeSessionEntry {
    pub session_id: String,
    pub created_at: String,
    pub last_resumed_at: String,
    pub total_cost_usd: f64,
    pub total_turns: f64,
    pub triggered_by: Option<ClaudeCodeTriggeredBy>,
    pub task_history: Vec<ClaudeCodeTaskHistoryEntry>,
    pub label: Option<String>,
}

/// A registry entry with its agent and repository (`listAllSessions`).
#[napi(object)]
pub struct ClaudeCodeSessionRow {
    pub session_id: String,
    pub created_at: String,
    pub last_resumed_at: String,
    pub total_cost_usd: f64,
    pub total_turns: f64,
    pub triggered_by: Option<ClaudeCodeTriggeredBy>,
    pub task_history: Vec<ClaudeCodeTaskHistoryEntry>,
    pub label: Option<String>,
    pub agent_id: String,
    pub repo_path: String,
}

fn task_history(e: &reg::RegistryEntry) -> Vec<ClaudeCodeTaskHistoryEntry> {
    e.task_history
        .iter()
        .map(|t| ClaudeCodeTaskHistoryEntry {
            at: t.at.clone(),
            task: t.task.clone(),
            cost_usd: t.cost_usd,
        })
        .collect()
}

fn triggered_by(e: &reg::RegistryEntry) -> Option<ClaudeCodeTriggeredBy> {
    e.triggered_by.as_ref().map(|t| ClaudeCodeTriggeredBy {
        user_id: t.user_id.clone(),
        channel: t.channel.clone(),
    })
}

impl From<reg::RegistryEntry> for ClaudeCodeSessionEntry {
    fn from(e: reg::RegistryEntry) -> Self {
        ClaudeCodeSessionEntry {
            triggered_by: triggered_by(&e),
            task_history: task_history(&e),
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

/// What `saveSession` records besides the session id.
#[napi(object)]
pub struct SaveSessionMeta {
    pub user_id: Option<String>,
    pub channel: Option<String>,
    pub task: Option<String>,
    pub cost_usd: Option<f64>,
    pub label: Option<String>,
}

/// Turns and cost to add to a registry entry.
#[napi(object)]
pub struct SessionStats {
    pub turns: Option<f64>,
    pub cost_usd: Option<f64>,
}

/// Limits of `peekSessionHistory`, read as the reference reads them (0 or
/// NaN messages keep all of them, -n drops the first n).
#[napi(object)]
pub struct PeekOptions {
    /// How many messages to keep, newest last (default 6).
    pub max_messages: Option<f64>,
    /// Character budget in UTF-16 units (default 4000).
    pub max_chars: Option<f64>,
}

fn registry() -> reg::Registry {
    reg::Registry::new(resolve_state_dir(None))
}

fn now_iso() -> String {
    Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The Claude Code project folder name of a launch directory: every UTF-16
/// unit that is not ASCII alphanumeric becomes `-` (cut to 200 characters for
/// long paths, where Claude Code adds a hash suffix).
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
        let key = reg::registry_key(&repo_path, label.as_deref());
        let found = registry().get(&agent_id, &key)?.filter(|entry| {
            let claude_dir = paths::claude_config_dir(None);
            let repo = paths::resolve_lexically(&repo_path);
            discovery::find_transcript(&claude_dir, &repo, &entry.session_id).is_some()
        });
        Ok(match found {
            Some(entry) => Either::A(entry.session_id),
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
        let meta = meta.map(|m| reg::SaveMeta {
            user_id: m.user_id,
            channel: m.channel,
            task: m.task,
            cost_usd: m.cost_usd,
            label: m.label,
        });
        registry().save(
            &agent_id,
            &repo_path,
            &session_id,
            &meta.unwrap_or_default(),
            &now_iso(),
        )
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
        let defaults = history::PeekLimits::default();
        let limits = history::PeekLimits {
            max_messages: opts
                .as_ref()
                .and_then(|o| o.max_messages)
                .unwrap_or(defaults.max_messages),
            max_chars: opts
                .as_ref()
                .and_then(|o| o.max_chars)
                .unwrap_or(defaults.max_chars),
        };
        let claude_dir = paths::claude_config_dir(None);
        let repo = paths::resolve_lexically(&repo_path);
        Ok(discovery::find_transcript(&claude_dir, &repo, &session_id)
            .map(|p| history::peek_session_history(&p, limits))
            .unwrap_or_default())
    })
}

/// Header facts of one Claude Code transcript: branch, first prompt, origin
/// marker, line count, deduplicated token totals and compactions.
#[napi(catch_unwind, ts_return_type = "Promise<JsonlHeader>")]
pub fn parse_jsonl_header(file_path: String) -> AsyncTask<CoreTask<cc::JsonlHeader, JsonlHeader>> {
    AsyncTask::new(CoreTask::new(
        move || discovery::parse_jsonl_header(&PathBuf::from(file_path), ScanCache::global()),
        JsonlHeader::from,
    ))
}

/// The core's options of a discovery.
fn discover_options(options: Option<DiscoverOptions>) -> cc::DiscoverOptions {
    let o = options.unwrap_or_default();
    cc::DiscoverOptions {
        claude_config_dir: o.claude_config_dir.map(PathBuf::from),
        registry_root: o.registry_root.map(PathBuf::from),
        running_session_ids: o.running_session_ids.unwrap_or_default(),
        repo_busy: o.repo_busy.unwrap_or(false),
        persistent_cache: persistent_cache(o.persistent_cache),
        stat_every_file: false,
    }
}

/// Every Claude Code session of a repository: OpenClaw registry entries and
/// Claude Code's own transcripts (the repository's and its worktrees'
/// folders), running sessions first, then newest first.
#[napi(catch_unwind, ts_return_type = "Promise<Array<DiscoveredSession>>")]
pub fn discover_sessions(
    repo_path: String,
    options: Option<DiscoverOptions>,
) -> AsyncTask<CoreTask<Arc<Vec<cc::DiscoveredSession>>, Vec<DiscoveredSession>>> {
    let options = discover_options(options);
    AsyncTask::new(CoreTask::new(
        move || {
            Ok(cc::discover_sessions(
                &repo_path,
                &options,
                ScanCache::global(),
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
    let options = discover_options(options);
    AsyncTask::new(CoreTask::new(
        move || {
            let json =
                cc::discover_sessions_as(&repo_path, &options, ScanCache::global(), sessions_json);
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
