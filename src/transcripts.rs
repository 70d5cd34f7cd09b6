//! OpenClaw agent transcripts: listing, id resolution and analysis (the
//! read side of the context cleaner).

use crate::error::CoreTask;
use chrono::{DateTime, Utc};
use indexmap::IndexMap;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core::openclaw::{state_dir, transcripts as tr};
use std::path::Path;

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
    pub limit: Option<u32>,
}

/// A transcript file.
#[napi(object)]
pub struct TranscriptSummary {
    pub session_id: String,
    pub path: String,
    pub size_bytes: f64,
    pub modified: DateTime<Utc>,
    /// `sessions.json` keys that point at this file.
    pub session_keys: Vec<String>,
    pub label: Option<String>,
    pub display_name: Option<String>,
    pub updated_at: Option<DateTime<Utc>>,
}

/// What a transcript holds.
#[napi(object)]
pub struct TranscriptInfo {
    pub session_id: String,
    pub path: String,
    pub size_bytes: f64,
    pub modified: DateTime<Utc>,
    pub format_version: u32,
    pub cwd: Option<String>,
    pub created_at: Option<String>,
    pub parent_session: Option<String>,
    pub entry_count: u32,
    pub entries_by_type: IndexMap<String, u32>,
    pub message_count: u32,
    pub messages_by_role: IndexMap<String, u32>,
    pub tool_call_count: u32,
    pub tool_result_count: u32,
    pub thinking_block_count: u32,
    pub image_count: u32,
    pub compaction_count: u32,
    pub turn_count: u32,
    pub turns_with_tools: u32,
    /// Characters of message content / 4.
    pub estimated_tokens: f64,
    pub unparsable_lines: u32,
    pub last_activity: Option<String>,
}

fn summary(t: tr::TranscriptSummary) -> TranscriptSummary {
    TranscriptSummary {
        session_id: t.session_id,
        path: t.path.to_string_lossy().into_owned(),
        size_bytes: t.size_bytes as f64,
        modified: t.modified,
        session_keys: t.session_keys,
        label: t.label,
        display_name: t.display_name,
        updated_at: t.updated_at,
    }
}

fn open(o: &TranscriptOptions) -> session_intel_core::Result<tr::AgentSessions> {
    let state = state_dir::resolve_state_dir(o.state_dir.as_deref().map(Path::new));
    tr::AgentSessions::open(&state, o.agent_id.as_deref().unwrap_or("main"))
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
            let mut list = tr::list_transcripts(&open(&o)?)?;
            if let Some(limit) = o.limit {
                list.truncate(limit as usize);
            }
            Ok(list)
        },
        |v| v.into_iter().map(summary).collect(),
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
        move || tr::resolve_transcript(&open(&o)?, partial.as_deref()),
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
            let t = tr::resolve_transcript(&open(&o)?, Some(&session_id))?;
            let info = tr::transcript_info(&t.path)?;
            Ok((t, info))
        },
        |(t, i)| TranscriptInfo {
            session_id: t.session_id,
            path: t.path.to_string_lossy().into_owned(),
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
        },
    ))
}
