//! Whether an OpenClaw process owns a state dir, and whether a session is
//! idle, for edits of the SQLite store (as OpenClaw 2026.8.2 and 2026.9.6
//! `gateway-lock`, `pid-alive` and `session-event-payload` do, read and run
//! against a live gateway).
//!
//! **Ownership.** A gateway (and a local embedded agent run, a doctor
//! maintenance or a skill apply) holds `<realpath(state)>/tmp/openclaw-<uid>/
//! gateway.state.lock` (`tmp/openclaw` on Windows) for its lifetime, next
//! to an SQLite coordinator file `gateway.state.lock.sqlite` that it keeps
//! exclusively locked; the kernel drops that lock when the process dies,
//! even by `kill -9`. An owner is live when the coordinator is locked, or
//! when the lock file names a live pid whose start time (Linux) matches.
//!
//! **Idle.** With no owner, every session is idle, except one still marked
//! `running`: a crashed turn that OpenClaw resumes from the transcript at
//! its next start. With a live owner, a session is idle when nothing in the
//! database says it is in use: no `running` status, no lifecycle run, no
//! queued input, and no write for [`QUIET_MS`] (less when the caller knows
//! the latest write was its own: a chat command editing its own session
//! runs while its command message has just been written). A doctor
//! maintenance owns
//! the whole database: nothing is idle then. Idle is checked before the
//! edit and again inside its write transaction.

use crate::error::Result;
use crate::openclaw::store::sqlite::sql_error;
use crate::platform::process_alive;
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use std::path::{Path, PathBuf};

/// How long after its last write a session still counts as in use while a
/// gateway runs (a turn prepares for seconds before it says `running`).
pub const QUIET_MS: i64 = 10_000;

/// The OpenClaw process that owns a state dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateOwner {
    /// From the lock file, when it could be read.
    pub pid: Option<u64>,
    /// `gateway` (no role in the file), `agent-embedded`,
    /// `sqlite-maintenance` or `skill-workshop-apply`.
    pub role: String,
    pub lock: PathBuf,
}

impl StateOwner {
    /// Doctor maintenance and skill applies rewrite the database as a whole.
    pub fn is_maintenance(&self) -> bool {
        matches!(
            self.role.as_str(),
            "sqlite-maintenance" | "skill-workshop-apply"
        )
    }

    /// `the gateway (pid 123)`.
    pub fn describe(&self) -> String {
        let what = match self.role.as_str() {
            "gateway" => "the gateway",
            "agent-embedded" => "a local agent run",
            "sqlite-maintenance" => "openclaw doctor's database maintenance",
            _ => "an OpenClaw skill apply",
        };
        match self.pid {
            Some(pid) => format!("{what} (pid {pid})"),
            None => what.to_owned(),
        }
    }
}

/// The folder of the state lock: `<realpath(state)>/tmp/openclaw-<uid>`.
pub fn lock_dir(state_dir: &Path) -> PathBuf {
    let real = std::fs::canonicalize(state_dir).unwrap_or_else(|_| state_dir.to_path_buf());
    real.join("tmp").join(lock_dir_name())
}

#[cfg(unix)]
fn lock_dir_name() -> String {
    // SAFETY: getuid has no preconditions and cannot fail.
    format!("openclaw-{}", unsafe { libc::getuid() })
}

#[cfg(not(unix))]
fn lock_dir_name() -> String {
    "openclaw".to_owned()
}

/// Whether another process holds the coordinator exclusively: a shared
/// read of it is refused at once.
fn coordinator_held(path: &Path) -> bool {
    let Ok(conn) = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    ) else {
        return false;
    };
    let _ = conn.busy_timeout(std::time::Duration::ZERO);
    matches!(
        conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get::<_, i64>(0)),
        Err(rusqlite::Error::SqliteFailure(e, _)) if matches!(e.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// A process's start time as OpenClaw records it (`startTime`): on Linux
/// the clock ticks since boot of `/proc/<pid>/stat`; `None` elsewhere.
fn start_time(pid: u64) -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// The live owner of `state_dir`, if any.
pub fn state_owner(state_dir: &Path) -> Option<StateOwner> {
    let lock = lock_dir(state_dir).join("gateway.state.lock");
    let payload: Option<serde_json::Value> = std::fs::read(&lock)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let pid = payload.as_ref().and_then(|p| p.get("pid")?.as_u64());
    let role = payload
        .as_ref()
        .and_then(|p| p.get("role")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| "gateway".to_owned());
    let owner = StateOwner {
        pid,
        role,
        lock: lock.clone(),
    };
    let mut coordinator = lock.into_os_string();
    coordinator.push(".sqlite");
    if coordinator_held(Path::new(&coordinator)) {
        return Some(owner);
    }
    let pid = pid?;
    if !process_alive(pid) {
        return None;
    }
    let recorded = payload.as_ref().and_then(|p| p.get("startTime")?.as_u64());
    match (recorded, start_time(pid)) {
        (Some(recorded), Some(now)) if recorded != now => None, // the pid was reused
        _ => Some(owner),
    }
}

/// Why a session is not idle, or `None` when it is (see the module doc).
/// `owner` is the state dir's live owner, if any; `quiet_ms` how long the
/// session must have gone unwritten while it runs.
pub fn session_activity(
    conn: &Connection,
    session_id: &str,
    owner: Option<&StateOwner>,
    now_ms: i64,
    quiet_ms: i64,
) -> Result<Option<String>> {
    if let Some(o) = owner.filter(|o| o.is_maintenance()) {
        return Ok(Some(format!("{} is working on the database", o.describe())));
    }
    struct Marks {
        node_status: Option<String>,
        node_updated: Option<i64>,
        entry: Option<String>,
        window_status: Option<String>,
        transcript_updated: Option<i64>,
        queued: i64,
    }
    let marks: Option<Marks> = conn
        .query_row(
            "SELECT n.status, n.updated_at, n.entry_json, w.status, w.transcript_updated_at, \
               (SELECT count(*) FROM session_pending_inputs p \
                  WHERE p.session_id = w.session_id AND p.state = 'queued' AND p.consumed_event_id IS NULL) \
             FROM session_windows w \
             LEFT JOIN session_nodes n ON n.current_session_id = w.session_id \
             WHERE w.session_id = ?1 ORDER BY n.updated_at DESC LIMIT 1",
            [session_id],
            |r| {
                Ok(Marks {
                    node_status: r.get(0)?,
                    node_updated: r.get(1)?,
                    entry: r.get(2)?,
                    window_status: r.get(3)?,
                    transcript_updated: r.get(4)?,
                    queued: r.get(5)?,
                })
            },
        )
        .optional()
        .map_err(sql_error)?;
    let Some(m) = marks else { return Ok(None) };
    let entry: serde_json::Value = m
        .entry
        .as_deref()
        .and_then(|e| serde_json::from_str(e).ok())
        .unwrap_or_default();
    let running = [
        m.node_status.as_deref(),
        m.window_status.as_deref(),
        entry["status"].as_str(),
    ]
    .contains(&Some("running"));
    let Some(owner) = owner else {
        return Ok(running.then(|| {
            "a turn was cut off by a crash and OpenClaw resumes it at its next start \
             (start the gateway and let it finish first)"
                .to_owned()
        }));
    };
    let by = owner.describe();
    if running {
        return Ok(Some(format!("{by} is running a turn in it")));
    }
    if let Some(run) = entry["lifecycleRunId"].as_str() {
        return Ok(Some(format!("{by} has run {run} open in it")));
    }
    if m.queued > 0 {
        return Ok(Some(format!("{} message(s) wait to be answered", m.queued)));
    }
    let last = m.transcript_updated.into_iter().chain(m.node_updated).max();
    if last.is_some_and(|t| t <= now_ms && now_ms - t < quiet_ms) {
        return Ok(Some(format!(
            "it was written less than {} s ago",
            quiet_ms as f64 / 1000.0
        )));
    }
    Ok(None)
}
