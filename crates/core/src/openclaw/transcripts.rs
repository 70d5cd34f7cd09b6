//! An agent's OpenClaw transcripts: which there are, which one an id means,
//! and what one holds (research: openclaw-formats.md §2.2, §3, §4).

use super::state_dir::normalize_agent_id;
use crate::claude_code::paths::resolve_lexically;
use crate::error::{Error, ErrorCode, Result};
use crate::fs_safe::json_file::read_json;
use chrono::{DateTime, TimeZone, Utc};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Where one agent's sessions are.
#[derive(Debug, Clone)]
pub struct AgentSessions {
    pub agent_id: String,
    pub dir: PathBuf,
}

impl AgentSessions {
    /// `<state>/agents/<agent>/sessions`, checked: the agent must exist
    /// (`E_AGENT_NOT_FOUND`, naming the agents there are) and must not use
    /// the SQLite store of OpenClaw ≥ 2026.8 (`E_UNSUPPORTED_STORE`).
    pub fn open(state_dir: &Path, agent: &str) -> Result<AgentSessions> {
        let agent_id = normalize_agent_id(agent);
        let agent_dir = state_dir.join("agents").join(&agent_id);
        if agent_dir
            .join("agent")
            .join("openclaw-agent.sqlite")
            .exists()
        {
            return Err(Error::new(
                ErrorCode::UnsupportedStore,
                format!("agent {agent_id} keeps its sessions in SQLite (OpenClaw 2026.8 or later)"),
            )
            .with_hint("transcripts can be cleaned for OpenClaw up to 2026.7.x, which stores them as JSONL files"));
        }
        let dir = agent_dir.join("sessions");
        if !dir.is_dir() {
            let mut agents: Vec<String> = fs::read_dir(state_dir.join("agents"))
                .map(|rd| {
                    rd.flatten()
                        .filter(|e| e.path().join("sessions").is_dir())
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            agents.sort();
            let hint = if agents.is_empty() {
                format!(
                    "no agents with sessions under {}; pass --state-dir or set OPENCLAW_STATE_DIR",
                    state_dir.display()
                )
            } else {
                format!("available agents: {}", agents.join(", "))
            };
            return Err(Error::new(
                ErrorCode::AgentNotFound,
                format!(
                    "agent {agent_id} has no sessions in {}",
                    state_dir.display()
                ),
            )
            .with_hint(hint));
        }
        Ok(AgentSessions { agent_id, dir })
    }
}

/// One transcript file and what the session index says about it.
#[derive(Debug, Clone, PartialEq)]
pub struct TranscriptSummary {
    pub session_id: String,
    pub path: PathBuf,
    pub size_bytes: u64,
    pub modified: DateTime<Utc>,
    /// Session keys of `sessions.json` pointing at this file.
    pub session_keys: Vec<String>,
    pub label: Option<String>,
    pub display_name: Option<String>,
    pub updated_at: Option<DateTime<Utc>>,
}

/// Whether a file name is a live transcript: any `*.jsonl` but OpenClaw's
/// checkpoints, trajectories and corrupt-file copies (archives such as
/// `.jsonl.bak.<ts>` do not end in `.jsonl`).
fn is_transcript(name: &str) -> bool {
    name.ends_with(".jsonl")
        && !name.contains(".checkpoint.")
        && !name.ends_with(".trajectory.jsonl")
        && !name.contains(".corrupt-")
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

/// `sessionFile` of an index entry, honoured only inside the sessions dir.
fn index_file(dir: &Path, entry: &Value) -> Option<PathBuf> {
    let id = entry["sessionId"]
        .as_str()
        .filter(|id| is_valid_session_id(id))?;
    let declared = entry["sessionFile"].as_str().map(|f| {
        let p = Path::new(f);
        resolve_lexically(
            &if p.is_absolute() {
                p.to_path_buf()
            } else {
                dir.join(p)
            }
            .to_string_lossy(),
        )
    });
    let inside = declared.filter(|p| p.starts_with(resolve_lexically(&dir.to_string_lossy())));
    Some(inside.unwrap_or_else(|| dir.join(format!("{id}.jsonl"))))
}

fn from_ms(ms: f64) -> Option<DateTime<Utc>> {
    Utc.timestamp_millis_opt(ms as i64).single()
}

/// Every transcript of the agent, newest first.
pub fn list_transcripts(agent: &AgentSessions) -> Result<Vec<TranscriptSummary>> {
    let index = read_json(&agent.dir.join("sessions.json"));
    let mut by_file: BTreeMap<PathBuf, Vec<(&String, &Value)>> = BTreeMap::new();
    if let Some(entries) = index.as_object() {
        for (key, entry) in entries {
            if let Some(file) = index_file(&agent.dir, entry) {
                by_file.entry(file).or_default().push((key, entry));
            }
        }
    }
    let entries = fs::read_dir(&agent.dir).map_err(|e| {
        Error::new(
            ErrorCode::AgentNotFound,
            format!("cannot read {}: {e}", agent.dir.display()),
        )
    })?;
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_transcript(&name) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let path = entry.path();
        let keys = by_file
            .get(&resolve_lexically(&path.to_string_lossy()))
            .cloned()
            .unwrap_or_default();
        let text = |k: &str| {
            keys.iter()
                .find_map(|(_, e)| e[k].as_str().map(str::to_owned))
        };
        out.push(TranscriptSummary {
            session_id: name.trim_end_matches(".jsonl").to_owned(),
            size_bytes: meta.len(),
            modified: meta
                .modified()
                .map(DateTime::<Utc>::from)
                .unwrap_or_default(),
            session_keys: keys.iter().map(|(k, _)| (*k).clone()).collect(),
            label: text("label"),
            display_name: text("displayName"),
            updated_at: keys
                .iter()
                .filter_map(|(_, e)| e["updatedAt"].as_f64())
                .fold(None, |a: Option<f64>, b| Some(a.map_or(b, |a| a.max(b))))
                .and_then(from_ms),
            path,
        });
    }
    out.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
    Ok(out)
}

/// The transcript an id means: none → the most recently modified; a full
/// id; or a unique prefix. Errors: `E_NO_SESSIONS`, `E_SESSION_NOT_FOUND`,
/// `E_AMBIGUOUS_SESSION` (naming the candidates), `E_INVALID_ARGUMENT`.
pub fn resolve_transcript(
    agent: &AgentSessions,
    partial: Option<&str>,
) -> Result<TranscriptSummary> {
    let all = list_transcripts(agent)?;
    let Some(partial) = partial.map(str::trim).filter(|p| !p.is_empty()) else {
        return all.into_iter().next().ok_or_else(|| {
            Error::new(
                ErrorCode::NoSessions,
                format!("agent {} has no transcripts", agent.agent_id),
            )
            .with_hint("start a conversation first, or pass --agent for another agent")
        });
    };
    if !is_valid_session_id(partial) {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("invalid session id {partial:?}"),
        )
        .with_hint("session ids use letters, digits, '.', '_' and '-'"));
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
        [] => Err(Error::new(
            ErrorCode::SessionNotFound,
            format!("no session of agent {} matches {partial:?}", agent.agent_id),
        )
        .with_hint("run `occ list` to see the session ids")),
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

/// What a transcript holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TranscriptInfo {
    pub format_version: u32,
    pub header_id: Option<String>,
    pub cwd: Option<String>,
    pub created_at: Option<String>,
    pub parent_session: Option<String>,
    pub entry_count: u32,
    /// Entries by `type` (`message`, `compaction`, `model_change`, …).
    pub entries_by_type: BTreeMap<String, u32>,
    pub message_count: u32,
    /// Messages by role (`user`, `assistant`, `toolResult`, `bashExecution`, …).
    pub messages_by_role: BTreeMap<String, u32>,
    pub tool_call_count: u32,
    pub tool_result_count: u32,
    pub thinking_block_count: u32,
    pub image_count: u32,
    pub compaction_count: u32,
    /// User messages: each starts a turn.
    pub turn_count: u32,
    /// Turns whose assistant messages called a tool.
    pub turns_with_tools: u32,
    /// Characters of message content / 4.
    pub estimated_tokens: u64,
    pub unparsable_lines: u32,
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

/// Reads and counts a transcript. A line that is not JSON is counted as
/// unparsable, never an error.
pub fn transcript_info(path: &Path) -> Result<TranscriptInfo> {
    let text = fs::read(path).map_err(|e| {
        Error::new(
            ErrorCode::SessionNotFound,
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    let mut info = TranscriptInfo::default();
    let mut chars = 0u64;
    let mut turn_has_tools = false;
    for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
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
    Ok(info)
}
