//! The public session model of discovery: the options of a call and the
//! sessions and transcript header facts it returns.

use super::cache::PersistentCache;
use super::fold::context_window::ContextWindows;
use chrono::{DateTime, Utc};
use std::path::PathBuf;

/// Where a discovered session is known from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionSource {
    /// Listed in an OpenClaw registry.
    Openclaw,
    /// Found only in Claude Code's own folders.
    NativeOnly,
}

/// Options of [`discover_sessions`](super::discover_sessions); everything is optional.
#[derive(Debug, Clone, Default)]
pub struct DiscoverOptions {
    /// Claude Code's config root. Default: `$CLAUDE_CONFIG_DIR`, else
    /// `~/.claude`.
    pub claude_config_dir: Option<PathBuf>,
    /// OpenClaw's state root holding the registries. Default: OpenClaw's own
    /// resolution (`$OPENCLAW_STATE_DIR`, profiles, `~/.openclaw`, legacy
    /// `~/.clawdbot`).
    pub registry_root: Option<PathBuf>,
    /// Session ids the host knows to be running now (in addition to those a
    /// Claude Code process runs by its liveness record). Default none.
    pub running_session_ids: Vec<String>,
    /// The host is running Claude Code in this repository: every registry
    /// session of it is marked running (the reference's behaviour). Default
    /// false.
    pub repo_busy: bool,
    /// Keep what was read of each transcript in a cache file, so that a fresh
    /// process reads only what changed: in `$OPENCLAW_SESSION_INTEL_CACHE_DIR`,
    /// else the user's cache folder, unless `OPENCLAW_SESSION_INTEL_CACHE=off`.
    /// The addon keeps it unless this is `false`.
    pub persistent_cache: PersistentCache,
    /// Stat every file on every call, never trusting the change monitor
    /// (also when `OPENCLAW_SESSION_INTEL_WATCH=off`).
    pub stat_every_file: bool,
    /// Context windows (tokens) by model id, for models the built-in table does
    /// not know or knows otherwise (a gateway's own ids, say); see
    /// `contextWindow` of a session.
    pub context_windows: ContextWindows,
    /// Claude Desktop's folder of session metadata
    /// (`<dir>/<account>/<workspace>/local_*.json`), whose titles and archived
    /// flags discovery reports. Default: `~/Library/Application
    /// Support/Claude/claude-code-sessions` on macOS,
    /// `%APPDATA%\Claude\claude-code-sessions` on Windows, none elsewhere.
    pub claude_desktop_dir: Option<PathBuf>,
}

/// Token totals of a session, deduplicated (main transcript and subagents).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenTotals {
    /// Input tokens (cache reads and writes not included).
    pub input: u64,
    /// Output tokens, each response counted with its largest count.
    pub output: u64,
    /// Prompt tokens read from the prompt cache.
    pub cache_read: u64,
    /// Prompt tokens written to the prompt cache.
    pub cache_creation: u64,
}

/// One session of the repository.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscoveredSession {
    /// Claude Code's session id (the transcript's file name without `.jsonl`).
    pub session_id: String,
    /// `openclaw` when an OpenClaw registry lists the session, `native-only`
    /// when only Claude Code's own folders hold it.
    pub source: SessionSource,
    /// The OpenClaw agent whose registry lists the session; absent for
    /// `native-only` sessions.
    pub agent_id: Option<String>,
    /// The repository path given to `discoverSessions`, made absolute and
    /// normalised as Node's `path.resolve` does (no symlinks resolved).
    pub repo_path: String,
    /// Git branch the session is on (its last main-chain line), or "unknown".
    /// The reference reads the first line's branch instead.
    pub branch: String,
    /// First real prompt, at most 200 UTF-16 units, or "(no message)".
    pub first_message: String,
    /// The transcript's modification time; for a registry session, the later of
    /// that and the registry's `lastResumedAt`; the epoch when neither is
    /// known.
    pub last_modified: DateTime<Utc>,
    /// Non-blank lines of the main transcript (the reference's measure); 0 when
    /// it was not found.
    pub message_count: u64,
    /// Size of the main transcript in bytes; 0 when it was not found.
    pub file_size_bytes: u64,
    /// Bytes slimming the main transcript with the `default` preset would
    /// cut (`slimClaudeSession`, docs/api/cleaning.md); 0 when there is
    /// nothing to cut.
    pub slim_savings_bytes: u64,
    /// Input tokens every resumed turn would no longer send once the session
    /// is slimmed (message content cut, about 4 bytes a token); 0 when there
    /// is nothing to cut.
    pub slim_savings_tokens: u64,
    /// US dollars. A session OpenClaw spawned: what its registry recorded. Any
    /// other: the CLI's own figure from its last `cost-state` (for a fork,
    /// beyond what it inherited); absent where the transcript has none, or
    /// where the CLI had no price for a model it used.
    pub total_cost_usd: Option<f64>,
    /// Turns the registry recorded; absent for `native-only` sessions.
    pub total_turns: Option<f64>,
    /// The last task of the registry's task history; absent for `native-only`
    /// sessions and for a registry entry without tasks.
    pub last_task: Option<String>,
    /// The registry label of a labelled session; absent otherwise.
    pub label: Option<String>,
    /// Claude Code's nickname of the session (the transcript's last `slug`);
    /// absent when the transcript has none.
    pub slug: Option<String>,
    /// A Claude Code process runs the session now (its liveness record in
    /// `<config>/sessions/`, with the process alive and started when the record
    /// says), or the host said so (`runningSessionIds`, `repoBusy`).
    pub is_running: bool,
    /// The agent id of the `[openclaw:agent=<id>]` marker that opens the first
    /// real prompt (an OpenClaw spawn); absent when it has none.
    pub origin_marker: Option<String>,
    /// Token totals, deduplicated, subagents included.
    pub tokens: TokenTotals,
    /// `compact_boundary` records of the main chain (automatic and manual
    /// compactions).
    pub compaction_count: u32,
    /// Never set by discovery (as in the reference); `selectSession` reads it
    /// as `totalCostUsd / maxBudgetUsd`, 0–1, when a caller sets it.
    pub budget_used_pct: Option<f64>,
    /// Custom title, else generated title, else summary title, else first
    /// prompt, else the first 8 characters of the session id.
    pub title: String,
    /// Directory the session was started in: the first `cwd` the transcript
    /// records; absent when no line records one.
    pub cwd: Option<String>,
    /// Time of the transcript's earliest timestamped line; absent when no line
    /// has a timestamp.
    pub first_activity: Option<DateTime<Utc>>,
    /// Time of the transcript's latest timestamped line; absent when no line
    /// has a timestamp.
    pub last_activity: Option<DateTime<Utc>>,
    /// What the context holds now, in tokens: prompt size (input plus cache
    /// reads and writes) of the last main-chain response; 0 before the first.
    pub context_tokens: u64,
    /// Tokens the context window of the session's model holds (the model of its
    /// last main-chain response): 1000000 for today's models such as
    /// `claude-opus-5-5`, 200000 for older ones and unknown ids, or as the
    /// `contextWindows` option says. Absent before the first response.
    pub context_window: Option<u64>,
    /// Models the session's responses came from, its subagents' included, in
    /// order of first use (`<synthetic>` never).
    pub models: Vec<String>,
    /// Subagent transcripts folded into this session.
    pub subagent_count: u32,
    /// Prompts a person or host typed on the main conversation: not the prompts
    /// the CLI generated (task notifications, compaction summaries, meta lines,
    /// local commands and their output); a fork's copied history included.
    pub prompt_count: u64,
    /// API responses of the main conversation, each counted once however many
    /// transcript lines it spans; a fork's copied history included, compaction
    /// calls and subagents' responses not.
    pub response_count: u64,
    /// How the session was started, as its transcript records it: `cli` (a
    /// terminal), `sdk-cli` (`claude -p`), `sdk-ts` (the SDK, ACP adapters), or
    /// an editor's kind. Absent where no line names it (Claude Code before
    /// 2.1).
    pub entrypoint: Option<String>,
    /// The Claude Code version that last wrote to the transcript (e.g.
    /// `2.1.328`). Absent where no line names one.
    pub version: Option<String>,
    /// The last real prompt, at most 200 UTF-16 units; absent when there is
    /// none.
    pub last_user_message: Option<String>,
    /// Path of the main transcript, when it was found.
    pub transcript_path: Option<String>,
    /// Files the session's tool calls named, most recent last (at most 64).
    pub files_touched: Vec<String>,
    /// Archived in Claude Desktop (such sessions are listed after all others);
    /// in JavaScript `true`, or absent when not archived.
    pub archived: bool,
}

/// What the reference's `parseJsonlHeader` returns, computed correctly.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonlHeader {
    /// The last non-empty main-chain `gitBranch`; absent when no line has one
    /// (the reference reads the first one instead).
    pub git_branch: Option<String>,
    /// The first real prompt, at most 200 UTF-16 units; absent when there is
    /// none.
    pub first_user_message: Option<String>,
    /// The last session nickname (`slug`); absent when there is none.
    pub slug: Option<String>,
    /// The last Claude Code version that wrote to the file; absent when no line
    /// names one.
    pub version: Option<String>,
    /// Non-blank lines, parsable or not.
    pub line_count: u64,
    /// The agent id of the `[openclaw:agent=<id>]` marker that opens the first
    /// real prompt; absent when it has none.
    pub origin_marker: Option<String>,
    /// Input tokens, each API response counted once (cache reads and writes not
    /// included).
    pub total_input_tokens: u64,
    /// Output tokens, each API response counted once with its largest count.
    pub total_output_tokens: u64,
    /// Main-chain `compact_boundary` records (automatic and manual).
    pub compaction_count: u32,
}
