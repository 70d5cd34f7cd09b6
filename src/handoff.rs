//! Session handoff: patterns, capture, offer, status.

use crate::callback::{call_host, HostCallback};
use crate::error::{coded_error, CoreTask};
use chrono::{DateTime, Utc};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core::handoff::{messages, patterns, state, store, summary};
use session_intel_core::openclaw::state_dir;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;

/// A blocker, decision, insight or accomplishment found in a message.
#[napi(object)]
pub struct DetectedPattern {
    /// What kind of pattern the sentence shows.
    #[napi(
        js_name = "type",
        ts_type = "\"blocker\" | \"decision\" | \"insight\" | \"accomplishment\""
    )]
    pub kind: String,
    /// 0.5 (a weak phrase or a question) to 0.9 (an explicit phrase).
    pub confidence: f64,
    /// The sentence that showed it, at most 200 characters.
    pub content: String,
}

/// The patterns of one message, at most one per type; none for greetings,
/// thanks and casual chatter.
#[napi(catch_unwind)]
pub fn detect_patterns(text: String) -> Vec<DetectedPattern> {
    patterns::detect_patterns(&text)
        .into_iter()
        .map(|p| DetectedPattern {
            kind: p.kind.as_str().to_string(),
            confidence: p.confidence,
            content: p.content,
        })
        .collect()
}

/// The `summary` of a handoff: where the work stood.
#[napi(object)]
pub struct HandoffSummary {
    /// What the session was last about (derived: the last user request).
    pub last_topic: String,
    /// Work started and not finished (derived: the last few work requests).
    pub in_progress: Vec<String>,
    /// What stands in the way (derived: unresolved blocker patterns).
    pub blockers: Vec<String>,
    /// What was decided (derived: decision patterns).
    pub decisions: Vec<String>,
    /// What to do next (derived: the assistant's last announced action, or the
    /// unanswered request); `""` when nothing says.
    pub next_step: String,
}

impl From<summary::HandoffSummary> for HandoffSummary {
    fn from(s: summary::HandoffSummary) -> Self {
        HandoffSummary {
            last_topic: s.last_topic,
            in_progress: s.in_progress,
            blockers: s.blockers,
            decisions: s.decisions,
            next_step: s.next_step,
        }
    }
}

impl From<HandoffSummary> for summary::HandoffSummary {
    fn from(s: HandoffSummary) -> Self {
        summary::HandoffSummary {
            last_topic: s.last_topic,
            in_progress: s.in_progress,
            blockers: s.blockers,
            decisions: s.decisions,
            next_step: s.next_step,
        }
    }
}

/// A pattern of a captured message (the original design's `PatternNote`).
#[napi(object)]
pub struct PatternNote {
    /// Stable for one message and type: capturing twice gives the same id.
    pub id: String,
    /// What kind of pattern the message shows: `blocker`, `decision`,
    /// `insight`, `accomplishment`, `scope_creep` or `task_created`.
    #[napi(
        js_name = "type",
        ts_type = "'blocker' | 'decision' | 'insight' | 'accomplishment' | 'scope_creep' | 'task_created'"
    )]
    pub kind: String,
    /// The sentence that showed it, at most 200 characters.
    pub content: String,
    /// When it was captured (ISO-8601 string).
    pub timestamp: String,
    /// 0.5 (a weak phrase or a question) to 0.9 (an explicit phrase).
    pub confidence: f64,
    /// Line of the transcript the message is on.
    pub source_message_index: u32,
    /// Blockers: whether a later message of the window reports an
    /// accomplishment; absent (or null) for other types.
    pub resolved: Option<bool>,
}

impl From<patterns::PatternNote> for PatternNote {
    fn from(n: patterns::PatternNote) -> Self {
        PatternNote {
            id: n.id,
            kind: n.kind,
            content: n.content,
            timestamp: n.timestamp,
            confidence: n.confidence,
            source_message_index: n.source_message_index,
            resolved: n.resolved,
        }
    }
}

/// `handoff/session-state.json`: the original design's `SessionState` plus where it
/// was captured from and how the summary was made. Absent values are `null`.
#[napi(object, use_nullable = true)]
pub struct SessionState {
    /// The agent whose session was captured.
    pub agent_id: String,
    /// The OpenClaw session key the transcript belongs to (e.g.
    /// `agent:main:main`).
    pub session_key: String,
    /// The session this state was captured from.
    pub previous_session_id: Option<String>,
    /// When this session was first captured (ISO-8601 string); kept by later
    /// captures of the same session.
    pub created_at: String,
    /// When it was last captured (ISO-8601 string).
    pub updated_at: String,
    /// When it stops being offered (ISO-8601 string): `updatedAt` plus
    /// `expiryHours`.
    pub expires_at: String,
    /// The project the work belongs to (default `general`).
    pub project: String,
    /// The agent's working mode when captured: `work`, `chat` or `deep`.
    #[napi(ts_type = "'work' | 'chat' | 'deep'")]
    pub mode: String,
    /// Patterns of the captured messages, oldest first.
    pub patterns: Vec<PatternNote>,
    /// Where the work stood.
    pub summary: HandoffSummary,
    /// Line of the transcript's last message when captured.
    pub last_message_index: u32,
    /// `sha256:<hex>` of the transcript up to the end of that line.
    pub transcript_hash: String,
    /// Whether it may still be offered (`checkForHandoff`).
    pub resume_available: bool,
    /// When it was last offered (ISO-8601 string); null until offered.
    pub resume_offered_at: Option<String>,
    /// What asked for the capture (`reset`, `new`, `manual`, …).
    pub trigger: String,
    /// The transcript read: its JSONL file, or the agent database.
    pub transcript_file: String,
    /// The store it was read from: `jsonl` or `sqlite`.
    #[napi(ts_type = "'jsonl' | 'sqlite'")]
    pub transcript_store: String,
    /// Bytes of the transcript `transcriptHash` covers.
    pub transcript_bytes: f64,
    /// `model` when the host's summarize callback wrote the summary,
    /// `derived` when it was derived from the messages.
    #[napi(ts_type = "'model' | 'derived'")]
    pub summary_source: String,
    /// Why the callback's summary was not used (slow, failed, malformed); null
    /// when it was used or there was no callback.
    pub summary_error: Option<String>,
}

impl From<state::SessionState> for SessionState {
    fn from(s: state::SessionState) -> Self {
        SessionState {
            agent_id: s.agent_id,
            session_key: s.session_key,
            previous_session_id: s.previous_session_id,
            created_at: s.created_at,
            updated_at: s.updated_at,
            expires_at: s.expires_at,
            project: s.project,
            mode: s.mode,
            patterns: s.patterns.into_iter().map(Into::into).collect(),
            summary: s.summary.into(),
            last_message_index: s.last_message_index,
            transcript_hash: s.transcript_hash,
            resume_available: s.resume_available,
            resume_offered_at: s.resume_offered_at,
            trigger: s.trigger,
            transcript_file: s.transcript_file,
            transcript_store: s.transcript_store,
            transcript_bytes: s.transcript_bytes as f64,
            summary_source: s.summary_source,
            summary_error: s.summary_error,
        }
    }
}

/// What the handoff context block is rendered from: any `SessionState`.
#[napi(object, object_to_js = false)]
pub struct HandoffContextSource {
    /// Shown as when the previous session ended.
    pub updated_at: String,
    /// Shown as the current project; blank reads `(none)`.
    pub project: String,
    /// Its lists and next step are shown; empty ones read `(none)`.
    pub summary: HandoffSummary,
}

/// A message given to the host's summarize callback.
#[napi(object, object_from_js = false)]
pub struct HandoffMessage {
    /// Line of the transcript (0-based; the header is line 0).
    pub index: u32,
    /// Who wrote it: `user` or `assistant`.
    #[napi(ts_type = "'user' | 'assistant'")]
    pub role: String,
    /// The message's text blocks, joined by blank lines.
    pub text: String,
    /// Its ISO-8601 timestamp; absent when the entry has none.
    pub timestamp: Option<String>,
}

impl From<messages::Message> for HandoffMessage {
    fn from(m: messages::Message) -> Self {
        HandoffMessage {
            index: m.index,
            role: m.role,
            text: m.text,
            timestamp: m.timestamp,
        }
    }
}

/// What the host's summarize callback is asked.
#[napi(object, object_from_js = false)]
pub struct HandoffSummaryRequest {
    /// The agent whose session is captured.
    pub agent_id: String,
    /// The session captured.
    pub session_id: String,
    /// The project the work belongs to.
    pub project: String,
    /// What asked for the capture.
    pub trigger: String,
    /// The last messages, oldest first.
    pub messages: Vec<HandoffMessage>,
    /// Patterns of those messages.
    pub patterns: Vec<PatternNote>,
    /// The summary derived without a model, used when the callback fails.
    pub fallback: HandoffSummary,
    /// A ready prompt asking for the summary as JSON.
    pub prompt: String,
    /// How long the answer may take, in milliseconds, before the derived
    /// summary is used.
    pub timeout_ms: u32,
}

impl From<store::SummaryRequest> for HandoffSummaryRequest {
    fn from(r: store::SummaryRequest) -> Self {
        HandoffSummaryRequest {
            agent_id: r.agent_id,
            session_id: r.session_id,
            project: r.project,
            trigger: r.trigger,
            messages: r.messages.into_iter().map(Into::into).collect(),
            patterns: r.patterns.into_iter().map(Into::into).collect(),
            fallback: r.fallback.into(),
            prompt: r.prompt,
            timeout_ms: u32::try_from(r.timeout_ms).unwrap_or(u32::MAX),
        }
    }
}

type SummarizeCallback = HostCallback<HandoffSummaryRequest, serde_json::Value>;

/// `captureHandoff` options.
#[napi(object, object_to_js = false)]
pub struct CaptureHandoffOptions {
    /// The agent whose session to capture.
    pub agent_id: String,
    /// Session id or unique prefix; default the agent's most recent.
    pub session_id: Option<String>,
    /// OpenClaw's state dir (default: OpenClaw's own resolution).
    pub state_dir: Option<String>,
    /// The project the work belongs to (shown in the context block).
    /// Default `general`.
    pub project: Option<String>,
    /// The agent's working mode, recorded in the state. Default `work`.
    #[napi(ts_type = "'work' | 'chat' | 'deep'")]
    pub mode: Option<String>,
    /// What asked for the capture (recorded in the state).
    #[napi(
        ts_type = "'reset' | 'new' | 'stop' | 'manual' | 'periodic' | 'tool' | 'signal' | 'command:reset' | 'command:new' | 'command:stop'"
    )]
    pub trigger: String,
    /// The host's model: resolves to the summary (an object, or text holding
    /// it as JSON). Slow, failing or malformed answers fall back to the
    /// derived summary.
    #[napi(
        ts_type = "(request: HandoffSummaryRequest) => Promise<Partial<HandoffSummary> | string>"
    )]
    pub summarize: Option<SummarizeCallback>,
    /// How long `summarize` may take, in milliseconds. Default 20000; read
    /// as Node's `setTimeout` reads a delay.
    pub summarize_timeout_ms: Option<f64>,
    /// Hours the state is offered for (and snapshots and pattern files
    /// kept). Default 24.
    pub expiry_hours: Option<f64>,
    /// Messages read from the end of the transcript; default 50.
    pub message_limit: Option<f64>,
    /// The clock (tests, replays); default now.
    pub now: Option<DateTime<Utc>>,
}

/// `checkForHandoff`, `clearHandoff` and `handoffStatus` options.
#[napi(object, object_to_js = false)]
pub struct HandoffOptions {
    /// The agent whose handoff it is.
    pub agent_id: String,
    /// OpenClaw's state dir (default: OpenClaw's own resolution).
    pub state_dir: Option<String>,
    /// The clock (tests, replays); default now.
    pub now: Option<DateTime<Utc>>,
    /// Offer even if offered less than 5 minutes ago (`/resume`).
    pub force: Option<bool>,
    /// Retention of snapshots and pattern files; default 24.
    pub expiry_hours: Option<f64>,
}

/// What `/handoff status` shows.
#[napi(object, object_from_js = false, use_nullable = true)]
pub struct HandoffStatus {
    /// The agent's handoff directory.
    pub dir: String,
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
    pub expires_in_ms: Option<f64>,
    /// Whether the transcript still starts with what was captured (null:
    /// unreadable).
    pub transcript_intact: Option<bool>,
    /// Snapshots kept in the handoff directory (`snapshots/`).
    pub snapshot_count: u32,
    /// Daily pattern files kept in the handoff directory (`patterns/`).
    pub pattern_file_count: u32,
}

impl From<store::HandoffStatus> for HandoffStatus {
    fn from(s: store::HandoffStatus) -> Self {
        HandoffStatus {
            dir: s.dir.to_string_lossy().into_owned(),
            state: s.state.map(Into::into),
            offerable: s.offerable,
            reason: s.reason,
            expired: s.expired,
            expires_in_ms: s.expires_in_ms.map(|ms| ms as f64),
            transcript_intact: s.transcript_intact,
            snapshot_count: s.snapshot_count,
            pattern_file_count: s.pattern_file_count,
        }
    }
}

/// Whether `clearHandoff` removed a state.
#[napi(object, object_from_js = false)]
pub struct ClearHandoffResult {
    /// `true` when there was a state and it was removed.
    pub cleared: bool,
}

/// The host's callback as the handoff's summarizer.
struct HostSummarizer(SummarizeCallback);

impl store::Summarizer for HostSummarizer {
    fn summarize(
        &self,
        r: store::SummaryRequest,
    ) -> Pin<Box<dyn Future<Output = std::result::Result<serde_json::Value, String>> + Send + '_>>
    {
        Box::pin(call_host(&self.0, r.into()))
    }
}

fn handoff_dir(o: &HandoffOptions) -> store::HandoffDir {
    let state = state_dir::resolve_state_dir(o.state_dir.as_deref().map(Path::new));
    store::HandoffDir::of(&state, &o.agent_id)
}

/// Captures where the agent's session left off: its last
/// messages, their patterns and a summary (from `summarize` when given and
/// it answers in time, derived otherwise), written atomically to
/// `handoff/session-state.json`, a snapshot and the day's pattern file.
#[napi(catch_unwind, ts_return_type = "Promise<SessionState>")]
pub fn capture_handoff<'env>(
    env: &'env Env,
    mut options: CaptureHandoffOptions,
) -> Result<PromiseRaw<'env, SessionState>> {
    let summarizer = options.summarize.take().map(HostSummarizer);
    let request = capture_request(options);
    let work = async move {
        Ok(match request {
            Ok(request) => {
                store::capture_handoff(
                    request,
                    summarizer.as_ref().map(|s| s as &dyn store::Summarizer),
                )
                .await
            }
            Err(invalid) => Err(invalid),
        })
    };
    env.spawn_future_with_callback(work, |env, r| match r {
        Ok(s) => Ok(s.into()),
        Err(e) => Err(coded_error(env, e)),
    })
}

/// The capture request of `options` (its callback taken out), or
/// `E_INVALID_ARGUMENT` for a message limit that is not a count.
fn capture_request(
    options: CaptureHandoffOptions,
) -> session_intel_core::Result<store::CaptureRequest> {
    Ok(store::CaptureRequest {
        agent_id: options.agent_id,
        session_id: options.session_id,
        state_dir: state_dir::resolve_state_dir(options.state_dir.as_deref().map(Path::new)),
        project: options.project,
        mode: options.mode,
        trigger: options.trigger,
        expiry_hours: options.expiry_hours.unwrap_or(store::DEFAULT_EXPIRY_HOURS),
        message_limit: session_intel_core::optional_whole_number(
            "messageLimit",
            options.message_limit,
        )?
        .map_or(store::DEFAULT_MESSAGE_LIMIT, |n| n as usize),
        summarize_timeout_ms: options.summarize_timeout_ms.map_or(
            store::DEFAULT_SUMMARIZE_TIMEOUT_MS,
            session_intel_core::timer_ms,
        ),
        now: options.now.unwrap_or_else(Utc::now),
    })
}

/// The original design's `checkForHandoff`: the handoff when one is available, not
/// expired and not offered in the last 5 minutes (unless `force`), marked
/// offered; `null` otherwise. Prunes expired snapshots and pattern files.
#[napi(catch_unwind, ts_return_type = "Promise<SessionState | null>")]
pub fn check_for_handoff(
    options: HandoffOptions,
) -> AsyncTask<CoreTask<Option<state::SessionState>, Option<SessionState>>> {
    let dir = handoff_dir(&options);
    let now = options.now.unwrap_or_else(Utc::now);
    let force = options.force.unwrap_or_default();
    let expiry = options.expiry_hours.unwrap_or(store::DEFAULT_EXPIRY_HOURS);
    AsyncTask::new(CoreTask::new(
        move || store::check_for_handoff(&dir, now, force, expiry),
        |s| s.map(Into::into),
    ))
}

/// The original design's "Previous Session Context" markdown block.
#[napi(catch_unwind)]
pub fn render_handoff_context(state: HandoffContextSource) -> String {
    state::render_context(&state.updated_at, &state.project, &state.summary.into())
}

/// `/handoff clear`: removes the agent's handoff state.
#[napi(catch_unwind, ts_return_type = "Promise<ClearHandoffResult>")]
pub fn clear_handoff(options: HandoffOptions) -> AsyncTask<CoreTask<bool, ClearHandoffResult>> {
    let dir = handoff_dir(&options);
    AsyncTask::new(CoreTask::new(
        move || store::clear_handoff(&dir),
        |cleared| ClearHandoffResult { cleared },
    ))
}

/// `/handoff status`: the state, whether it would be offered now, and the
/// files kept.
#[napi(catch_unwind, ts_return_type = "Promise<HandoffStatus>")]
pub fn handoff_status(
    options: HandoffOptions,
) -> AsyncTask<CoreTask<store::HandoffStatus, HandoffStatus>> {
    let dir = handoff_dir(&options);
    let now = options.now.unwrap_or_else(Utc::now);
    AsyncTask::new(CoreTask::new(
        move || Ok(store::handoff_status(&dir, now)),
        HandoffStatus::from,
    ))
}
