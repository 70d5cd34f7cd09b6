//! The handoff state file and the context block a new session is given
//! from it (docs/api/handoff.md).

use super::patterns::PatternNote;
use super::summary::HandoffSummary;
use serde::{Deserialize, Serialize};

/// `handoff/session-state.json`: the original design's `SessionState`, plus what was
/// captured from where and how the summary was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
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
    #[serde(default = "jsonl_store")]
    pub transcript_store: String,
    /// Bytes of the transcript `transcriptHash` covers.
    pub transcript_bytes: u64,
    /// `model` when the host's summarize callback wrote the summary,
    /// `derived` when it was derived from the messages.
    pub summary_source: String,
    /// Why the callback's summary was not used (slow, failed, malformed); null
    /// when it was used or there was no callback.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_error: Option<String>,
}

fn jsonl_store() -> String {
    "jsonl".to_owned()
}

fn bullets(items: &[String]) -> String {
    if items.is_empty() {
        "- (none)".to_owned()
    } else {
        items
            .iter()
            .map(|i| format!("- {i}"))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

fn or_none(s: &str) -> &str {
    if s.trim().is_empty() {
        "(none)"
    } else {
        s
    }
}

/// The original design's "Previous Session Context" markdown block of a state (its
/// `updatedAt`, `project` and `summary`); empty lists and fields read
/// `(none)`.
pub fn render_context(updated_at: &str, project: &str, s: &HandoffSummary) -> String {
    let work = if project.trim().is_empty() {
        "the previous work"
    } else {
        project
    };
    format!(
        "## Previous Session Context\n\n\
         The previous session ended at {ended}.\n\n\
         ### Current Project\n{project}\n\n\
         ### In Progress\n{progress}\n\n\
         ### Recent Blockers\n{blockers}\n\n\
         ### Recent Decisions\n{decisions}\n\n\
         ### Suggested Next Step\n{next}\n\n\
         ---\n\n\
         Ask the user: \"Would you like to continue where we left off with {work}?\"\n",
        ended = updated_at,
        project = or_none(project),
        progress = bullets(&s.in_progress),
        blockers = bullets(&s.blockers),
        decisions = bullets(&s.decisions),
        next = or_none(&s.next_step),
    )
}
