//! An agent's OpenClaw transcripts, whichever store holds them: what is
//! listed about each, which one an id or key means, and what one holds
//! (docs/formats.md, "OpenClaw transcripts").

use super::events::split_lines;
use crate::error::{Error, ErrorCode, Result};
use chrono::{DateTime, Utc};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Which store holds an agent's transcripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    /// `agents/<agent>/sessions/*.jsonl` (OpenClaw up to 2026.7).
    Jsonl,
    /// `agents/<agent>/agent/openclaw-agent.sqlite` (OpenClaw 2026.8 and later).
    Sqlite,
}

impl StoreKind {
    /// `"jsonl"` or `"sqlite"`.
    pub fn as_str(self) -> &'static str {
        match self {
            StoreKind::Jsonl => "jsonl",
            StoreKind::Sqlite => "sqlite",
        }
    }
}

/// Whether a session's transcript can be read and edited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Availability {
    /// Readable and editable.
    Available,
    /// Moved to a cold archive by OpenClaw; OpenClaw restores it before use.
    Cold,
    /// The session has no events (a session entry whose transcript is missing).
    Empty,
}

impl Availability {
    /// `"available"`, `"cold"` or `"empty"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Availability::Available => "available",
            Availability::Cold => "cold",
            Availability::Empty => "empty",
        }
    }
}

/// One session's transcript and what the session index says about it.
#[derive(Debug, Clone, PartialEq)]
pub struct TranscriptSummary {
    /// The session's id (a UUID).
    pub session_id: String,
    /// The JSONL file, or (SQLite store) the agent database.
    pub path: PathBuf,
    /// Bytes of the transcript (decoded JSON, for SQLite).
    pub size_bytes: u64,
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
    /// SQLite: the session key its window belongs to, current or not; absent
    /// for JSONL.
    pub window_key: Option<String>,
    /// Which store holds it: `jsonl` (OpenClaw up to 2026.7) or `sqlite`
    /// (2026.8 and later).
    pub store: StoreKind,
    /// `available`; `cold` (moved to a cold archive by OpenClaw) or `empty` (no
    /// events): listed, but refused for editing.
    pub availability: Availability,
    /// SQLite: the number of events; absent for JSONL.
    pub event_count: Option<u64>,
}

/// A session id OpenClaw accepts (`^[a-z0-9][a-z0-9._-]{0,127}$`, any case).
pub fn is_valid_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// A plausible session key (`agent:<agent>:<rest>`): printable, bounded.
fn is_plausible_key(key: &str) -> bool {
    !key.is_empty() && key.len() <= 512 && !key.chars().any(char::is_control)
}

/// The session `partial` means among `all` (newest first): none → the
/// newest; a full id; a session key (`agent:main:main`, or `main` for
/// `agent:<agent>:main` when no id starts with it); a unique id prefix.
/// Errors: `E_NO_SESSIONS`, `E_SESSION_NOT_FOUND`, `E_AMBIGUOUS_SESSION`
/// (naming the candidates), `E_INVALID_ARGUMENT`.
pub fn resolve_in(
    all: Vec<TranscriptSummary>,
    agent_id: &str,
    partial: Option<&str>,
) -> Result<TranscriptSummary> {
    let Some(partial) = partial.map(str::trim).filter(|p| !p.is_empty()) else {
        return all.into_iter().next().ok_or_else(|| {
            Error::new(
                ErrorCode::NoSessions,
                format!("agent {agent_id} has no transcripts"),
            )
            .with_hint("start a conversation first, or pass --agent for another agent")
        });
    };
    let by_key = |key: &str| {
        all.iter()
            .find(|t| t.session_keys.iter().any(|k| k == key))
            .cloned()
    };
    if partial.contains(':') {
        if !is_plausible_key(partial) {
            return Err(invalid_id(partial));
        }
        return by_key(partial)
            .or_else(|| by_key(&format!("agent:{agent_id}:{partial}")))
            .ok_or_else(|| not_found(agent_id, partial));
    }
    if !is_valid_session_id(partial) {
        return Err(invalid_id(partial));
    }
    if let Some(exact) = all.iter().find(|t| t.session_id == partial) {
        return Ok(exact.clone());
    }
    let matches: Vec<&TranscriptSummary> = all
        .iter()
        .filter(|t| t.session_id.starts_with(partial))
        .collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => by_key(&format!("agent:{agent_id}:{partial}"))
            .ok_or_else(|| not_found(agent_id, partial)),
        many => Err(Error::new(
            ErrorCode::AmbiguousSession,
            format!(
                "{partial:?} matches {} sessions: {}",
                many.len(),
                many.iter()
                    .map(|t| t.session_id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .with_hint("give more characters of the id")),
    }
}

fn invalid_id(partial: &str) -> Error {
    Error::new(
        ErrorCode::InvalidArgument,
        format!("invalid session id {partial:?}"),
    )
    .with_hint(
        "session ids use letters, digits, '.', '_' and '-'; session keys look like agent:main:main",
    )
}

fn not_found(agent_id: &str, partial: &str) -> Error {
    Error::new(
        ErrorCode::SessionNotFound,
        format!("no session of agent {agent_id} matches {partial:?}"),
    )
    .with_hint("run `occ list` to see the session ids and keys")
}

/// What a transcript holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TranscriptInfo {
    /// The header's `version` (1 when it names none; 0 without a header).
    pub format_version: u32,
    /// The header's `id`.
    pub header_id: Option<String>,
    /// The header's `cwd`.
    pub cwd: Option<String>,
    /// The header's `timestamp`.
    pub created_at: Option<String>,
    /// The header's `parentSession` (set on clones).
    pub parent_session: Option<String>,
    /// Parsable entries after the header.
    pub entry_count: u32,
    /// Entries by `type` (`message`, `compaction`, `model_change`, …).
    pub entries_by_type: BTreeMap<String, u32>,
    /// Entries of type `message`.
    pub message_count: u32,
    /// Messages by role (`user`, `assistant`, `toolResult`, `bashExecution`, …).
    pub messages_by_role: BTreeMap<String, u32>,
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
    pub estimated_tokens: u64,
    /// Non-blank lines that are not JSON.
    pub unparsable_lines: u32,
    /// The latest entry `timestamp`, if any.
    pub last_activity: Option<String>,
}

fn content_chars(content: &Value, info: &mut TranscriptInfo, called_tool: &mut bool) -> u64 {
    match content {
        Value::String(s) => s.chars().count() as u64,
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b["type"].as_str() {
                Some("text") => b["text"].as_str().map_or(0, |t| t.chars().count() as u64),
                Some("thinking") => {
                    info.thinking_block_count += 1;
                    b["thinking"]
                        .as_str()
                        .map_or(0, |t| t.chars().count() as u64)
                }
                Some("toolCall") => {
                    info.tool_call_count += 1;
                    *called_tool = true;
                    b["arguments"].to_string().chars().count() as u64
                }
                Some("image") => {
                    info.image_count += 1;
                    0
                }
                _ => 0,
            })
            .sum(),
        _ => 0,
    }
}

/// Counts what a transcript (JSONL, from either store) holds. A line that
/// is not JSON is counted as unparsable, never an error.
pub fn transcript_info(text: &[u8]) -> TranscriptInfo {
    let mut info = TranscriptInfo::default();
    let mut chars = 0u64;
    let mut turn_has_tools = false;
    for (i, raw) in split_lines(text).enumerate() {
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Ok(entry) = serde_json::from_slice::<Value>(raw) else {
            info.unparsable_lines += 1;
            continue;
        };
        let kind = entry["type"].as_str().unwrap_or("").to_owned();
        if i == 0 && kind == "session" {
            info.format_version = entry["version"].as_u64().unwrap_or(1) as u32;
            info.header_id = entry["id"].as_str().map(str::to_owned);
            info.cwd = entry["cwd"].as_str().map(str::to_owned);
            info.created_at = entry["timestamp"].as_str().map(str::to_owned);
            info.parent_session = entry["parentSession"].as_str().map(str::to_owned);
            continue;
        }
        info.entry_count += 1;
        *info.entries_by_type.entry(kind.clone()).or_default() += 1;
        if let Some(ts) = entry["timestamp"].as_str() {
            if info.last_activity.as_deref().is_none_or(|l| ts > l) {
                info.last_activity = Some(ts.to_owned());
            }
        }
        match kind.as_str() {
            "compaction" => info.compaction_count += 1,
            "message" => {
                let msg = &entry["message"];
                let role = msg["role"].as_str().unwrap_or("unknown").to_owned();
                info.message_count += 1;
                *info.messages_by_role.entry(role.clone()).or_default() += 1;
                if role == "user" {
                    info.turn_count += 1;
                    if turn_has_tools {
                        info.turns_with_tools += 1;
                    }
                    turn_has_tools = false;
                }
                if role == "toolResult" {
                    info.tool_result_count += 1;
                }
                chars += content_chars(&msg["content"], &mut info, &mut turn_has_tools);
            }
            _ => {}
        }
    }
    if turn_has_tools {
        info.turns_with_tools += 1;
    }
    info.estimated_tokens = chars / 4;
    info
}
