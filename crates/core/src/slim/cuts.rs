//! The cuts of one line as edits of its raw bytes: which byte ranges of the
//! line (a base64 image block, a long string) are replaced by what (a text
//! block naming the image, the string's head and tail with a marker). The
//! slim writes every other byte through as the CLI wrote it, without a
//! document tree; discovery adds up what the edits would save from the
//! members its own fold already holds, without a second read
//! (docs/api/cleaning.md, "What a slim would save").

use super::raw_text::RawText;
use super::rules::{
    block_shares, carries_usage, cut_copy, placeholder_text, SlimSettings, SlimStats, SMALL_LINE,
};
use crate::json_scan::{as_str, field, range_in, value_len, Fields};
use std::ops::Range;

/// Nesting deeper than this is not walked.
const MAX_DEPTH: usize = 128;

/// The members of one line a slim looks at, as raw JSON slices of `raw`.
#[derive(Debug, Default, Clone, Copy)]
pub struct LineParts<'a> {
    /// The whole line, without its newline.
    pub raw: &'a [u8],
    /// Its `type`.
    pub kind: &'a [u8],
    /// `message.content`.
    pub content: Option<&'a [u8]>,
    /// `data.message.message.content` (an `agent_progress` copy of a
    /// subagent's message).
    pub copied_content: Option<&'a [u8]>,
    /// `toolUseResult`, the CLI's own copy of a tool's output.
    pub tool_use_result: Option<&'a [u8]>,
}

impl<'a> LineParts<'a> {
    /// The parts of `raw`, when it is one whole JSON object.
    pub fn of(raw: &'a [u8]) -> Option<LineParts<'a>> {
        let mut fields = Fields::new(raw);
        let mut parts = LineParts {
            raw,
            ..LineParts::default()
        };
        let mut data = None;
        let content = std::cell::Cell::new(None);
        // The message is read in the walk that finds its end: its content
        // (most of the line) is passed over once.
        let message = |key: &[u8], rest: &'a [u8]| {
            if key != b"message" {
                return None;
            }
            let mut members = Fields::new(rest);
            content.set(None);
            for (k, v) in members.by_ref() {
                if k == b"content" {
                    content.set(Some(v));
                }
            }
            members.end()
        };
        while let Some((key, value)) = fields.next_reading(message) {
            match key {
                b"type" => parts.kind = value,
                b"message" => parts.content = content.get(),
                b"data" => data = Some(value),
                b"toolUseResult" => parts.tool_use_result = Some(value),
                _ => {}
            }
        }
        if !fields.closed() {
            return None;
        }
        parts.copied_content = data
            .and_then(|d| field(d, b"message"))
            .and_then(|m| field(m, b"message"))
            .and_then(|m| field(m, b"content"));
        Some(parts)
    }
}

/// What a line's type alone decides.
#[derive(Debug, PartialEq, Eq)]
pub enum ByKind {
    /// The line is left out.
    Drop,
    /// The line is kept as it is.
    Keep,
    /// Its content decides.
    Look,
}

/// What the type `kind` of the line `raw` decides: `progress` lines go
/// (never sent to the model) unless they carry a copy of a response's usage,
/// `file-history-snapshot` lines when asked, the CLI's `api-request` records
/// stay as they are (content-addressed), and so do lines too short to hold
/// anything worth cutting.
pub fn by_kind(kind: &[u8], raw: &[u8], settings: &SlimSettings) -> ByKind {
    match kind {
        b"\"progress\"" if !carries_usage(raw) => ByKind::Drop,
        b"\"file-history-snapshot\"" if settings.drop_file_history => ByKind::Drop,
        k if k.starts_with(b"\"api-request") => ByKind::Keep,
        _ if raw.len() <= SMALL_LINE => ByKind::Keep,
        _ => ByKind::Look,
    }
}

/// One edit: the bytes `at` of the line become `with`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The byte range replaced.
    pub at: Range<usize>,
    /// What it is replaced by.
    pub with: Vec<u8>,
}

impl Edit {
    /// Bytes the edit saves (negative when it grows the line).
    fn saved(&self) -> i64 {
        self.at.len() as i64 - self.with.len() as i64
    }
}

/// The cuts of one line.
#[derive(Debug, Default)]
pub struct Cuts {
    /// The edits, in order, none overlapping.
    pub edits: Vec<Edit>,
    /// What they cut.
    pub stats: SlimStats,
}

impl Cuts {
    /// The cuts of the line `parts` under `settings` (whose type has been
    /// looked at, see [`by_kind`]).
    pub fn of(parts: &LineParts<'_>, settings: &SlimSettings) -> Cuts {
        let mut cuts = Cuts::default();
        let raw = parts.raw;
        for content in [parts.content, parts.copied_content].into_iter().flatten() {
            for (block, read) in blocks(content) {
                cuts.block(raw, block, read, settings);
            }
        }
        if let Some(copy) = parts.tool_use_result {
            let max = settings.tool_use_result_max_bytes;
            let copy_settings = SlimSettings {
                keep_head_bytes: settings.keep_head_bytes.min(max / 2),
                keep_tail_bytes: settings.keep_tail_bytes.min(max / 4),
                ..settings.clone()
            };
            let before = cuts.edits.len();
            cuts.copy(raw, copy, &copy_settings, 0);
            if cuts.edits.len() > before {
                cuts.stats.tool_use_results_slimmed += 1;
            }
        }
        cuts.edits.sort_by_key(|e| e.at.start);
        cuts
    }

    /// Whether anything is cut.
    pub fn any(&self) -> bool {
        self.stats != SlimStats::default()
    }

    /// Bytes the edits save, together.
    pub fn saved(&self) -> i64 {
        self.edits.iter().map(Edit::saved).sum()
    }

    /// `raw` with the edits made.
    pub fn apply(&self, raw: &[u8]) -> Vec<u8> {
        let len = (raw.len() as i64 - self.saved()).max(0) as usize;
        let mut out = Vec::with_capacity(len);
        let mut at = 0;
        for edit in &self.edits {
            out.extend_from_slice(&raw[at..edit.at.start]);
            out.extend_from_slice(&edit.with);
            at = edit.at.end;
        }
        out.extend_from_slice(&raw[at..]);
        out
    }

    /// Cuts one block of a message's content.
    fn block(&mut self, raw: &[u8], block: &[u8], read: BlockMembers<'_>, settings: &SlimSettings) {
        let [kind, source, content] = read;
        let kind = kind.and_then(as_str);
        match kind.as_deref() {
            Some(k @ ("image" | "document")) if settings.drop_images => {
                if let Some(text) = placeholder(k, source) {
                    let edit = Edit {
                        at: range(raw, block),
                        with: text_block(&text),
                    };
                    self.stats.images_removed += 1;
                    self.stats.message_bytes_saved += edit.saved().max(0) as u64;
                    self.edits.push(edit);
                }
            }
            Some("tool_result") => {
                let before = self.edits.len();
                match content {
                    Some(text @ [b'"', ..]) => {
                        if let Some(with) =
                            cut_string(text, settings, settings.tool_result_max_bytes)
                        {
                            self.edits.push(Edit {
                                at: range(raw, text),
                                with,
                            });
                        }
                    }
                    Some(items @ [b'[', ..]) => self.result_blocks(raw, items, settings),
                    _ => {}
                }
                if self.edits.len() > before {
                    self.stats.tool_results_cut += 1;
                    let saved: i64 = self.edits[before..].iter().map(Edit::saved).sum();
                    self.stats.message_bytes_saved += saved.max(0) as u64;
                }
            }
            _ => {}
        }
    }

    /// Cuts the content blocks of a tool result: its images replaced by
    /// their placeholders, then its text blocks (a placeholder is one) cut
    /// to share the head and tail budget when their text is over the
    /// threshold.
    fn result_blocks(&mut self, raw: &[u8], items: &[u8], settings: &SlimSettings) {
        /// A text block of the result: its text, and what an edit of it
        /// replaces (the placeholder's image block, or the text's string).
        struct Block<'a> {
            text: Text<'a>,
            at: Range<usize>,
            placeholder: bool,
        }
        let mut texts: Vec<Option<Block<'_>>> = Vec::new();
        for item in elements(items) {
            let [kind, source, text] = members(item, [b"type", b"source", b"text"]);
            let kind = kind.and_then(as_str);
            texts.push(match kind.as_deref() {
                Some(k @ ("image" | "document")) if settings.drop_images => placeholder(k, source)
                    .map(|text| {
                        self.stats.images_removed += 1;
                        Block {
                            text: Text::Owned(text),
                            at: range(raw, item),
                            placeholder: true,
                        }
                    }),
                Some("text") => text.and_then(|raw_text| {
                    Some(Block {
                        text: Text::of(raw_text)?,
                        at: range(raw, raw_text),
                        placeholder: false,
                    })
                }),
                _ => None,
            });
        }
        let lens: Vec<usize> = texts
            .iter()
            .map(|t| t.as_ref().map_or(0, |t| t.text.len()))
            .collect();
        let shares = if lens.iter().sum::<usize>() > settings.tool_result_max_bytes {
            block_shares(settings, &lens)
        } else {
            vec![None; lens.len()]
        };
        for (text, share) in texts.into_iter().zip(shares) {
            let Some(Block {
                text,
                at,
                placeholder,
            }) = text
            else {
                continue;
            };
            let with = if placeholder {
                match (share.and_then(|(s, keep)| text.cut(&s, keep)), &text) {
                    (Some(cut), _) => text_block(&cut),
                    (None, Text::Owned(placeholder)) => text_block(placeholder),
                    (None, Text::Raw(_)) => continue,
                }
            } else {
                match share.and_then(|(s, keep)| text.cut_json(&s, keep)) {
                    Some(json) => json,
                    None => continue,
                }
            };
            self.edits.push(Edit { at, with });
        }
    }

    /// Cuts the strings of a `toolUseResult` copy (every string value,
    /// however deep) longer than the threshold.
    fn copy(&mut self, raw: &[u8], value: &[u8], settings: &SlimSettings, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match value.first() {
            Some(b'"') => {
                if let Some(with) = cut_string(value, settings, settings.tool_use_result_max_bytes)
                {
                    self.edits.push(Edit {
                        at: range(raw, value),
                        with,
                    });
                }
            }
            Some(b'[') => {
                for v in elements(value) {
                    self.copy(raw, v, settings, depth + 1);
                }
            }
            Some(b'{') => {
                for (_, v) in Fields::new(value) {
                    self.copy(raw, v, settings, depth + 1);
                }
            }
            _ => {}
        }
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
/// what was cut is added to `stats`. A line that is not one JSON object is
/// kept as it is; what is not cut is written through as it was.
pub fn slim_line(raw: &[u8], settings: &SlimSettings, stats: &mut SlimStats) -> LineFate {
    match LineParts::of(raw) {
        Some(parts) => slim_parts(&parts, settings, stats),
        None => LineFate::Keep,
    }
}

/// What becomes of the line `parts` (a whole JSON object) under
/// `settings`, as [`slim_line`] decides from its bytes.
pub fn slim_parts(
    parts: &LineParts<'_>,
    settings: &SlimSettings,
    stats: &mut SlimStats,
) -> LineFate {
    let raw = parts.raw;
    match by_kind(parts.kind, raw, settings) {
        ByKind::Drop => {
            stats.lines_dropped += 1;
            return LineFate::Drop;
        }
        ByKind::Keep => return LineFate::Keep,
        ByKind::Look => {}
    }
    let cuts = Cuts::of(parts, settings);
    if !cuts.any() {
        return LineFate::Keep;
    }
    stats.add(&cuts.stats);
    if cuts.saved() <= 0 {
        return LineFate::Keep;
    }
    LineFate::Replace(cuts.apply(raw))
}

/// What slimming one line saves.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LineSaving {
    /// The line is left out (its newline with it).
    pub dropped: bool,
    /// Bytes the line loses (its length and newline when dropped).
    pub bytes: u64,
    /// Bytes of message content it loses: what every resumed turn no longer
    /// sends.
    pub message_bytes: u64,
}

/// What slimming the line `parts` with `settings` saves: what
/// [`slim_line`](super::rules::slim_line) cuts from it.
pub fn measure_line(parts: &LineParts<'_>, settings: &SlimSettings) -> LineSaving {
    match by_kind(parts.kind, parts.raw, settings) {
        ByKind::Drop => LineSaving {
            dropped: true,
            bytes: parts.raw.len() as u64 + 1,
            message_bytes: 0,
        },
        ByKind::Keep => LineSaving::default(),
        ByKind::Look => {
            let cuts = Cuts::of(parts, settings);
            if !cuts.any() {
                return LineSaving::default();
            }
            LineSaving {
                dropped: false,
                bytes: cuts.saved().max(0) as u64,
                message_bytes: cuts.stats.message_bytes_saved,
            }
        }
    }
}

/// The byte range of `sub`, a slice of `raw`.
fn range(raw: &[u8], sub: &[u8]) -> Range<usize> {
    range_in(raw, sub).unwrap_or_default()
}

/// The placeholder of an inline base64 `kind` block with the raw `source`;
/// `None` when its data is not inline base64.
fn placeholder(kind: &str, source: Option<&[u8]>) -> Option<String> {
    let [source_type, media, data] = members(source?, [b"type", b"media_type", b"data"]);
    if source_type.and_then(as_str)? != "base64" {
        return None;
    }
    let data_len = as_str(data?)?.len();
    let media = media.and_then(as_str);
    Some(placeholder_text(
        kind,
        media.as_deref().unwrap_or("unknown type"),
        data_len,
    ))
}

/// A text block of `text`, as JSON.
fn text_block(text: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({ "type": "text", "text": text })).unwrap_or_default()
}

/// The raw JSON string `raw` cut when it is over `max` bytes, as JSON.
fn cut_string(raw: &[u8], settings: &SlimSettings, max: usize) -> Option<Vec<u8>> {
    // Decoded text is never longer than its JSON.
    if raw.len() < max + 2 {
        return None;
    }
    Text::of(raw)?.cut_json(settings, max)
}

/// A text a slim may cut: a raw JSON string read in place, or a text of
/// its own (a placeholder, a string with escapes [`RawText`] does not read).
enum Text<'a> {
    Raw(RawText<'a>),
    Owned(String),
}

impl<'a> Text<'a> {
    /// The raw JSON string `raw` as text.
    fn of(raw: &'a [u8]) -> Option<Text<'a>> {
        match RawText::new(raw) {
            Some(r) => Some(Text::Raw(r)),
            None => as_str(raw).map(|t| Text::Owned(t.into_owned())),
        }
    }

    /// Its decoded length, in bytes.
    fn len(&self) -> usize {
        match self {
            Text::Raw(r) => r.decoded_len(),
            Text::Owned(t) => t.len(),
        }
    }

    /// It cut when it is over `max` bytes.
    fn cut(&self, settings: &SlimSettings, max: usize) -> Option<String> {
        match self {
            Text::Raw(r) => r.cut(settings, max),
            Text::Owned(t) => cut_copy(t, settings, max),
        }
    }

    /// It cut when it is over `max` bytes, as a JSON string.
    fn cut_json(&self, settings: &SlimSettings, max: usize) -> Option<Vec<u8>> {
        match self {
            Text::Raw(r) => r.cut_json(settings, max),
            Text::Owned(t) => cut_copy(t, settings, max).map(|cut| json_string(&cut)),
        }
    }
}

/// `text` as a JSON string.
fn json_string(text: &str) -> Vec<u8> {
    serde_json::to_vec(text).unwrap_or_default()
}

/// The elements of a raw JSON array, each exactly its own bytes, each
/// walked once; the walk stops at the first error.
fn elements(array: &[u8]) -> impl Iterator<Item = &[u8]> {
    elements_read(array, |rest| Some((value_len(rest)?, ()))).map(|(element, ())| element)
}

/// The elements of a raw JSON array with what `read` makes of each: given
/// the array from an element on, its length and what was read of it; the
/// walk stops at the first error.
fn elements_read<'a, T>(
    array: &'a [u8],
    read: impl Fn(&'a [u8]) -> Option<(usize, T)>,
) -> impl Iterator<Item = (&'a [u8], T)> {
    let skip = |mut at: usize| {
        while array
            .get(at)
            .is_some_and(|b| b.is_ascii_whitespace() || *b == b',')
        {
            at += 1;
        }
        at
    };
    let start = skip(0);
    let mut next = (array.get(start) == Some(&b'[')).then_some(start + 1);
    std::iter::from_fn(move || {
        let at = skip(next.take()?);
        if matches!(array.get(at), None | Some(b']')) {
            return None;
        }
        let (len, what) = read(&array[at..])?;
        next = Some(at + len);
        Some((&array[at..at + len], what))
    })
}

/// The `type`, `source` and `content` members of a content block.
type BlockMembers<'a> = [Option<&'a [u8]>; 3];

/// The keys of [`BlockMembers`], in order.
const BLOCK_KEYS: [&[u8]; 3] = [b"type", b"source", b"content"];

/// The elements of a message's content array with the members of each that
/// [`Cuts::block`] looks at, as [`elements`] and [`members`] give them, but
/// an object block is walked once: the walk that reads its members finds
/// its end. That end is taken only where the whole-value scan of
/// [`elements`] finds the same one: the walk closed at the block's brace
/// and no bare value in it holds a bracket or quote (which the scan counts
/// and the walk passes over); otherwise the block is scanned and read apart.
fn blocks(array: &[u8]) -> impl Iterator<Item = (&[u8], BlockMembers<'_>)> {
    elements_read(array, |rest| {
        walked_block(rest).or_else(|| {
            let len = value_len(rest)?;
            Some((len, members(&rest[..len], BLOCK_KEYS)))
        })
    })
}

/// The length and [`BlockMembers`] of the object block at the start of
/// `rest`, in one walk; `None` when the walk's end may not be the scan's.
fn walked_block(rest: &[u8]) -> Option<(usize, BlockMembers<'_>)> {
    let mut read: BlockMembers<'_> = [None; 3];
    let mut fields = Fields::new(rest);
    for (key, value) in fields.by_ref() {
        if !matches!(value.first(), Some(b'"' | b'{' | b'['))
            && value.iter().any(|b| matches!(b, b'"' | b'{' | b'['))
        {
            return None;
        }
        if let Some(i) = BLOCK_KEYS.iter().position(|k| *k == key) {
            read[i] = Some(value);
        }
    }
    Some((fields.end()?, read))
}

/// The raw values of the members `keys` of the object `obj` (the last of a
/// repeated key, as a JSON parser keeps), in one walk.
fn members<'a, const N: usize>(obj: &'a [u8], keys: [&[u8]; N]) -> [Option<&'a [u8]>; N] {
    let mut out = [None; N];
    for (key, value) in Fields::new(obj) {
        if let Some(i) = keys.iter().position(|k| *k == key) {
            out[i] = Some(value);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slim::rules::preset;
    use serde_json::Value;

    fn defaults() -> SlimSettings {
        preset("default").unwrap()
    }

    /// The slim as it was: each line parsed into a document tree, cut, and
    /// written back.
    mod oracle {
        use crate::json_scan::field;
        use crate::slim::cuts::{carries_usage, LineFate};
        use crate::slim::rules::{
            block_shares, cut_text, placeholder_text, SlimSettings, SlimStats, SMALL_LINE,
        };
        use serde_json::{Map, Value};

        /// What the slim made of a line when it parsed each line into a document
        /// tree and wrote the tree back: the oracle the raw edits must agree with
        /// on what the CLI writes.
        pub fn tree_slim_line(
            raw: &[u8],
            settings: &SlimSettings,
            stats: &mut SlimStats,
        ) -> LineFate {
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

        /// Slims one content block in place; `in_result` when it is inside a
        /// `tool_result` (whose text the caller cuts as a whole).
        fn slim_block(
            block: &mut Value,
            settings: &SlimSettings,
            cut: &mut SlimStats,
            in_result: bool,
        ) {
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
                        // Inside a tool result, the result's own saving counts it.
                        if !in_result {
                            cut.message_bytes_saved +=
                                before.saturating_sub(json_len(block)) as u64;
                        }
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
        /// about the head and tail budget (see [`block_shares`]).
        fn cut_blocks(items: &mut [Value], settings: &SlimSettings) -> bool {
            let lens: Vec<usize> = items
                .iter()
                .map(|b| block_text_len(b).unwrap_or(0))
                .collect();
            let mut any = false;
            for (item, share) in items.iter_mut().zip(block_shares(settings, &lens)) {
                if let (Some((s, keep)), Some(Value::String(t))) = (share, item.get_mut("text")) {
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
            Some(placeholder_text(kind, media, data.len()))
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

        fn json_len(v: &Value) -> usize {
            serde_json::to_vec(v).map_or(0, |b| b.len())
        }
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

    /// What the document-tree slim saves on `raw`, and what the edits do.
    fn both(
        raw: &str,
        settings: &SlimSettings,
    ) -> ((LineFate, SlimStats), (LineFate, SlimStats), LineSaving) {
        let raw = raw.as_bytes();
        let mut old = SlimStats::default();
        let tree = oracle::tree_slim_line(raw, settings, &mut old);
        let mut new = SlimStats::default();
        let edits = slim_line(raw, settings, &mut new);
        let parts = LineParts::of(raw).unwrap();
        ((tree, old), (edits, new), measure_line(&parts, settings))
    }

    #[test]
    fn the_edits_write_what_the_document_tree_wrote_and_measure_what_they_save() {
        let png = "iVBORw0K".repeat(5_000);
        let long = "line \"quoted\"\tand é\n".repeat(2_000);
        let lines = [
            // A pasted image and a long string result with its copy.
            serde_json::json!({"type":"user","message":{"role":"user","content":[
                {"type":"image","source":{"type":"base64","media_type":"image/png","data":png}},
                {"tool_use_id":"t1","type":"tool_result","content":long}]},
                "toolUseResult":{"stdout":long,"exitCode":0,"nested":[long, "short"]}}),
            // A Read of an image, and text blocks sharing the budget.
            serde_json::json!({"type":"user","message":{"content":[
                {"type":"tool_result","tool_use_id":"t2","content":[
                    {"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":png}},
                    {"type":"text","text":long},{"type":"text","text":"short"},{"type":"text","text":long}]}]}}),
            // A subagent's message copied into a progress line with usage.
            serde_json::json!({"type":"progress","data":{"type":"agent_progress","message":{"type":"user","message":{"content":[
                {"type":"tool_result","tool_use_id":"t3","content":long}]}}},"usage":{}}),
            serde_json::json!({"type":"progress","data":{"type":"hook_progress","output":long}}),
            serde_json::json!({"type":"file-history-snapshot","snapshot":{"a":long}}),
            serde_json::json!({"type":"assistant","message":{"content":[{"type":"text","text":long}]}}),
            serde_json::json!({"type":"user","message":{"content":[{"type":"image","source":{"type":"url","url":"x"}}]},"pad":long}),
        ];
        let tiny = SlimSettings {
            tool_result_max_bytes: 40,
            keep_head_bytes: 10,
            keep_tail_bytes: 10,
            ..defaults()
        };
        // Escapes JSON.stringify does not write, inside the strings cut.
        let escaped = serde_json::to_string(&lines[0])
            .unwrap()
            .replace('é', "\\u00e9")
            .replace("and", "\\ud83d\\ude00\\/");
        for settings in [defaults(), preset("aggressive").unwrap(), tiny] {
            let texts = lines.iter().map(|l| serde_json::to_string(l).unwrap());
            for raw in texts.chain([escaped.clone()]) {
                let ((tree, old), (edits, new), measured) = both(&raw, &settings);
                assert_eq!(edits, tree, "{}", &raw[..200]);
                if raw != escaped {
                    // The tree measured what it would write back; the edits
                    // measure the bytes there are (the same where the CLI
                    // wrote them).
                    assert_eq!(new, old, "{}", &raw[..200]);
                }
                let saved = match &edits {
                    LineFate::Drop => raw.len() as u64 + 1,
                    LineFate::Keep => 0,
                    LineFate::Replace(b) => (raw.len() - b.len()) as u64,
                };
                assert_eq!(
                    (measured.bytes, measured.message_bytes),
                    (saved, new.message_bytes_saved)
                );
            }
        }
    }

    #[test]
    fn counts_an_image_inside_a_tool_result_once() {
        let png = "A".repeat(40_000);
        let raw = serde_json::json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[
            {"type":"image","source":{"type":"base64","media_type":"image/png","data":png}}]}]}})
        .to_string();
        let measured = measure_line(&LineParts::of(raw.as_bytes()).unwrap(), &defaults());
        assert!(measured.message_bytes <= measured.bytes, "{measured:?}");
        assert!(measured.message_bytes > 39_000, "{measured:?}");
    }

    #[test]
    fn untouched_bytes_are_written_through_as_they_were() {
        // Escapes the CLI does not write, in members a slim does not touch.
        let long = "y".repeat(50_000);
        let raw = format!(
            r#"{{"type":"user","note":"caf\u00e9 \/ 1.50","message":{{"content":[{{"type":"tool_result","tool_use_id":"t","content":"{long}"}}]}}}}"#
        );
        let mut stats = SlimStats::default();
        let LineFate::Replace(out) = slim_line(raw.as_bytes(), &defaults(), &mut stats) else {
            panic!("cut");
        };
        let out = String::from_utf8(out).unwrap();
        assert!(
            out.starts_with(r#"{"type":"user","note":"caf\u00e9 \/ 1.50","message""#),
            "{}",
            &out[..80]
        );
        let v: Value = serde_json::from_str(&out).unwrap();
        assert!(v["message"]["content"][0]["content"]
            .as_str()
            .unwrap()
            .contains("cut by slim"));
    }

    #[test]
    fn content_blocks_walked_once_are_the_ones_scanned_and_read_apart() {
        let arrays: [&[u8]; 6] = [
            br#"[{"type":"text","text":"a [ { \" b"},{"type":"tool_result","content":[{"type":"text","text":"x"}]}]"#,
            br#"[ {"type" : "image", "source": {"data": "]}"}} , "plain", 4, {"n":true}]"#,
            br#"[{"a":x[},{"type":"image"}]]"#,
            br#"[{"a":1"type":"x"},{"type":"y",,"content":"z"}]"#,
            br#"[{"type":"tool_result","content":"x"}"#,
            br#"[{"a":"}"},{"b":tr]ue}]"#,
        ];
        for array in arrays {
            let apart: Vec<_> = elements(array)
                .map(|b| (b, members(b, BLOCK_KEYS)))
                .collect();
            let once: Vec<_> = blocks(array).collect();
            assert_eq!(once, apart, "{}", String::from_utf8_lossy(array));
        }
    }
}
