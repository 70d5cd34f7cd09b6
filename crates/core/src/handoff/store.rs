//! The handoff directory of an agent (docs/formats.md, "Registries"):
//! `<state>/agents/<agent>/handoff/` with `session-state.json`,
//! `snapshots/<time>.json` and `patterns/<date>.jsonl`.
//!
//! Every write happens under `session-state.json.lock` (OpenClaw's lock
//! format) and is atomic; a capture that fails part-way takes back what it
//! wrote, so the directory is as it was.

use super::messages::{prefix_matches, recent_messages, Message};
use super::patterns::PatternNote;
use super::patterns::{clip_chars, detect_patterns};
use super::state::SessionState;
use super::summary::{derive_summary, summary_from_reply, HandoffSummary};
use crate::error::{Error, ErrorCode, Result};
use crate::fs_safe::{write_atomic, FileLock, LockOptions};
use crate::openclaw::events::split_lines;
use crate::openclaw::state_dir::normalize_agent_id;
use crate::openclaw::store::{sqlite::SqliteStore, AgentStore};
use crate::openclaw::transcripts::{Availability, StoreKind, TranscriptSummary};
use crate::time::iso_millis as iso;
use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::fs;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;

/// Hours a handoff stays valid.
pub const DEFAULT_EXPIRY_HOURS: f64 = 24.0;
/// Messages read from the end of the transcript.
pub const DEFAULT_MESSAGE_LIMIT: usize = 50;
/// How long the host's summarize callback may take.
pub const DEFAULT_SUMMARIZE_TIMEOUT_MS: u64 = 20_000;
/// Characters of one message in the summary prompt (pasted logs and files
/// would otherwise crowd out the conversation).
const PROMPT_MESSAGE_CHARS: usize = 2_000;
/// A handoff offered less than this long ago is not offered again.
const REOFFER_AFTER_MINUTES: i64 = 5;
/// What may ask for a capture (`CaptureHandoffOptions.trigger`).
pub const TRIGGERS: [&str; 7] = [
    "reset", "new", "stop", "manual", "periodic", "tool", "signal",
];
const MODES: [&str; 3] = ["work", "chat", "deep"];

/// An agent's handoff directory.
#[derive(Debug, Clone)]
pub struct HandoffDir {
    /// The directory itself.
    pub root: PathBuf,
}

impl HandoffDir {
    /// `<state_dir>/agents/<agent>/handoff`.
    pub fn of(state_dir: &Path, agent_id: &str) -> HandoffDir {
        HandoffDir {
            root: state_dir
                .join("agents")
                .join(normalize_agent_id(agent_id))
                .join("handoff"),
        }
    }

    /// `session-state.json`: the current state.
    pub fn state_path(&self) -> PathBuf {
        self.root.join("session-state.json")
    }

    /// `snapshots/`: one copy of the state per capture, pruned on expiry.
    pub fn snapshots(&self) -> PathBuf {
        self.root.join("snapshots")
    }

    /// `patterns/`: one file of pattern notes per day, pruned on expiry.
    pub fn patterns(&self) -> PathBuf {
        self.root.join("patterns")
    }

    fn lock(&self) -> Result<FileLock> {
        fs::create_dir_all(&self.root).map_err(|e| Error::write_failed(&self.root, &e))?;
        FileLock::acquire(&self.state_path(), LockOptions::default())
    }

    /// The stored state; `None` when there is none or it is not readable.
    pub fn read_state(&self) -> Option<SessionState> {
        let bytes = fs::read(self.state_path()).ok()?;
        serde_json::from_slice(&bytes).ok()
    }
}

/// What to capture.
#[derive(Debug, Clone)]
pub struct CaptureRequest {
    /// The agent whose session to capture.
    pub agent_id: String,
    /// The session (id or unique prefix); the most recent one when absent.
    pub session_id: Option<String>,
    /// OpenClaw's state dir.
    pub state_dir: PathBuf,
    /// The project the work belongs to (default `general`).
    pub project: Option<String>,
    /// `work`, `chat` or `deep` (default `work`).
    pub mode: Option<String>,
    /// What asked for the capture (`reset`, `new`, `manual`, …).
    pub trigger: String,
    /// Hours the state is offered for (and snapshots and pattern files kept).
    pub expiry_hours: f64,
    /// Messages read from the end of the transcript.
    pub message_limit: usize,
    /// How long the summarizer may take, in milliseconds.
    pub summarize_timeout_ms: u64,
    /// The clock.
    pub now: DateTime<Utc>,
}

/// What the host's model is given to summarise.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRequest {
    /// The agent whose session is captured.
    pub agent_id: String,
    /// The session captured.
    pub session_id: String,
    /// The project the work belongs to.
    pub project: String,
    /// What asked for the capture.
    pub trigger: String,
    /// The last messages, oldest first.
    pub messages: Vec<Message>,
    /// Patterns of those messages.
    pub patterns: Vec<PatternNote>,
    /// The summary derived without a model, used when the callback fails.
    pub fallback: HandoffSummary,
    /// A ready prompt asking for the summary as JSON.
    pub prompt: String,
    /// How long the answer may take, in milliseconds, before the derived
    /// summary is used.
    pub timeout_ms: u64,
}

/// The host's model, asked for a summary. It may answer with the summary
/// object or with text holding it as JSON.
pub trait Summarizer: Send + Sync {
    /// Asks for the summary of `request`: the summary object, text holding it
    /// as JSON, or `Err` with why not.
    fn summarize(
        &self,
        request: SummaryRequest,
    ) -> Pin<Box<dyn Future<Output = std::result::Result<Value, String>> + Send + '_>>;
}

/// A capture read and analysed, not yet summarised by a model or written.
#[derive(Debug, Clone)]
pub struct PreparedCapture {
    dir: HandoffDir,
    state: SessionState,
    /// The request the model would get.
    pub request: SummaryRequest,
    expiry: Duration,
}

fn parse_time(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

fn expiry_of(hours: f64) -> Result<Duration> {
    if !(hours.is_finite() && hours > 0.0) {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("expiryHours must be a positive number, not {hours}"),
        ));
    }
    Ok(Duration::milliseconds((hours * 3_600_000.0) as i64))
}

fn pattern_id(session_id: &str, line: u32, kind: &str) -> String {
    let digest = Sha256::digest(format!("{session_id}:{line}:{kind}").as_bytes());
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("{kind}-{hex}")
}

/// The patterns of the messages; a blocker counts as resolved when a later
/// message reports an accomplishment.
fn pattern_notes(session_id: &str, messages: &[Message], fallback_time: &str) -> Vec<PatternNote> {
    let mut notes: Vec<PatternNote> = Vec::new();
    for m in messages {
        for p in detect_patterns(&m.text) {
            let kind = p.kind.as_str();
            notes.push(PatternNote {
                id: pattern_id(session_id, m.index, kind),
                kind: kind.to_owned(),
                content: p.content,
                timestamp: m
                    .timestamp
                    .clone()
                    .unwrap_or_else(|| fallback_time.to_owned()),
                confidence: p.confidence,
                source_message_index: m.index,
                resolved: None,
            });
        }
    }
    for i in 0..notes.len() {
        if notes[i].kind == "blocker" {
            let line = notes[i].source_message_index;
            let later_fix = notes[i + 1..]
                .iter()
                .any(|n| n.kind == "accomplishment" && n.source_message_index > line);
            notes[i].resolved = Some(later_fix);
        }
    }
    notes
}

fn summary_prompt(messages: &[Message]) -> String {
    let mut prompt = String::from(
        "Summarise where this conversation left off, for the agent's next session. \
         Reply with JSON only: {\"lastTopic\": string, \"inProgress\": string[], \
         \"blockers\": string[], \"decisions\": string[], \"nextStep\": string}. \
         Keep each entry to one short line; leave out greetings and small talk.\n\n",
    );
    for m in messages {
        prompt.push_str(&format!(
            "[{}] {}\n\n",
            m.role,
            clip_chars(&m.text, PROMPT_MESSAGE_CHARS)
        ));
    }
    prompt
}

/// The trigger a name means: one of [`TRIGGERS`], or OpenClaw's hook event
/// for it (`command:reset`, `command:new`, `command:stop`).
pub fn trigger_name(name: &str) -> Option<&'static str> {
    let bare = name.trim().strip_prefix("command:").unwrap_or(name.trim());
    TRIGGERS.iter().copied().find(|t| *t == bare)
}

/// Reads the session's last messages, detects their patterns and derives
/// the fallback summary. Nothing is written.
pub fn prepare_capture(req: &CaptureRequest) -> Result<PreparedCapture> {
    let trigger = trigger_name(&req.trigger).ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidArgument,
            format!("unknown handoff trigger {:?}", req.trigger),
        )
        .with_hint(format!(
            "use one of: {} (OpenClaw's command:reset, command:new and command:stop are accepted too)",
            TRIGGERS.join(", ")
        ))
    })?;
    let mode = req.mode.clone().unwrap_or_else(|| "work".to_owned());
    if !MODES.contains(&mode.as_str()) {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("unknown handoff mode {mode:?}"),
        )
        .with_hint("use work, chat or deep"));
    }
    let expiry = expiry_of(req.expiry_hours)?;
    let agent = AgentStore::open(&req.state_dir, &req.agent_id)?;
    let transcript = agent.resolve(req.session_id.as_deref())?;
    let recent = recent_messages(agent.read(&transcript)?.bytes(), req.message_limit);
    let now = iso(req.now);
    let notes = pattern_notes(&transcript.session_id, &recent.messages, &now);
    let fallback = derive_summary(&recent.messages, &notes);
    let dir = HandoffDir::of(&req.state_dir, agent.agent_id());
    let created_at = dir
        .read_state()
        .filter(|s| s.previous_session_id.as_deref() == Some(&transcript.session_id))
        .map_or_else(|| now.clone(), |s| s.created_at);
    let project = req.project.clone().unwrap_or_else(|| "general".to_owned());
    let state = SessionState {
        agent_id: agent.agent_id().to_owned(),
        session_key: transcript
            .session_keys
            .first()
            .cloned()
            .or_else(|| transcript.window_key.clone())
            .unwrap_or_else(|| format!("agent:{}:main", agent.agent_id())),
        previous_session_id: Some(transcript.session_id.clone()),
        created_at,
        updated_at: now.clone(),
        expires_at: iso(req.now + expiry),
        project: project.clone(),
        mode,
        patterns: notes.clone(),
        summary: fallback.clone(),
        last_message_index: recent.last_message_index,
        transcript_hash: recent.transcript_hash,
        resume_available: true,
        resume_offered_at: None,
        trigger: trigger.to_owned(),
        transcript_file: transcript.path.to_string_lossy().into_owned(),
        transcript_store: transcript.store.as_str().to_owned(),
        transcript_bytes: recent.transcript_bytes,
        summary_source: "derived".to_owned(),
        summary_error: None,
    };
    let request = SummaryRequest {
        agent_id: agent.agent_id().to_owned(),
        session_id: transcript.session_id,
        project,
        trigger: trigger.to_owned(),
        prompt: summary_prompt(&recent.messages),
        messages: recent.messages,
        patterns: notes,
        fallback,
        timeout_ms: req.summarize_timeout_ms,
    };
    Ok(PreparedCapture {
        dir,
        state,
        request,
        expiry,
    })
}

/// The JSON object in a model's reply: the reply itself, or the outermost
/// `{…}` of a text reply.
fn reply_object(reply: Value) -> Value {
    match reply {
        Value::String(text) => {
            let (Some(start), Some(end)) = (text.find('{'), text.rfind('}')) else {
                return Value::String(text);
            };
            serde_json::from_str(&text[start..=end]).unwrap_or(Value::String(text))
        }
        other => other,
    }
}

/// Asks `summarizer` (if any) for the summary, within the request's timeout;
/// keeps the derived summary, with the reason, when it fails.
pub async fn summarize(prepared: &mut PreparedCapture, summarizer: Option<&dyn Summarizer>) {
    let Some(summarizer) = summarizer else {
        return;
    };
    let timeout = std::time::Duration::from_millis(prepared.request.timeout_ms);
    let reply = tokio::time::timeout(timeout, summarizer.summarize(prepared.request.clone())).await;
    let outcome = match reply {
        Err(_) => Err(format!(
            "the summarize callback did not answer within {} ms",
            prepared.request.timeout_ms
        )),
        Ok(Err(e)) => Err(format!("the summarize callback failed: {e}")),
        Ok(Ok(v)) => summary_from_reply(&reply_object(v), &prepared.request.fallback),
    };
    match outcome {
        Ok(summary) => {
            prepared.state.summary = summary;
            prepared.state.summary_source = "model".to_owned();
        }
        Err(e) => prepared.state.summary_error = Some(e),
    }
}

/// A file a capture wrote, and how to take it back.
enum Written {
    Created(PathBuf),
    Replaced(PathBuf, Vec<u8>),
}

fn undo(written: Vec<Written>) {
    for w in written.into_iter().rev() {
        match w {
            Written::Created(p) => {
                let _ = fs::remove_file(p);
            }
            Written::Replaced(p, old) => {
                let _ = write_atomic(&p, &old, None);
            }
        }
    }
}

fn to_json<T: Serialize>(value: &T, pretty: bool) -> Result<Vec<u8>> {
    let out = if pretty {
        serde_json::to_vec_pretty(value)
    } else {
        serde_json::to_vec(value)
    };
    out.map_err(|e| {
        Error::new(
            ErrorCode::Internal,
            format!("could not serialise the handoff: {e}"),
        )
    })
}

/// A snapshot file name for `now` not taken yet.
fn snapshot_path(dir: &Path, now: DateTime<Utc>) -> PathBuf {
    let stem = now.format("%Y-%m-%dT%H-%M-%S").to_string();
    let first = dir.join(format!("{stem}.json"));
    if !first.exists() {
        return first;
    }
    (2..)
        .map(|n| dir.join(format!("{stem}-{n}.json")))
        .find(|p| !p.exists())
        .expect("some name is free")
}

/// Appends the notes not yet in the day's pattern file.
fn append_patterns(
    path: &Path,
    notes: &[PatternNote],
    session_id: &str,
    written: &mut Vec<Written>,
) -> Result<()> {
    let old = fs::read(path).ok();
    let known: HashSet<String> = split_lines(old.as_deref().unwrap_or_default())
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter_map(|v| v["id"].as_str().map(str::to_owned))
        .collect();
    let mut text = old.clone().unwrap_or_default();
    if !text.is_empty() && !text.ends_with(b"\n") {
        text.push(b'\n');
    }
    let mut added = false;
    for note in notes.iter().filter(|n| !known.contains(&n.id)) {
        let mut line = serde_json::to_value(note).unwrap_or(Value::Null);
        line["sessionId"] = Value::from(session_id);
        text.extend(to_json(&line, false)?);
        text.push(b'\n');
        added = true;
    }
    if !added {
        return Ok(());
    }
    write_atomic(path, &text, None)?;
    written.push(match old {
        Some(old) => Written::Replaced(path.to_path_buf(), old),
        None => Written::Created(path.to_path_buf()),
    });
    Ok(())
}

/// Writes the snapshot, the day's new patterns and the state (last: it is
/// what a new session reads), then prunes expired files. On failure every
/// file written is taken back.
pub fn commit_capture(prepared: PreparedCapture, now: DateTime<Utc>) -> Result<SessionState> {
    let PreparedCapture {
        dir, state, expiry, ..
    } = prepared;
    let _lock = dir.lock()?;
    let mut written: Vec<Written> = Vec::new();
    let result = (|| -> Result<()> {
        for d in [dir.snapshots(), dir.patterns()] {
            fs::create_dir_all(&d).map_err(|e| Error::write_failed(&d, &e))?;
        }
        let text = to_json(&state, true)?;
        let snapshot = snapshot_path(&dir.snapshots(), now);
        write_atomic(&snapshot, &text, Some(0o600))?;
        written.push(Written::Created(snapshot));
        let day = dir
            .patterns()
            .join(format!("{}.jsonl", now.format("%Y-%m-%d")));
        let session = state.previous_session_id.as_deref().unwrap_or_default();
        append_patterns(&day, &state.patterns, session, &mut written)?;
        let path = dir.state_path();
        let old = fs::read(&path).ok();
        write_atomic(&path, &text, Some(0o600))?;
        written.push(match old {
            Some(old) => Written::Replaced(path, old),
            None => Written::Created(path),
        });
        Ok(())
    })();
    if let Err(e) = result {
        undo(written);
        return Err(e);
    }
    prune(&dir, now, expiry);
    Ok(state)
}

/// Removes snapshots and pattern files older than `expiry`. Best effort:
/// a file that cannot be removed now is removed next time.
pub fn prune(dir: &HandoffDir, now: DateTime<Utc>, expiry: Duration) {
    let cutoff = now - expiry;
    let entries = |d: PathBuf| fs::read_dir(d).into_iter().flatten().flatten();
    for e in entries(dir.snapshots()) {
        let name = e.file_name().to_string_lossy().into_owned();
        let taken = name
            .get(..19)
            .and_then(|s| chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H-%M-%S").ok());
        if taken.is_some_and(|t| t.and_utc() < cutoff) {
            let _ = fs::remove_file(e.path());
        }
    }
    for e in entries(dir.patterns()) {
        let name = e.file_name().to_string_lossy().into_owned();
        let day = name
            .strip_suffix(".jsonl")
            .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok());
        // A day's file holds patterns up to its end.
        if day.is_some_and(|d| {
            (d + Duration::days(1))
                .and_hms_opt(0, 0, 0)
                .is_some_and(|end| end.and_utc() < cutoff)
        }) {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// Whether a state may be offered at `now`, and why not.
fn offer_refusal(state: &SessionState, now: DateTime<Utc>, force: bool) -> Option<&'static str> {
    if !state.resume_available {
        return Some("no resume available");
    }
    if parse_time(&state.expires_at).is_none_or(|t| t < now) {
        return Some("expired");
    }
    let recent = state
        .resume_offered_at
        .as_deref()
        .and_then(parse_time)
        .is_some_and(|t| now - t < Duration::minutes(REOFFER_AFTER_MINUTES));
    (recent && !force).then_some("offered less than 5 minutes ago")
}

/// The original design's `checkForHandoff`: the state when one is available, not
/// expired and not offered in the last 5 minutes (unless `force`), marked
/// as offered now; `None` otherwise. Expired snapshots and pattern files
/// are pruned.
pub fn check_for_handoff(
    dir: &HandoffDir,
    now: DateTime<Utc>,
    force: bool,
    expiry_hours: f64,
) -> Result<Option<SessionState>> {
    let expiry = expiry_of(expiry_hours)?;
    if !dir.state_path().exists() {
        return Ok(None);
    }
    let _lock = dir.lock()?;
    let offered = match dir.read_state() {
        Some(mut state) if offer_refusal(&state, now, force).is_none() => {
            state.resume_offered_at = Some(iso(now));
            write_atomic(&dir.state_path(), &to_json(&state, true)?, None)?;
            Some(state)
        }
        _ => None,
    };
    prune(dir, now, expiry);
    Ok(offered)
}

/// Removes the state (`/handoff clear`); whether there was one. Snapshots
/// and pattern history stay until they expire.
pub fn clear_handoff(dir: &HandoffDir) -> Result<bool> {
    let path = dir.state_path();
    if !path.exists() {
        return Ok(false);
    }
    let _lock = dir.lock()?;
    match fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::write_failed(&path, &e)),
    }
}

/// What `/handoff status` shows.
#[derive(Debug, Clone, PartialEq)]
pub struct HandoffStatus {
    /// The agent's handoff directory.
    pub dir: PathBuf,
    /// The stored state; null when there is none (or it cannot be read).
    pub state: Option<SessionState>,
    /// Whether `checkForHandoff` would return the state now.
    pub offerable: bool,
    /// Why not, when it would not (`no handoff captured`, `the state file is
    /// not valid`, `no resume available`, `expired`, `offered less than 5
    /// minutes ago`); null when it would.
    pub reason: Option<String>,
    /// There is a state and its `expiresAt` has passed (or cannot be read).
    pub expired: bool,
    /// Milliseconds until the state expires, negative once expired; null
    /// without a state.
    pub expires_in_ms: Option<i64>,
    /// Whether the transcript still starts with what was captured (null:
    /// unreadable).
    pub transcript_intact: Option<bool>,
    /// Snapshots kept in the handoff directory (`snapshots/`).
    pub snapshot_count: u32,
    /// Daily pattern files kept in the handoff directory (`patterns/`).
    pub pattern_file_count: u32,
}

/// Whether the transcript a state was captured from still starts with what
/// was read; `None` when it cannot be read.
fn transcript_intact(s: &SessionState) -> Option<bool> {
    let content = match s.transcript_store.as_str() {
        "sqlite" => {
            let store =
                SqliteStore::new(&s.agent_id, Path::new(""), s.transcript_file.clone().into());
            let session = TranscriptSummary {
                session_id: s.previous_session_id.clone()?,
                path: store.db.clone(),
                size_bytes: 0,
                modified: Utc::now(),
                session_keys: Vec::new(),
                label: None,
                display_name: None,
                updated_at: None,
                window_key: None,
                store: StoreKind::Sqlite,
                availability: Availability::Available,
                event_count: None,
            };
            store.read(&session).ok()?.bytes().to_vec()
        }
        _ => fs::read(&s.transcript_file).ok()?,
    };
    Some(prefix_matches(
        &content,
        s.transcript_bytes,
        &s.transcript_hash,
    ))
}

/// The handoff state and its files, read only.
pub fn handoff_status(dir: &HandoffDir, now: DateTime<Utc>) -> HandoffStatus {
    let count = |d: PathBuf| fs::read_dir(d).map_or(0, |rd| rd.flatten().count() as u32);
    let state = dir.read_state();
    let reason = match &state {
        Some(s) => offer_refusal(s, now, false).map(str::to_owned),
        None if dir.state_path().exists() => Some("the state file is not valid".to_owned()),
        None => Some("no handoff captured".to_owned()),
    };
    let expires = state.as_ref().and_then(|s| parse_time(&s.expires_at));
    HandoffStatus {
        dir: dir.root.clone(),
        offerable: reason.is_none(),
        reason,
        expired: state.is_some() && expires.is_none_or(|t| t < now),
        expires_in_ms: expires.map(|t| (t - now).num_milliseconds()),
        transcript_intact: state.as_ref().and_then(transcript_intact),
        snapshot_count: count(dir.snapshots()),
        pattern_file_count: count(dir.patterns()),
        state,
    }
}

/// The whole capture: prepare, summarise (the host's model when given,
/// bounded by the timeout), commit. File work runs on the blocking pool.
pub async fn capture_handoff(
    req: CaptureRequest,
    summarizer: Option<&dyn Summarizer>,
) -> Result<SessionState> {
    let now = req.now;
    let mut prepared = blocking(move || prepare_capture(&req)).await?;
    summarize(&mut prepared, summarizer).await;
    blocking(move || commit_capture(prepared, now)).await
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Error::new(ErrorCode::Internal, format!("handoff task failed: {e}")))?
}
