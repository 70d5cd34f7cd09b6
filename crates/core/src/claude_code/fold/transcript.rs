//! One pass over a Claude Code transcript, folding each line into
//! [`TranscriptFacts`].
//!
//! Lines are split with `memchr`, and each is read with [`Fields`]: only the
//! top-level members we use are decoded, and the large ones (tool output,
//! file snapshots, message content) are skipped without being parsed. A fold
//! can be resumed on bytes appended later, which is what makes repeat calls
//! cheap (see [`ScanCache`](crate::claude_code::cache::ScanCache)).

use super::origin::split_origin;
use super::prompt::prompt_text;
use super::savings::SlimSavings;
use super::usage::{response_key, Usage, UsageGroups};
use crate::json_scan::{
    as_str, as_u64, field, field_start, is_true, short_plain_text, text, Elements, Fields,
};
use crate::slim::cuts::LineParts;
use crate::text::truncate_utf16;
use memchr::memmem;
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::LazyLock;

/// How much of a prompt is kept (UTF-16 units), as the reference does.
pub const PROMPT_PREVIEW_UNITS: usize = 200;

/// Everything one transcript file says about its session. Kept on disk by
/// the persistent scan cache: a change to its fields or to what the fold
/// puts in them needs a new [`FORMAT`](crate::claude_code::cache::scan_store::FORMAT).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TranscriptFacts {
    /// Non-blank lines, parsable or not (the reference's `lineCount`).
    pub line_count: u64,
    /// The first `sessionId` seen (a subagent file names its parent here).
    pub session_id: Option<String>,
    /// The subagent id, for subagent transcripts.
    pub agent_id: Option<String>,
    /// The first `cwd` seen.
    pub cwd: Option<String>,
    /// The last non-empty main-chain `gitBranch`.
    pub git_branch: Option<String>,
    /// The last session nickname (`slug`).
    pub slug: Option<String>,
    /// The last Claude Code version that wrote to the file.
    pub version: Option<String>,
    /// The first real prompt, cut to [`PROMPT_PREVIEW_UNITS`].
    pub first_prompt: Option<String>,
    /// The `[openclaw:agent=…]` marker of the first real prompt.
    pub origin_marker: Option<String>,
    /// The `spawn=` pair of that marker: the nonce of the OpenClaw spawn
    /// that started the session (the key of its spawn record).
    pub spawn_nonce: Option<String>,
    /// The last real prompt, cut to [`PROMPT_PREVIEW_UNITS`].
    pub last_prompt: Option<String>,
    /// The last `/rename` title.
    pub custom_title: Option<String>,
    /// The last generated title.
    pub ai_title: Option<String>,
    /// `(leafUuid, summary)` title records found in this file (they usually
    /// title *another* session).
    pub summaries: Vec<(u128, String)>,
    /// Leaf uuids (message lines no later line names as parent), to match
    /// summary titles. Lines chain, so this stays as small as the number of
    /// branches.
    #[serde(with = "super::fixed128::set")]
    pub leaves: HashSet<u128, foldhash::fast::RandomState>,
    /// The earliest line timestamp, ISO-8601 with milliseconds.
    pub first_activity: Option<String>,
    /// The latest line timestamp, ISO-8601 with milliseconds.
    pub last_activity: Option<String>,
    /// Main-chain `compact_boundary` records (auto and manual).
    pub compactions: u32,
    /// Deduplicated token usage of every line, including progress copies.
    pub usage: UsageGroups,
    /// Prompt size of the last main-chain response.
    pub context_tokens: Option<u64>,
    /// Models of the responses, in order of first use.
    pub models: Vec<String>,
    /// Files the main chain's tool calls named (`file_path`, `notebook_path`,
    /// `path`), most recent last, at most [`MAX_FILES_TOUCHED`].
    pub files_touched: Vec<String>,
    /// How the session was started: the first `entrypoint` a line names
    /// (`cli` in a terminal, `sdk-cli` under `claude -p`, `sdk-ts` from the
    /// SDK or ACP, editor kinds).
    pub entrypoint: Option<String>,
    /// Main-chain prompts a person or a host typed (those `first_prompt`
    /// and `last_prompt` are taken from); a fork's copied history included.
    pub prompt_count: u64,
    /// Main-chain API responses, each counted once however many lines it
    /// spans; a fork's copied history included.
    pub response_count: u64,
    /// The grouping key of the last main-chain response counted.
    pub last_response_key: Option<u128>,
    /// Model of the last main-chain response (the one `context_tokens` is
    /// of).
    pub context_model: Option<String>,
    /// When each of `models` was first used (the timestamp of its first
    /// line, as in `first_activity`), in the same order.
    pub models_first_used: Vec<Option<String>>,
    /// The CLI's own accounting of the session, from the last `cost-state`
    /// line (written at the end of each run): every API call under the
    /// session's id, compaction calls and subagents included.
    pub cost_state: Option<CostState>,
    /// The first `cost-state` after each main-chain response it follows:
    /// what a fork of the session made at that response inherited.
    pub cost_marks: Vec<CostMark>,
    /// The uuid of the last main-chain response line.
    pub last_response_uuid: Option<u128>,
    /// For a fork (`--fork-session`): where its copied history came from.
    pub forked_from: Option<ForkPoint>,
    /// The `isSidechain` of the first line that has one; `None` before any
    /// does. A file that opens on a sidechain line is not a conversation of
    /// its own (a side question's log, a subagent's): Claude Code's `/resume`
    /// does not list it.
    pub opens_on_sidechain: Option<bool>,
    /// Whether the main chain's last turn has ended: its last message is a
    /// response that stopped for another reason than a tool call
    /// (`end_turn`, say). `Some(false)` while a prompt or a tool's result
    /// waits for its response or a tool runs; `None` before any message.
    /// A live process whose turn has ended is idle, waiting for a prompt.
    pub turn_ended: Option<bool>,
    /// What slimming the transcript with the `default` preset would save.
    pub slim_savings: SlimSavings,
}

/// What a `cost-state` line says: the CLI's cumulative accounting of a
/// session across its runs.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CostState {
    /// Tokens of every model, added up.
    pub usage: Usage,
    /// `totalCostUSD`, in US dollars.
    pub cost_usd: Option<f64>,
    /// `hasUnknownModelCost`: some calls were of a model the CLI has no
    /// price for, so `cost_usd` leaves them out.
    pub unknown_model_cost: bool,
}

/// The CLI's accounting right after one main-chain response.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CostMark {
    /// The uuid of the response line it follows.
    pub after: u128,
    /// Tokens of every model, added up.
    pub usage: Usage,
    /// `totalCostUSD`, in US dollars.
    pub cost_usd: Option<f64>,
}

/// Where a fork's copied history came from.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ForkPoint {
    /// The session the copied responses were billed to (`requestSessionId`).
    pub parent: String,
    /// The uuid of the last copied response line (the same in both files).
    pub at: u128,
}

/// How many touched files a transcript remembers.
pub const MAX_FILES_TOUCHED: usize = 64;

/// An object of a line that is read member by member in the same pass that
/// finds where it ends, so that what it holds (tool output, file contents)
/// is passed over once, not once more by each reader of its members.
trait Members<'a>: Default {
    /// Reads the value of member `key` when it is an object this one reads
    /// further (`rest` runs from the value's start on), and returns its
    /// length; `None` to have it skipped as usual and given to
    /// [`Members::take`].
    fn descend<const IN_LINE: bool>(&mut self, _key: &[u8], _rest: &'a [u8]) -> Option<usize> {
        None
    }

    /// Keeps the member `key` if it is used.
    fn take(&mut self, key: &[u8], value: &'a [u8]);

    /// Whether nothing this object holds is wanted, as its members so far
    /// show: the rest of it is then skipped without being read.
    fn unwanted(&self) -> bool {
        false
    }

    /// Reads every member `fields` walks, until it is [`Members::unwanted`];
    /// whether there was any.
    fn read_from<const IN_LINE: bool>(&mut self, fields: &mut Fields<'a, IN_LINE>) -> bool {
        let mut any = false;
        while let Some((key, value)) =
            fields.next_reading(|key, rest| self.descend::<IN_LINE>(key, rest))
        {
            any = true;
            self.take(key, value);
            if self.unwanted() {
                break;
            }
        }
        any
    }

    /// The object at the start of `rest` and its length, when it closes and
    /// is wanted.
    fn read_object<const IN_LINE: bool>(rest: &'a [u8]) -> Option<(Self, usize)> {
        let mut object = Self::default();
        let mut fields = Fields::of(rest);
        object.read_from::<IN_LINE>(&mut fields);
        if object.unwanted() {
            return None;
        }
        Some((object, fields.end()?))
    }
}

/// Reads the object at the start of `rest` into `slot` when it closes, and
/// returns its length (see [`Members::descend`]). Anything else empties
/// `slot`: as with JSON.parse, the last member of a key is the one that
/// counts, and it is not such an object.
fn descend_into<'a, M: Members<'a>, const IN_LINE: bool>(
    slot: &mut Option<M>,
    rest: &'a [u8],
) -> Option<usize> {
    let (object, len) = M::read_object::<IN_LINE>(rest).unzip();
    *slot = object;
    len
}

/// The members of one line that matter, as raw JSON.
#[derive(Default, Clone, Copy)]
struct Line<'a> {
    kind: &'a [u8],
    subtype: &'a [u8],
    sidechain: bool,
    /// The line has an `isSidechain` member.
    sidechain_stated: bool,
    meta: bool,
    compact_summary: bool,
    timestamp: Option<&'a [u8]>,
    message: Option<Message<'a>>,
    request_id: Option<&'a [u8]>,
    session_id: Option<&'a [u8]>,
    agent_id: Option<&'a [u8]>,
    cwd: Option<&'a [u8]>,
    git_branch: Option<&'a [u8]>,
    slug: Option<&'a [u8]>,
    version: Option<&'a [u8]>,
    uuid: Option<&'a [u8]>,
    parent_uuid: Option<&'a [u8]>,
    logical_parent_uuid: Option<&'a [u8]>,
    tool_use_result: Option<&'a [u8]>,
    data: Option<Progress<'a>>,
    /// `data` as raw JSON, whatever it holds.
    data_raw: Option<&'a [u8]>,
    custom_title: Option<&'a [u8]>,
    ai_title: Option<&'a [u8]>,
    summary: Option<&'a [u8]>,
    leaf_uuid: Option<&'a [u8]>,
    prompt_source: Option<&'a [u8]>,
    origin: Option<Origin<'a>>,
    entrypoint: Option<&'a [u8]>,
    request_session_id: Option<&'a [u8]>,
    total_cost_usd: Option<&'a [u8]>,
    unknown_model_cost: bool,
    model_usage: Option<&'a [u8]>,
}

impl<'a> Line<'a> {
    /// The members of a line (without its `\n`); `None` when it has none.
    fn read(raw: &'a [u8]) -> Option<Line<'a>> {
        let mut line = Line::default();
        line.read_from(&mut Fields::new(raw)).then_some(line)
    }

    /// Reads the line at the start of `bytes` into `self` and returns the
    /// index of the newline that ends it, when the line is one whole object:
    /// found in the same walk as its members, without searching for the
    /// newline first. `None` for any other line (not an object, cut short,
    /// followed by more text, no newline yet), which is then split and read
    /// the plain way.
    ///
    /// The members that follow a scalar first member are taken from
    /// `repeated` when the line repeats them, and kept there otherwise.
    fn read_through_newline(
        &mut self,
        bytes: &'a [u8],
        repeated: &mut Option<Repeated<'a>>,
    ) -> Option<usize> {
        *self = Line::default();
        let mut fields = Fields::in_line(bytes);
        if let Some((key, value)) = fields.next_reading(|key, rest| self.descend::<true>(key, rest))
        {
            if !matches!(value.first(), Some(b'{' | b'[')) {
                Repeated::read(&mut fields, key, repeated, self);
            }
            self.take(key, value);
            self.read_from(&mut fields);
        }
        fields.line_end()
    }
}

/// The scalar members Claude Code writes alike on line after line, between
/// a line's first member (`parentUuid`) and its `type` or first object
/// (`isSidechain`, `userType`, `cwd`, `sessionId`, `version`, `gitBranch`,
/// `slug`): their bytes on the line they were last read from, and what they
/// gave. A line with the same bytes there takes them from here instead of
/// reading them again.
#[derive(Clone, Copy)]
struct Repeated<'a> {
    members: &'a [u8],
    line: Line<'a>,
}

impl<'a> Repeated<'a> {
    /// Reads the members that follow a line's first member (key `first`)
    /// into `line`, which holds nothing yet: those of `last` when the line
    /// repeats them, else read from `fields` and kept in `last` for the
    /// lines after.
    fn read(
        fields: &mut Fields<'a, true>,
        first: &[u8],
        last: &mut Option<Repeated<'a>>,
        line: &mut Line<'a>,
    ) {
        if let Some(same) = last {
            if fields.skip_repeated(same.members) {
                *line = same.line;
                return;
            }
        }
        let before = fields.rest();
        // The run ends at the line's type, at an object or array, and at the
        // first member's key again: that member is taken after the run, and
        // JSON.parse keeps the later of two members with one key.
        let alike =
            |key: &[u8], value: u8| key != b"type" && key != first && !matches!(value, b'{' | b'[');
        while let Some((key, value)) = fields.next_if(alike) {
            line.take(key, value);
        }
        let members = &before[..before.len() - fields.rest().len()];
        *last = (!members.is_empty()).then_some(Repeated {
            members,
            line: *line,
        });
    }
}

/// A line [`TranscriptFacts::feed_lines`] read: its bytes, and the members
/// the fold read of it when it is one whole JSON object.
pub struct ReadLine<'a, 'l> {
    /// The line, without its `\n`.
    pub raw: &'a [u8],
    /// Its members, when it is one whole object (read in the walk that
    /// found its end); `None` for any other line.
    whole: Option<&'l Line<'a>>,
}

impl<'a> ReadLine<'a, '_> {
    /// The raw values of the line's `uuid`, `parentUuid` and
    /// `logicalParentUuid` members as the walk read them (slices of
    /// [`ReadLine::raw`]), when it is one whole JSON object; `None` for any
    /// other line.
    pub fn ids(&self) -> Option<[Option<&'a [u8]>; 3]> {
        self.whole
            .map(|l| [l.uuid, l.parent_uuid, l.logical_parent_uuid])
    }

    /// The members a slim looks at, when the line is one whole JSON object:
    /// those [`LineParts::of`] finds, taken from what the fold read (the
    /// `agent_progress` copy's content is looked up in `data` as
    /// [`LineParts::of`] looks it up).
    pub fn slim_parts(&self) -> Option<LineParts<'a>> {
        let Some(line) = self.whole else {
            return LineParts::of(self.raw);
        };
        Some(LineParts {
            raw: self.raw,
            kind: line.kind,
            content: line.message.and_then(|m| m.content),
            copied_content: line
                .data_raw
                .and_then(|d| field(d, b"message"))
                .and_then(|m| field(m, b"message"))
                .and_then(|m| field(m, b"content")),
            tool_use_result: line.tool_use_result,
        })
    }
}

impl<'a> Members<'a> for Line<'a> {
    // Asked of every member of every line: inlined into the walk.
    #[inline(always)]
    fn descend<const IN_LINE: bool>(&mut self, key: &[u8], rest: &'a [u8]) -> Option<usize> {
        match key {
            b"message" => descend_into::<_, IN_LINE>(&mut self.message, rest),
            b"data" => descend_into::<_, IN_LINE>(&mut self.data, rest),
            b"origin" => descend_into::<_, IN_LINE>(&mut self.origin, rest),
            _ => None,
        }
    }

    fn take(&mut self, key: &[u8], value: &'a [u8]) {
        match key {
            b"type" => self.kind = value,
            b"subtype" => self.subtype = value,
            b"isSidechain" => {
                self.sidechain = is_true(value);
                self.sidechain_stated = true;
            }
            b"isMeta" => self.meta = is_true(value),
            b"isCompactSummary" => self.compact_summary = is_true(value),
            b"timestamp" => self.timestamp = Some(value),
            b"requestId" => self.request_id = Some(value),
            b"sessionId" => self.session_id = Some(value),
            b"agentId" => self.agent_id = Some(value),
            b"cwd" => self.cwd = Some(value),
            b"gitBranch" => self.git_branch = Some(value),
            b"slug" => self.slug = Some(value),
            b"version" => self.version = Some(value),
            b"uuid" => self.uuid = Some(value),
            b"parentUuid" => self.parent_uuid = Some(value),
            b"logicalParentUuid" => self.logical_parent_uuid = Some(value),
            b"toolUseResult" => self.tool_use_result = Some(value),
            b"data" => self.data_raw = Some(value),
            b"customTitle" => self.custom_title = Some(value),
            b"aiTitle" => self.ai_title = Some(value),
            b"summary" => self.summary = Some(value),
            b"leafUuid" => self.leaf_uuid = Some(value),
            b"promptSource" => self.prompt_source = Some(value),
            b"entrypoint" => self.entrypoint = Some(value),
            b"requestSessionId" => self.request_session_id = Some(value),
            b"totalCostUSD" => self.total_cost_usd = Some(value),
            b"hasUnknownModelCost" => self.unknown_model_cost = is_true(value),
            b"modelUsage" => self.model_usage = Some(value),
            _ => {}
        }
    }
}

/// A prompt line's `origin`: who fed it to the CLI, when not a person.
#[derive(Default, Clone, Copy)]
struct Origin<'a> {
    kind: Option<&'a [u8]>,
}

impl<'a> Members<'a> for Origin<'a> {
    fn take(&mut self, key: &[u8], value: &'a [u8]) {
        if key == b"kind" {
            self.kind = Some(value);
        }
    }
}

/// The members of a line's `message` object that the fold uses, as raw
/// JSON: the response's of an assistant line, the prompt's of a user line.
#[derive(Default, Clone, Copy)]
struct Message<'a> {
    id: Option<&'a [u8]>,
    model: Option<&'a [u8]>,
    usage: Option<Counts>,
    content: Option<&'a [u8]>,
    stop_reason: Option<&'a [u8]>,
}

impl<'a> Members<'a> for Message<'a> {
    fn descend<const IN_LINE: bool>(&mut self, key: &[u8], rest: &'a [u8]) -> Option<usize> {
        match key {
            b"usage" => descend_into::<_, IN_LINE>(&mut self.usage, rest),
            _ => None,
        }
    }

    fn take(&mut self, key: &[u8], value: &'a [u8]) {
        match key {
            b"id" => self.id = Some(value),
            b"model" => self.model = Some(value),
            b"content" => self.content = Some(value),
            b"stop_reason" => self.stop_reason = Some(value),
            _ => {}
        }
    }
}

/// A response's `usage`: its four token counts, when it names any.
#[derive(Default, Clone, Copy)]
struct Counts {
    usage: Usage,
    any: bool,
}

impl Members<'_> for Counts {
    fn take(&mut self, key: &[u8], value: &[u8]) {
        let slot = match key {
            b"input_tokens" => &mut self.usage.input,
            b"output_tokens" => &mut self.usage.output,
            b"cache_creation_input_tokens" => &mut self.usage.cache_creation,
            b"cache_read_input_tokens" => &mut self.usage.cache_read,
            _ => return,
        };
        *slot = as_u64(value).unwrap_or(0);
        self.any = true;
    }
}

/// A progress line's `data`: its kind and, in `agent_progress` lines, the
/// copy of a subagent line (`message`).
#[derive(Default, Clone, Copy)]
struct Progress<'a> {
    kind: Option<&'a [u8]>,
    copy: Option<Copied<'a>>,
}

impl<'a> Members<'a> for Progress<'a> {
    fn descend<const IN_LINE: bool>(&mut self, key: &[u8], rest: &'a [u8]) -> Option<usize> {
        match key {
            b"message" => descend_into::<_, IN_LINE>(&mut self.copy, rest),
            _ => None,
        }
    }

    fn take(&mut self, key: &[u8], value: &'a [u8]) {
        if key == b"type" {
            self.kind = Some(value);
        }
    }

    /// Only `agent_progress` copies carry usage. Claude Code writes the
    /// other kinds (`bash_progress`, `hook_progress`, most progress lines)
    /// type first: their output is skipped, not walked member by member.
    fn unwanted(&self) -> bool {
        self.kind.is_some_and(|kind| kind != b"\"agent_progress\"")
    }
}

/// The subagent line an `agent_progress` line copies.
#[derive(Default, Clone, Copy)]
struct Copied<'a> {
    kind: Option<&'a [u8]>,
    message: Option<Message<'a>>,
    request_id: Option<&'a [u8]>,
}

impl<'a> Members<'a> for Copied<'a> {
    fn descend<const IN_LINE: bool>(&mut self, key: &[u8], rest: &'a [u8]) -> Option<usize> {
        match key {
            b"message" => descend_into::<_, IN_LINE>(&mut self.message, rest),
            _ => None,
        }
    }

    fn take(&mut self, key: &[u8], value: &'a [u8]) {
        match key {
            b"type" => self.kind = Some(value),
            b"requestId" => self.request_id = Some(value),
            _ => {}
        }
    }
}

fn owned(raw: Option<&[u8]>) -> Option<String> {
    raw.and_then(as_str).map(|s| s.into_owned())
}

fn non_empty(raw: Option<&[u8]>) -> Option<String> {
    owned(raw).filter(|s| !s.is_empty())
}

/// The bytes between the quotes of a raw JSON string with no escapes:
/// exactly its text, when that is valid UTF-8.
fn unescaped(raw: &[u8]) -> Option<&[u8]> {
    let inner = raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    let plain = short_plain_text(inner).is_some() || memchr::memchr(b'\\', inner).is_none();
    plain.then_some(inner)
}

/// The raw values last applied to the fields that most lines repeat
/// (`gitBranch`, `slug`, `version`), within one call of
/// [`TranscriptFacts::feed`]. Applying a value again changes nothing, so a
/// line handing the very same bytes again (the members it repeats from the
/// line before, see [`Repeated`]) is passed over without a comparison.
#[derive(Default)]
struct Applied<'a> {
    git_branch: Option<&'a [u8]>,
    slug: Option<&'a [u8]>,
    version: Option<&'a [u8]>,
    /// The last `uuid` read and its bits: nearly every line names the line
    /// before as its parent, whose uuid is then not read again.
    uuid: Option<(&'a [u8], u128)>,
    /// What a slim would save is not measured (the slim's own folds).
    without_savings: bool,
}

impl Applied<'_> {
    /// Nothing applied yet, for a fold that does not measure what a slim
    /// would save (the slim's own).
    fn without_savings() -> Self {
        Applied {
            without_savings: true,
            ..Applied::default()
        }
    }

    /// The bits of the UUID `raw`, reusing those of the last `uuid` read
    /// when `raw` has the same bytes.
    fn uuid(&self, raw: &[u8]) -> Option<u128> {
        match self.uuid {
            Some((last, bits)) if last == raw => Some(bits),
            _ => raw_uuid(raw),
        }
    }
}

/// Sets `slot` to the non-empty string `raw`, allocating only when it
/// differs; `last` is the raw value last applied to `slot`.
fn replace_if_changed<'a>(
    slot: &mut Option<String>,
    raw: Option<&'a [u8]>,
    last: &mut Option<&'a [u8]>,
) {
    let Some(raw) = raw else {
        return;
    };
    // The very bytes (same place, same length) applied last time.
    if last.is_some_and(|last| std::ptr::eq(last, raw)) {
        return;
    }
    *last = Some(raw);
    // Nearly every line repeats the value held: compared as bytes, not decoded.
    if let (Some(held), Some(plain)) = (slot.as_deref(), unescaped(raw)) {
        if held.as_bytes() == plain {
            return;
        }
    }
    let Some(value) = as_str(raw).filter(|v| !v.is_empty()) else {
        return;
    };
    if slot.as_deref() != Some(&*value) {
        *slot = Some(value.into_owned());
    }
}

/// A raw JSON string value holding a UUID, as 128 bits.
fn raw_uuid(raw: &[u8]) -> Option<u128> {
    uuid_bits(raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?)
}

/// Parses a UUID (with or without dashes) into 128 bits.
pub fn parse_uuid(text: &str) -> Option<u128> {
    uuid_bits(text.as_bytes())
}

fn uuid_bits(text: &[u8]) -> Option<u128> {
    // Every line names one or two: read as four words of eight digits.
    let words = if text.len() == 36 && [8, 13, 18, 23].iter().all(|&i| text[i] == b'-') {
        let half = |at: usize| u64::from(u32::from_le_bytes(text[at..at + 4].try_into().unwrap()));
        let word = |at: usize| u64::from_le_bytes(text[at..at + 8].try_into().unwrap());
        [
            word(0),
            half(9) | half(14) << 32,
            half(19) | half(24) << 32,
            word(28),
        ]
    } else {
        let mut digits = [0u8; 32];
        let mut count = 0;
        for &b in text.iter().filter(|&&b| b != b'-') {
            *digits.get_mut(count)? = b;
            count += 1;
        }
        if count != 32 {
            return None;
        }
        let word = |i: usize| u64::from_le_bytes(digits[8 * i..8 * i + 8].try_into().unwrap());
        [word(0), word(1), word(2), word(3)]
    };
    let mut bits = 0u128;
    for word in words {
        bits = bits << 32 | u128::from(hex_word(word)?);
    }
    Some(bits)
}

/// The number eight hex digits spell (the first byte of `word`, read little
/// endian, is the most significant digit), all of them at once.
fn hex_word(word: u64) -> Option<u32> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    if word & HIGH != 0 {
        return None;
    }
    // Per byte, the high bit set when the byte lies in `lo..=hi` (bytes
    // below 0x80 never carry into their neighbours here).
    let within = |w: u64, lo: u8, hi: u8| {
        (w + ONES * u64::from(0x80 - lo)) & !(w + ONES * u64::from(0x7f - hi)) & HIGH
    };
    let decimal = within(word, b'0', b'9');
    let letter = within(word | (ONES * 0x20), b'a', b'f');
    if decimal | letter != HIGH {
        return None;
    }
    let mut v = (word & (ONES * 0x0f)) + (letter >> 7) * 9;
    v = ((v << 4) | (v >> 8)) & 0x00ff_00ff_00ff_00ff;
    v = ((v << 8) | (v >> 16)) & 0x0000_ffff_0000_ffff;
    v = ((v << 16) | (v >> 32)) & 0xffff_ffff;
    Some(v as u32)
}

/// A timestamp in the canonical `YYYY-MM-DDTHH:MM:SS.mmmZ` form, which sorts
/// as text. Claude Code always writes this form; others are converted.
fn canonical_timestamp(raw: &[u8]) -> Option<Cow<'_, str>> {
    let canonical = |b: &[u8]| b.len() == 24 && b[10] == b'T' && b[19] == b'.' && b[23] == b'Z';
    if let Some(b) = unescaped(raw).filter(|b| canonical(b)) {
        if let Some(text) = text(b) {
            return Some(Cow::Borrowed(text));
        }
    }
    let text = as_str(raw)?;
    if canonical(text.as_bytes()) {
        return Some(text);
    }
    let parsed = chrono::DateTime::parse_from_rfc3339(&text).ok()?;
    Some(Cow::Owned(
        parsed
            .with_timezone(&chrono::Utc)
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    ))
}

/// Where a response line was read, and what of it the fold needs besides
/// its `message`.
#[derive(Clone, Copy)]
struct Response<'a> {
    request_id: Option<&'a [u8]>,
    session_id: Option<&'a [u8]>,
    /// A subagent's line, or a copy of one.
    sidechain: bool,
    /// Copied by a fork from the session it was billed to.
    copied: bool,
    /// The line's uuid.
    uuid: Option<u128>,
    timestamp: Option<&'a [u8]>,
}

/// Whether a `user` line is a prompt the CLI made up rather than one a
/// person or host typed: marked `promptSource: "system"` (a background
/// task's notification, say), or fed back from another origin than a
/// person (`origin.kind` other than `human`: task notifications,
/// automatic continuations, peers, plugins).
fn generated(line: &Line<'_>) -> bool {
    line.prompt_source == Some(b"\"system\"")
        || line
            .origin
            .is_some_and(|o| o.kind.is_some_and(|kind| kind != b"\"human\""))
}

/// A raw JSON number that is finite and not negative.
fn as_f64(raw: &[u8]) -> Option<f64> {
    let n: f64 = std::str::from_utf8(raw).ok()?.parse().ok()?;
    (n.is_finite() && n >= 0.0).then_some(n)
}

impl TranscriptFacts {
    /// Folds every complete line of `bytes` (up to its last `\n`) and returns
    /// how many bytes were consumed. The remainder is an incomplete last line
    /// that a later call (or [`TranscriptFacts::with_partial_line`]) handles.
    pub fn feed(&mut self, bytes: &[u8]) -> usize {
        let done: Result<usize, std::convert::Infallible> =
            self.walk_lines(bytes, Applied::default(), |_| Ok(()));
        done.unwrap_or_else(|never| match never {})
    }

    /// Folds every complete line of `bytes` as [`TranscriptFacts::feed`]
    /// does, leaving `slim_savings` as it is, and hands each line to `each`
    /// once it is folded (the slim, which writes each line as it reads it).
    /// Returns how many bytes were consumed, or the first error of `each`.
    pub fn feed_lines<'a, E>(
        &mut self,
        bytes: &'a [u8],
        each: impl FnMut(&ReadLine<'a, '_>) -> Result<(), E>,
    ) -> Result<usize, E> {
        let applied = Applied::without_savings();
        self.walk_lines(bytes, applied, each)
    }

    /// Folds a line [`TranscriptFacts::feed_lines`] read, as
    /// [`TranscriptFacts::feed_line_without_savings`] folds its bytes, from
    /// the members already read.
    pub fn fold_read_line(&mut self, line: &ReadLine<'_, '_>) {
        let mut applied = Applied::without_savings();
        match line.whole {
            Some(members) => {
                self.line_count += 1;
                self.fold_line(members, line.raw, &mut applied);
            }
            None => self.fold_split_line(line.raw, &mut applied),
        }
    }

    /// The walk of [`TranscriptFacts::feed`]: each line's members are read
    /// in the walk that finds its end, when it is one whole object.
    #[inline(always)]
    fn walk_lines<'a, E>(
        &mut self,
        bytes: &'a [u8],
        mut applied: Applied<'a>,
        mut each: impl FnMut(&ReadLine<'a, '_>) -> Result<(), E>,
    ) -> Result<usize, E> {
        let mut start = 0;
        let mut repeated = None;
        let mut line = Line::default();
        while start < bytes.len() {
            let rest = &bytes[start..];
            if let Some(nl) = line.read_through_newline(rest, &mut repeated) {
                self.line_count += 1;
                self.fold_line(&line, &rest[..nl], &mut applied);
                each(&ReadLine {
                    raw: &rest[..nl],
                    whole: Some(&line),
                })?;
                start += nl + 1;
            } else if let Some(nl) = memchr::memchr(b'\n', rest) {
                self.fold_split_line(&rest[..nl], &mut applied);
                each(&ReadLine {
                    raw: &rest[..nl],
                    whole: None,
                })?;
                start += nl + 1;
            } else {
                break;
            }
        }
        Ok(start)
    }

    /// The facts including an unterminated last line (a session being written,
    /// or a crash-truncated line), without changing `self`.
    pub fn with_partial_line(&self, tail: &[u8]) -> std::borrow::Cow<'_, TranscriptFacts> {
        if tail.iter().all(u8::is_ascii_whitespace) {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut copy = self.clone();
        copy.feed_line(tail);
        std::borrow::Cow::Owned(copy)
    }

    /// Folds a line too long to be read: counted, nothing else (as a line
    /// that is not JSON).
    pub fn feed_oversized_line(&mut self) {
        self.line_count += 1;
    }

    /// Folds one line (without its `\n`).
    pub fn feed_line(&mut self, raw: &[u8]) {
        self.fold_split_line(raw, &mut Applied::default());
    }

    /// Folds one line (without its `\n`) as [`TranscriptFacts::feed_line`]
    /// does, leaving `slim_savings` as it is: for the slim itself, which
    /// measures its cuts as it makes them.
    pub fn feed_line_without_savings(&mut self, raw: &[u8]) {
        let mut applied = Applied::without_savings();
        self.fold_split_line(raw, &mut applied);
    }

    /// Folds one line (without its `\n`) read the plain way.
    fn fold_split_line<'a>(&mut self, raw: &'a [u8], applied: &mut Applied<'a>) {
        if raw.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        self.line_count += 1;
        if let Some(line) = Line::read(raw) {
            self.fold_line(&line, raw, applied);
        } // else not JSON: counted, nothing else
    }

    /// Folds the members of a counted line.
    fn fold_line<'a>(&mut self, line: &Line<'a>, raw: &'a [u8], applied: &mut Applied<'a>) {
        if !applied.without_savings {
            self.note_slim_savings(line, raw, applied);
        }
        self.note_envelope(line, applied);
        self.note_turn(line);
        match line.kind {
            b"\"assistant\"" => self.note_assistant(line, applied),
            b"\"user\"" => self.note_user(line),
            b"\"progress\"" => self.note_progress(line),
            b"\"system\"" if line.subtype == b"\"compact_boundary\"" && !line.sidechain => {
                self.compactions += 1;
            }
            b"\"custom-title\"" => {
                if let Some(t) = non_empty(line.custom_title) {
                    self.custom_title = Some(t);
                }
            }
            b"\"ai-title\"" => {
                if let Some(t) = non_empty(line.ai_title) {
                    self.ai_title = Some(t);
                }
            }
            b"\"cost-state\"" => self.note_cost_state(line),
            b"\"summary\"" => {
                let leaf = owned(line.leaf_uuid).and_then(|u| parse_uuid(&u));
                if let (Some(leaf), Some(text)) = (leaf, non_empty(line.summary)) {
                    self.summaries.push((leaf, text));
                }
            }
            _ => {}
        }
    }

    /// Adds what slimming the line would save (before the envelope moves
    /// `applied` on to this line's uuid).
    fn note_slim_savings<'a>(&mut self, line: &Line<'a>, raw: &'a [u8], applied: &Applied<'a>) {
        let parts = LineParts {
            raw,
            kind: line.kind,
            content: line.message.and_then(|m| m.content),
            copied_content: line
                .data
                .and_then(|d| d.copy)
                .and_then(|c| c.message)
                .and_then(|m| m.content),
            tool_use_result: line.tool_use_result,
        };
        let parent = |raw: Option<&'a [u8]>| raw.map(|r| (r, applied.uuid(r)));
        self.slim_savings.note(
            &parts,
            line.uuid.and_then(|raw| applied.uuid(raw)),
            [parent(line.parent_uuid), parent(line.logical_parent_uuid)],
        );
    }

    fn note_envelope<'a>(&mut self, line: &Line<'a>, applied: &mut Applied<'a>) {
        if let Some(ts) = line.timestamp.and_then(canonical_timestamp) {
            if self.first_activity.as_deref().is_none_or(|f| *ts < *f) {
                self.first_activity = Some(ts.clone().into_owned());
            }
            match &mut self.last_activity {
                // Nearly every line is the latest: reuse the buffer.
                Some(last) if *ts > **last => {
                    last.clear();
                    last.push_str(&ts);
                }
                Some(_) => {}
                None => self.last_activity = Some(ts.into_owned()),
            }
        }
        if self.session_id.is_none() {
            self.session_id = non_empty(line.session_id);
        }
        if self.agent_id.is_none() {
            self.agent_id = non_empty(line.agent_id);
        }
        if self.cwd.is_none() {
            self.cwd = non_empty(line.cwd);
        }
        if self.entrypoint.is_none() {
            self.entrypoint = non_empty(line.entrypoint);
        }
        if self.opens_on_sidechain.is_none() && line.sidechain_stated {
            self.opens_on_sidechain = Some(line.sidechain);
        }
        if !line.sidechain {
            replace_if_changed(
                &mut self.git_branch,
                line.git_branch,
                &mut applied.git_branch,
            );
        }
        replace_if_changed(&mut self.slug, line.slug, &mut applied.slug);
        replace_if_changed(&mut self.version, line.version, &mut applied.version);
        if let Some(parent) = line.parent_uuid.and_then(|raw| applied.uuid(raw)) {
            self.leaves.remove(&parent);
        }
        if let Some(raw) = line.uuid {
            if let Some(uuid) = raw_uuid(raw) {
                self.leaves.insert(uuid);
                applied.uuid = Some((raw, uuid));
            }
        }
    }

    fn note_response(&mut self, message: &Message<'_>, at: Response<'_>) {
        if !at.sidechain {
            if let Some(content) = message.content {
                self.note_files(content);
            }
        }
        let model = message.model.and_then(as_str);
        // Locally generated lines ("Prompt is too long", usage-limit notices)
        // carry zero usage: counting them would reset the context to 0.
        if model.as_deref() == Some("<synthetic>") {
            return;
        }
        if let Some(model) = model.as_deref().filter(|m| !m.is_empty()) {
            if !self.models.iter().any(|m| m == model) {
                self.models.push(model.to_owned());
                let first_used = at.timestamp.and_then(canonical_timestamp);
                self.models_first_used.push(first_used.map(Cow::into_owned));
            }
        }
        let Some(Counts { usage, any: true }) = message.usage else {
            return;
        };
        let id = message.id.and_then(as_str);
        let request_id = at.request_id.and_then(as_str);
        let session_id = at.session_id.and_then(as_str);
        let key = response_key(id.as_deref(), request_id.as_deref(), session_id.as_deref());
        // A response a fork copied was billed to the session it came from.
        if !at.copied {
            self.usage.add(key, usage, at.sidechain);
        }
        if !at.sidechain {
            self.context_tokens = Some(usage.prompt_tokens());
            if self.context_model.as_deref() != model.as_deref() {
                self.context_model = model.map(Cow::into_owned);
            }
            // The lines of one response follow each other.
            if key.is_none() || key != self.last_response_key {
                self.response_count += 1;
                self.last_response_key = key;
            }
            if at.uuid.is_some() {
                self.last_response_uuid = at.uuid;
            }
        }
    }

    /// Keeps the CLI's accounting of a `cost-state` line.
    fn note_cost_state(&mut self, line: &Line<'_>) {
        let mut state = CostState {
            cost_usd: line.total_cost_usd.and_then(as_f64),
            unknown_model_cost: line.unknown_model_cost,
            ..CostState::default()
        };
        for (_model, counts) in line.model_usage.map(Fields::new).into_iter().flatten() {
            let mut sum = Usage::default();
            for (key, value) in Fields::new(counts) {
                let slot = match key {
                    b"inputTokens" => &mut sum.input,
                    b"outputTokens" => &mut sum.output,
                    b"cacheReadInputTokens" => &mut sum.cache_read,
                    b"cacheCreationInputTokens" => &mut sum.cache_creation,
                    _ => continue,
                };
                *slot = as_u64(value).unwrap_or(0);
            }
            state.usage = state.usage.plus(sum);
        }
        if let Some(after) = self.last_response_uuid {
            if self
                .cost_marks
                .last()
                .is_none_or(|mark| mark.after != after)
            {
                self.cost_marks.push(CostMark {
                    after,
                    usage: state.usage,
                    cost_usd: state.cost_usd,
                });
            }
        }
        self.cost_state = Some(state);
    }

    /// Records the files named by `tool_use` blocks of `content`.
    fn note_files(&mut self, content: &[u8]) {
        // The searcher is built once, not on every response line.
        static TOOL_USE: LazyLock<memmem::Finder<'static>> =
            LazyLock::new(|| memmem::Finder::new(b"\"tool_use\""));
        if TOOL_USE.find(content).is_none() {
            return;
        }
        for block in Elements::new(content) {
            if field(block, b"type") != Some(&b"\"tool_use\""[..]) {
                continue;
            }
            let Some(input) = field_start(block, b"input") else {
                continue;
            };
            for (key, value) in Fields::new(input) {
                if matches!(key, b"file_path" | b"notebook_path" | b"path") {
                    if let Some(path) = as_str(value).filter(|p| !p.is_empty()) {
                        self.files_touched.retain(|f| *f != *path);
                        if self.files_touched.len() == MAX_FILES_TOUCHED {
                            self.files_touched.remove(0);
                        }
                        self.files_touched.push(path.into_owned());
                    }
                    break;
                }
            }
        }
    }

    fn note_assistant<'a>(&mut self, line: &Line<'a>, applied: &Applied<'a>) {
        let Some(message) = &line.message else {
            return;
        };
        let uuid = line.uuid.and_then(|raw| applied.uuid(raw));
        // Only the lines a fork copied name another session's request.
        let copied = line
            .request_session_id
            .is_some_and(|parent| Some(parent) != line.session_id);
        if copied && !line.sidechain {
            self.note_copied(line.request_session_id, uuid);
        }
        self.note_response(
            message,
            Response {
                request_id: line.request_id,
                session_id: line.session_id,
                sidechain: line.sidechain,
                copied,
                uuid,
                timestamp: line.timestamp,
            },
        );
    }

    /// Records the last response a fork copied and whose it was.
    fn note_copied(&mut self, parent: Option<&[u8]>, uuid: Option<u128>) {
        let (Some(parent), Some(at)) = (parent.and_then(as_str), uuid) else {
            return;
        };
        match &mut self.forked_from {
            Some(fork) if fork.parent == *parent => fork.at = at,
            _ => {
                self.forked_from = Some(ForkPoint {
                    parent: parent.into_owned(),
                    at,
                })
            }
        }
    }

    /// `agent_progress` lines carry a full copy of a subagent line, usage
    /// included; it is counted (and later deduplicated against the subagent
    /// file) as a sidechain response.
    fn note_progress(&mut self, line: &Line<'_>) {
        let Some(Progress {
            kind: Some(b"\"agent_progress\""),
            copy: Some(copy),
        }) = &line.data
        else {
            return;
        };
        if let (Some(b"\"assistant\""), Some(message)) = (copy.kind, &copy.message) {
            let at = Response {
                request_id: copy.request_id,
                session_id: line.session_id,
                sidechain: true,
                copied: false,
                uuid: None,
                timestamp: line.timestamp,
            };
            self.note_response(message, at);
        }
    }

    /// A main-chain message opens a turn (a prompt, a tool's result) or
    /// ends it (a response that does not call a tool).
    fn note_turn(&mut self, line: &Line<'_>) {
        let Some(message) = &line.message else {
            return;
        };
        if line.sidechain || line.meta || line.compact_summary {
            return;
        }
        match line.kind {
            b"\"assistant\"" => {
                self.turn_ended = Some(
                    message
                        .stop_reason
                        .is_some_and(|r| r != b"null" && r != b"\"tool_use\""),
                )
            }
            b"\"user\"" => self.turn_ended = Some(false),
            _ => {}
        }
    }

    fn note_user(&mut self, line: &Line<'_>) {
        if line.sidechain || line.meta || line.compact_summary || generated(line) {
            return;
        }
        let Some(content) = line.message.as_ref().and_then(|m| m.content) else {
            return;
        };
        let Some(text) = prompt_text(content) else {
            return;
        };
        self.prompt_count += 1;
        // The origin marker says who sent the prompt; it and a briefing
        // after the task are not what was asked.
        let (asked, origin) = split_origin(&text);
        if self.first_prompt.is_none() {
            let pairs = origin.unwrap_or_default();
            self.spawn_nonce = pairs
                .iter()
                .find(|(k, _)| k == "spawn")
                .map(|(_, v)| v.clone());
            self.origin_marker = pairs.into_iter().next().map(|(_, v)| v);
            self.first_prompt = Some(truncate_utf16(asked, PROMPT_PREVIEW_UNITS).to_owned());
        }
        self.last_prompt = Some(truncate_utf16(asked, PROMPT_PREVIEW_UNITS).to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(text: &str) -> TranscriptFacts {
        let mut f = TranscriptFacts::default();
        let used = f.feed(text.as_bytes());
        f.with_partial_line(&text.as_bytes()[used..]).into_owned()
    }

    #[test]
    fn a_turn_ends_with_a_response_that_calls_no_tool() {
        let prompt = r#"{"type":"user","message":{"role":"user","content":"fix it"}}"#;
        let calls = r#"{"type":"assistant","message":{"id":"m1","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t","name":"Edit","input":{}}]}}"#;
        let result = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}"#;
        let streaming = r#"{"type":"assistant","message":{"id":"m2","stop_reason":null,"content":[{"type":"text","text":"Do"}]}}"#;
        let done = r#"{"type":"assistant","message":{"id":"m2","stop_reason":"end_turn","content":[{"type":"text","text":"Done"}]}}"#;
        let side =
            r#"{"type":"user","isSidechain":true,"message":{"role":"user","content":"sub task"}}"#;
        let meta = r#"{"type":"user","isMeta":true,"message":{"role":"user","content":"<local-command-stdout>x</local-command-stdout>"}}"#;
        let state = |lines: &[&str]| facts(&(lines.join("\n") + "\n")).turn_ended;
        assert_eq!(state(&[]), None);
        assert_eq!(state(&[prompt]), Some(false));
        assert_eq!(state(&[prompt, calls]), Some(false));
        assert_eq!(state(&[prompt, calls, result]), Some(false));
        assert_eq!(state(&[prompt, calls, result, streaming]), Some(false));
        assert_eq!(state(&[prompt, calls, result, done]), Some(true));
        assert_eq!(
            state(&[prompt, done, side, meta]),
            Some(true),
            "a subagent's or a local command's line is not the main turn"
        );
        assert_eq!(state(&[prompt, done, prompt]), Some(false));
    }

    #[test]
    fn the_first_line_stating_is_sidechain_tells_a_side_log_from_a_session() {
        let queue = r#"{"type":"queue-operation","operation":"enqueue","sessionId":"s"}"#;
        let line = |side: bool, text: &str| {
            format!(
                r#"{{"parentUuid":null,"isSidechain":{side},"type":"user","message":{{"role":"user","content":"{text}"}},"sessionId":"s"}}"#
            )
        };
        let side = format!("{queue}\n{}\n{}\n", line(true, "why?"), line(false, "x"));
        assert_eq!(facts(&side).opens_on_sidechain, Some(true));
        let session = format!("{queue}\n{}\n{}\n", line(false, "hi"), line(true, "sub"));
        assert_eq!(facts(&session).opens_on_sidechain, Some(false));
        assert_eq!(facts(&format!("{queue}\n")).opens_on_sidechain, None);
        // Fed in two parts (a file that grew), the first line still decides.
        let mut f = TranscriptFacts::default();
        f.feed(format!("{queue}\n{}\n", line(false, "hi")).as_bytes());
        f.feed(format!("{}\n", line(true, "later")).as_bytes());
        assert_eq!(f.opens_on_sidechain, Some(false));
    }

    #[test]
    fn lines_read_through_their_newline_fold_as_lines_split_first_do() {
        let lines = [
            r#"{"type":"user","sessionId":"s1","cwd":"/r","uuid":"00000000-0000-0000-0000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#,
            "{}",
            "  {\"type\":\"user\",\"gitBranch\":\"a\"} \r",
            r#"{"type":"user","gitBranch":"b"} trailing"#,
            r#"{"type":"user","gitBranch":"c""#,
            r#"{"type":"assistant","message":{"id":"m1","model":"x","usage":{"input_tokens":5,"output_tokens":7}},"requestId":"r1"}"#,
            r#"{"type":"assistant","message":{"id":"m2","model":"y","usage":{"input_tokens":1,"#,
            r#"  "output_tokens":2}},"requestId":"r2"}"#,
            r#"{"type":"user","gitBranch":"broken"#,
            r#"string","version":"9"}"#,
            r#"{"type":"user","gitBranch":"d","n":12"#,
            r#"}"#,
            "",
            "   ",
            "not json",
            r#"{"type":"progress","data":{"type":"agent_progress","message":{"type":"assistant","message":{"id":"m3","usage":{"output_tokens":3}}}}}"#,
            r#"{"type":"summary","summary":"title","leafUuid":"00000000-0000-0000-0000-000000000001"}"#,
            &format!(
                r#"{{"type":"user","gitBranch":"long{}","slug":"x"}}"#,
                "x".repeat(100)
            ),
            &format!(r#"{{"type":"user","data":"{}"#, "\\\"".repeat(40)),
            &format!(r#"{}","version":"8"}}"#, "y".repeat(70)),
        ];
        let text = lines.join("\n") + "\n";
        let mut through = TranscriptFacts::default();
        let used = through.feed(text.as_bytes());
        assert_eq!(used, text.len());
        let mut split = TranscriptFacts::default();
        for line in text.split_terminator('\n') {
            split.feed_line(line.as_bytes());
        }
        assert_eq!(through, split);
        assert_eq!(through.line_count, 18);
        assert_eq!(through.git_branch.as_deref(), Some("longxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));
    }

    /// The members a line repeats from the line before are taken from it
    /// only when their bytes are the same up to a member's end; what each
    /// line gives is what reading it alone gives.
    #[test]
    fn members_repeated_from_the_line_before_give_what_reading_them_gives() {
        let line = |parent: &str, run: &str, rest: &str| {
            format!(r#"{{"parentUuid":{parent},{run},{rest}}}"#)
        };
        let main = r#""isSidechain":false,"userType":"external","cwd":"/r","sessionId":"s1","version":"2.1.1","gitBranch":"main","slug":"a-b""#;
        let uuid = |n: u8| format!(r#""uuid":"00000000-0000-0000-0000-0000000000{n:02x}""#);
        let parent = |n: u8| format!(r#""00000000-0000-0000-0000-0000000000{n:02x}""#);
        let prompt =
            |text: &str| format!(r#""type":"user","message":{{"role":"user","content":"{text}"}}"#);
        let lines = [
            line("null", main, &format!("{},{}", prompt("one"), uuid(1))),
            // The same members: taken from the line before.
            line(
                &parent(1),
                main,
                &format!(
                    r#""type":"progress","data":{{"type":"bash_progress"}},{}"#,
                    uuid(2)
                ),
            ),
            // One value differs: read, and kept for the lines after.
            line(
                &parent(2),
                &main.replace("main", "feat"),
                &format!("{},{}", prompt("two"), uuid(3)),
            ),
            line(&parent(3), &main.replace("main", "feat"), &uuid(4)),
            // The same bytes but a number running on past them.
            line(
                &parent(4),
                &format!(r#"{},"n":1"#, main),
                &format!(r#""type":"system",{}"#, uuid(5)),
            ),
            line(
                &parent(5),
                &format!(r#"{},"n":12"#, main),
                &format!(r#""gitBranch":"after",{}"#, uuid(6)),
            ),
            // A sidechain line's branch does not count.
            line(
                &parent(6),
                &main.replace("false", "true").replace("main", "side"),
                &uuid(7),
            ),
            // The first member's key again: the later one counts.
            line(
                &parent(7),
                &format!(r#"{},"parentUuid":{}"#, main, parent(2)),
                &uuid(8),
            ),
            line(
                &parent(8),
                &format!(r#"{},"parentUuid":{}"#, main, parent(2)),
                &uuid(9),
            ),
            // An object first, and spaces between members.
            format!(
                r#"{{"message":{{"role":"user","content":"three"}},{main},"type":"user",{}}}"#,
                uuid(10)
            ),
            line(&parent(9), &main.replace(',', " , "), &uuid(11)),
            line(
                &parent(11),
                &main.replace(',', " , "),
                &format!("{},{}", prompt("four"), uuid(12)),
            ),
            // The run at the very end of a line.
            line(&parent(12), main, r#""x":0"#).replace(r#","x":0"#, ""),
        ];
        let text = lines.join("\n") + "\n";
        let through = facts(&text);
        let mut alone = TranscriptFacts::default();
        for line in &lines {
            let mut one = TranscriptFacts::default();
            one.feed_line(line.as_bytes());
            assert_eq!(one.line_count, 1, "{line}");
            alone.feed_line(line.as_bytes());
        }
        assert_eq!(through, alone);
        assert_eq!(through.line_count, 13);
        assert_eq!(through.git_branch.as_deref(), Some("main"));
        assert_eq!(through.last_prompt.as_deref(), Some("four"));
        // A branch named after the repeated ones counts, and the one they
        // name counts again on the line after.
        let later = line("null", main, r#""type":"user","gitBranch":"later""#);
        let again = line("null", main, r#""type":"user""#);
        let branch = |lines: &[&String]| {
            let text = lines.iter().map(|l| format!("{l}\n")).collect::<String>();
            facts(&text).git_branch
        };
        assert_eq!(branch(&[&lines[0], &later]).as_deref(), Some("later"));
        // The same after a line not read through its newline.
        let split = line("null", main, r#""type":"user","gitBranch":"split""#) + " text";
        assert_eq!(branch(&[&lines[0], &split]).as_deref(), Some("split"));
        assert_eq!(
            branch(&[&lines[0], &split, &again]).as_deref(),
            Some("main")
        );
        assert_eq!(
            branch(&[&lines[0], &later, &again]).as_deref(),
            Some("main")
        );
        // 8 and 9 continue 2, not the lines before them; 10 has no parent.
        let mut leaves: Vec<u128> = through.leaves.iter().copied().collect();
        leaves.sort();
        assert_eq!(leaves, [7, 8, 10]);
    }

    /// Of two members with one key the later counts, as with JSON.parse,
    /// also when it is not an object.
    #[test]
    fn a_later_message_or_usage_that_is_no_object_leaves_no_usage() {
        let f = facts(concat!(
            r#"{"type":"assistant","message":{"id":"m1","usage":{"output_tokens":1}},"message":null}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"m2","usage":{"output_tokens":2},"usage":"none"}}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"m3","usage":{"output_tokens":4} ,"usage":{"output_tokens":8}}}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"m4","usage":{"output_tokens":16,"input_tokens" 3}}}"#,
            "\n",
        ));
        assert_eq!(f.usage.totals().output, 8);
    }

    /// `message` and `data` are read in the pass that finds their ends:
    /// what the fold takes from them, and from the members after them, is
    /// what reading them again afterwards gave.
    #[test]
    fn nested_objects_read_in_one_pass_give_their_members_and_what_follows() {
        let lines = [
            // An agent_progress copy as Claude Code writes it: the copied
            // line first, the kind after it, and the envelope after `data`.
            r#"{"type":"progress","sessionId":"s1","data":{"message":{"type":"assistant","timestamp":"2026-01-01T00:00:00.000Z","message":{"model":"claude-sub","id":"m1","content":[{"type":"tool_use","input":{"file_path":"/sub"}}],"usage":{"input_tokens":1,"output_tokens":5}},"requestId":"r1","uuid":"00000000-0000-0000-0000-00000000000a"},"normalizedMessages":[],"type":"agent_progress","prompt":"p \"}","agentId":"a1"},"timestamp":"2026-01-02T00:00:00.000Z"}"#,
            // Other kinds are skipped once their type shows, even when
            // they hold a message with usage; the members after them count.
            r#"{"type":"progress","data":{"type":"hook_progress","message":{"type":"assistant","message":{"id":"m9","usage":{"output_tokens":100}}}},"timestamp":"2026-01-03T00:00:00.000Z"}"#,
            r#"{"type":"progress","data":{"type":"bash_progress","output":"a \"}{[\" b","n":{"x":[1,"]"]}},"gitBranch":"after-data"}"#,
            // A response, its tool call on the main chain.
            r#"{"type":"assistant","message":{"id":"m2","model":"claude-main","content":[{"type":"tool_use","input":{"file_path":"/main"}}],"usage":{"input_tokens":2,"output_tokens":7}},"requestId":"r2","timestamp":"2026-01-04T00:00:00.000Z"}"#,
            // A message that does not parse counts no usage (JSON.parse
            // rejects it too); the line and what follows it still count.
            r#"{"type":"assistant","message":{"id":"m3","usage":{"output_tokens":11},"model":},"slug":"after-broken"}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"the prompt"}]}}"#,
        ];
        let text = lines.join("\n") + "\n";
        let through = facts(&text);
        let mut split = TranscriptFacts::default();
        for line in &lines {
            split.feed_line(line.as_bytes());
        }
        assert_eq!(through, split);
        assert_eq!(through.line_count, 6);
        assert_eq!(through.usage.totals().output, 5 + 7);
        assert_eq!(through.models, ["claude-sub", "claude-main"]);
        assert_eq!(through.files_touched, ["/main"]);
        assert_eq!(through.context_tokens, Some(2));
        assert_eq!(
            through.last_activity.as_deref(),
            Some("2026-01-04T00:00:00.000Z")
        );
        assert_eq!(through.git_branch.as_deref(), Some("after-data"));
        assert_eq!(through.slug.as_deref(), Some("after-broken"));
        assert_eq!(through.first_prompt.as_deref(), Some("the prompt"));
    }

    #[test]
    fn counts_lines_like_the_reference_and_survives_garbage() {
        let f = facts("\n{\"type\":\"user\"}\n   \nnot json\n\u{0}\u{1}\n{\"type\":\"x\",\"trunc");
        assert_eq!(f.line_count, 4);
    }

    #[test]
    fn escaped_and_plain_values_read_as_their_text() {
        let f = facts(concat!(
            r#"{"type":"user","gitBranch":"main","timestamp":"2026-01-01T00:00:00.000Z","uuid":"00000000-0000-0000-0000-000000000001"}"#,
            "\n",
            r#"{"type":"user","gitBranch":"fe\u0061t","timestamp":"\u0032026-01-02T00:00:00.000Z","parentUuid":"00000000-0000-0000-0000-000000000001"}"#,
            "\n",
            r#"{"type":"user","gitBranch":"feat","timestamp":"2026-01-01T12:00:00+01:00","uuid":"0000000000000000000000000000000\u0032"}"#,
            "\n",
            r#"{"type":"user","gitBranch":"fe\u0061t","version":"2.1.\u00e9","uuid":"00000000-0000-0000-0000-00000000000\u00e9"}"#,
            "\n",
        ));
        assert_eq!(f.git_branch.as_deref(), Some("feat"));
        assert_eq!(f.version.as_deref(), Some("2.1.\u{e9}"));
        assert_eq!(
            f.first_activity.as_deref(),
            Some("2026-01-01T00:00:00.000Z")
        );
        assert_eq!(f.last_activity.as_deref(), Some("2026-01-02T00:00:00.000Z"));
        // Uuids are read only as written plainly: the escaped ones are not leaves.
        assert!(f.leaves.is_empty());
    }

    #[test]
    fn compactions_only_from_main_chain_compact_boundary() {
        let f = facts(concat!(
            r#"{"type":"summary","summary":"Compact summary of stuff","leafUuid":"549b3502-0000-0000-0000-000000000000"}"#,
            "\n",
            r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto"}}"#,
            "\n",
            r#"{"type":"system","subtype":"microcompact_boundary"}"#,
            "\n",
            r#"{"type":"system","subtype":"compact_boundary","isSidechain":true}"#,
            "\n",
            r#"{"type":"system","subtype":"local_command","content":"compact"}"#,
            "\n",
        ));
        assert_eq!(f.compactions, 1);
        assert_eq!(f.summaries.len(), 1);
    }

    #[test]
    fn first_and_last_prompt_skip_non_prompts() {
        let f = facts(concat!(
            r#"{"type":"user","isMeta":true,"message":{"role":"user","content":"<local-command-caveat>x</local-command-caveat>"}}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"r"}]}}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":"[openclaw:agent=ops] refactor the parser"}}"#,
            "\n",
            r#"{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}"#,
            "\n",
            r#"{"type":"user","isSidechain":true,"message":{"role":"user","content":"subagent prompt"}}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"now add tests"}]}}"#,
            "\n",
        ));
        assert_eq!(f.first_prompt.as_deref(), Some("refactor the parser"));
        assert_eq!(f.origin_marker.as_deref(), Some("ops"));
        assert_eq!(f.last_prompt.as_deref(), Some("now add tests"));
    }

    /// Each way Claude Code marks a prompt it generated, on its own: the
    /// prompt is neither first, last nor counted.
    #[test]
    fn prompts_the_cli_generated_are_not_what_the_person_typed() {
        let typed = r#"{"type":"user","promptSource":"sdk","message":{"role":"user","content":"typed one"}}"#;
        let human = r#"{"type":"user","promptSource":"typed","origin":{"kind":"human"},"message":{"role":"user","content":"typed two"}}"#;
        let generated = [
            r#"{"type":"user","promptSource":"system","message":{"role":"user","content":"a system prompt"}}"#,
            r#"{"type":"user","origin":{"kind":"task-notification","producer":"session-task"},"message":{"role":"user","content":"done"}}"#,
            r#"{"type":"user","origin":{"kind":"auto-continuation"},"message":{"role":"user","content":"go on"}}"#,
            r#"{"type":"user","message":{"role":"user","content":"<task-notification>\n<task-id>a1</task-id>"}}"#,
            r#"{"type":"user","isMeta":true,"message":{"role":"user","content":"expanded"}}"#,
            r#"{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}"#,
            r#"{"type":"user","message":{"role":"user","content":"<command-name>/compact</command-name>"}}"#,
            r#"{"type":"user","message":{"role":"user","content":"<local-command-stdout>Compacted </local-command-stdout>"}}"#,
        ];
        for line in generated {
            let f = facts(&format!("{typed}\n{human}\n{line}\n"));
            assert_eq!(f.first_prompt.as_deref(), Some("typed one"), "{line}");
            assert_eq!(f.last_prompt.as_deref(), Some("typed two"), "{line}");
            assert_eq!(f.prompt_count, 2, "{line}");
            let alone = facts(&format!("{line}\n"));
            assert_eq!(
                (alone.first_prompt, alone.prompt_count),
                (None, 0),
                "{line}"
            );
        }
    }

    fn response(id: &str, out: u64, extra: &str) -> String {
        format!(
            r#"{{"type":"assistant","sessionId":"fork"{extra},"message":{{"id":"{id}","model":"claude-opus-5-5","usage":{{"input_tokens":1,"output_tokens":{out},"cache_read_input_tokens":100}}}},"requestId":"r-{id}"}}"#
        )
    }

    /// Lines a fork copied carry `requestSessionId` = the session they were
    /// billed to: they are part of its conversation, not of its usage.
    #[test]
    fn a_forks_copied_responses_are_its_conversation_not_its_usage() {
        let uuid = |n: u8| format!(r#","uuid":"00000000-0000-0000-0000-0000000000{n:02x}""#);
        let copied = |id: &str, n: u8| {
            response(
                id,
                5,
                &format!(r#","requestSessionId":"parent"{}"#, uuid(n)),
            )
        };
        let text = [
            copied("m1", 1),
            copied("m2", 2),
            response("m3", 7, &uuid(3)),
            // Its own request, named: still its own.
            response(
                "m4",
                11,
                &format!(r#","requestSessionId":"fork"{}"#, uuid(4)),
            ),
        ]
        .join("\n")
            + "\n";
        let f = facts(&text);
        assert_eq!(f.usage.totals().output, 7 + 11);
        assert_eq!(f.response_count, 4);
        assert_eq!(
            f.forked_from,
            Some(ForkPoint {
                parent: "parent".into(),
                at: 2
            })
        );
        assert_eq!(f.last_response_uuid, Some(4));
        // Not a fork: every response its own.
        let plain = facts(&(response("m1", 5, "") + "\n" + &response("m2", 5, "") + "\n"));
        assert_eq!(plain.usage.totals().output, 10);
        assert_eq!(plain.forked_from, None);
    }

    /// A response's lines count once; subagents' responses and generated
    /// lines are not the main conversation's.
    #[test]
    fn responses_are_counted_once_on_the_main_chain() {
        let text = [
            response("m1", 1, ""),
            response("m1", 9, ""),
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"r"}]}}"#.to_owned(),
            response("m2", 1, ""),
            response("m3", 1, r#","isSidechain":true"#),
            r#"{"type":"assistant","message":{"id":"m4","model":"<synthetic>","usage":{"input_tokens":0,"output_tokens":0}}}"#.to_owned(),
            response("m5", 1, ""),
        ]
        .join("\n")
            + "\n";
        assert_eq!(facts(&text).response_count, 3);
    }

    /// The last `cost-state` is the session's accounting; the first after
    /// each response is kept for the forks made there.
    #[test]
    fn cost_states_are_kept_with_the_response_they_follow() {
        let cost = |input: u64, usd: &str, unknown: &str| {
            format!(
                r#"{{"type":"cost-state","sessionId":"s","totalCostUSD":{usd},"modelUsage":{{"claude-opus-5-5":{{"inputTokens":{input},"outputTokens":2,"thinkingTokens":0,"cacheReadInputTokens":3,"cacheCreationInputTokens":4,"webSearchRequests":0,"costUSD":0.5}},"claude-haiku-5-5":{{"inputTokens":10,"outputTokens":20,"cacheReadInputTokens":30,"cacheCreationInputTokens":40,"costUSD":0.25}}}}{unknown}}}"#
            )
        };
        let uuid = |n: u8| format!(r#","uuid":"00000000-0000-0000-0000-0000000000{n:02x}""#);
        let text = [
            response("m1", 1, &uuid(1)),
            cost(1, "0.75", ""),
            // A run without a response (a compaction): no mark of its own.
            cost(5, "1.5", ""),
            response("m2", 1, &uuid(2)),
            cost(9, "2.5", r#","hasUnknownModelCost":true"#),
        ]
        .join("\n")
            + "\n";
        let f = facts(&text);
        let usage = |input: u64| Usage {
            input: input + 10,
            output: 22,
            cache_read: 33,
            cache_creation: 44,
        };
        assert_eq!(
            f.cost_state,
            Some(CostState {
                usage: usage(9),
                cost_usd: Some(2.5),
                unknown_model_cost: true,
            })
        );
        assert_eq!(
            f.cost_marks,
            [
                CostMark {
                    after: 1,
                    usage: usage(1),
                    cost_usd: Some(0.75)
                },
                CostMark {
                    after: 2,
                    usage: usage(9),
                    cost_usd: Some(2.5)
                }
            ]
        );
    }

    #[test]
    fn entrypoint_is_the_first_and_the_context_model_the_last_responses() {
        let text = [
            r#"{"type":"queue-operation"}"#.to_owned(),
            response("m1", 1, r#","entrypoint":"sdk-cli""#),
            response("m2", 1, r#","entrypoint":"cli""#)
                .replace("claude-opus-5-5", "claude-sonnet-4-5"),
            response("m3", 1, r#","isSidechain":true"#)
                .replace("claude-opus-5-5", "claude-haiku-5-5"),
        ]
        .join("\n")
            + "\n";
        let f = facts(&text);
        assert_eq!(f.entrypoint.as_deref(), Some("sdk-cli"));
        assert_eq!(f.context_model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(
            f.models,
            ["claude-opus-5-5", "claude-sonnet-4-5", "claude-haiku-5-5"]
        );
    }

    #[test]
    fn timestamps_are_min_and_max_not_first_and_last() {
        let f = facts(concat!(
            r#"{"type":"user","timestamp":"2026-02-12T14:48:36.922Z"}"#,
            "\n",
            r#"{"type":"user","timestamp":"2026-02-12T14:47:08.766Z"}"#,
            "\n",
            r#"{"type":"user","timestamp":"2026-02-12T16:00:00+01:00"}"#,
            "\n",
        ));
        assert_eq!(
            f.first_activity.as_deref(),
            Some("2026-02-12T14:47:08.766Z")
        );
        assert_eq!(f.last_activity.as_deref(), Some("2026-02-12T15:00:00.000Z"));
    }

    #[test]
    fn context_tokens_follow_the_last_main_chain_response() {
        let f = facts(concat!(
            r#"{"type":"assistant","message":{"id":"m1","model":"claude-opus-4-6","usage":{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"output_tokens":5}},"requestId":"r1"}"#,
            "\n",
            r#"{"type":"assistant","isSidechain":true,"message":{"id":"m2","model":"claude-haiku-4-5","usage":{"input_tokens":1,"output_tokens":1}},"requestId":"r2"}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"m3","model":"<synthetic>","content":[],"usage":{"input_tokens":0,"output_tokens":0}}}"#,
            "\n",
        ));
        assert_eq!(
            f.context_tokens,
            Some(113),
            "a <synthetic> line is not a response"
        );
        assert_eq!(f.models, vec!["claude-opus-4-6", "claude-haiku-4-5"]);
        assert_eq!(f.usage.totals().input, 4);
    }

    #[test]
    fn files_touched_by_main_chain_tool_calls() {
        let f = facts(concat!(
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"/r/src/a.rs"}}]}}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"t","name":"Write","input":{"file_path":"/r/src/b.rs","content":"x"}}]}}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"m3","content":[{"type":"tool_use","id":"t","name":"Edit","input":{"file_path":"/r/src/a.rs"}}]}}"#,
            "\n",
            r#"{"type":"assistant","isSidechain":true,"message":{"id":"m4","content":[{"type":"tool_use","input":{"path":"/r/sub"}}]}}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"m5","content":[{"type":"text","text":"\"tool_use\""}]}}"#,
            "\n",
        ));
        assert_eq!(f.files_touched, ["/r/src/b.rs", "/r/src/a.rs"]);
    }

    #[test]
    fn leaves_are_uuids_nobody_continues() {
        let f = facts(concat!(
            r#"{"type":"user","uuid":"00000000-0000-0000-0000-000000000001","parentUuid":null}"#,
            "\n",
            r#"{"type":"assistant","uuid":"00000000-0000-0000-0000-000000000002","parentUuid":"00000000-0000-0000-0000-000000000001"}"#,
            "\n",
            r#"{"type":"user","uuid":"00000000-0000-0000-0000-000000000003","parentUuid":"00000000-0000-0000-0000-000000000001"}"#,
            "\n",
        ));
        let leaves = |f: &TranscriptFacts| {
            f.leaves
                .iter()
                .copied()
                .collect::<std::collections::BTreeSet<_>>()
        };
        assert_eq!(leaves(&f), [2, 3].into());
        // A parent with the bytes of the line before's uuid, and one that
        // spells the same UUID in other bytes.
        let f = facts(concat!(
            r#"{"type":"user","uuid":"00000000-0000-0000-0000-000000000002","parentUuid":"00000000-0000-0000-0000-000000000001"}"#,
            "\n",
            r#"{"type":"user","uuid":"00000000-0000-0000-0000-00000000000a","parentUuid":"00000000-0000-0000-0000-000000000002"}"#,
            "\n",
            r#"{"type":"user","uuid":"00000000-0000-0000-0000-000000000005","parentUuid":"00000000-0000-0000-0000-000000000003"}"#,
            "\n",
            r#"{"type":"user","uuid":"00000000-0000-0000-0000-000000000006","parentUuid":"00000000000000000000000000000005"}"#,
            "\n",
            r#"{"type":"user","uuid":"00000000-0000-0000-0000-000000000007","parentUuid":"00000000-0000-0000-0000-00000000000A"}"#,
            "\n",
        ));
        assert_eq!(leaves(&f), [6, 7].into());
    }

    #[test]
    fn hex_words_read_every_byte_in_every_place_as_a_digit_or_nothing() {
        for place in 0..8 {
            for byte in 0..=255u8 {
                let mut text = *b"0123abcD";
                text[place] = byte;
                let expected = std::str::from_utf8(&text)
                    .ok()
                    .filter(|t| t.bytes().all(|b| b.is_ascii_hexdigit()))
                    .and_then(|t| u32::from_str_radix(t, 16).ok());
                assert_eq!(hex_word(u64::from_le_bytes(text)), expected, "{text:?}");
            }
        }
    }

    #[test]
    fn parses_uuids() {
        assert_eq!(parse_uuid("00000000-0000-0000-0000-00000000000a"), Some(10));
        assert_eq!(parse_uuid("nope"), None);
        for text in [
            "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
            "F81D4FAE7DEC11D0A76500A0C91E6BF6",
            "ffffffff-ffff-ffff-ffff-ffffffffffff",
            "00000000-0000-0000-8000-000000000001",
            // 36 long but not dashed as usual: read digit by digit.
            "f81d4fae7dec11d0a76500a0c91e6bf6----",
            "f-81d4fae7dec11d0a76500a0c91e6bf6",
        ] {
            let plain = text.replace('-', "");
            assert_eq!(
                parse_uuid(text),
                u128::from_str_radix(&plain, 16).ok(),
                "{text}"
            );
        }
        for bad in [
            "f81d4fae-7dec-11d0-a765-00a0c91e6bfg",
            "f81d4fae-7dec-11d0-a765-00a0c91e6bf",
            "f81d4fae-7dec-11d0-a765-00a0c91e6bf66",
            "+81d4fae-7dec-11d0-a765-00a0c91e6bf6",
            "f81d4fae-7dec-11d0-a765-00a0c91e6b\u{e9}",
        ] {
            assert_eq!(parse_uuid(bad), None, "{bad}");
        }
    }
}
