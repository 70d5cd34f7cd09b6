//! The conversation an agent was having: the last user and assistant
//! messages on the active branch of an OpenClaw transcript (docs/formats.md,
//! "OpenClaw transcripts"), with what is needed to verify it later.

use crate::openclaw::entry::EntryHead;
use crate::openclaw::events::{line_ends, split_lines};
use crate::openclaw::tree::{active_path, TreeEntry};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// One user or assistant message.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Line of the transcript (0-based; the header is line 0).
    pub index: u32,
    /// Who wrote it: `user` or `assistant`.
    pub role: String,
    /// The message's text blocks, joined by blank lines.
    pub text: String,
    /// Its ISO-8601 timestamp; absent when the entry has none.
    pub timestamp: Option<String>,
}

/// The last messages of a transcript and the fingerprint of what was read.
#[derive(Debug, Clone, PartialEq)]
pub struct RecentMessages {
    /// Oldest first.
    pub messages: Vec<Message>,
    /// Line of the last message (of the whole active branch), 0 when none.
    pub last_message_index: u32,
    /// Bytes of the transcript up to the end of that line.
    pub transcript_bytes: u64,
    /// `sha256:<hex>` of those bytes: the transcript was not rewritten
    /// while its prefix still hashes to this.
    pub transcript_hash: String,
}

/// `sha256:<hex>` of `bytes`.
pub fn fingerprint(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The text of a message's content: a string, or its `text` blocks.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.trim().to_owned(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => String::new(),
    }
}

/// The user or assistant message of an entry with text, if it is one.
fn conversation_message(line: u32, raw: &[u8]) -> Option<Message> {
    let entry: Value = serde_json::from_slice(raw).ok()?;
    let msg = &entry["message"];
    let role = msg["role"]
        .as_str()
        .filter(|r| matches!(*r, "user" | "assistant"))?;
    let text = content_text(&msg["content"]);
    (!text.is_empty()).then(|| Message {
        index: line,
        role: role.to_owned(),
        text,
        timestamp: entry["timestamp"].as_str().map(str::to_owned),
    })
}

/// The last `limit` user and assistant messages with text on the active
/// branch of a transcript (JSONL from either store), from the latest
/// stretch of the conversation that has any: a `reset` entry (OpenClaw
/// 2026.9 records `/new` and `/reset` as one, in the same session) ends a
/// stretch, so a capture made just after a reset boundary was written
/// reads the messages it hides, and one made just before reads the same
/// messages. Unparsable lines are skipped.
pub fn recent_messages(bytes: &[u8], limit: usize) -> RecentMessages {
    let raw: Vec<&[u8]> = split_lines(bytes).collect();
    let heads: Vec<EntryHead> = raw.iter().map(|l| EntryHead::read(l)).collect();
    let tree: Vec<TreeEntry> = heads.iter().map(EntryHead::tree).collect();
    let path = active_path(&tree);
    let role = |i: usize| heads[i].message_role();
    let conversation = |i: usize| matches!(role(i), Some("user" | "assistant"));
    // The stretches between reset boundaries; the latest with a message.
    let mut stretches: Vec<&[usize]> = path
        .split(|&i| heads[i].kind.as_deref() == Some("reset"))
        .collect();
    while stretches.len() > 1
        && !stretches
            .last()
            .is_some_and(|s| s.iter().any(|&i| conversation(i)))
    {
        stretches.pop();
    }
    let stretch = stretches.last().copied().unwrap_or_default();
    let mut messages: Vec<Message> = stretch
        .iter()
        .rev()
        .filter(|&&i| conversation(i))
        .filter_map(|&i| conversation_message(i as u32, raw[i]))
        .take(limit)
        .collect();
    messages.reverse();
    let last_message_index = path
        .iter()
        .rev()
        .find(|&&i| role(i).is_some())
        .map_or(0, |&i| i as u32);
    let ends = line_ends(bytes);
    let transcript_bytes = ends.get(last_message_index as usize).copied().unwrap_or(0);
    RecentMessages {
        messages,
        last_message_index,
        transcript_bytes: transcript_bytes as u64,
        transcript_hash: fingerprint(&bytes[..transcript_bytes]),
    }
}

/// Whether `content` starts with `bytes` bytes that hash to `hash`.
pub fn prefix_matches(content: &[u8], bytes: u64, hash: &str) -> bool {
    usize::try_from(bytes)
        .is_ok_and(|len| content.len() >= len && fingerprint(&content[..len]) == hash)
}
