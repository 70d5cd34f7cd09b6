//! The cleaner's operations on a SQLite session: edit in place, restore
//! from a backup, clone, export. Each plans outside any write lock, takes a
//! JSONL backup of the session first, then writes in one short
//! `BEGIN IMMEDIATE` transaction that re-checks what the plan was made
//! from; on any failure nothing is written and the backup taken for it is
//! removed.

use super::super::jsonl::{
    cloned_transcript, export_events, no_backup, validate_backup, write_new_file,
};
use super::database::{fence, is_cold, read_rows, Connected, Fence, SqliteStore};
use super::errors::sql_error;
use super::write::{apply_edit, replace_all, DeletedRun, RowUpdate};
use crate::error::{Error, ErrorCode, Result};
use crate::fs_safe::write_atomic;
use crate::openclaw::backups::{backups_of, new_backup_path, rotate, sqlite_backup_dir};
use crate::openclaw::edit::{
    CloneOutcome, CloneRequest, EditOutcome, EditRequest, ExportOutcome, RestoreOutcome,
};
use crate::openclaw::events::{split_lines, Events};
use crate::openclaw::gateway;
use crate::openclaw::strip::{strip_tools, LineEdit};
use crate::openclaw::transcripts::{Availability, TranscriptSummary};
use rusqlite::{Connection, TransactionBehavior};
use std::fs;
use std::path::{Path, PathBuf};

/// `E_TRANSCRIPT_UNAVAILABLE` for a cold or empty session.
fn unavailable(t: &TranscriptSummary) -> Error {
    match t.availability {
        Availability::Cold => Error::new(
            ErrorCode::TranscriptUnavailable,
            format!("session {} is in a cold archive", t.session_id),
        )
        .with_hint("OpenClaw restores archived transcripts when the session is next used; open the session in OpenClaw, then retry"),
        _ => Error::new(
            ErrorCode::TranscriptUnavailable,
            format!("session {} has no events", t.session_id),
        )
        .with_hint("there is nothing to edit; its transcript is missing or was never written"),
    }
}

fn require_available(t: &TranscriptSummary) -> Result<()> {
    match t.availability {
        Availability::Available => Ok(()),
        _ => Err(unavailable(t)),
    }
}

fn changed_under_us(session_id: &str) -> Error {
    Error::new(
        ErrorCode::ConcurrentModification,
        format!("session {session_id} changed while the edit was being planned"),
    )
    .with_hint("OpenClaw wrote to the session meanwhile; nothing was changed, run the edit again")
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

impl SqliteStore {
    /// The session's events (JSONL, `seq` order).
    pub fn read(&self, t: &TranscriptSummary) -> Result<Events> {
        require_available(t)?;
        let Connected {
            mut conn,
            schema,
            _turn,
        } = self.connect()?;
        Ok(self.read_events(&mut conn, &schema, &t.session_id)?.0)
    }

    /// Where this agent's session backups go: `<sessionId>.jsonl.bak.<time>`.
    fn backup_base(&self, session_id: &str) -> PathBuf {
        sqlite_backup_dir(&self.state_dir, &self.agent_id).join(format!("{session_id}.jsonl"))
    }

    /// Writes `events` as a new backup of the session.
    fn write_backup(&self, session_id: &str, events: &Events) -> Result<PathBuf> {
        let base = self.backup_base(session_id);
        let dir = base.parent().expect("a backup path has a folder");
        fs::create_dir_all(dir).map_err(|e| Error::write_failed(dir, &e))?;
        let path = new_backup_path(&base);
        write_atomic(&path, events.bytes(), Some(0o600))?;
        Ok(path)
    }

    /// Refuses with `E_SESSION_BUSY` when the session is not idle (see
    /// [`gateway`]).
    fn require_idle(&self, conn: &Connection, t: &TranscriptSummary, quiet_ms: i64) -> Result<()> {
        let owner = gateway::state_owner(&self.state_dir);
        if let Some(why) =
            gateway::session_activity(conn, &t.session_id, owner.as_ref(), now_ms(), quiet_ms)?
        {
            return Err(Error::new(
                ErrorCode::SessionBusy,
                format!("session {} is not idle: {why}", t.session_id),
            )
            .with_hint("retry once the agent has finished its turn; a dry run works meanwhile"));
        }
        Ok(())
    }

    /// Strips the session in place (see the module doc).
    pub fn edit(&self, target: TranscriptSummary, req: &EditRequest) -> Result<EditOutcome> {
        require_available(&target)?;
        let Connected {
            mut conn,
            schema,
            _turn,
        } = self.connect()?;
        let sid = target.session_id.clone();
        let (events, planned) = self.read_events(&mut conn, &schema, &sid)?;
        if events.seqs().is_empty() {
            return Err(unavailable(&TranscriptSummary {
                availability: Availability::Empty,
                ..target
            }));
        }
        if !req.dry_run {
            self.require_idle(&conn, &target, req.quiet_ms)?;
        }
        // The backup is written while the plan is made and applied (two
        // cores: its I/O hides behind the transform and the row writes); the
        // commit waits for it, and an edit that fails or turns out to change
        // nothing takes it back.
        std::thread::scope(|scope| {
            let backup = (!req.dry_run).then(|| scope.spawn(|| self.write_backup(&sid, &events)));
            let backup_written = || {
                backup.map(|b| {
                    b.join().unwrap_or_else(|_| {
                        Err(Error::new(
                            ErrorCode::Internal,
                            "the backup writer panicked",
                        ))
                    })
                })
            };
            let strip = match strip_tools(
                events.bytes(),
                req.keep_turns_with_tools,
                req.truncate_percent,
            ) {
                Ok(strip) => strip,
                Err(e) => {
                    discard(backup_written());
                    return Err(e);
                }
            };
            let mut outcome = EditOutcome {
                session_id: sid.clone(),
                path: self.db.clone(),
                backup_path: None,
                changed: strip.changes_anything(),
                dry_run: req.dry_run,
                size_original: events.bytes().len() as u64,
                size_after: strip.size_after,
                appended_lines_kept: 0,
                strip,
            };
            if req.dry_run || !outcome.changed {
                discard(backup_written());
                return Ok(outcome);
            }
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(sql_error);
            let written = tx.and_then(|tx| {
                recheck(&tx, &schema, &sid, &planned)?;
                self.require_idle(&tx, &target, req.quiet_ms)?;
                let (deleted, updated) = row_changes(&events, &outcome.strip.edits);
                apply_edit(&tx, &schema, &sid, &deleted, &updated, now_ms())?;
                verify(&tx)?;
                Ok(tx)
            });
            let backup = backup_written().expect("a real edit writes a backup");
            match (written, backup) {
                (Ok(tx), Ok(path)) => match tx.commit() {
                    Ok(()) => {
                        outcome.backup_path = Some(path);
                        rotate(&self.backup_base(&sid), req.backups_to_keep);
                        Ok(outcome)
                    }
                    Err(e) => {
                        let _ = fs::remove_file(path);
                        Err(sql_error(e))
                    }
                },
                // Dropping the transaction rolls it back.
                (Ok(_rolled_back), Err(e)) => Err(e),
                (Err(e), backup) => {
                    discard(Some(backup));
                    Err(e)
                }
            }
        })
    }

    /// Puts the session's newest backup back, the way OpenClaw's own full
    /// replace does, keeping what it replaced as the newest backup.
    pub fn restore(&self, target: TranscriptSummary, keep: usize) -> Result<RestoreOutcome> {
        if target.availability == Availability::Cold {
            return Err(unavailable(&target));
        }
        let sid = target.session_id.clone();
        let base = self.backup_base(&sid);
        let newest = backups_of(&base).pop().ok_or_else(|| no_backup(&sid))?;
        let saved = fs::read(&newest).map_err(|e| Error::write_failed(&newest, &e))?;
        validate_backup(&saved, &newest)?;
        let lines: Vec<&[u8]> = split_lines(&saved)
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .collect();
        let Connected {
            mut conn,
            schema,
            _turn,
        } = self.connect()?;
        self.require_idle(&conn, &target, gateway::QUIET_MS)?;
        let mut replaced: Option<PathBuf> = None;
        let written = (|| -> Result<()> {
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(sql_error)?;
            if is_cold(&tx, &schema, &sid)? {
                return Err(unavailable(&TranscriptSummary {
                    availability: Availability::Cold,
                    ..target.clone()
                }));
            }
            self.require_idle(&tx, &target, gateway::QUIET_MS)?;
            let current = read_rows(&tx, &schema, &sid)?;
            replaced = Some(self.write_backup(&sid, &current)?);
            replace_all(&tx, &schema, &sid, &lines, now_ms())?;
            verify(&tx)?;
            tx.commit().map_err(sql_error)
        })();
        match (written, replaced) {
            (Ok(()), Some(replaced)) => {
                rotate(&base, keep);
                Ok(RestoreOutcome {
                    session_id: sid,
                    path: self.db.clone(),
                    restored_from: newest,
                    replaced_backup: replaced,
                })
            }
            (Err(e), replaced) => {
                if let Some(p) = replaced {
                    let _ = fs::remove_file(p);
                }
                Err(e)
            }
            (Ok(()), None) => unreachable!("a committed restore wrote its backup"),
        }
    }

    /// Copies a session to a JSONL file (`noRegister` and an output path
    /// are required: a copy is not registered as a new SQLite session).
    pub fn clone_session(
        &self,
        source: TranscriptSummary,
        req: &CloneRequest,
    ) -> Result<CloneOutcome> {
        let Some(output) = req.output.as_deref().filter(|_| req.no_register) else {
            return Err(Error::new(
                ErrorCode::UnsupportedStore,
                format!(
                    "agent {} keeps its sessions in SQLite, where a clone cannot be registered as a new session",
                    self.agent_id
                ),
            )
            .with_hint("clone to a JSONL file instead: pass an output path and noRegister (occ clone <id> -o copy.jsonl --no-register)"));
        };
        let events = self.read(&source)?;
        let id = uuid::Uuid::new_v4().to_string();
        let copy = cloned_transcript(&events, &source, req.strip, &id)?;
        refuse_sessions_dir(output)?;
        write_new_file(output, &copy.bytes, 0o600)?;
        Ok(CloneOutcome {
            source_session_id: source.session_id,
            cloned_session_id: id,
            path: output.to_path_buf(),
            session_key: None,
            size_original: events.bytes().len() as u64,
            size_cloned: copy.bytes.len() as u64,
            stats: copy.stats,
        })
    }

    /// The session as pi JSONL (header first, one event per line, exactly
    /// the decoded JSON), written to `output` or returned.
    pub fn export(
        &self,
        target: TranscriptSummary,
        output: Option<&Path>,
    ) -> Result<ExportOutcome> {
        let events = self.read(&target)?;
        if let Some(p) = output {
            refuse_sessions_dir(p)?;
        }
        export_events(&target.session_id, &events, output)
    }
}

/// A JSONL file under a SQLite agent's `sessions/` would be taken for a
/// legacy transcript by OpenClaw.
fn refuse_sessions_dir(path: &Path) -> Result<()> {
    let parent = path.parent().and_then(|p| {
        fs::canonicalize(if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        })
        .ok()
    });
    if parent.is_some_and(|p| {
        p.file_name().is_some_and(|n| n == "sessions")
            && p.parent()
                .and_then(|a| a.parent())
                .is_some_and(|a| a.file_name().is_some_and(|n| n == "agents"))
    }) {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("{} is inside an agent's sessions folder", path.display()),
        )
        .with_hint(
            "OpenClaw 2026.8 and later report files there as legacy transcripts; write elsewhere",
        ));
    }
    Ok(())
}

/// Removes a backup that an edit did not use.
fn discard(backup: Option<Result<PathBuf>>) {
    if let Some(Ok(path)) = backup {
        let _ = fs::remove_file(path);
    }
}

/// The rows an edit changes: deleted rows as runs of neighbouring events
/// (one statement each), and the rewritten ones.
fn row_changes<'a>(
    events: &Events,
    edits: &'a [LineEdit],
) -> (Vec<DeletedRun>, Vec<RowUpdate<'a>>) {
    let seqs = events.seqs();
    let mut deleted: Vec<DeletedRun> = Vec::new();
    let mut updated = Vec::new();
    let mut previous_deleted = false;
    // `edits` has one more entry than there are rows: the empty line after
    // the last newline.
    for (edit, &seq) in edits.iter().zip(seqs) {
        match (edit, deleted.last_mut()) {
            (LineEdit::Delete, Some(run)) if previous_deleted => {
                run.last_seq = seq;
                run.rows += 1;
            }
            (LineEdit::Delete, _) => deleted.push(DeletedRun {
                first_seq: seq,
                last_seq: seq,
                rows: 1,
            }),
            (LineEdit::Replace(json), _) => updated.push(RowUpdate { seq, json }),
            (LineEdit::Keep, _) => {}
        }
        previous_deleted = matches!(edit, LineEdit::Delete);
    }
    (deleted, updated)
}

/// Inside the write transaction: the session still exists, is not cold,
/// and nothing wrote to it since the plan was read.
fn recheck(
    conn: &Connection,
    schema: &super::schema::Schema,
    sid: &str,
    planned: &Fence,
) -> Result<()> {
    if is_cold(conn, schema, sid)? || fence(conn, sid)? != *planned {
        return Err(changed_under_us(sid));
    }
    Ok(())
}

/// After the writes, before the commit: no foreign key is broken (OpenClaw
/// refuses to start on a store with orphans) and the database passes
/// `quick_check`. Either failing rolls the edit back.
fn verify(conn: &Connection) -> Result<()> {
    let orphans: i64 = conn
        .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
            r.get(0)
        })
        .map_err(sql_error)?;
    let quick: String = conn
        .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
        .map_err(sql_error)?;
    if orphans != 0 || quick != "ok" {
        return Err(Error::new(
            ErrorCode::Internal,
            format!("the edited database failed its check ({orphans} foreign key violations, quick_check: {quick}); nothing was changed"),
        )
        .with_hint("run `openclaw doctor` on the database; please report this with the session id"));
    }
    Ok(())
}
