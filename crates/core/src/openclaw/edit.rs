//! The requests and outcomes of the context cleaner, the same for both
//! stores: edit in place, restore from a backup, clone, export.

use super::strip::{StripOutput, StripStats};
use crate::fs_safe::LockOptions;
use std::path::PathBuf;

/// What to edit and how.
#[derive(Debug, Clone)]
pub struct EditRequest {
    /// Full id, session key, unique prefix, or `None` for the most recent
    /// transcript.
    pub session: Option<String>,
    /// Newest turns with tool calls kept whole.
    pub keep_turns_with_tools: u32,
    /// Of those kept, the oldest percentage whose tool output is truncated (0–100).
    pub truncate_percent: u32,
    /// Report what would change; write nothing.
    pub dry_run: bool,
    /// Backups kept per transcript.
    pub backups_to_keep: usize,
    /// How long to wait for OpenClaw's transcript lock.
    pub lock: LockOptions,
    /// How long a SQLite session must have gone unwritten while OpenClaw
    /// runs to count as idle ([`QUIET_MS`](crate::openclaw::gateway::QUIET_MS)
    /// unless the caller wrote last itself).
    pub quiet_ms: i64,
}

/// What an edit did.
#[derive(Debug, Clone)]
pub struct EditOutcome {
    /// The session edited.
    pub session_id: String,
    /// The JSONL file, or (SQLite store) the agent database.
    pub path: PathBuf,
    /// The transcript as it was; absent for a dry run or when nothing changed.
    pub backup_path: Option<PathBuf>,
    /// The edit changed the transcript (or would have, for a dry run).
    pub changed: bool,
    /// Nothing was written: the request was a dry run.
    pub dry_run: bool,
    /// Bytes of the transcript before the edit.
    pub size_original: u64,
    /// Bytes after it (what it would be, for a dry run).
    pub size_after: u64,
    /// Lines another writer appended during the edit, carried over (JSONL
    /// store).
    pub appended_lines_kept: u32,
    /// What stripping did, line by line and in counts.
    pub strip: StripOutput,
}

/// What a restore did.
#[derive(Debug, Clone)]
pub struct RestoreOutcome {
    /// The session restored.
    pub session_id: String,
    /// The JSONL file, or (SQLite store) the agent database.
    pub path: PathBuf,
    /// The backup the transcript was restored from.
    pub restored_from: PathBuf,
    /// What the restore replaced, kept as the newest backup (restore again to
    /// undo).
    pub replaced_backup: PathBuf,
}

/// What to clone and where.
#[derive(Debug, Clone)]
pub struct CloneRequest {
    /// The source: full id, session key, unique prefix, or `None` for the most
    /// recent transcript.
    pub session: Option<String>,
    /// Strip with these settings, or copy as is.
    pub strip: Option<(u32, u32)>,
    /// Where to write a JSONL copy (default: a new session of the store).
    pub output: Option<PathBuf>,
    /// Do not register the copy as a session of the agent.
    pub no_register: bool,
}

/// What a clone did.
#[derive(Debug, Clone)]
pub struct CloneOutcome {
    /// The session copied.
    pub source_session_id: String,
    /// The new session's id (a fresh UUID).
    pub cloned_session_id: String,
    /// The new JSONL file, or the agent database holding the new session.
    pub path: PathBuf,
    /// The `sessions.json` key of the clone (absent with `noRegister`).
    pub session_key: Option<String>,
    /// Bytes of the source.
    pub size_original: u64,
    /// Bytes of the copy.
    pub size_cloned: u64,
    /// What stripping did (all tool calls preserved for a plain copy).
    pub stats: StripStats,
}

/// What an export wrote.
#[derive(Debug, Clone)]
pub struct ExportOutcome {
    /// The session exported.
    pub session_id: String,
    /// Where the JSONL was written; absent when it is returned as `jsonl`.
    pub path: Option<PathBuf>,
    /// The JSONL, when no `outputPath` was given.
    pub jsonl: Option<Vec<u8>>,
    /// Non-empty lines of the JSONL.
    pub event_count: u64,
    /// Bytes of the JSONL.
    pub bytes: u64,
}
