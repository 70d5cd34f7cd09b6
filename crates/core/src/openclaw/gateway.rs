//! Whether an OpenClaw gateway is running on a state dir, and whether a
//! session is idle, for edits of the SQLite store while a gateway may be
//! using it (research: openclaw-sqlite-store.md §4 and "What a safe
//! external editor must do").
//!
//! A gateway holds `<state>/tmp/openclaw-<uid>/gateway.state.lock`, a JSON
//! file with its `pid`, from start to clean shutdown. With no live
//! gateway, every session is idle: OpenClaw's own offline maintenance
//! edits then. With one, a session is idle when nothing in the database
//! says it is in use (see [`session_activity`]).

use crate::error::Result;
use crate::fs_safe::process_alive;
use rusqlite::{Connection, OptionalExtension};
use std::path::{Path, PathBuf};

/// A gateway that holds the state dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningGateway {
    pub pid: u64,
    pub lock: PathBuf,
}

/// The gateway lock's folder for this user: `<state>/tmp/openclaw-<uid>`.
pub fn lock_dir(state_dir: &Path) -> PathBuf {
    state_dir
        .join("tmp")
        .join(format!("openclaw-{}", user_tag()))
}

#[cfg(unix)]
fn user_tag() -> String {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }.to_string()
}

#[cfg(not(unix))]
fn user_tag() -> String {
    "user".to_owned()
}

/// The running gateway of `state_dir`, if its lock names a live process.
pub fn running_gateway(state_dir: &Path) -> Option<RunningGateway> {
    let lock = lock_dir(state_dir).join("gateway.state.lock");
    let bytes = std::fs::read(&lock).ok()?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let pid = value.get("pid")?.as_u64()?;
    process_alive(pid).then_some(RunningGateway { pid, lock })
}

/// Why a session is not idle, read from the database, or `None` when it
/// is: the session's node or window says a run is `running`, its entry
/// names an active writer run (`activeWriterRunId`), it has queued input
/// not yet consumed, or its transcript was written in the last
/// [`QUIET_MS`] milliseconds.
pub fn session_activity(
    conn: &Connection,
    session_id: &str,
    now_ms: i64,
) -> Result<Option<String>> {
    use crate::openclaw::store::sqlite::sql_error;
    let node: Option<(Option<String>, String)> = conn
        .query_row(
            "SELECT status, entry_json FROM session_nodes WHERE current_session_id = ?1 ORDER BY updated_at DESC LIMIT 1",
            [session_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .map_err(sql_error)?;
    if let Some((status, entry)) = &node {
        if status.as_deref() == Some("running") {
            return Ok(Some("its session is marked running".into()));
        }
        let entry: serde_json::Value = serde_json::from_str(entry).unwrap_or_default();
        if let Some(run) = entry.get("activeWriterRunId").and_then(|v| v.as_str()) {
            return Ok(Some(format!("run {run} is writing to it")));
        }
    }
    let window: Option<(Option<String>, Option<i64>)> = conn
        .query_row(
            "SELECT status, transcript_updated_at FROM session_windows WHERE session_id = ?1",
            [session_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .map_err(sql_error)?;
    if let Some((status, updated)) = window {
        if status.as_deref() == Some("running") {
            return Ok(Some("its transcript window is marked running".into()));
        }
        if updated.is_some_and(|t| now_ms - t < QUIET_MS && t <= now_ms) {
            return Ok(Some(format!(
                "its transcript was written less than {} s ago",
                QUIET_MS / 1000
            )));
        }
    }
    let queued: i64 = conn
        .query_row(
            "SELECT count(*) FROM session_pending_inputs WHERE session_id = ?1 AND state = 'queued'",
            [session_id],
            |r| r.get(0),
        )
        .map_err(sql_error)?;
    if queued > 0 {
        return Ok(Some(format!("{queued} queued input(s) wait for it")));
    }
    Ok(None)
}

/// How long after its last write a session still counts as in use.
pub const QUIET_MS: i64 = 10_000;
