//! Stripping old tool calls from an OpenClaw transcript (docs/api/cleaning.md;
//! the format: docs/formats.md, "OpenClaw transcripts").
//!
//! Turns start at user messages, counted along the active path (the branch
//! OpenClaw builds its context from; abandoned branches are left alone). Of
//! the turns whose assistant messages call tools, the newest `keep` are
//! kept and the oldest `truncate_percent` % of those are truncated; older
//! ones lose their tool calls, tool results and thinking. The transcript is
//! a tree: a deleted entry's children are re-linked to its nearest
//! surviving ancestor (the parent as OpenClaw reads it: a missing or stale
//! `parentId` means the entry before it), and `fromId`, `targetId` and
//! `appendParentId` never point at a deleted entry; the target of a
//! `firstKeptEntryId` is never deleted at all, nor is the leaf when
//! deleting it would move OpenClaw's leaf off the path (the edited path is
//! checked to be the old one without the deleted entries), nor an entry a
//! line that cannot be parsed hangs on. Lines that are not a whole JSON
//! object (a torn append) are not entries, as OpenClaw skips them, and are
//! left as they are; so are lines flawed deeper inside. Untouched lines
//! stay byte for byte; the header is never changed; an edit never leaves
//! zero assistant messages (OpenClaw empties such a file). Applying the
//! same settings twice changes nothing.
//!
//! The result is a plan, line by line, that either store applies: the
//! JSONL store renders it, the SQLite store writes only the rows it changes.

use super::entry::{EntryHead, REFERENCE_FIELDS};
use super::events::split_lines;
use super::tree::{Tree, TreeEntry};
use crate::error::{Error, ErrorCode, Result};
use crate::json_scan::{as_str, field, field_start, Elements};
use rayon::prelude::*;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

/// A named pair of settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preset {
    /// The name a caller gives.
    pub name: String,
    /// Newest turns with tool calls kept whole.
    pub keep_turns_with_tools: u32,
    /// Of those kept, the oldest percentage truncated (0–100).
    pub truncate_percent: u32,
}

/// `default` (20, 50 %), `aggressive` (10, 50 %), `extreme` (0, 0 %).
pub fn builtin_presets() -> Vec<Preset> {
    [
        ("default", 20, 50),
        ("aggressive", 10, 50),
        ("extreme", 0, 0),
    ]
    .into_iter()
    .map(|(n, k, t)| Preset {
        name: n.into(),
        keep_turns_with_tools: k,
        truncate_percent: t,
    })
    .collect()
}

/// The settings for a preset name (custom presets first), with explicit
/// values overriding it. Unknown names are `E_UNKNOWN_PRESET`.
pub fn resolve_settings(
    preset: Option<&str>,
    keep: Option<u32>,
    percent: Option<u32>,
    custom: &[Preset],
) -> Result<(u32, u32)> {
    let name = preset.unwrap_or("default");
    let all: Vec<Preset> = custom.iter().cloned().chain(builtin_presets()).collect();
    let base = all.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
        Error::new(ErrorCode::UnknownPreset, format!("unknown preset {name:?}"))
            .with_hint(format!("use one of: {}", names.join(", ")))
    })?;
    let percent = percent.unwrap_or(base.truncate_percent);
    if percent > 100 {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("truncatePercent {percent} is over 100"),
        )
        .with_hint("use a percentage from 0 to 100"));
    }
    Ok((keep.unwrap_or(base.keep_turns_with_tools), percent))
}

/// What happened to one turn.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnReport {
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
    pub zone: &'static str,
}

/// Counts of an edit (the original design's statistics).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StripStats {
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
    /// Turns whose assistant messages call tools.
    pub turns_with_tools_total: u32,
    /// Of those, turns whose tool calls were removed.
    pub turns_with_tools_removed: u32,
    /// Of those, turns whose tool results were truncated.
    pub turns_with_tools_truncated: u32,
    /// Of those, turns left whole.
    pub turns_with_tools_preserved: u32,
    /// Entries (lines) deleted.
    pub entries_removed: u32,
}

/// What an edit does to one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineEdit {
    /// Left byte for byte.
    Keep,
    /// Removed (its children re-linked to its nearest kept ancestor).
    Delete,
    /// Written anew as this compact JSON.
    Replace(Vec<u8>),
}

/// What the edit does to the transcript, line by line, and its counts.
#[derive(Debug, Clone)]
pub struct StripOutput {
    /// One per line of the input (split at `\n`).
    pub edits: Vec<LineEdit>,
    /// What the edit did, in counts.
    pub stats: StripStats,
    /// Every turn of the active path and what the edit does to it.
    pub turns: Vec<TurnReport>,
    /// Deleted entry id → the id its references now point at (`None`: root).
    pub relinked: HashMap<String, Option<String>>,
    /// Bytes of the edited transcript.
    pub size_after: u64,
}

impl StripOutput {
    /// Whether the edit changes anything.
    pub fn changes_anything(&self) -> bool {
        self.edits.iter().any(|e| *e != LineEdit::Keep)
    }

    /// The edited transcript: kept lines byte for byte, changed lines
    /// anew, deleted lines gone.
    pub fn render(&self, original: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.size_after as usize);
        let last = self.edits.len().saturating_sub(1);
        for (i, (raw, edit)) in split_lines(original).zip(&self.edits).enumerate() {
            match edit {
                LineEdit::Delete => continue,
                LineEdit::Keep => out.extend_from_slice(raw),
                LineEdit::Replace(json) => out.extend_from_slice(json),
            }
            if i < last {
                out.push(b'\n');
            }
        }
        out
    }
}

const MAX_CHARS: usize = 120;
const MAX_LINES: usize = 2;
const ARGUMENT_MARKER: &str = "...";
const CONTENT_MARKER: &str = " [truncated]";
const IMAGE_NOTE: &str = "[image removed]";
/// Text of an assistant message kept so the transcript keeps one.
const KEPT_ASSISTANT_NOTE: &str = "[tool calls removed]";
const CALL_TYPES: [&str; 3] = ["toolCall", "toolUse", "functionCall"];

/// `s` cut to 2 lines and 120 characters, marker included, so that cutting
/// a cut string changes nothing.
pub fn truncate_text(s: &str, marker: &str) -> Option<String> {
    let lines: Vec<&str> = s.split('\n').collect();
    if lines.len() <= MAX_LINES && s.chars().count() <= MAX_CHARS {
        return None;
    }
    let head = lines[..lines.len().min(MAX_LINES)].join("\n");
    let room = MAX_CHARS - marker.chars().count();
    let cut: String = head.chars().take(room).collect();
    Some(format!("{cut}{marker}"))
}

/// Truncates every string inside `v` (arguments stay an object).
fn truncate_strings(v: &mut Value) -> bool {
    match v {
        Value::String(s) => match truncate_text(s, ARGUMENT_MARKER) {
            Some(t) => {
                *s = t;
                true
            }
            None => false,
        },
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |acc, i| truncate_strings(i) | acc),
        Value::Object(map) => map
            .values_mut()
            .fold(false, |acc, i| truncate_strings(i) | acc),
        _ => false,
    }
}

/// One line: the few facts the edit needs, read without parsing the line
/// (tool output, the bulk of a transcript, is never parsed unless it is
/// changed), and the parsed value once something has to change.
struct Line<'a> {
    raw: &'a [u8],
    head: EntryHead,
    calls: Vec<String>,
    /// Assistant messages: whether `content` is an array holding nothing
    /// but tool calls and thinking, which a removal deletes whole.
    calls_only: bool,
    /// Tool-call blocks of an assistant message (with or without an id).
    call_blocks: u32,
    result_for: Option<String>,
    value: Option<Value>,
    deleted: bool,
    changed: bool,
}

impl<'a> Line<'a> {
    fn read(raw: &'a [u8]) -> Line<'a> {
        let head = EntryHead::read(raw);
        let mut line = Line {
            raw,
            calls: Vec::new(),
            calls_only: false,
            call_blocks: 0,
            result_for: None,
            value: None,
            deleted: false,
            changed: false,
            head,
        };
        let text = |v: &[u8]| as_str(v).map(|s| s.into_owned());
        let Some(m) = line
            .head
            .message(raw)
            .filter(|_| line.head.message_role().is_some())
        else {
            return line;
        };
        line.result_for = field(m, b"toolCallId")
            .or_else(|| field(m, b"toolUseId"))
            .and_then(text);
        if line.role() == Some("assistant") {
            let content = field_start(m, b"content");
            line.calls_only = content.is_some_and(|c| c.trim_ascii_start().starts_with(b"["));
            for block in content.map(Elements::new).into_iter().flatten() {
                let kind = field(block, b"type").and_then(text);
                match kind.as_deref() {
                    Some(t) if CALL_TYPES.contains(&t) => {
                        line.call_blocks += 1;
                        line.calls.extend(field(block, b"id").and_then(text));
                    }
                    Some("thinking" | "redacted_thinking") => {}
                    _ => line.calls_only = false,
                }
            }
        }
        line
    }

    fn id(&self) -> Option<&str> {
        self.head.id.as_deref()
    }
    fn role(&self) -> Option<&str> {
        self.head.message_role()
    }
    fn result_id(&self) -> Option<String> {
        self.result_for.clone()
    }
    /// The parsed line, parsed now if it was not yet.
    fn value_mut(&mut self) -> Option<&mut Value> {
        if self.value.is_none() {
            self.value = parse_as_openclaw(self.raw);
        }
        self.value.as_mut()
    }
}

/// The line parsed as OpenClaw parses it: it reads the file as UTF-8 text,
/// invalid bytes replaced, so a line with such bytes in its strings parses
/// (with U+FFFD in their place), as `EntryHead::read` accepts it.
fn parse_as_openclaw(raw: &[u8]) -> Option<Value> {
    match serde_json::from_slice(raw) {
        Ok(value) => Some(value),
        Err(_) if std::str::from_utf8(raw).is_err() => {
            serde_json::from_str(&String::from_utf8_lossy(raw)).ok()
        }
        Err(_) => None,
    }
}

/// Plans the strip of `bytes` (a whole transcript, JSONL) with `keep`
/// turns-with-tools and `truncate_percent`: turns are counted along the
/// active path (entries off it, abandoned branches, are left as they are),
/// the targets of `firstKeptEntryId` are never deleted, and results of
/// removed calls go with them wherever they are.
pub fn strip_tools(bytes: &[u8], keep: u32, truncate_percent: u32) -> Result<StripOutput> {
    let raw_lines: Vec<&[u8]> = split_lines(bytes).collect();
    let mut lines: Vec<Line<'_>> = raw_lines.par_iter().map(|raw| Line::read(raw)).collect();
    let header_ok = lines[0].head.kind.as_deref() == Some("session")
        && serde_json::from_slice::<Value>(lines[0].raw).is_ok();
    if !header_ok {
        return Err(Error::new(
            ErrorCode::Parse,
            "the first line is not an OpenClaw session header",
        )
        .with_hint("pass the id of an OpenClaw transcript (occ list shows them)"));
    }

    // The active path, and the parent OpenClaw reads for each entry (where
    // it differs from `parentId`, the edit has to write it out when that
    // parent goes).
    let (path, parents): (Vec<usize>, Vec<Option<String>>) = {
        let entries: Vec<TreeEntry<'_>> = lines.iter().map(|l| l.head.tree()).collect();
        let tree = Tree::read(&entries);
        let parents = lines
            .iter()
            .map(|l| match l.id().and_then(|id| tree.parent_of(id)) {
                Some(parent) => parent.map(str::to_owned),
                None => l.head.parent.clone(),
            })
            .collect();
        (tree.path(), parents)
    };
    // Plan; where the plan would not leave OpenClaw's path as it was minus
    // the deleted entries, keep what moved it and plan again: the leaf
    // (deleting it hands OpenClaw's leaf, the file's last entry, to the
    // entry before it, which may be on another branch) and every entry a
    // line that cannot be parsed hangs on (its link cannot be rewritten).
    let mut pins: HashSet<String> = HashSet::new();
    let leaf = path.last().and_then(|&i| lines[i].id()).map(str::to_owned);
    loop {
        let (out, stuck) = plan(&mut lines, &path, &parents, keep, truncate_percent, &pins)?;
        let before = pins.len();
        // One cause at a time, so that only what has to be kept is (and a
        // second edit, which meets the same causes, keeps the same).
        if !stuck.is_empty() {
            pins.extend(stuck);
        } else if keeps_the_path(&lines, &out.edits, &path) {
            return Ok(out);
        } else {
            pins.extend(leaf.clone());
        }
        if pins.len() == before {
            return Err(Error::new(
                ErrorCode::Internal,
                "this edit would change which branch of the transcript OpenClaw continues from; nothing was changed",
            )
            .with_hint("keep more turns (--keep), or report it with the transcript"));
        }
        for l in &mut lines {
            l.deleted = false;
            l.changed = false;
            l.value = None;
        }
    }
}

/// Whether OpenClaw reads the edited transcript's active path as the old
/// one without the deleted entries.
fn keeps_the_path(lines: &[Line<'_>], edits: &[LineEdit], path: &[usize]) -> bool {
    let kept: Vec<usize> = (0..lines.len())
        .filter(|&i| edits[i] != LineEdit::Delete)
        .collect();
    let rewritten: HashMap<usize, EntryHead> = kept
        .iter()
        .filter_map(|&i| match &edits[i] {
            LineEdit::Replace(json) => Some((i, EntryHead::read(json))),
            _ => None,
        })
        .collect();
    let entries: Vec<TreeEntry<'_>> = kept
        .iter()
        .map(|i| rewritten.get(i).unwrap_or(&lines[*i].head).tree())
        .collect();
    let after = Tree::read(&entries).path().into_iter().map(|j| kept[j]);
    after.eq(path
        .iter()
        .copied()
        .filter(|&i| edits[i] != LineEdit::Delete))
}

/// The plan for lines read, their active path and the parents OpenClaw
/// reads, never deleting the entries `pins` names; and the deleted entries
/// a kept line that cannot be parsed still names.
fn plan(
    lines: &mut [Line<'_>],
    path: &[usize],
    parents: &[Option<String>],
    keep: u32,
    truncate_percent: u32,
    pins: &HashSet<String>,
) -> Result<(StripOutput, Vec<String>)> {
    // Turns: a user message starts one.
    let mut turn_of: Vec<Option<u32>> = vec![None; lines.len()];
    let mut turn = 0u32;
    for &i in path {
        if lines[i].role() == Some("user") {
            turn += 1;
        }
        turn_of[i] = Some(turn);
    }
    let turn_count = turn as usize + 1;
    let mut calls_in_turn = vec![0u32; turn_count];
    for &i in path {
        if lines[i].role() == Some("assistant") {
            calls_in_turn[turn_of[i].unwrap_or(0) as usize] += lines[i].call_blocks;
        }
    }
    let tool_turns: Vec<usize> = (0..turn_count).filter(|t| calls_in_turn[*t] > 0).collect();
    let kept = (keep as usize).min(tool_turns.len());
    let removed_turns = tool_turns.len() - kept;
    let truncated_turns = kept * truncate_percent as usize / 100;
    // Zone of every turn, computed once.
    let mut zones: Vec<&'static str> = vec!["none"; turn_count];
    for (p, t) in tool_turns.iter().enumerate() {
        zones[*t] = if p < removed_turns {
            "removed"
        } else if p < removed_turns + truncated_turns {
            "truncated"
        } else {
            "preserved"
        };
    }
    let zone_of = |i: usize| turn_of[i].map_or("none", |t| zones[t as usize]);

    // Entries a compaction or reset keeps from (and the pins): never
    // deleted, and neither is the call of a tool result among them.
    let pinned: HashSet<String> = lines
        .iter()
        .filter_map(|l| l.head.first_kept.clone())
        .chain(pins.iter().cloned())
        .collect();
    let protected_calls: HashSet<String> = lines
        .iter()
        .filter(|l| l.id().is_some_and(|id| pinned.contains(id)))
        .filter_map(|l| l.result_id())
        .collect();
    let is_pinned = |l: &Line<'_>| l.id().is_some_and(|id| pinned.contains(id));

    let mut stats = StripStats {
        messages_original: lines.iter().filter(|l| l.role().is_some()).count() as u32,
        tool_calls_original: calls_in_turn.iter().sum(),
        turns_with_tools_total: tool_turns.len() as u32,
        turns_with_tools_removed: removed_turns as u32,
        turns_with_tools_truncated: truncated_turns as u32,
        turns_with_tools_preserved: (kept - truncated_turns) as u32,
        ..StripStats::default()
    };
    let assistants_before = lines
        .iter()
        .filter(|l| l.role() == Some("assistant"))
        .count();

    // Parse (in parallel) what will change. An assistant message of tool
    // calls and thinking only is deleted whole, without being parsed (every
    // entry was validated when it was read).
    let whole_deletion = |l: &Line<'_>| {
        l.calls_only && !is_pinned(l) && !l.calls.iter().any(|c| protected_calls.contains(c))
    };
    lines
        .par_iter_mut()
        .enumerate()
        .skip(1)
        .for_each(|(i, l)| match (l.role(), zone_of(i)) {
            (Some("assistant"), "removed") if whole_deletion(l) => {}
            (Some("assistant"), "removed" | "truncated") | (Some("toolResult"), "truncated") => {
                l.value_mut();
            }
            _ => {}
        });

    // Remove and truncate.
    let mut removed_calls: HashSet<String> = HashSet::new();
    for (i, line) in lines.iter_mut().enumerate().skip(1) {
        let zone = zone_of(i);
        if zone != "removed" && zone != "truncated" {
            continue;
        }
        let role = line.role().map(str::to_owned);
        if role.as_deref() == Some("assistant") && zone == "removed" && whole_deletion(line) {
            stats.tool_calls_removed += line.call_blocks;
            removed_calls.extend(line.calls.iter().cloned());
            line.deleted = true;
            continue;
        }
        let pinned_line = is_pinned(line);
        let (mut changed, mut delete) = (false, false);
        let needs_value = matches!(
            (role.as_deref(), zone),
            (Some("assistant"), _) | (Some("toolResult"), "truncated")
        );
        if !needs_value {
            continue;
        }
        let Some(v) = line.value_mut() else {
            continue;
        };
        let content = &mut v["message"]["content"];
        match (role.as_deref(), zone) {
            (Some("assistant"), "removed") => {
                let Some(blocks) = content.as_array_mut() else {
                    continue;
                };
                let before = blocks.len();
                blocks.retain(|b| {
                    let t = b["type"].as_str().unwrap_or("");
                    if CALL_TYPES.contains(&t) {
                        let id = b["id"].as_str();
                        if id.is_some_and(|id| protected_calls.contains(id)) {
                            return true;
                        }
                        if let Some(id) = id {
                            removed_calls.insert(id.to_owned());
                        }
                        stats.tool_calls_removed += 1;
                        return false;
                    }
                    t != "thinking" && t != "redacted_thinking"
                });
                if blocks.is_empty() && pinned_line {
                    blocks.push(json!({"type": "text", "text": KEPT_ASSISTANT_NOTE}));
                    changed = true;
                } else if blocks.is_empty() {
                    delete = true;
                } else if blocks.len() != before {
                    changed = true;
                }
            }
            (Some("assistant"), _) => {
                let Some(blocks) = content.as_array_mut() else {
                    continue;
                };
                for b in blocks
                    .iter_mut()
                    .filter(|b| b["type"].as_str().is_some_and(|t| CALL_TYPES.contains(&t)))
                {
                    stats.tool_calls_truncated += 1;
                    if truncate_strings(&mut b["arguments"]) {
                        changed = true;
                    }
                }
            }
            (Some("toolResult"), "truncated") => {
                let Some(blocks) = content.as_array_mut() else {
                    continue;
                };
                for b in blocks.iter_mut() {
                    if b["type"] == "image" {
                        *b = json!({"type": "text", "text": IMAGE_NOTE});
                        changed = true;
                    } else if let Some(t) = b["text"]
                        .as_str()
                        .and_then(|t| truncate_text(t, CONTENT_MARKER))
                    {
                        b["text"] = Value::String(t);
                        changed = true;
                    }
                }
            }
            _ => {}
        }
        line.changed |= changed;
        line.deleted |= delete;
    }
    // The calls counted come from reading the line selectively, the calls
    // removed or truncated from its parse; on a line with a duplicate key
    // (first wins in one, last in the other) the two can disagree.
    stats.tool_calls_preserved = stats
        .tool_calls_original
        .saturating_sub(stats.tool_calls_removed + stats.tool_calls_truncated);
    // Results of removed calls go with them, wherever they are.
    for l in lines.iter_mut() {
        if l.role() == Some("toolResult")
            && l.result_id().is_some_and(|id| removed_calls.contains(&id))
        {
            l.deleted = true;
        }
    }
    // Never leave zero assistant messages: keep the last one, as a note.
    let assistants_after = lines
        .iter()
        .filter(|l| !l.deleted && l.role() == Some("assistant"))
        .count();
    if assistants_before > 0 && assistants_after == 0 {
        let last_readable = lines
            .iter_mut()
            .rev()
            .filter(|l| l.role() == Some("assistant"))
            .find_map(|l| {
                let v = l.value_mut()?;
                v["message"]["content"] = json!([{"type": "text", "text": KEPT_ASSISTANT_NOTE}]);
                l.deleted = false;
                l.changed = true;
                Some(())
            });
        if last_readable.is_none() {
            return Err(Error::new(
                ErrorCode::Parse,
                "the edit would leave no assistant message, and none of them parses to be kept as a note",
            )
            .with_hint("keep more turns (--keep)"));
        }
    }

    // Re-link around deleted entries.
    let parent_of: HashMap<String, Option<String>> = lines
        .iter()
        .zip(parents)
        .filter_map(|(l, parent)| Some((l.id()?.to_owned(), parent.clone())))
        .collect();
    let deleted: HashSet<String> = lines
        .iter()
        .filter(|l| l.deleted)
        .filter_map(|l| l.id().map(str::to_owned))
        .collect();
    let mut relinked: HashMap<String, Option<String>> = HashMap::new();
    for id in &deleted {
        let mut cur = parent_of.get(id).cloned().flatten();
        let mut hops = 0;
        while let Some(p) = cur.clone().filter(|p| deleted.contains(p)) {
            cur = parent_of.get(&p).cloned().flatten();
            hops += 1;
            if hops > deleted.len() {
                cur = None; // a cycle: start from the root
                break;
            }
        }
        relinked.insert(id.clone(), cur);
    }
    // The first surviving entry after each line, for references whose
    // replacement would otherwise be the root.
    let mut next_surviving: Vec<Option<String>> = vec![None; lines.len() + 1];
    for i in (0..lines.len()).rev() {
        next_surviving[i] = if !lines[i].deleted && i > 0 {
            lines[i]
                .id()
                .map(str::to_owned)
                .or(next_surviving[i + 1].clone())
        } else {
            next_surviving[i + 1].clone()
        };
    }
    let position: HashMap<String, usize> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| Some((l.id()?.to_owned(), i)))
        .collect();
    let mut stuck = Vec::new();
    for (l, parent) in lines.iter_mut().zip(parents).skip(1) {
        if l.deleted {
            continue;
        }
        // The parent read goes: its nearest kept ancestor. Only `parentId`
        // goes: the parent read, written out.
        let new_parent = match parent {
            Some(p) if deleted.contains(p) => Some(relinked[p].clone()),
            _ if l.head.parent.as_ref().is_some_and(|p| deleted.contains(p)) => {
                Some(parent.clone())
            }
            _ => None,
        };
        if new_parent.is_none() && !l.head.refers {
            continue;
        }
        let mut changed = false;
        let Some(v) = l.value_mut() else {
            let named = [
                &l.head.parent,
                parent,
                &l.head.first_kept,
                &l.head.append_parent,
            ];
            let target = l.head.target.clone().flatten();
            stuck.extend(
                named
                    .into_iter()
                    .flatten()
                    .chain(&target)
                    .filter(|id| deleted.contains(*id))
                    .cloned(),
            );
            continue;
        };
        if let Some(p) = new_parent {
            v["parentId"] = p.map_or(Value::Null, Value::String);
            changed = true;
        }
        for field in REFERENCE_FIELDS {
            if let Some(target) = v
                .get(field)
                .and_then(Value::as_str)
                .filter(|t| deleted.contains(*t))
                .map(str::to_owned)
            {
                let replacement = relinked[&target]
                    .clone()
                    .or_else(|| next_surviving[position[&target]].clone());
                v[field] = replacement.map_or(Value::Null, Value::String);
                changed = true;
            }
        }
        l.changed |= changed;
    }

    // The edits: untouched lines stay as they were.
    let mut size_after = 0u64;
    let last = lines.len() - 1;
    let mut edits = Vec::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        let edit = if l.deleted {
            stats.entries_removed += 1;
            LineEdit::Delete
        } else if l.changed {
            // A line is only changed after it parsed; should that ever not
            // hold, the edit fails instead of the process.
            let value = l.value.as_ref().ok_or_else(|| {
                Error::new(
                    ErrorCode::Internal,
                    format!("line {} was changed unparsed", i + 1),
                )
            })?;
            let json = serde_json::to_vec(value)
                .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
            LineEdit::Replace(json)
        } else {
            LineEdit::Keep
        };
        size_after += match &edit {
            LineEdit::Delete => 0,
            LineEdit::Keep => l.raw.len() as u64 + u64::from(i < last),
            LineEdit::Replace(json) => json.len() as u64 + u64::from(i < last),
        };
        edits.push(edit);
    }
    stats.messages_after = lines
        .iter()
        .filter(|l| !l.deleted && l.role().is_some())
        .count() as u32;
    let mut bounds: Vec<(usize, usize)> = vec![(usize::MAX, 0); turn_count];
    for &i in path {
        let b = &mut bounds[turn_of[i].unwrap_or(0) as usize];
        b.0 = b.0.min(i);
        b.1 = b.1.max(i);
    }
    let turns = (0..turn_count)
        .map(|t| TurnReport {
            turn_index: t as u32,
            first_line: bounds[t].0.min(bounds[t].1) as u32 + 1,
            last_line: bounds[t].1 as u32 + 1,
            tool_calls: calls_in_turn[t],
            zone: zones[t],
        })
        .collect();
    let out = StripOutput {
        edits,
        stats,
        turns,
        relinked,
        size_after,
    };
    Ok((out, stuck))
}
