//! What slimming does to one line of a Claude Code transcript: the presets,
//! and the rewrite of a line into a smaller one that says the same to the
//! model (docs/formats.md, "Slimming a Claude Code transcript").
//!
//! Cut: base64 images and documents (a short text placeholder names what was
//! there and its size), tool results over a threshold (head and tail kept,
//! with a marker saying how much was cut), the long strings of the
//! `toolUseResult` copy the CLI keeps of each result for its terminal UI,
//! and `progress` lines (never sent to the model). Kept: every line's
//! envelope (`uuid`, `parentUuid`, `sessionId`, `type`, usage), every prompt
//! and answer, every `tool_use` with its `tool_result`, compaction
//! boundaries and summaries, titles, `cost-state`.

use crate::error::{Error, ErrorCode, Result};
use crate::json_scan::field;
use serde_json::{Map, Value};

/// Lines at most this long are copied as they are: nothing in them is worth
/// cutting (every threshold of a preset is larger).
const SMALL_LINE: usize = 1024;

/// How a transcript is slimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlimSettings {
    /// A tool result whose text is longer than this (bytes) is cut.
    pub tool_result_max_bytes: usize,
    /// Bytes kept from the start of a cut text.
    pub keep_head_bytes: usize,
    /// Bytes kept from the end of a cut text.
    pub keep_tail_bytes: usize,
    /// A string of a `toolUseResult` (the CLI's own copy of a tool's output)
    /// longer than this is cut the same way.
    pub tool_use_result_max_bytes: usize,
    /// Base64 images and documents are replaced by a placeholder.
    pub drop_images: bool,
    /// `file-history-snapshot` lines (the interactive CLI's `/rewind`
    /// checkpoints, never sent to the model) are dropped too.
    pub drop_file_history: bool,
}

/// The settings of a preset: `default` or `aggressive`.
pub fn preset(name: &str) -> Result<SlimSettings> {
    match name {
        "default" => Ok(SlimSettings {
            tool_result_max_bytes: 16 * 1024,
            keep_head_bytes: 4 * 1024,
            keep_tail_bytes: 2 * 1024,
            tool_use_result_max_bytes: 2 * 1024,
            drop_images: true,
            drop_file_history: false,
        }),
        "aggressive" => Ok(SlimSettings {
            tool_result_max_bytes: 4 * 1024,
            keep_head_bytes: 1024,
            keep_tail_bytes: 1024,
            tool_use_result_max_bytes: 1024,
            drop_images: true,
            drop_file_history: true,
        }),
        other => Err(Error::new(
            ErrorCode::UnknownPreset,
            format!("unknown slim preset {other:?}"),
        )
        .with_hint("use \"default\" or \"aggressive\", or give the thresholds")),
    }
}

/// Thresholds given explicitly; each one set replaces the preset's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SlimOverrides {
    /// A tool result whose text is longer than this (bytes) is cut.
    pub tool_result_max_bytes: Option<u32>,
    /// Bytes kept from the start of a cut text.
    pub keep_head_bytes: Option<u32>,
    /// Bytes kept from the end of a cut text.
    pub keep_tail_bytes: Option<u32>,
    /// A string of a `toolUseResult` (the CLI's own copy of a tool's output)
    /// longer than this is cut the same way.
    pub tool_use_result_max_bytes: Option<u32>,
    /// Keep base64 images and documents (default: replace them).
    pub keep_images: Option<bool>,
}

/// The settings of `preset_name` (default `default`) with `overrides`
/// applied. A head and tail that together reach the threshold are refused
/// (`E_INVALID_ARGUMENT`): such a cut would save nothing.
pub fn settings(preset_name: Option<&str>, overrides: &SlimOverrides) -> Result<SlimSettings> {
    let mut s = preset(preset_name.unwrap_or("default"))?;
    let size = |v: Option<u32>, d: usize| v.map_or(d, |n| n as usize);
    s.tool_result_max_bytes = size(overrides.tool_result_max_bytes, s.tool_result_max_bytes);
    s.keep_head_bytes = size(overrides.keep_head_bytes, s.keep_head_bytes);
    s.keep_tail_bytes = size(overrides.keep_tail_bytes, s.keep_tail_bytes);
    s.tool_use_result_max_bytes = size(
        overrides.tool_use_result_max_bytes,
        s.tool_use_result_max_bytes,
    );
    s.drop_images = !overrides.keep_images.unwrap_or(!s.drop_images);
    if s.keep_head_bytes + s.keep_tail_bytes >= s.tool_result_max_bytes {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "keepHeadBytes + keepTailBytes ({}) must be below toolResultMaxBytes ({})",
                s.keep_head_bytes + s.keep_tail_bytes,
                s.tool_result_max_bytes
            ),
        )
        .with_hint("lower the head or tail kept, or raise the threshold"));
    }
    Ok(s)
}

/// What slimming removed, added up over lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SlimStats {
    /// Base64 images and documents replaced by a placeholder.
    pub images_removed: u64,
    /// Tool results cut to their head and tail.
    pub tool_results_cut: u64,
    /// `toolUseResult` copies whose long strings were cut.
    pub tool_use_results_slimmed: u64,
    /// Lines left out (`progress`, and `file-history-snapshot` when asked).
    pub lines_dropped: u64,
    /// Bytes removed from what the CLI sends the model on every resumed turn
    /// (message content: images and tool results).
    pub message_bytes_saved: u64,
}

impl SlimStats {
    /// Adds `other` to these.
    pub fn add(&mut self, other: &SlimStats) {
        self.images_removed += other.images_removed;
        self.tool_results_cut += other.tool_results_cut;
        self.tool_use_results_slimmed += other.tool_use_results_slimmed;
        self.lines_dropped += other.lines_dropped;
        self.message_bytes_saved += other.message_bytes_saved;
    }
}

/// What becomes of one line.
#[derive(Debug, PartialEq, Eq)]
pub enum LineFate {
    /// Copied byte for byte.
    Keep,
    /// Written as these bytes (no newline).
    Replace(Vec<u8>),
    /// Left out.
    Drop,
}

/// What becomes of `raw` (one line without its newline) under `settings`;
/// what was cut is added to `stats`. A line that is not a JSON object is
/// kept as it is.
pub fn slim_line(raw: &[u8], settings: &SlimSettings, stats: &mut SlimStats) -> LineFate {
    let kind = field(raw, b"type");
    match kind {
        Some(b"\"progress\"") if !carries_usage(raw) => {
            stats.lines_dropped += 1;
            return LineFate::Drop;
        }
        Some(b"\"file-history-snapshot\"") if settings.drop_file_history => {
            stats.lines_dropped += 1;
            return LineFate::Drop;
        }
        // The CLI's record of each request (its shape, deduplicated blobs):
        // content-addressed, so never rewritten.
        Some(k) if k.starts_with(b"\"api-request") => return LineFate::Keep,
        _ => {}
    }
    if raw.len() <= SMALL_LINE {
        return LineFate::Keep;
    }
    let Ok(Value::Object(mut line)) = serde_json::from_slice::<Value>(raw) else {
        return LineFate::Keep;
    };
    let mut cut = SlimStats::default();
    if let Some(content) = line
        .get_mut("message")
        .and_then(|m| m.get_mut("content"))
        .and_then(Value::as_array_mut)
    {
        for block in content {
            slim_block(block, settings, &mut cut, false);
        }
    }
    // An `agent_progress` copy of a subagent's message.
    if let Some(content) = line
        .get_mut("data")
        .and_then(|d| d.get_mut("message"))
        .and_then(|m| m.get_mut("message"))
        .and_then(|m| m.get_mut("content"))
        .and_then(Value::as_array_mut)
    {
        for block in content {
            slim_block(block, settings, &mut cut, false);
        }
    }
    if let Some(copy) = line.get_mut("toolUseResult") {
        let max = settings.tool_use_result_max_bytes;
        let copy_settings = SlimSettings {
            keep_head_bytes: settings.keep_head_bytes.min(max / 2),
            keep_tail_bytes: settings.keep_tail_bytes.min(max / 4),
            ..settings.clone()
        };
        if slim_copy(copy, &copy_settings) {
            cut.tool_use_results_slimmed += 1;
        }
    }
    if cut == SlimStats::default() {
        return LineFate::Keep;
    }
    stats.add(&cut);
    match serde_json::to_vec(&Value::Object(line)) {
        Ok(bytes) if bytes.len() < raw.len() => LineFate::Replace(bytes),
        _ => LineFate::Keep,
    }
}

/// Whether a `progress` line carries a copy of a response's usage (an
/// `agent_progress` copy of a subagent's answer, which discovery counts
/// when the subagent's own file is missing).
fn carries_usage(raw: &[u8]) -> bool {
    memchr::memmem::find(raw, b"\"usage\"").is_some()
}

/// Slims one content block in place; `in_result` when it is inside a
/// `tool_result` (whose text the caller cuts as a whole).
fn slim_block(block: &mut Value, settings: &SlimSettings, cut: &mut SlimStats, in_result: bool) {
    let before = match block.get("type").and_then(Value::as_str) {
        Some("tool_result") if !in_result => json_len(block),
        _ => 0,
    };
    let Some(obj) = block.as_object_mut() else {
        return;
    };
    match obj.get("type").and_then(Value::as_str) {
        Some("image" | "document") if settings.drop_images => {
            if let Some(text) = placeholder(obj) {
                let before = json_len(block);
                *block = serde_json::json!({ "type": "text", "text": text });
                cut.images_removed += 1;
                cut.message_bytes_saved += before.saturating_sub(json_len(block)) as u64;
            }
        }
        Some("tool_result") if !in_result => {
            let mut any = false;
            match obj.get_mut("content") {
                Some(Value::String(s)) => {
                    any |= cut_text(s, settings, settings.tool_result_max_bytes)
                }
                Some(Value::Array(items)) => {
                    for item in items.iter_mut() {
                        let images = cut.images_removed;
                        slim_block(item, settings, cut, true);
                        any |= cut.images_removed != images;
                    }
                    let total: usize = items.iter().filter_map(block_text_len).sum();
                    if total > settings.tool_result_max_bytes {
                        any |= cut_blocks(items, settings);
                    }
                }
                _ => {}
            }
            if any {
                cut.tool_results_cut += 1;
                let after = json_len(block);
                cut.message_bytes_saved += before.saturating_sub(after) as u64;
            }
        }
        _ => {}
    }
}

/// Cuts the text blocks of one tool result so that together they keep
/// about the head and tail budget: short blocks (a quarter of the budget or
/// less) stay whole, the long ones share the rest by their size.
fn cut_blocks(items: &mut [Value], settings: &SlimSettings) -> bool {
    let budget = settings.keep_head_bytes + settings.keep_tail_bytes;
    let lens: Vec<usize> = items
        .iter()
        .map(|b| block_text_len(b).unwrap_or(0))
        .collect();
    let short: usize = lens.iter().filter(|&&n| n <= budget / 4).sum();
    let long: usize = lens.iter().filter(|&&n| n > budget / 4).sum();
    let left = budget.saturating_sub(short);
    let mut any = false;
    for (item, len) in items.iter_mut().zip(lens) {
        if len <= budget / 4 {
            continue;
        }
        if let Some(Value::String(t)) = item.get_mut("text") {
            let keep = left * len / long.max(1);
            let s = SlimSettings {
                keep_head_bytes: keep * settings.keep_head_bytes / budget.max(1),
                keep_tail_bytes: keep * settings.keep_tail_bytes / budget.max(1),
                ..settings.clone()
            };
            any |= cut_text(t, &s, keep);
        }
    }
    any
}

/// The length of a text block's text.
fn block_text_len(block: &Value) -> Option<usize> {
    (block.get("type")?.as_str()? == "text")
        .then(|| block.get("text")?.as_str().map(str::len))
        .flatten()
}

/// The text that stands in for a base64 image or document: its media type
/// and size. `None` when the block's data is not inline base64.
fn placeholder(obj: &Map<String, Value>) -> Option<String> {
    let source = obj.get("source")?.as_object()?;
    if source.get("type")?.as_str()? != "base64" {
        return None;
    }
    let data = source.get("data")?.as_str()?;
    let media = source
        .get("media_type")
        .and_then(Value::as_str)
        .unwrap_or("unknown type");
    let kind = obj.get("type").and_then(Value::as_str).unwrap_or("image");
    Some(format!(
        "[{kind} removed by slim: {media}, {} as base64 ({} decoded)]",
        human_bytes(data.len() as u64),
        human_bytes(data.len() as u64 / 4 * 3)
    ))
}

/// Cuts the strings of a `toolUseResult` copy longer than the threshold;
/// whether anything was cut.
fn slim_copy(value: &mut Value, settings: &SlimSettings) -> bool {
    match value {
        Value::String(s) => cut_text(s, settings, settings.tool_use_result_max_bytes),
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |any, v| slim_copy(v, settings) | any),
        Value::Object(map) => map
            .values_mut()
            .fold(false, |any, v| slim_copy(v, settings) | any),
        _ => false,
    }
}

/// Cuts `text` to its head and tail with a marker between them when it is
/// longer than `max` bytes (and the cut saves something); whether it did.
pub fn cut_text(text: &mut String, settings: &SlimSettings, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    let head_end = floor_boundary(text, settings.keep_head_bytes.min(text.len()));
    let tail_start = ceil_boundary(
        text,
        text.len()
            .saturating_sub(settings.keep_tail_bytes)
            .max(head_end),
    );
    let removed = tail_start - head_end;
    let marker = format!(
        "\n[… {} cut by slim ({} of {} kept) …]\n",
        human_bytes(removed as u64),
        human_bytes((text.len() - removed) as u64),
        human_bytes(text.len() as u64)
    );
    if removed <= marker.len() {
        return false;
    }
    let mut out = String::with_capacity(head_end + marker.len() + text.len() - tail_start);
    out.push_str(&text[..head_end]);
    out.push_str(&marker);
    out.push_str(&text[tail_start..]);
    *text = out;
    true
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

fn json_len(v: &Value) -> usize {
    serde_json::to_vec(v).map_or(0, |b| b.len())
}

/// `1.2 MB`, `340 KB`, `12 bytes`.
pub fn human_bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 20 => format!("{:.1} MB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KB", n as f64 / (1u64 << 10) as f64),
        n => format!("{n} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> SlimSettings {
        preset("default").unwrap()
    }

    #[test]
    fn small_lines_and_unknown_shapes_are_kept() {
        let mut stats = SlimStats::default();
        let line = br#"{"type":"user","message":{"role":"user","content":"hi"}}"#;
        assert_eq!(slim_line(line, &defaults(), &mut stats), LineFate::Keep);
        let big = format!(r#"not json {}"#, "x".repeat(5000));
        assert_eq!(
            slim_line(big.as_bytes(), &defaults(), &mut stats),
            LineFate::Keep
        );
        assert_eq!(stats, SlimStats::default());
    }

    #[test]
    fn progress_lines_go_unless_they_carry_usage() {
        let mut stats = SlimStats::default();
        let plain = br#"{"type":"progress","data":{"type":"bash_progress","output":"..."}}"#;
        assert_eq!(slim_line(plain, &defaults(), &mut stats), LineFate::Drop);
        let copy = br#"{"type":"progress","data":{"type":"agent_progress","message":{"type":"assistant","message":{"usage":{"input_tokens":1}}}}}"#;
        assert_eq!(slim_line(copy, &defaults(), &mut stats), LineFate::Keep);
        assert_eq!(stats.lines_dropped, 1);
    }

    #[test]
    fn images_become_placeholders_and_long_results_keep_head_and_tail() {
        let data = "A".repeat(40_000);
        let out = "0123456789".repeat(5_000);
        let line = serde_json::json!({
            "type": "user", "uuid": "u1", "parentUuid": "p1",
            "message": { "role": "user", "content": [
                { "type": "tool_result", "tool_use_id": "t1", "content": [
                    { "type": "image", "source": { "type": "base64", "media_type": "image/png", "data": data } } ] },
                { "type": "tool_result", "tool_use_id": "t2", "content": out },
            ]},
            "toolUseResult": { "stdout": out, "exitCode": 0 },
        });
        let raw = serde_json::to_vec(&line).unwrap();
        let mut stats = SlimStats::default();
        let LineFate::Replace(bytes) = slim_line(&raw, &defaults(), &mut stats) else {
            panic!("changed");
        };
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["uuid"], "u1");
        assert_eq!(v["parentUuid"], "p1");
        let blocks = v["message"]["content"].as_array().unwrap();
        assert_eq!(blocks[0]["tool_use_id"], "t1");
        let placeholder = blocks[0]["content"][0]["text"].as_str().unwrap();
        assert!(placeholder.contains("image/png"), "{placeholder}");
        assert!(placeholder.contains("39.1 KB as base64"), "{placeholder}");
        let cut = blocks[1]["content"].as_str().unwrap();
        assert!(cut.starts_with("0123456789"));
        assert!(cut.ends_with("0123456789"));
        assert!(cut.contains("cut by slim"), "{cut}");
        assert!(cut.len() < 7_000);
        assert!(v["toolUseResult"]["stdout"].as_str().unwrap().len() < 3_000);
        assert_eq!(v["toolUseResult"]["exitCode"], 0);
        assert_eq!(stats.images_removed, 1);
        assert_eq!(stats.tool_results_cut, 2);
        assert_eq!(stats.tool_use_results_slimmed, 1);
        assert!(stats.message_bytes_saved > 80_000);
    }

    #[test]
    fn cuts_respect_character_boundaries() {
        let mut s = "é".repeat(20_000);
        assert!(cut_text(&mut s, &defaults(), 1000));
        assert!(s.len() < 8_000);
        let mut short = "abc".to_string();
        assert!(!cut_text(&mut short, &defaults(), 1));
    }

    #[test]
    fn explicit_thresholds_replace_the_presets() {
        let o = SlimOverrides {
            tool_result_max_bytes: Some(100),
            keep_head_bytes: Some(10),
            keep_tail_bytes: Some(20),
            keep_images: Some(true),
            ..SlimOverrides::default()
        };
        let s = settings(Some("aggressive"), &o).unwrap();
        assert_eq!((s.tool_result_max_bytes, s.keep_head_bytes), (100, 10));
        assert_eq!(s.keep_tail_bytes, 20);
        assert!(!s.drop_images && s.drop_file_history);
        let bad = SlimOverrides {
            tool_result_max_bytes: Some(100),
            ..SlimOverrides::default()
        };
        assert_eq!(
            settings(None, &bad).unwrap_err().code,
            ErrorCode::InvalidArgument
        );
    }

    #[test]
    fn unknown_presets_are_refused() {
        assert_eq!(
            preset("extreme").unwrap_err().code,
            ErrorCode::UnknownPreset
        );
        assert!(preset("aggressive").unwrap().drop_file_history);
    }
}
