//! Slimming a Claude Code session's transcript (`slimClaudeSession`,
//! `restoreClaudeSession`): conversion only, see `session_intel_core::slim`.

use crate::error::CoreTask;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core::openclaw::backups::DEFAULT_BACKUPS;
use session_intel_core::slim;
use std::path::PathBuf;

/// Options of `slimClaudeSession`.
#[napi(object)]
#[derive(Default)]
pub struct SlimOptions {
    /// Claude Code's config folder (default `CLAUDE_CONFIG_DIR`, else
    /// `~/.claude`).
    pub claude_config_dir: Option<String>,
    /// A repository whose project folders are searched first.
    pub repo: Option<String>,
    /// `default` (tool results over 16 KB keep 4 KB head and 2 KB tail) or
    /// `aggressive` (over 4 KB keep 1 KB and 1 KB; `/rewind` snapshots go
    /// too).
    pub preset: Option<String>,
    /// A tool result whose text is longer than this (bytes) is cut.
    pub tool_result_max_bytes: Option<f64>,
    /// Bytes kept from the start of a cut text.
    pub keep_head_bytes: Option<f64>,
    /// Bytes kept from the end of a cut text.
    pub keep_tail_bytes: Option<f64>,
    /// A string of a `toolUseResult` (the CLI's own copy of a tool's output)
    /// longer than this is cut the same way.
    pub tool_use_result_max_bytes: Option<f64>,
    /// Keep base64 images and documents (default: replace them).
    pub keep_images: Option<bool>,
    /// Report what would be cut; write nothing.
    pub dry_run: Option<bool>,
    /// Write a slimmed copy under a new session id instead of slimming in
    /// place.
    pub fork: Option<bool>,
    /// The fork's title (default: the session's title with ` (slimmed)`).
    pub fork_title: Option<String>,
    /// Backups kept per transcript.
    pub backups_to_keep: Option<f64>,
}

/// What was cut.
#[napi(object)]
pub struct SlimStatistics {
    /// Base64 images and documents replaced by a placeholder.
    pub images_removed: f64,
    /// Tool results cut to their head and tail.
    pub tool_results_cut: f64,
    /// `toolUseResult` copies whose long strings were cut.
    pub tool_use_results_slimmed: f64,
    /// Lines left out (`progress`, and `file-history-snapshot` when asked).
    pub lines_dropped: f64,
    /// Bytes removed from what the CLI sends the model on every resumed turn
    /// (message content: images and tool results).
    pub message_bytes_saved: f64,
}

impl From<slim::SlimStats> for SlimStatistics {
    fn from(s: slim::SlimStats) -> Self {
        SlimStatistics {
            images_removed: s.images_removed as f64,
            tool_results_cut: s.tool_results_cut as f64,
            tool_use_results_slimmed: s.tool_use_results_slimmed as f64,
            lines_dropped: s.lines_dropped as f64,
            message_bytes_saved: s.message_bytes_saved as f64,
        }
    }
}

/// What `slimClaudeSession` did (or, for a dry run, would do).
#[napi(object)]
pub struct SlimResult {
    /// The session slimmed.
    pub session_id: String,
    /// Its transcript.
    pub path: String,
    /// Where the original was kept (in place, not a dry run, changed).
    pub backup_path: Option<String>,
    /// The fork's session id (fork only).
    pub fork_session_id: Option<String>,
    /// The fork's transcript (fork only, not a dry run).
    pub fork_path: Option<String>,
    /// The fork's title (fork only).
    pub fork_title: Option<String>,
    /// Whether anything was (or would be) cut.
    pub changed: bool,
    /// Whether this was a dry run.
    pub dry_run: bool,
    /// Bytes of the transcript read (whole lines).
    pub size_original: f64,
    /// Bytes of the slimmed transcript.
    pub size_after: f64,
    /// How much smaller, in percent of `sizeOriginal`, to one decimal.
    pub reduction_percent: f64,
    /// What was cut.
    pub stats: SlimStatistics,
    /// Input tokens every resumed turn no longer sends (message bytes saved
    /// / [`BYTES_PER_TOKEN`]).
    pub estimated_input_tokens_saved: f64,
    /// Lines another process appended during the slim, carried over.
    pub appended_lines_kept: f64,
}

fn path_text(p: PathBuf) -> String {
    p.to_string_lossy().into_owned()
}

impl From<slim::SlimOutcome> for SlimResult {
    fn from(o: slim::SlimOutcome) -> Self {
        SlimResult {
            reduction_percent: o.reduction_percent(),
            session_id: o.session_id,
            path: path_text(o.path),
            backup_path: o.backup_path.map(path_text),
            fork_session_id: o.fork_session_id,
            fork_path: o.fork_path.map(path_text),
            fork_title: o.fork_title,
            changed: o.changed,
            dry_run: o.dry_run,
            size_original: o.size_original as f64,
            size_after: o.size_after as f64,
            stats: o.stats.into(),
            estimated_input_tokens_saved: o.estimated_input_tokens_saved as f64,
            appended_lines_kept: o.appended_lines_kept as f64,
        }
    }
}

/// What `restoreClaudeSession` did.
#[napi(object)]
pub struct SlimRestoreResult {
    /// The session restored.
    pub session_id: String,
    /// Its transcript.
    pub path: String,
    /// The backup put back.
    pub restored_from: String,
    /// Where the replaced (slimmed) transcript was kept, so a second
    /// restore undoes the first.
    pub replaced_backup: String,
}

impl From<slim::SlimRestoreOutcome> for SlimRestoreResult {
    fn from(r: slim::SlimRestoreOutcome) -> Self {
        SlimRestoreResult {
            session_id: r.session_id,
            path: path_text(r.path),
            restored_from: path_text(r.restored_from),
            replaced_backup: path_text(r.replaced_backup),
        }
    }
}

fn session_ref(
    session_id: String,
    config: Option<String>,
    repo: Option<String>,
) -> slim::SessionRef {
    slim::SessionRef {
        session_id,
        claude_config_dir: config.map(PathBuf::from),
        repo: repo.map(PathBuf::from),
    }
}

fn whole(name: &str, v: Option<f64>) -> session_intel_core::Result<Option<u32>> {
    session_intel_core::optional_whole_number(name, v)
}

/// Slims a Claude Code session's transcript so that resuming it re-sends
/// less: base64 images become placeholders, long tool results keep their
/// head and tail, the CLI's `toolUseResult` copies and progress lines go;
/// every prompt, answer and tool call with its result stays. In place
/// (backup beside it; refused with `E_SESSION_BUSY` while a CLI process runs
/// the session) or, with `fork`, as a new session. Fails with
/// `E_SESSION_NOT_FOUND`, `E_AMBIGUOUS_SESSION`, `E_UNKNOWN_PRESET`,
/// `E_CONCURRENT_MODIFICATION`, `E_WRITE_FAILED`, … leaving every file as
/// it was.
#[napi(catch_unwind, ts_return_type = "Promise<SlimResult>")]
pub fn slim_claude_session(
    session_id: String,
    options: Option<SlimOptions>,
) -> AsyncTask<CoreTask<slim::SlimOutcome, SlimResult>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(
        move || {
            let overrides = slim::SlimOverrides {
                tool_result_max_bytes: whole("toolResultMaxBytes", o.tool_result_max_bytes)?,
                keep_head_bytes: whole("keepHeadBytes", o.keep_head_bytes)?,
                keep_tail_bytes: whole("keepTailBytes", o.keep_tail_bytes)?,
                tool_use_result_max_bytes: whole(
                    "toolUseResultMaxBytes",
                    o.tool_use_result_max_bytes,
                )?,
                keep_images: o.keep_images,
            };
            let backups = whole("backupsToKeep", o.backups_to_keep)?;
            let request = slim::SlimRequest {
                session: session_ref(session_id, o.claude_config_dir, o.repo),
                settings: slim::settings(o.preset.as_deref(), &overrides)?,
                dry_run: o.dry_run.unwrap_or_default(),
                fork: o.fork.unwrap_or_default(),
                fork_title: o.fork_title,
                backups_to_keep: backups.map_or(DEFAULT_BACKUPS, |n| n as usize),
            };
            slim::slim_claude_session(&request)
        },
        SlimResult::from,
    ))
}

/// Options of `restoreClaudeSession`.
#[napi(object)]
#[derive(Default)]
pub struct SlimRestoreOptions {
    /// Claude Code's config folder (default `CLAUDE_CONFIG_DIR`, else
    /// `~/.claude`).
    pub claude_config_dir: Option<String>,
    /// A repository whose project folders are searched first.
    pub repo: Option<String>,
    /// Backups kept per transcript.
    pub backups_to_keep: Option<f64>,
}

/// Puts back, byte for byte, the transcript a `slimClaudeSession` replaced,
/// keeping the slimmed one as a backup (restore again to undo).
/// `E_NO_BACKUP` when there is none; `E_SESSION_BUSY` while a CLI process
/// runs the session.
#[napi(catch_unwind, ts_return_type = "Promise<SlimRestoreResult>")]
pub fn restore_claude_session(
    session_id: String,
    options: Option<SlimRestoreOptions>,
) -> AsyncTask<CoreTask<slim::SlimRestoreOutcome, SlimRestoreResult>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(
        move || {
            let backups = whole("backupsToKeep", o.backups_to_keep)?;
            slim::restore_claude_session(
                &session_ref(session_id, o.claude_config_dir, o.repo),
                backups.map_or(DEFAULT_BACKUPS, |n| n as usize),
            )
        },
        SlimRestoreResult::from,
    ))
}
