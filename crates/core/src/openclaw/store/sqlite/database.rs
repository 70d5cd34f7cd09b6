//! One agent's SQLite database: opening it (one connection per process at
//! a time), listing its sessions and reading a session's events.

use super::errors::sql_error;
use super::in_process;
use super::schema::{self, Schema};
use crate::error::{Error, ErrorCode, Result};
use crate::openclaw::events::Events;
use crate::openclaw::transcripts::{Availability, StoreKind, TranscriptSummary};
use chrono::{DateTime, TimeZone, Utc};
use rayon::prelude::*;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a statement waits for another connection's write lock, as
/// OpenClaw's own connections do (`OPENCLAW_SQLITE_BUSY_TIMEOUT_MS`).
pub const BUSY_TIMEOUT: Duration = Duration::from_millis(5000);

/// Largest decoded event OpenClaw stores (the schema's CHECK bound).
pub const MAX_EVENT_BYTES: i64 = 4 * 1024 * 1024;

/// Most bytes of events one session may decode to. A session is decoded
/// whole into memory, and a compressed event may claim up to
/// [`MAX_EVENT_BYTES`] from a frame of a hundred bytes: without a bound, a
/// small database could make the addon ask for more memory than the machine
/// has, which aborts the host process. Real sessions stay far below it.
pub const MAX_SESSION_BYTES: i64 = 1 << 30;

/// One agent's database.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    /// The agent (normalised id).
    pub agent_id: String,
    /// OpenClaw's state dir.
    pub state_dir: PathBuf,
    /// The agent database file.
    pub db: PathBuf,
}

/// An open agent database and its checked schema. The connection closes
/// before this copy of the addon lets its next operation open one.
pub struct Connected {
    /// The connection.
    pub conn: Connection,
    /// The schema it was checked to have.
    pub schema: Schema,
    /// This process's turn at the database, held while the connection is open.
    pub(super) _turn: std::sync::MutexGuard<'static, ()>,
}

/// What a plan was made from: OpenClaw's "context version" of a session,
/// `(max(seq), generation, transcript_updated_at)`. A writer that appends,
/// rewrites or replaces the transcript changes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    /// The session's highest event `seq`; `None` without events.
    pub max_seq: Option<i64>,
    /// The session's rewrite generation (`transcript_rewrite_watermarks`);
    /// `None` when that table has no row for the session.
    pub generation: Option<String>,
    /// The window's `transcript_updated_at`; `None` when the session has no window row.
    pub transcript_updated_at: Option<i64>,
}

fn from_ms(ms: i64) -> Option<DateTime<Utc>> {
    Utc.timestamp_millis_opt(ms).single()
}

impl SqliteStore {
    /// The store of `agent_id` under `state_dir` at `db`.
    pub fn new(agent_id: &str, state_dir: &Path, db: PathBuf) -> SqliteStore {
        SqliteStore {
            agent_id: agent_id.to_owned(),
            state_dir: state_dir.to_path_buf(),
            db,
        }
    }

    /// Opens the database (never creating it) the way OpenClaw's own
    /// connections are set up: a 5 s busy timeout and foreign keys on; the
    /// journal mode is left as found. Refused when another SQLite of this
    /// process has it open (see [`in_process`]). The schema is checked first.
    pub fn connect(&self) -> Result<Connected> {
        let turn = in_process::take_turn();
        in_process::refuse_if_open_elsewhere(&self.db)?;
        let conn = Connection::open_with_flags(
            &self.db,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
                | OpenFlags::SQLITE_OPEN_URI,
        )
        .map_err(|e| {
            Error::new(
                ErrorCode::UnsupportedStore,
                format!("cannot open the agent database {}: {e}", self.db.display()),
            )
            .with_hint("check that the file is readable and writable by this user")
        })?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql_error)?;
        // Reads through a mapping rather than page by page, and keeps an
        // edit's dirty pages in memory until the commit (a small page cache
        // spills them to the WAL mid-transaction, then writes them again);
        // checkpoints are
        // left to OpenClaw, whose connections run them (wal_autocheckpoint,
        // a periodic one, and one on close): this connection only appends
        // its commit to the WAL.
        conn.execute_batch(
            "PRAGMA foreign_keys = ON; PRAGMA mmap_size = 268435456; PRAGMA cache_size = -262144; \
             PRAGMA wal_autocheckpoint = 0",
        )
        .map_err(sql_error)?;
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )
        .map_err(sql_error)?;
        let schema = schema::check(&conn, &self.db)?;
        Ok(Connected {
            conn,
            schema,
            _turn: turn,
        })
    }

    /// Every session of the agent: each transcript generation
    /// (`session_windows` row) with the keys whose current session it is,
    /// its event count and decoded size, newest activity first. Sessions in
    /// a cold archive and sessions without events are listed as such.
    pub fn list(&self) -> Result<Vec<TranscriptSummary>> {
        let Connected {
            mut conn,
            schema,
            _turn,
        } = self.connect()?;
        let tx = conn.transaction().map_err(sql_error)?;
        let summaries = list_in(&tx, &schema, &self.db)?;
        tx.finish().map_err(sql_error)?;
        Ok(summaries)
    }

    /// The session's events, decoded, and the fence they were read under,
    /// in one read transaction (one snapshot).
    pub fn read_events(
        &self,
        conn: &mut Connection,
        schema: &Schema,
        session_id: &str,
    ) -> Result<(Events, Fence)> {
        let tx = conn.transaction().map_err(sql_error)?;
        let fence = fence(&tx, session_id)?;
        let events = read_rows(&tx, schema, session_id)?;
        tx.finish().map_err(sql_error)?;
        Ok((events, fence))
    }
}

/// Per-session aggregates of `transcript_events`.
#[derive(Default)]
struct EventStats {
    count: u64,
    bytes: u64,
    last_at: Option<i64>,
}

fn list_in(conn: &Connection, schema: &Schema, db: &Path) -> Result<Vec<TranscriptSummary>> {
    let size = if schema.compressed_events {
        "coalesce(event_utf8_bytes, octet_length(event_json))"
    } else {
        "octet_length(event_json)"
    };
    let mut stats: BTreeMap<String, EventStats> = BTreeMap::new();
    {
        let mut stmt = conn
            .prepare(&format!(
                "SELECT session_id, count(*), sum({size}), max(created_at) FROM transcript_events GROUP BY session_id"
            ))
            .map_err(sql_error)?;
        let mut rows = stmt.query([]).map_err(sql_error)?;
        while let Some(r) = rows.next().map_err(sql_error)? {
            stats.insert(
                r.get(0).map_err(sql_error)?,
                EventStats {
                    count: r.get::<_, i64>(1).map_err(sql_error)? as u64,
                    bytes: r.get::<_, Option<i64>>(2).map_err(sql_error)?.unwrap_or(0) as u64,
                    last_at: r.get(3).map_err(sql_error)?,
                },
            );
        }
    }
    // Keys whose current session each window is.
    struct Node {
        key: String,
        label: Option<String>,
        display_name: Option<String>,
        updated_at: i64,
    }
    let mut nodes: BTreeMap<String, Vec<Node>> = BTreeMap::new();
    {
        let mut stmt = conn
            .prepare(
                "SELECT session_key, current_session_id, label, display_name, updated_at FROM session_nodes ORDER BY session_key",
            )
            .map_err(sql_error)?;
        let mut rows = stmt.query([]).map_err(sql_error)?;
        while let Some(r) = rows.next().map_err(sql_error)? {
            nodes
                .entry(r.get(1).map_err(sql_error)?)
                .or_default()
                .push(Node {
                    key: r.get(0).map_err(sql_error)?,
                    label: r.get(2).map_err(sql_error)?,
                    display_name: r.get(3).map_err(sql_error)?,
                    updated_at: r.get(4).map_err(sql_error)?,
                });
        }
    }
    let cold_sql = if schema.cold_archives {
        "SELECT w.session_id, w.session_key, w.updated_at, w.transcript_updated_at, w.display_name, c.event_count, c.raw_bytes \
         FROM session_windows w LEFT JOIN session_transcript_cold_archives c ON c.session_id = w.session_id"
    } else {
        "SELECT session_id, session_key, updated_at, transcript_updated_at, display_name, NULL, NULL FROM session_windows"
    };
    let mut stmt = conn.prepare(cold_sql).map_err(sql_error)?;
    let mut rows = stmt.query([]).map_err(sql_error)?;
    let mut out = Vec::new();
    while let Some(r) = rows.next().map_err(sql_error)? {
        let session_id: String = r.get(0).map_err(sql_error)?;
        let window_key: String = r.get(1).map_err(sql_error)?;
        let window_updated: i64 = r.get(2).map_err(sql_error)?;
        let transcript_updated: Option<i64> = r.get(3).map_err(sql_error)?;
        let window_name: Option<String> = r.get(4).map_err(sql_error)?;
        let cold_events: Option<i64> = r.get(5).map_err(sql_error)?;
        let cold_bytes: Option<i64> = r.get(6).map_err(sql_error)?;
        let st = stats.remove(&session_id).unwrap_or_default();
        let keys = nodes.remove(&session_id).unwrap_or_default();
        let availability = if cold_events.is_some() {
            Availability::Cold
        } else if st.count == 0 {
            Availability::Empty
        } else {
            Availability::Available
        };
        let modified = st
            .last_at
            .or(transcript_updated)
            .unwrap_or(window_updated)
            .max(0);
        out.push(TranscriptSummary {
            session_id,
            path: db.to_path_buf(),
            // As JSONL: one line per event.
            size_bytes: cold_bytes.map_or(st.bytes + st.count, |b| b.max(0) as u64),
            modified: from_ms(modified).unwrap_or_default(),
            label: keys.iter().find_map(|n| n.label.clone()),
            display_name: keys
                .iter()
                .find_map(|n| n.display_name.clone())
                .or(window_name),
            updated_at: keys.iter().map(|n| n.updated_at).max().and_then(from_ms),
            session_keys: keys.into_iter().map(|n| n.key).collect(),
            window_key: Some(window_key),
            store: StoreKind::Sqlite,
            availability,
            event_count: Some(cold_events.map_or(st.count, |c| c.max(0) as u64)),
        });
    }
    Ok(out)
}

/// The session's fence, read in the caller's transaction.
pub(crate) fn fence(conn: &Connection, session_id: &str) -> Result<Fence> {
    conn.query_row(
        "SELECT (SELECT max(seq) FROM transcript_events WHERE session_id = ?1), \
                (SELECT generation FROM transcript_rewrite_watermarks WHERE session_id = ?1), \
                (SELECT transcript_updated_at FROM session_windows WHERE session_id = ?1)",
        [session_id],
        |r| {
            Ok(Fence {
                max_seq: r.get(0)?,
                generation: r.get(1)?,
                transcript_updated_at: r.get(2)?,
            })
        },
    )
    .map_err(sql_error)
}

fn row_error(session_id: &str, seq: i64, what: &str) -> Error {
    Error::new(
        ErrorCode::Parse,
        format!("event {seq} of session {session_id} {what}"),
    )
    .with_hint(
        "the row was not written by OpenClaw; run `openclaw doctor` and leave the session as it is",
    )
}

/// Decodes every row of a session in `seq` order into JSONL: `event_json`
/// as stored, or the zstd frame of `event_zstd` decompressed to exactly
/// `event_utf8_bytes` bytes. Rows are read in one pass, leaving room for
/// each compressed event, whose frames are then decoded in parallel.
pub(crate) fn read_rows(conn: &Connection, schema: &Schema, session_id: &str) -> Result<Events> {
    let sql = if schema.compressed_events {
        "SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ?1 ORDER BY seq"
    } else {
        "SELECT seq, event_json, NULL, NULL FROM transcript_events WHERE session_id = ?1 ORDER BY seq"
    };
    // The decoded size is known up front: one allocation, no regrowth.
    let size_sql = if schema.compressed_events {
        "SELECT coalesce(sum(coalesce(event_utf8_bytes, octet_length(event_json))) + count(*), 0) FROM transcript_events WHERE session_id = ?1"
    } else {
        "SELECT coalesce(sum(octet_length(event_json)) + count(*), 0) FROM transcript_events WHERE session_id = ?1"
    };
    let size: i64 = conn
        .query_row(size_sql, [session_id], |r| r.get(0))
        .map_err(sql_error)?;
    if size > MAX_SESSION_BYTES {
        return Err(Error::new(
            ErrorCode::UnsupportedStore,
            format!(
                "the events of session {session_id} decode to {size} bytes, more than the {MAX_SESSION_BYTES} bytes this addon reads into memory"
            ),
        )
        .with_hint("let OpenClaw compact the session, or start a new one"));
    }
    let mut stmt = conn.prepare(sql).map_err(sql_error)?;
    let mut rows = stmt.query([session_id]).map_err(sql_error)?;
    let mut jsonl = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    let mut seqs = Vec::new();
    // (seq, where its text goes, the frame)
    let mut frames: Vec<(i64, usize, Vec<u8>)> = Vec::new();
    while let Some(r) = rows.next().map_err(sql_error)? {
        let seq: i64 = r.get(0).map_err(sql_error)?;
        match (
            r.get_ref(1).map_err(sql_error)?,
            r.get_ref(2).map_err(sql_error)?,
        ) {
            (ValueRef::Text(text), _) => {
                if memchr::memchr(b'\n', text).is_some() {
                    return Err(row_error(session_id, seq, "holds a raw line break"));
                }
                jsonl.extend_from_slice(text);
            }
            (ValueRef::Null, ValueRef::Blob(frame)) => {
                let size: i64 = r.get::<_, Option<i64>>(3).map_err(sql_error)?.unwrap_or(-1);
                if !(1..=MAX_EVENT_BYTES).contains(&size) {
                    return Err(row_error(
                        session_id,
                        seq,
                        "has a compressed payload without a valid size",
                    ));
                }
                frames.push((seq, jsonl.len(), frame.to_vec()));
                jsonl.resize(jsonl.len() + size as usize, 0);
            }
            _ => return Err(row_error(session_id, seq, "has no payload")),
        }
        jsonl.push(b'\n');
        seqs.push(seq);
    }
    // Each frame's room, in order: the text between its offset and the
    // newline that follows it.
    let mut rooms: Vec<(i64, &mut [u8], Vec<u8>)> = Vec::with_capacity(frames.len());
    let mut rest: &mut [u8] = &mut jsonl;
    let mut consumed = 0;
    for (seq, offset, frame) in frames {
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(offset - consumed);
        let end = memchr::memchr(b'\n', tail).unwrap_or(tail.len());
        let (room, after) = tail.split_at_mut(end);
        consumed = offset + room.len();
        rooms.push((seq, room, frame));
        rest = after;
    }
    // One decoder per worker: setting one up costs more than a small frame.
    let decoder = || zstd::bulk::Decompressor::new().ok();
    rooms
        .into_par_iter()
        .try_for_each_init(decoder, |decoder, (seq, room, frame)| {
            let n = decoder
                .as_mut()
                .ok_or_else(|| Error::new(ErrorCode::Internal, "could not set up a zstd decoder"))?
                .decompress_to_buffer(&frame, room)
                .map_err(|e| row_error(session_id, seq, &format!("does not decompress: {e}")))?;
            if n != room.len() {
                return Err(row_error(
                    session_id,
                    seq,
                    "decompresses to another size than recorded",
                ));
            }
            if memchr::memchr(b'\n', room).is_some() {
                return Err(row_error(session_id, seq, "holds a raw line break"));
            }
            Ok(())
        })?;
    Ok(Events::from_rows(jsonl, seqs))
}

/// The session's cold-archive row, if its transcript is archived.
pub(crate) fn is_cold(conn: &Connection, schema: &Schema, session_id: &str) -> Result<bool> {
    if !schema.cold_archives {
        return Ok(false);
    }
    conn.query_row(
        "SELECT 1 FROM session_transcript_cold_archives WHERE session_id = ?1",
        [session_id],
        |_| Ok(()),
    )
    .optional()
    .map(|r| r.is_some())
    .map_err(sql_error)
}
