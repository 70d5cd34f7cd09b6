//! OpenClaw agent transcripts: listing, id resolution and analysis (the
//! read side of the context cleaner).

use crate::error::CoreTask;
use chrono::{DateTime, Utc};
use indexmap::IndexMap;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core::fs_safe::LockOptions;
use session_intel_core::openclaw::backups::DEFAULT_BACKUPS;
use session_intel_core::openclaw::state_dir::DEFAULT_AGENT_ID;
use session_intel_core::openclaw::store::AgentStore;
use session_intel_core::openclaw::{edit, state_dir, strip, transcripts as tr};
use std::path::Path;
use std::time::Duration;

/// Which agent, under which state dir.
#[napi(object)]
#[derive(Default)]
pub struct TranscriptOptions {
    /// Agent id (default `main`), normalised as OpenClaw does.
    pub agent_id: Option<String>,
    /// OpenClaw's state dir. Default: OpenClaw's own resolution
    /// (`$OPENCLAW_STATE_DIR`, profiles, `~/.openclaw`, legacy `~/.clawdbot`).
    pub state_dir: Option<String>,
    /// At most this many transcripts (`listTranscripts` only).
    pub limit: Option<f64>,
}

/// A session's transcript.
#[napi(object)]
pub struct TranscriptSummary {
    /// The session's id (a UUID).
    pub session_id: String,
    /// The JSONL file, or (SQLite store) the agent database.
    pub path: String,
    /// Bytes of the transcript (decoded JSON, for SQLite).
    pub size_bytes: f64,
    /// Last activity: the file's mtime, or the newest event's time.
    pub modified: DateTime<Utc>,
    /// Session keys whose current session this is (`sessions.json` keys, or
    /// OpenClaw's `session_nodes`).
    pub session_keys: Vec<String>,
    /// The session's label in the session index; absent when it has none.
    pub label: Option<String>,
    /// The session's display name in the session index; absent when it has
    /// none.
    pub display_name: Option<String>,
    /// When OpenClaw last updated the session's entry; absent when no entry
    /// names this transcript or the entry has no time.
    pub updated_at: Option<DateTime<Utc>>,
    /// Which store holds it: `jsonl` (OpenClaw up to 2026.7) or `sqlite`
    /// (2026.8 and later).
    #[napi(ts_type = "\"jsonl\" | \"sqlite\"")]
    pub store: String,
    /// `available`; `cold` (moved to a cold archive by OpenClaw) or `empty` (no
    /// events): listed, but refused for editing.
    #[napi(ts_type = "\"available\" | \"cold\" | \"empty\"")]
    pub availability: String,
    /// SQLite: the number of events; absent for JSONL.
    pub event_count: Option<f64>,
    /// SQLite: the session key its window belongs to, current or not; absent
    /// for JSONL.
    pub window_key: Option<String>,
}

impl From<tr::TranscriptSummary> for TranscriptSummary {
    fn from(t: tr::TranscriptSummary) -> Self {
        TranscriptSummary {
            session_id: t.session_id,
            path: t.path.to_string_lossy().into_owned(),
            size_bytes: t.size_bytes as f64,
            modified: t.modified,
            session_keys: t.session_keys,
            label: t.label,
            display_name: t.display_name,
            updated_at: t.updated_at,
            store: t.store.as_str().into(),
            availability: t.availability.as_str().into(),
            event_count: t.event_count.map(|n| n as f64),
            window_key: t.window_key,
        }
    }
}

/// What a transcript holds (counts over its entries; the header line is
/// not an entry).
#[napi(object)]
pub struct TranscriptInfo {
    /// The session's id.
    pub session_id: String,
    /// The JSONL file, or (SQLite store) the agent database.
    pub path: String,
    /// Which store holds it.
    #[napi(ts_type = "\"jsonl\" | \"sqlite\"")]
    pub store: String,
    /// Bytes of the transcript (decoded JSON, for SQLite).
    pub size_bytes: f64,
    /// Last activity: the file's mtime, or the newest event's time.
    pub modified: DateTime<Utc>,
    /// The header's `version` (1 when it names none; 0 without a header).
    pub format_version: u32,
    /// The header's `cwd`; absent when it has none.
    pub cwd: Option<String>,
    /// The header's `timestamp` (ISO-8601 string); absent when it has none.
    pub created_at: Option<String>,
    /// The header's `parentSession` (set on clones); absent when it has none.
    pub parent_session: Option<String>,
    /// Parsable entries after the header.
    pub entry_count: u32,
    /// Entries by `type` (`message`, `compaction`, `model_change`, …).
    pub entries_by_type: IndexMap<String, u32>,
    /// Entries of type `message`.
    pub message_count: u32,
    /// Messages by role (`user`, `assistant`, `toolResult`, `bashExecution`, …).
    pub messages_by_role: IndexMap<String, u32>,
    /// `toolCall` content blocks.
    pub tool_call_count: u32,
    /// Messages of role `toolResult`.
    pub tool_result_count: u32,
    /// `thinking` content blocks.
    pub thinking_block_count: u32,
    /// `image` content blocks.
    pub image_count: u32,
    /// Entries of type `compaction`.
    pub compaction_count: u32,
    /// User messages: each starts a turn.
    pub turn_count: u32,
    /// Turns whose assistant messages called a tool.
    pub turns_with_tools: u32,
    /// Characters of message content / 4.
    pub estimated_tokens: f64,
    /// Non-blank lines that are not JSON (a torn append, say).
    pub unparsable_lines: u32,
    /// The latest entry `timestamp` (ISO-8601 string); absent when no entry
    /// has one.
    pub last_activity: Option<String>,
}

impl From<(tr::TranscriptSummary, tr::TranscriptInfo)> for TranscriptInfo {
    fn from((t, i): (tr::TranscriptSummary, tr::TranscriptInfo)) -> Self {
        TranscriptInfo {
            session_id: t.session_id,
            path: t.path.to_string_lossy().into_owned(),
            store: t.store.as_str().into(),
            size_bytes: t.size_bytes as f64,
            modified: t.modified,
            format_version: i.format_version,
            cwd: i.cwd,
            created_at: i.created_at,
            parent_session: i.parent_session,
            entry_count: i.entry_count,
            entries_by_type: i.entries_by_type.into_iter().collect(),
            message_count: i.message_count,
            messages_by_role: i.messages_by_role.into_iter().collect(),
            tool_call_count: i.tool_call_count,
            tool_result_count: i.tool_result_count,
            thinking_block_count: i.thinking_block_count,
            image_count: i.image_count,
            compaction_count: i.compaction_count,
            turn_count: i.turn_count,
            turns_with_tools: i.turns_with_tools,
            estimated_tokens: i.estimated_tokens as f64,
            unparsable_lines: i.unparsable_lines,
            last_activity: i.last_activity,
        }
    }
}

/// The agent and state dir of a call's options, for [`open`].
fn target(agent_id: Option<String>, state_dir: Option<String>) -> TranscriptOptions {
    TranscriptOptions {
        agent_id,
        state_dir,
        limit: None,
    }
}

fn open(o: &TranscriptOptions) -> session_intel_core::Result<AgentStore> {
    let state = state_dir::resolve_state_dir(o.state_dir.as_deref().map(Path::new));
    AgentStore::open(&state, o.agent_id.as_deref().unwrap_or(DEFAULT_AGENT_ID))
}

/// The agent's transcripts, newest first, with what `sessions.json` says
/// about each.
#[napi(catch_unwind, ts_return_type = "Promise<Array<TranscriptSummary>>")]
pub fn list_transcripts(
    options: Option<TranscriptOptions>,
) -> AsyncTask<CoreTask<Vec<tr::TranscriptSummary>, Vec<TranscriptSummary>>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(
        move || {
            let mut list = open(&o)?.list()?;
            if let Some(limit) = session_intel_core::optional_whole_number("limit", o.limit)? {
                list.truncate(limit as usize);
            }
            Ok(list)
        },
        |v| v.into_iter().map(Into::into).collect(),
    ))
}

/// The full id of a transcript: a full id, a unique prefix, or (no id) the
/// most recently modified one.
#[napi(catch_unwind, ts_return_type = "Promise<string>")]
pub fn resolve_transcript_id(
    partial: Option<String>,
    options: Option<TranscriptOptions>,
) -> AsyncTask<CoreTask<tr::TranscriptSummary, String>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(
        move || open(&o)?.resolve(partial.as_deref()),
        |t| t.session_id,
    ))
}

/// Counts of what a transcript holds: entries, messages by role, tool calls
/// and results, thinking blocks, compactions, turns, estimated tokens.
#[napi(catch_unwind, ts_return_type = "Promise<TranscriptInfo>")]
pub fn transcript_info(
    session_id: String,
    options: Option<TranscriptOptions>,
) -> AsyncTask<CoreTask<(tr::TranscriptSummary, tr::TranscriptInfo), TranscriptInfo>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(
        move || {
            let store = open(&o)?;
            let t = store.resolve(Some(&session_id))?;
            let info = tr::transcript_info(store.read(&t)?.bytes());
            Ok((t, info))
        },
        TranscriptInfo::from,
    ))
}

/// How to strip tool calls.
#[napi(object)]
#[derive(Default)]
pub struct ToolRemovalOptions {
    /// `default` (keep 20 turns with tools, truncate the oldest 50 % of
    /// them), `aggressive` (10, 50 %), `extreme` (0), or a custom preset.
    pub preset: Option<String>,
    /// Newest turns with tool calls kept (overrides the preset): a whole
    /// number (checked, never wrapped).
    pub keep_turns_with_tools: Option<f64>,
    /// Of those kept, the oldest percentage truncated (overrides the
    /// preset): a whole number from 0 to 100.
    pub truncate_percent: Option<f64>,
}

/// A named preset of the caller's (looked up before the built-in ones).
#[napi(object)]
pub struct CustomPreset {
    /// The name `toolRemoval.preset` gives.
    pub name: String,
    /// Newest turns with tool calls kept whole: a whole number.
    pub keep_turns_with_tools: f64,
    /// Of those kept, the oldest percentage whose tool output is truncated:
    /// a whole number from 0 to 100.
    pub truncate_percent: f64,
}

/// The strip settings a caller asked for: the preset (the caller's first,
/// then the built-in ones) with explicit values overriding it, every count
/// checked to be a whole number.
fn strip_settings(
    removal: &ToolRemovalOptions,
    custom: &[CustomPreset],
) -> session_intel_core::Result<(u32, u32)> {
    use session_intel_core::openclaw::strip::{resolve_settings, Preset};
    use session_intel_core::{optional_whole_number, whole_number};
    let (keep, percent) = ("keepTurnsWithTools", "truncatePercent");
    let custom = custom
        .iter()
        .map(|p| {
            Ok(Preset {
                name: p.name.clone(),
                keep_turns_with_tools: whole_number(keep, p.keep_turns_with_tools)?,
                truncate_percent: whole_number(percent, p.truncate_percent)?,
            })
        })
        .collect::<session_intel_core::Result<Vec<Preset>>>()?;
    resolve_settings(
        removal.preset.as_deref(),
        optional_whole_number(keep, removal.keep_turns_with_tools)?,
        optional_whole_number(percent, removal.truncate_percent)?,
        &custom,
    )
}

/// Options of `executeEdit`.
#[napi(object)]
#[derive(Default)]
pub struct EditOptions {
    /// Full id, unique prefix, or absent for the most recently modified transcript.
    pub session_id: Option<String>,
    /// Agent id (default `main`), normalised as OpenClaw does.
    pub agent_id: Option<String>,
    /// OpenClaw's state dir. Default: OpenClaw's own resolution.
    pub state_dir: Option<String>,
    /// How to strip (default: the `default` preset).
    pub tool_removal: Option<ToolRemovalOptions>,
    /// Presets of the caller's, looked up before the built-in ones.
    pub custom_presets: Option<Vec<CustomPreset>>,
    /// Report what would change; write nothing.
    pub dry_run: Option<bool>,
    /// Backups kept per transcript (default 5).
    pub backups_to_keep: Option<f64>,
    /// How long to wait for OpenClaw's transcript lock, in milliseconds
    /// (default 10000, as long as OpenClaw's own writers wait for it).
    pub lock_timeout_ms: Option<f64>,
    /// SQLite store, OpenClaw running: how long the session must have gone
    /// unwritten to count as idle (default 10000 ms). A chat command that
    /// edits its own session passes 0: the fresh write is its own message,
    /// and every other sign of a turn in progress still refuses the edit.
    pub quiet_ms: Option<f64>,
}

/// How an edit or restore writes: its lock wait, backups kept and (SQLite
/// store) quiet time, each count checked to be a whole number.
struct WriteSettings {
    lock: LockOptions,
    backups: usize,
    quiet_ms: i64,
}

impl WriteSettings {
    fn of(o: &EditOptions) -> session_intel_core::Result<WriteSettings> {
        use session_intel_core::optional_whole_number;
        let lock = LockOptions::default();
        let lock_ms = optional_whole_number("lockTimeoutMs", o.lock_timeout_ms)?;
        Ok(WriteSettings {
            lock: LockOptions {
                timeout: lock_ms.map_or(lock.timeout, |ms| Duration::from_millis(ms.into())),
                ..lock
            },
            backups: optional_whole_number("backupsToKeep", o.backups_to_keep)?
                .map_or(DEFAULT_BACKUPS, |n| n as usize),
            quiet_ms: optional_whole_number("quietMs", o.quiet_ms)?
                .map_or(session_intel_core::openclaw::gateway::QUIET_MS, i64::from),
        })
    }
}

/// The original design's edit statistics.
#[napi(object)]
pub struct EditStatistics {
    /// Messages before the edit.
    pub messages_original: u32,
    /// Messages after it.
    pub messages_after: u32,
    /// Tool calls before the edit.
    pub tool_calls_original: u32,
    /// Tool calls removed (with their results).
    pub tool_calls_removed: u32,
    /// Tool calls whose results were truncated.
    pub tool_calls_truncated: u32,
    /// Tool calls left whole.
    pub tool_calls_preserved: u32,
    /// Bytes of the transcript before the edit.
    pub size_original: f64,
    /// Bytes after it (what it would be, for a dry run).
    pub size_after: f64,
    /// How much smaller, in percent of `sizeOriginal`, to one decimal.
    pub reduction_percent: f64,
    /// Turns whose assistant messages call tools.
    pub turns_with_tools_total: u32,
    /// Of those, turns whose tool calls were removed.
    pub turns_with_tools_removed: u32,
    /// Of those, turns whose tool results were truncated.
    pub turns_with_tools_truncated: u32,
    /// Of those, turns left whole.
    pub turns_with_tools_preserved: u32,
    /// Entries (lines) the edit deletes.
    pub entries_removed: u32,
}

/// `after` as a reduction of `original` in percent, to one decimal (0 for
/// an empty original).
fn reduction_percent(original: u64, after: u64) -> f64 {
    if original == 0 {
        return 0.0;
    }
    let reduction = (original as f64 - after as f64) / original as f64 * 100.0;
    (reduction * 10.0).round() / 10.0
}

/// One turn and what the edit did to it.
#[napi(object)]
pub struct TurnAnalysis {
    /// The turn's position on the active path, from 0.
    pub turn_index: u32,
    /// 1-based line number of its first entry.
    pub first_line: u32,
    /// 1-based line number of its last entry.
    pub last_line: u32,
    /// Tool calls its assistant messages make.
    pub tool_calls: u32,
    /// What the edit did to it: tool calls `removed`, results `truncated`,
    /// `preserved` whole, or `none` (no tool calls).
    #[napi(ts_type = "\"removed\" | \"truncated\" | \"preserved\" | \"none\"")]
    pub zone: String,
}

impl From<&strip::TurnReport> for TurnAnalysis {
    fn from(t: &strip::TurnReport) -> Self {
        TurnAnalysis {
            turn_index: t.turn_index,
            first_line: t.first_line,
            last_line: t.last_line,
            tool_calls: t.tool_calls,
            zone: t.zone.into(),
        }
    }
}

/// What `executeEdit` did.
#[napi(object)]
pub struct EditResult {
    /// Always `true` (a failure rejects instead).
    pub success: bool,
    /// Always `edit`.
    #[napi(ts_type = "\"edit\"")]
    pub mode: String,
    /// The session edited.
    pub session_id: String,
    /// The JSONL file, or (SQLite store) the agent database.
    pub path: String,
    /// The transcript as it was; absent for a dry run or when nothing changed.
    pub backup_path: Option<String>,
    /// Nothing was written: the request was a dry run.
    pub dry_run: bool,
    /// The edit changed the transcript (or would have, for a dry run).
    pub changed: bool,
    /// Lines another writer appended during the edit, carried over (JSONL
    /// store).
    pub appended_lines_kept: u32,
    /// What the edit did, in counts.
    pub statistics: EditStatistics,
    /// Every turn of the active path and what the edit did to it.
    pub turns: Vec<TurnAnalysis>,
}

impl From<edit::EditOutcome> for EditResult {
    fn from(o: edit::EditOutcome) -> Self {
        let s = &o.strip.stats;
        EditResult {
            success: true,
            mode: "edit".into(),
            session_id: o.session_id,
            path: o.path.to_string_lossy().into_owned(),
            backup_path: o.backup_path.map(|p| p.to_string_lossy().into_owned()),
            dry_run: o.dry_run,
            changed: o.changed,
            appended_lines_kept: o.appended_lines_kept,
            statistics: EditStatistics {
                messages_original: s.messages_original,
                messages_after: s.messages_after,
                tool_calls_original: s.tool_calls_original,
                tool_calls_removed: s.tool_calls_removed,
                tool_calls_truncated: s.tool_calls_truncated,
                tool_calls_preserved: s.tool_calls_preserved,
                size_original: o.size_original as f64,
                size_after: o.size_after as f64,
                reduction_percent: reduction_percent(o.size_original, o.size_after),
                turns_with_tools_total: s.turns_with_tools_total,
                turns_with_tools_removed: s.turns_with_tools_removed,
                turns_with_tools_truncated: s.turns_with_tools_truncated,
                turns_with_tools_preserved: s.turns_with_tools_preserved,
                entries_removed: s.entries_removed,
            },
            turns: o.strip.turns.iter().map(Into::into).collect(),
        }
    }
}

/// What `restoreFromBackup` did.
#[napi(object)]
pub struct RestoreResult {
    /// The session restored.
    pub session_id: String,
    /// The JSONL file, or (SQLite store) the agent database.
    pub path: String,
    /// The backup the transcript was restored from.
    pub restored_from: String,
    /// What the restore replaced, kept as the newest backup (restore again to
    /// undo).
    pub replaced_backup: String,
}

impl From<edit::RestoreOutcome> for RestoreResult {
    fn from(r: edit::RestoreOutcome) -> Self {
        RestoreResult {
            session_id: r.session_id,
            path: r.path.to_string_lossy().into_owned(),
            restored_from: r.restored_from.to_string_lossy().into_owned(),
            replaced_backup: r.replaced_backup.to_string_lossy().into_owned(),
        }
    }
}

/// Strips old tool calls from an OpenClaw transcript in place: under
/// OpenClaw's lock, after a backup (`<file>.jsonl.bak.<time>`, newest 5
/// kept), by atomic replace, carrying over lines other writers append
/// meanwhile. Fails with `E_SESSION_BUSY`, `E_UNKNOWN_PRESET`,
/// `E_UNSUPPORTED_STORE`, … leaving every file as it was.
#[napi(catch_unwind, ts_return_type = "Promise<EditResult>")]
pub fn execute_edit(
    options: Option<EditOptions>,
) -> AsyncTask<CoreTask<edit::EditOutcome, EditResult>> {
    let o = options.unwrap_or_default();
    let dry_run = o.dry_run.unwrap_or_default();
    let target = target(o.agent_id.clone(), o.state_dir.clone());
    let writes = WriteSettings::of(&o);
    let removal = o.tool_removal.unwrap_or_default();
    let custom = o.custom_presets.unwrap_or_default();
    let session = o.session_id;
    AsyncTask::new(CoreTask::new(
        move || {
            let (keep, pct) = strip_settings(&removal, &custom)?;
            let WriteSettings {
                lock,
                backups,
                quiet_ms,
            } = writes?;
            let request = edit::EditRequest {
                session,
                keep_turns_with_tools: keep,
                truncate_percent: pct,
                dry_run,
                backups_to_keep: backups,
                lock,
                quiet_ms,
            };
            open(&target)?.edit(&request)
        },
        EditResult::from,
    ))
}

/// Restores a transcript from its newest backup, keeping what it replaced
/// as a backup; `E_NO_BACKUP` when there is none.
#[napi(catch_unwind, ts_return_type = "Promise<RestoreResult>")]
pub fn restore_from_backup(
    session_id: Option<String>,
    options: Option<EditOptions>,
) -> AsyncTask<CoreTask<edit::RestoreOutcome, RestoreResult>> {
    let o = options.unwrap_or_default();
    let target = target(o.agent_id.clone(), o.state_dir.clone());
    let writes = WriteSettings::of(&o);
    AsyncTask::new(CoreTask::new(
        move || {
            let w = writes?;
            open(&target)?.restore(session_id.as_deref(), w.lock, w.backups)
        },
        RestoreResult::from,
    ))
}

/// Options of `executeClone`.
#[napi(object)]
#[derive(Default)]
pub struct CloneOptions {
    /// The source: full id, unique prefix, or absent for the most recent.
    pub session_id: Option<String>,
    /// Agent id (default `main`), normalised as OpenClaw does.
    pub agent_id: Option<String>,
    /// OpenClaw's state dir. Default: OpenClaw's own resolution.
    pub state_dir: Option<String>,
    /// Strip tool calls from the copy (absent: copy as is).
    pub tool_removal: Option<ToolRemovalOptions>,
    /// Presets of the caller's, looked up before the built-in ones.
    pub custom_presets: Option<Vec<CustomPreset>>,
    /// Where to write (default `<sessions dir>/<new id>.jsonl`).
    pub output_path: Option<String>,
    /// Do not register the clone in `sessions.json`.
    pub no_register: Option<bool>,
}

/// The original design's clone statistics.
#[napi(object)]
pub struct CloneStatistics {
    /// Messages of the source.
    pub messages_original: u32,
    /// Messages of the clone.
    pub messages_cloned: u32,
    /// Tool calls of the source.
    pub tool_calls_original: u32,
    /// Tool calls left out of the clone (with their results).
    pub tool_calls_removed: u32,
    /// Tool calls whose results the clone truncates.
    pub tool_calls_truncated: u32,
    /// Tool calls the clone keeps whole (all of them for a plain copy).
    pub tool_calls_preserved: u32,
    /// Bytes of the source.
    pub size_original: f64,
    /// Bytes of the clone.
    pub size_cloned: f64,
    /// How much smaller the clone is, in percent of `sizeOriginal`, to one decimal.
    pub reduction_percent: f64,
}

/// What `executeClone` did.
#[napi(object)]
pub struct CloneResult {
    /// Always `true` (a failure rejects instead).
    pub success: bool,
    /// Always `clone`.
    #[napi(ts_type = "\"clone\"")]
    pub mode: String,
    /// The session copied.
    pub source_session_id: String,
    /// The new session's id (a fresh UUID).
    pub cloned_session_id: String,
    /// The new JSONL file, or (SQLite store) the agent database holding the
    /// new session.
    pub cloned_session_path: String,
    /// The `sessions.json` key of the clone (absent with `noRegister`).
    pub session_key: Option<String>,
    /// What the copy left out, in counts.
    pub statistics: CloneStatistics,
}

impl From<edit::CloneOutcome> for CloneResult {
    fn from(o: edit::CloneOutcome) -> Self {
        let s = &o.stats;
        CloneResult {
            success: true,
            mode: "clone".into(),
            source_session_id: o.source_session_id,
            cloned_session_id: o.cloned_session_id,
            cloned_session_path: o.path.to_string_lossy().into_owned(),
            session_key: o.session_key,
            statistics: CloneStatistics {
                messages_original: s.messages_original,
                messages_cloned: s.messages_after,
                tool_calls_original: s.tool_calls_original,
                tool_calls_removed: s.tool_calls_removed,
                tool_calls_truncated: s.tool_calls_truncated,
                tool_calls_preserved: s.tool_calls_preserved,
                size_original: o.size_original as f64,
                size_cloned: o.size_cloned as f64,
                reduction_percent: reduction_percent(o.size_original, o.size_cloned),
            },
        }
    }
}

/// Copies a transcript under a new UUID (header `parentSession` naming the
/// source), stripped if `toolRemoval` is given, and registers it in
/// `sessions.json` under OpenClaw's lock unless `noRegister`.
#[napi(catch_unwind, ts_return_type = "Promise<CloneResult>")]
pub fn execute_clone(
    options: Option<CloneOptions>,
) -> AsyncTask<CoreTask<edit::CloneOutcome, CloneResult>> {
    let o = options.unwrap_or_default();
    let target = target(o.agent_id.clone(), o.state_dir.clone());
    let custom = o.custom_presets.unwrap_or_default();
    let removal = o.tool_removal;
    let session = o.session_id;
    let output = o.output_path.map(std::path::PathBuf::from);
    let no_register = o.no_register.unwrap_or_default();
    AsyncTask::new(CoreTask::new(
        move || {
            let strip = match removal {
                Some(r) => Some(strip_settings(&r, &custom)?),
                None => None,
            };
            open(&target)?.clone_session(&edit::CloneRequest {
                session,
                strip,
                output,
                no_register,
            })
        },
        CloneResult::from,
    ))
}

/// Options of `exportTranscript`.
#[napi(object)]
#[derive(Default)]
pub struct ExportOptions {
    /// Agent id (default `main`), normalised as OpenClaw does.
    pub agent_id: Option<String>,
    /// OpenClaw's state dir. Default: OpenClaw's own resolution.
    pub state_dir: Option<String>,
    /// Write the JSONL here (a new file, mode 0600); absent: return it as `jsonl`.
    pub output_path: Option<String>,
}

/// What `exportTranscript` wrote.
#[napi(object)]
pub struct ExportResult {
    /// The session exported.
    pub session_id: String,
    /// Where the JSONL was written; absent when it is returned as `jsonl`.
    pub path: Option<String>,
    /// The JSONL, when no `outputPath` was given.
    pub jsonl: Option<String>,
    /// Non-empty lines of the JSONL.
    pub event_count: f64,
    /// Bytes of the JSONL.
    pub bytes: f64,
}

impl From<edit::ExportOutcome> for ExportResult {
    fn from(r: edit::ExportOutcome) -> Self {
        ExportResult {
            session_id: r.session_id,
            path: r.path.map(|p| p.to_string_lossy().into_owned()),
            jsonl: r.jsonl.map(|b| String::from_utf8_lossy(&b).into_owned()),
            event_count: r.event_count as f64,
            bytes: r.bytes as f64,
        }
    }
}

/// A session as pi JSONL (the header first, then one event per line,
/// exactly as stored): OpenClaw 2026.8 and later have no way to get a
/// session back out of their SQLite store. Works on JSONL stores too.
#[napi(catch_unwind, ts_return_type = "Promise<ExportResult>")]
pub fn export_transcript(
    session_id: Option<String>,
    options: Option<ExportOptions>,
) -> AsyncTask<CoreTask<edit::ExportOutcome, ExportResult>> {
    let o = options.unwrap_or_default();
    let target = target(o.agent_id, o.state_dir);
    let output = o.output_path.map(std::path::PathBuf::from);
    AsyncTask::new(CoreTask::new(
        move || open(&target)?.export(session_id.as_deref(), output.as_deref()),
        ExportResult::from,
    ))
}
