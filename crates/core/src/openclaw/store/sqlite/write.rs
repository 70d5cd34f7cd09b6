//! Writing a session's transcript the way OpenClaw's own writers do (what a
//! safe external editor of the store must do; COMPATIBILITY.md, "OpenClaw
//! 2026.8 and later: the SQLite store"):
//!
//! - changed rows in identity form (`event_json`, no zstd frame, no
//!   navigation, `event_utf8_bytes` its UTF-8 length); rows that do not
//!   change are never written;
//! - removed rows deleted with foreign keys on, so their identity and
//!   projection rows go with them;
//! - `transcript_event_identities.parent_id` kept equal to the event's
//!   `parentId`;
//! - then the invalidation OpenClaw does after a destructive rewrite: a new
//!   32-hex generation, the projection marked for rebuild, and
//!   `transcript_updated_at` advanced strictly.
//!
//! Schema objects, version markers, `session_nodes`, the projection rows
//! and the full-text index are never touched by hand.

use super::errors::sql_error;
use super::schema::Schema;
use crate::error::{Error, ErrorCode, Result};
use crate::json_scan::{as_str, field, Fields};
use rusqlite::{params, Connection, OptionalExtension};
use std::collections::HashSet;

/// One row's new content.
pub struct RowUpdate<'a> {
    /// The row's `seq`.
    pub seq: i64,
    /// Its new event JSON.
    pub json: &'a [u8],
}

/// Neighbouring rows to delete: every row of the session with a `seq` from
/// `first_seq` to `last_seq`, which were `rows` rows when the plan was made.
pub struct DeletedRun {
    /// The first `seq` of the run.
    pub first_seq: i64,
    /// The last `seq` of the run.
    pub last_seq: i64,
    /// How many rows the run held when the plan was made.
    pub rows: usize,
}

/// The identity facts of an event, as OpenClaw derives them
/// (`readTranscriptEventIdentity`): only events with a non-blank string id
/// have one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The event's `id`.
    pub event_id: String,
    /// Its `type`, if a string.
    pub event_type: Option<String>,
    /// Its `parentId`, if a string.
    pub parent_id: Option<String>,
    /// Its idempotency key, if it has one.
    pub idempotency_key: Option<String>,
}

/// Reads an event's identity without parsing its content.
pub fn identity_of(json: &[u8]) -> Option<Identity> {
    let text = |v: &[u8]| as_str(v).map(|s| s.into_owned());
    let (mut id, mut kind, mut parent, mut key) = (None, None, None, None);
    for (k, v) in Fields::new(json) {
        match k {
            b"id" => id = text(v),
            b"type" => kind = text(v),
            b"parentId" => parent = text(v),
            b"message" => {
                key = field(v, b"idempotencyKey")
                    .and_then(text)
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
            }
            _ => {}
        }
    }
    let event_id = id.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())?;
    Some(Identity {
        event_id,
        event_type: kind,
        parent_id: parent,
        idempotency_key: key,
    })
}

/// An event's `created_at`: its `timestamp` in ms (a number, or an ISO
/// string), else now.
pub fn created_at_of(json: &[u8], now_ms: i64) -> i64 {
    let Some(raw) = field(json, b"timestamp") else {
        return now_ms;
    };
    if let Ok(n) = std::str::from_utf8(raw).unwrap_or("").trim().parse::<f64>() {
        if n.is_finite() {
            return n as i64;
        }
    }
    as_str(raw)
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s.trim()).ok())
        .map_or(now_ms, |t| t.timestamp_millis())
}

fn utf8_len(json: &[u8]) -> i64 {
    json.len() as i64
}

/// Deletes `deleted` rows and rewrites `updated` rows of a session in the
/// caller's transaction, keeping identity parents in step, then
/// invalidates as OpenClaw does.
pub fn apply_edit(
    conn: &Connection,
    schema: &Schema,
    session_id: &str,
    deleted: &[DeletedRun],
    updated: &[RowUpdate<'_>],
    now_ms: i64,
) -> Result<()> {
    {
        let mut delete = conn
            .prepare_cached(
                "DELETE FROM transcript_events WHERE session_id = ?1 AND seq BETWEEN ?2 AND ?3",
            )
            .map_err(sql_error)?;
        for run in deleted {
            if delete
                .execute(params![session_id, run.first_seq, run.last_seq])
                .map_err(sql_error)?
                != run.rows
            {
                return Err(vanished(session_id, run.first_seq));
            }
        }
    }
    {
        let mut update = conn
            .prepare_cached(if schema.compressed_events {
                "UPDATE transcript_events SET event_json = ?3, event_zstd = NULL, navigation_json = NULL, \
                 event_utf8_bytes = ?4 WHERE session_id = ?1 AND seq = ?2"
            } else {
                "UPDATE transcript_events SET event_json = ?3 WHERE session_id = ?1 AND seq = ?2"
            })
            .map_err(sql_error)?;
        let mut relink = conn
            .prepare_cached(
                "UPDATE transcript_event_identities SET parent_id = ?3 WHERE session_id = ?1 AND seq = ?2 AND parent_id IS NOT ?3",
            )
            .map_err(sql_error)?;
        for row in updated {
            let text = std::str::from_utf8(row.json)
                .map_err(|_| Error::new(ErrorCode::Internal, "an edited event is not UTF-8"))?;
            let changed = if schema.compressed_events {
                update.execute(params![session_id, row.seq, text, utf8_len(row.json)])
            } else {
                update.execute(params![session_id, row.seq, text])
            };
            if changed.map_err(sql_error)? != 1 {
                return Err(vanished(session_id, row.seq));
            }
            if let Some(identity) = identity_of(row.json) {
                relink
                    .execute(params![session_id, row.seq, identity.parent_id])
                    .map_err(sql_error)?;
            }
        }
    }
    invalidate(conn, session_id, now_ms)
}

fn vanished(session_id: &str, seq: i64) -> Error {
    Error::new(
        ErrorCode::ConcurrentModification,
        format!("event {seq} of session {session_id} changed during the edit"),
    )
    .with_hint("another process rewrote the transcript; nothing was changed, run the edit again")
}

/// Replaces every event of a session with `lines` (JSON texts, header
/// first), as OpenClaw's full replace does: identities and events deleted,
/// the events inserted again as `seq` 0..n-1 with their identity rows
/// (a repeated event id is skipped, a repeated idempotency key kept only
/// on its first event), then invalidated.
pub fn replace_all(
    conn: &Connection,
    schema: &Schema,
    session_id: &str,
    lines: &[&[u8]],
    now_ms: i64,
) -> Result<usize> {
    conn.execute(
        "DELETE FROM transcript_event_identities WHERE session_id = ?1",
        [session_id],
    )
    .map_err(sql_error)?;
    conn.execute(
        "DELETE FROM transcript_events WHERE session_id = ?1",
        [session_id],
    )
    .map_err(sql_error)?;
    let mut insert_event = conn
        .prepare_cached(if schema.compressed_events {
            "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json) \
             VALUES (?1, ?2, ?3, ?4, NULL, ?5, NULL)"
        } else {
            "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?1, ?2, ?3, ?4)"
        })
        .map_err(sql_error)?;
    let mut insert_identity = conn
        .prepare_cached(
            "INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, message_idempotency_key, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )
        .map_err(sql_error)?;
    let mut seen_ids: HashSet<String> = HashSet::new();
    let mut seen_keys: HashSet<String> = HashSet::new();
    let mut seq = 0i64;
    for line in lines {
        let identity = identity_of(line);
        if identity
            .as_ref()
            .is_some_and(|i| seen_ids.contains(&i.event_id))
        {
            continue;
        }
        let text = std::str::from_utf8(line)
            .map_err(|_| Error::new(ErrorCode::Parse, "an event to insert is not UTF-8"))?;
        let created = created_at_of(line, now_ms);
        if schema.compressed_events {
            insert_event
                .execute(params![session_id, seq, text, created, utf8_len(line)])
                .map_err(sql_error)?;
        } else {
            insert_event
                .execute(params![session_id, seq, text, created])
                .map_err(sql_error)?;
        }
        if let Some(mut identity) = identity {
            if let Some(key) = identity.idempotency_key.take() {
                if seen_keys.insert(key.clone()) {
                    identity.idempotency_key = Some(key);
                }
            }
            insert_identity
                .execute(params![
                    session_id,
                    identity.event_id,
                    seq,
                    identity.event_type,
                    identity.parent_id,
                    identity.idempotency_key,
                    created
                ])
                .map_err(sql_error)?;
            seen_ids.insert(identity.event_id);
        }
        seq += 1;
    }
    invalidate(conn, session_id, now_ms)?;
    Ok(seq as usize)
}

/// What OpenClaw does after a destructive rewrite: rotate the generation,
/// mark the projection for rebuild (a missing row is created dirty, as
/// `markSessionTranscriptIndexDirtyInTransaction` does), and advance
/// `transcript_updated_at` to `max(now, old + 1, observed + 1)`.
pub fn invalidate(conn: &Connection, session_id: &str, now_ms: i64) -> Result<()> {
    let generation = uuid::Uuid::new_v4().simple().to_string();
    conn.execute(
        "INSERT INTO transcript_rewrite_watermarks (session_id, generation, updated_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT(session_id) DO UPDATE SET generation = excluded.generation, updated_at = excluded.updated_at",
        params![session_id, generation, now_ms],
    )
    .map_err(sql_error)?;
    conn.execute(
        "INSERT INTO session_transcript_index_state \
           (session_id, indexed_seq, leaf_event_id, needs_rebuild, active_event_count, active_message_count, updated_at) \
         VALUES (?1, -1, NULL, 1, 0, 0, ?2) \
         ON CONFLICT(session_id) DO UPDATE SET needs_rebuild = 1, updated_at = excluded.updated_at",
        params![session_id, now_ms],
    )
    .map_err(sql_error)?;
    let state: Option<(Option<i64>, Option<i64>)> = conn
        .query_row(
            "SELECT transcript_updated_at, transcript_observed_at FROM session_windows WHERE session_id = ?1",
            [session_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .map_err(sql_error)?;
    let Some((updated, observed)) = state else {
        return Err(Error::new(
            ErrorCode::ConcurrentModification,
            format!("session {session_id} disappeared during the edit"),
        ));
    };
    let next = now_ms
        .max(updated.unwrap_or(-1) + 1)
        .max(observed.unwrap_or(-1) + 1);
    conn.execute(
        "UPDATE session_windows SET transcript_updated_at = ?2 WHERE session_id = ?1",
        params![session_id, next],
    )
    .map_err(sql_error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_and_times_are_derived_as_openclaw_does() {
        let id = identity_of(br#"{"type":"message","id":" e1 ","parentId":"e0","timestamp":"2026-01-31T08:00:01.000Z","message":{"role":"user","idempotencyKey":" k ","content":"x"}}"#).unwrap();
        assert_eq!(id.event_id, "e1");
        assert_eq!(id.event_type.as_deref(), Some("message"));
        assert_eq!(id.parent_id.as_deref(), Some("e0"));
        assert_eq!(id.idempotency_key.as_deref(), Some("k"));
        assert_eq!(identity_of(br#"{"type":"x","id":"  "}"#), None);
        assert_eq!(identity_of(br#"{"type":"x","id":7}"#), None);
        let h =
            identity_of(br#"{"type":"session","version":3,"id":"s1","timestamp":"t"}"#).unwrap();
        assert_eq!(h.parent_id, None);
        assert_eq!(
            created_at_of(br#"{"timestamp":"2026-01-31T08:00:01.000Z"}"#, 5),
            1_769_846_401_000
        );
        assert_eq!(created_at_of(br#"{"timestamp":1234}"#, 5), 1234);
        assert_eq!(created_at_of(br#"{"timestamp":"soon"}"#, 5), 5);
        assert_eq!(created_at_of(br#"{}"#, 5), 5);
    }
}
