//! The handoff summary: what was being done, what blocked
//! it, what was decided and what comes next. The host's model writes it when
//! it can; otherwise it is derived from the messages and their patterns.

use super::messages::Message;
use super::patterns::PatternNote;
use super::patterns::{clip_chars, is_chatter, sentences, PatternType};
use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::LazyLock;

/// The `summary` of a session state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
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

/// At most this many entries per list of a derived summary.
const LIST_MAX: usize = 5;
/// Requests listed as in progress.
const IN_PROGRESS_MAX: usize = 3;
/// Characters of one summary line.
const LINE_MAX: usize = 160;

/// A sentence announcing the assistant's next action.
static NEXT_ACTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:next,?|i'll|i will|let me|i'm going to|i am going to|going to|then i)\b")
        .expect("the next-action phrases compile")
});

/// The first line of a message, as one summary line.
fn headline(text: &str) -> String {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    clip_chars(first, LINE_MAX)
}

/// The last `max` distinct contents of the notes of `kind` that pass
/// `keep`, oldest first.
fn latest(
    notes: &[PatternNote],
    kind: PatternType,
    keep: impl Fn(&PatternNote) -> bool,
    max: usize,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in notes
        .iter()
        .rev()
        .filter(|n| n.kind == kind.as_str() && keep(n))
    {
        if !out.contains(&n.content) {
            out.push(n.content.clone());
        }
        if out.len() == max {
            break;
        }
    }
    out.reverse();
    out
}

/// The summary derived without a model: the last user request is the
/// topic, the last few work requests are in progress, unresolved blockers
/// and decisions come from the patterns, and the next step is the last
/// assistant message's announced action (or the unanswered request).
pub fn derive_summary(messages: &[Message], notes: &[PatternNote]) -> HandoffSummary {
    let requests: Vec<&Message> = messages
        .iter()
        .filter(|m| m.role == "user" && !is_chatter(&m.text))
        .collect();
    let last_topic = requests
        .last()
        .map(|m| headline(&m.text))
        .unwrap_or_default();
    let mut in_progress: Vec<String> = Vec::new();
    for m in requests.iter().rev() {
        let line = headline(&m.text);
        if !in_progress.contains(&line) {
            in_progress.push(line);
        }
        if in_progress.len() == IN_PROGRESS_MAX {
            break;
        }
    }
    in_progress.reverse();
    let next_step = match messages.last() {
        Some(m) if m.role == "user" && !is_chatter(&m.text) => {
            format!("Answer the last request: {}", headline(&m.text))
        }
        Some(m) if m.role == "assistant" => sentences(&m.text)
            .into_iter()
            .find(|s| NEXT_ACTION.is_match(s))
            .map(|s| clip_chars(s.trim_end_matches(['.', '!', '?']), LINE_MAX))
            .unwrap_or_else(|| continue_with(&last_topic)),
        _ => continue_with(&last_topic),
    };
    HandoffSummary {
        last_topic,
        in_progress,
        blockers: latest(
            notes,
            PatternType::Blocker,
            |n| n.resolved != Some(true),
            LIST_MAX,
        ),
        decisions: latest(notes, PatternType::Decision, |_| true, LIST_MAX),
        next_step,
    }
}

fn continue_with(topic: &str) -> String {
    if topic.is_empty() {
        String::new()
    } else {
        format!("Continue with: {topic}")
    }
}

/// A model's summary, checked: an object whose known fields have the right
/// types. Missing fields are taken from `fallback`; a wrongly typed one
/// rejects the whole reply.
pub fn summary_from_reply(
    reply: &Value,
    fallback: &HandoffSummary,
) -> Result<HandoffSummary, String> {
    let Value::Object(obj) = reply else {
        return Err(format!(
            "the summarize callback returned {}, not an object",
            kind_of(reply)
        ));
    };
    let text = |key: &str, default: &str| -> Result<String, String> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(default.to_owned()),
            Some(Value::String(s)) => Ok(s.trim().to_owned()),
            Some(other) => Err(format!("summary.{key} is {}, not a string", kind_of(other))),
        }
    };
    let list = |key: &str, default: &[String]| -> Result<Vec<String>, String> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(default.to_vec()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.trim().to_owned()),
                    other => Err(format!(
                        "summary.{key} holds {}, not strings",
                        kind_of(other)
                    )),
                })
                .filter(|s| s.as_ref().map_or(true, |s| !s.is_empty()))
                .collect(),
            Some(other) => Err(format!("summary.{key} is {}, not an array", kind_of(other))),
        }
    };
    Ok(HandoffSummary {
        last_topic: text("lastTopic", &fallback.last_topic)?,
        in_progress: list("inProgress", &fallback.in_progress)?,
        blockers: list("blockers", &fallback.blockers)?,
        decisions: list("decisions", &fallback.decisions)?,
        next_step: text("nextStep", &fallback.next_step)?,
    })
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
