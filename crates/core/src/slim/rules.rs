//! What slimming cuts from a Claude Code transcript: the presets and
//! thresholds, how a long text is cut and what stands in for an image
//! (docs/formats.md, "Slimming a Claude Code transcript"). The rewrite of a
//! line is [`super::cuts`].
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

/// Lines at most this long are copied as they are: nothing in them is worth
/// cutting (every threshold of a preset is larger).
pub const SMALL_LINE: usize = 1024;

/// Roughly how many bytes of message content make one input token.
pub const BYTES_PER_TOKEN: u64 = 4;

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

/// Whether a `progress` line carries a copy of a response's usage (an
/// `agent_progress` copy of a subagent's answer, which discovery counts
/// when the subagent's own file is missing).
pub fn carries_usage(raw: &[u8]) -> bool {
    static USAGE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"usage\""));
    USAGE.find(raw).is_some()
}

/// How the text blocks of one tool result, of `lens` bytes of text each,
/// are cut so that together they keep about the head and tail budget:
/// short blocks (a quarter of the budget or less) stay whole (`None`), the
/// long ones share the rest by their size (the head and tail each keeps,
/// and the length over which it is cut).
pub fn block_shares(settings: &SlimSettings, lens: &[usize]) -> Vec<Option<(SlimSettings, usize)>> {
    let budget = settings.keep_head_bytes + settings.keep_tail_bytes;
    let short: usize = lens.iter().filter(|&&n| n <= budget / 4).sum();
    let long: usize = lens.iter().filter(|&&n| n > budget / 4).sum();
    let left = budget.saturating_sub(short);
    lens.iter()
        .map(|&len| {
            (len > budget / 4).then(|| {
                let keep = left * len / long.max(1);
                let s = SlimSettings {
                    keep_head_bytes: keep * settings.keep_head_bytes / budget.max(1),
                    keep_tail_bytes: keep * settings.keep_tail_bytes / budget.max(1),
                    ..settings.clone()
                };
                (s, keep)
            })
        })
        .collect()
}

/// The placeholder of a `kind` block (`image`, `document`) of `media` type
/// whose base64 data was `data_len` bytes.
pub fn placeholder_text(kind: &str, media: &str, data_len: usize) -> String {
    format!(
        "[{kind} removed by slim: {media}, {} as base64 ({} decoded)]",
        human_bytes(data_len as u64),
        human_bytes(data_len as u64 / 4 * 3)
    )
}

/// Cuts `text` to its head and tail with a marker between them when it is
/// longer than `max` bytes (and the cut saves something); whether it did.
pub fn cut_text(text: &mut String, settings: &SlimSettings, max: usize) -> bool {
    match cut_copy(text, settings, max) {
        Some(cut) => {
            *text = cut;
            true
        }
        None => false,
    }
}

/// `text` cut as [`cut_text`] cuts it, as a new string; `None` when it is
/// left as it is.
pub fn cut_copy(text: &str, settings: &SlimSettings, max: usize) -> Option<String> {
    let cut = plan_cut(text, settings, max)?;
    let mut out =
        String::with_capacity(cut.head_end + cut.marker.len() + text.len() - cut.tail_start);
    out.push_str(&text[..cut.head_end]);
    out.push_str(&cut.marker);
    out.push_str(&text[cut.tail_start..]);
    Some(out)
}

/// Where [`cut_text`] cuts a text: it keeps `text[..head_end]`, then
/// `marker`, then `text[tail_start..]`.
#[derive(Debug, PartialEq, Eq)]
pub struct CutPlan {
    /// The end of the head kept.
    pub head_end: usize,
    /// The start of the tail kept.
    pub tail_start: usize,
    /// The marker between them.
    pub marker: String,
}

/// How `text` is cut when it is longer than `max` bytes and the cut saves
/// something; `None` when it is left as it is.
pub fn plan_cut(text: &str, settings: &SlimSettings, max: usize) -> Option<CutPlan> {
    plan_cut_by(
        text.len(),
        settings,
        max,
        |i| floor_boundary(text, i),
        |i| ceil_boundary(text, i),
    )
}

/// [`plan_cut`] of a text of `len` bytes whose character boundaries at or
/// before, and at or after, a byte offset `floor` and `ceil` find.
pub fn plan_cut_by(
    len: usize,
    settings: &SlimSettings,
    max: usize,
    floor: impl Fn(usize) -> usize,
    ceil: impl Fn(usize) -> usize,
) -> Option<CutPlan> {
    if len <= max {
        return None;
    }
    let head_end = floor(settings.keep_head_bytes.min(len));
    let tail_start = ceil(len.saturating_sub(settings.keep_tail_bytes).max(head_end));
    let removed = tail_start - head_end;
    let marker = format!(
        "\n[… {} cut by slim ({} of {} kept) …]\n",
        human_bytes(removed as u64),
        human_bytes((len - removed) as u64),
        human_bytes(len as u64)
    );
    (removed > marker.len()).then_some(CutPlan {
        head_end,
        tail_start,
        marker,
    })
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
