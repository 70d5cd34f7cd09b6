//! The conversation an agent was having: the last user and assistant
//! messages on the active branch of an OpenClaw transcript (research:
//! openclaw-formats.md §4), with what is needed to verify it later.

use crate::error::{Error, ErrorCode, Result};
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fs;
use std::path::Path;

/// One user or assistant message.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// 0-based line of the transcript (the header is line 0).
    pub index: u32,
    /// `"user"` or `"assistant"`.
    pub role: String,
    /// The message's text blocks, joined by blank lines.
    pub text: String,
    /// The entry's ISO timestamp, when it has one.
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

/// The fields of an entry that place it in the tree, and its message's
/// role (the content is skipped, never parsed).
#[derive(Deserialize)]
struct Link<'a> {
    #[serde(borrow, default)]
    message: Option<Role<'a>>,
    #[serde(rename = "type", borrow, default)]
    kind: Option<&'a str>,
    #[serde(borrow, default)]
    id: Option<&'a str>,
    #[serde(rename = "parentId", borrow, default)]
    parent_id: Option<&'a str>,
    #[serde(rename = "targetId", borrow, default)]
    target_id: Option<&'a str>,
}

#[derive(Deserialize)]
struct Role<'a> {
    #[serde(borrow, default)]
    role: Option<&'a str>,
}

/// An entry kept while the tree is walked.
struct Node<'a> {
    line: u32,
    raw: &'a [u8],
    is_message: bool,
    /// A user or assistant message: only these are parsed (tool results,
    /// often the bulk of a transcript, are not).
    is_conversation: bool,
    parent: Option<&'a str>,
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

/// The entries of the active branch, oldest first: from the leaf (the last
/// entry, or the target of the last `leaf` record) up the `parentId` links
/// to the root or to a missing parent, as OpenClaw builds its context.
/// Transcripts without ids (format v1) are linear: every entry counts.
fn active_branch<'a>(
    nodes: &[Node<'a>],
    ids: &HashMap<&'a str, usize>,
    leaf: Option<usize>,
) -> Vec<usize> {
    if ids.is_empty() {
        return (0..nodes.len()).collect();
    }
    let mut path = Vec::new();
    let mut at = leaf;
    while let Some(i) = at {
        if path.len() > nodes.len() {
            break; // a cycle: never loop forever on a damaged file
        }
        path.push(i);
        at = nodes[i].parent.and_then(|p| ids.get(p).copied());
    }
    path.reverse();
    path
}

/// The last `limit` user and assistant messages with text on the active
/// branch of the transcript at `path`. Unparsable lines are skipped.
pub fn recent_messages(path: &Path, limit: usize) -> Result<RecentMessages> {
    let bytes = fs::read(path).map_err(|e| {
        Error::new(
            ErrorCode::SessionNotFound,
            format!("cannot read transcript {}: {e}", path.display()),
        )
    })?;
    let mut nodes: Vec<Node> = Vec::new();
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut leaf_target: Option<Option<&str>> = None;
    let mut line_ends: Vec<usize> = Vec::new();
    let mut start = 0;
    for (line, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let end = (start + raw.len() + 1).min(bytes.len());
        line_ends.push(end);
        start = end;
        let Ok(link) = serde_json::from_slice::<Link>(raw) else {
            continue;
        };
        match link.kind {
            Some("session") | None => continue,
            Some("leaf") => {
                leaf_target = Some(link.target_id);
                continue;
            }
            _ => {}
        }
        if let Some(id) = link.id {
            ids.insert(id, nodes.len());
        }
        let is_message = link.kind == Some("message");
        let role = link.message.and_then(|m| m.role);
        nodes.push(Node {
            line: line as u32,
            raw,
            is_message,
            is_conversation: is_message && matches!(role, Some("user" | "assistant")),
            parent: link.parent_id,
        });
    }
    let leaf = match leaf_target {
        Some(target) => target.and_then(|t| ids.get(t).copied()),
        None => nodes.len().checked_sub(1),
    };
    let branch = active_branch(&nodes, &ids, leaf);
    let mut messages: Vec<Message> = branch
        .iter()
        .rev()
        .filter(|&&i| nodes[i].is_conversation)
        .filter_map(|&i| conversation_message(nodes[i].line, nodes[i].raw))
        .take(limit)
        .collect();
    messages.reverse();
    let last_message_index = branch
        .iter()
        .rev()
        .find(|&&i| nodes[i].is_message)
        .map_or(0, |&i| nodes[i].line);
    let transcript_bytes = line_ends
        .get(last_message_index as usize)
        .copied()
        .unwrap_or(0);
    Ok(RecentMessages {
        messages,
        last_message_index,
        transcript_bytes: transcript_bytes as u64,
        transcript_hash: fingerprint(&bytes[..transcript_bytes]),
    })
}

/// Whether the first `bytes` of the transcript at `path` still hash to
/// `hash`; `None` when the file cannot be read.
pub fn prefix_matches(path: &Path, bytes: u64, hash: &str) -> Option<bool> {
    let content = fs::read(path).ok()?;
    let len = usize::try_from(bytes).ok()?;
    Some(content.len() >= len && fingerprint(&content[..len]) == hash)
}
