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
    pub keep_turns_with_tools: u32,
    pub truncate_percent: u32,
    pub dry_run: bool,
    pub backups_to_keep: usize,
    pub lock: LockOptions,
    /// How long a SQLite session must have gone unwritten while OpenClaw
    /// runs to count as idle ([`QUIET_MS`](crate::openclaw::gateway::QUIET_MS)
    /// unless the caller wrote last itself).
    pub quiet_ms: i64,
}

/// What an edit did.
#[derive(Debug, Clone)]
pub struct EditOutcome {
    pub session_id: String,
    /// The JSONL file, or the agent database.
    pub path: PathBuf,
    /// The copy of the transcript as it was (none for a dry run or when
    /// nothing changed).
    pub backup_path: Option<PathBuf>,
    pub changed: bool,
    /// Nothing was written: the request was a dry run.
    pub dry_run: bool,
    pub size_original: u64,
    pub size_after: u64,
    /// Lines another writer appended during the edit, carried over (JSONL).
    pub appended_lines_kept: u32,
    pub strip: StripOutput,
}

/// What a restore did.
#[derive(Debug, Clone)]
pub struct RestoreOutcome {
    pub session_id: String,
    pub path: PathBuf,
    pub restored_from: PathBuf,
    /// The content that was replaced, kept as the newest backup (restore
    /// again to undo).
    pub replaced_backup: PathBuf,
}

/// What to clone and where.
#[derive(Debug, Clone)]
pub struct CloneRequest {
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
    pub source_session_id: String,
    pub cloned_session_id: String,
    /// The new JSONL file, or the agent database holding the new session.
    pub path: PathBuf,
    /// The session key it was registered under.
    pub session_key: Option<String>,
    pub size_original: u64,
    pub size_cloned: u64,
    /// What stripping did (all tool calls preserved for a plain copy).
    pub stats: StripStats,
}

/// What an export wrote.
#[derive(Debug, Clone)]
pub struct ExportOutcome {
    pub session_id: String,
    /// Where the JSONL was written; `None` when it was returned instead.
    pub path: Option<PathBuf>,
    /// The JSONL, when no path was given.
    pub jsonl: Option<Vec<u8>>,
    pub event_count: u64,
    pub bytes: u64,
}
