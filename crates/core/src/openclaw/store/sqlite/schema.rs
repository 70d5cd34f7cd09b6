//! Which agent databases this addon reads and writes: the schema versions it
//! was tested against, each with the exact columns of every table it touches
//! (read from OpenClaw's own schema). Anything else is refused
//! before a single row is read.

use crate::error::{Error, ErrorCode, Result};
use rusqlite::{Connection, OptionalExtension};

/// The agent schema versions read and written (OpenClaw 2026.8.1–2026.9.2
/// and 2026.9.3/4 write 19, 2026.9.5 writes 21, 2026.9.6 writes 23).
pub const SUPPORTED_VERSIONS: [u32; 3] = [19, 21, 23];

/// What differs between the supported versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schema {
    /// The store's schema version (one of [`SUPPORTED_VERSIONS`]).
    pub version: u32,
    /// `transcript_events` has `event_zstd`, `event_utf8_bytes` and
    /// `navigation_json` (schema 23).
    pub compressed_events: bool,
    /// `session_transcript_cold_archives` exists (schema 20 and later).
    pub cold_archives: bool,
}

const EVENTS_19: &[&str] = &["session_id", "seq", "event_json", "created_at"];
const EVENTS_23: &[&str] = &[
    "session_id",
    "seq",
    "event_json",
    "created_at",
    "event_zstd",
    "event_utf8_bytes",
    "navigation_json",
];
const IDENTITIES: &[&str] = &[
    "session_id",
    "event_id",
    "seq",
    "event_type",
    "parent_id",
    "message_idempotency_key",
    "created_at",
];
const WATERMARKS: &[&str] = &["session_id", "generation", "updated_at"];
const INDEX_STATE: &[&str] = &[
    "session_id",
    "indexed_seq",
    "leaf_event_id",
    "needs_rebuild",
    "active_event_count",
    "active_message_count",
    "updated_at",
];
const ACTIVE_EVENTS: &[&str] = &[
    "session_id",
    "active_position",
    "event_seq",
    "message_position",
    "context_eligible",
];
const WINDOWS: &[&str] = &[
    "session_id",
    "session_key",
    "previous_session_id",
    "reason",
    "session_scope",
    "created_at",
    "updated_at",
    "transcript_updated_at",
    "transcript_observed_at",
    "session_entry_provenance",
    "acp_owned",
    "plugin_owner_id",
    "hook_external_content_source",
    "started_at",
    "ended_at",
    "status",
    "chat_type",
    "channel",
    "account_id",
    "primary_conversation_id",
    "model_provider",
    "model",
    "agent_harness_id",
    "parent_session_key",
    "spawned_by",
    "display_name",
];
const NODE_HEAD: &[&str] = &["session_key", "current_session_id", "entry_json"];
const NODE_LAZY_COLUMN: &str = "legacy_acp_migration_json";
const NODE_TAIL: &[&str] = &[
    "entry_valid",
    "updated_at",
    "status",
    "created_at",
    "created_via",
    "created_actor_type",
    "created_actor_id",
    "owner_actor_type",
    "owner_actor_id",
    "owner_assigned_by_type",
    "owner_assigned_by_id",
    "owner_assigned_at",
    "project_id",
    "parent_session_key",
    "spawned_by",
    "fork_source_session_key",
    "fork_source_session_id",
    "fork_source_entry_id",
    "label",
    "display_name",
    "category",
    "icon",
    "pinned_at",
    "archived_at",
    "last_read_at",
    "last_interaction_at",
    "last_activity_at",
];
const COLD_ARCHIVES: &[&str] = &[
    "session_id",
    "generation",
    "archive_name",
    "archive_sha256",
    "event_count",
    "raw_bytes",
    "archive_bytes",
    "last_seq",
    "archived_at",
    "storage",
    "archive_blob",
];
const PENDING_INPUTS: &[&str] = &[
    "seq",
    "input_id",
    "session_key",
    "session_id",
    "idempotency_key",
    "run_id",
    "request_hash",
    "message_json",
    "lifecycle_generation",
    "state",
    "accepted_at",
    "consumed_event_id",
];

impl Schema {
    fn of(version: u32) -> Schema {
        Schema {
            version,
            compressed_events: version >= 23,
            cold_archives: version >= 20,
        }
    }

    /// Every table this addon reads or writes, with its columns in order.
    fn expected_tables(&self) -> Vec<(&'static str, Vec<&'static str>)> {
        let events = if self.compressed_events {
            EVENTS_23
        } else {
            EVENTS_19
        };
        let nodes: Vec<&str> = NODE_HEAD.iter().chain(NODE_TAIL).copied().collect();
        let mut tables = vec![
            ("transcript_events", events.to_vec()),
            ("transcript_event_identities", IDENTITIES.to_vec()),
            ("transcript_rewrite_watermarks", WATERMARKS.to_vec()),
            ("session_transcript_index_state", INDEX_STATE.to_vec()),
            ("session_transcript_active_events", ACTIVE_EVENTS.to_vec()),
            ("session_windows", WINDOWS.to_vec()),
            ("session_nodes", nodes),
            ("session_pending_inputs", PENDING_INPUTS.to_vec()),
        ];
        if self.cold_archives {
            tables.push(("session_transcript_cold_archives", COLD_ARCHIVES.to_vec()));
        }
        tables
    }
}

fn unsupported(what: String) -> Error {
    Error::new(ErrorCode::UnsupportedStore, what).with_hint(format!(
        "this version of openclaw-session-intel reads and edits agent schema versions {}; \
         update openclaw-session-intel, or use OpenClaw's own tools for this database",
        SUPPORTED_VERSIONS.map(|v| v.to_string()).join(", ")
    ))
}

fn columns(conn: &Connection, table: &str) -> Result<Vec<String>> {
    let mut stmt = conn
        .prepare("SELECT name FROM pragma_table_info(?1)")
        .map_err(super::errors::sql_error)?;
    let names = stmt
        .query_map([table], |r| r.get::<_, String>(0))
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<String>>>())
        .map_err(super::errors::sql_error)?;
    Ok(names)
}

/// Reads the database's schema version (`PRAGMA user_version` and the
/// `schema_meta` row `primary`, which must agree) and checks every table
/// this addon touches column by column. Any other version, or any
/// difference, is `E_UNSUPPORTED_STORE` naming what was found.
pub fn check(conn: &Connection, db: &std::path::Path) -> Result<Schema> {
    let user_version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(super::errors::sql_error)?;
    let meta: Option<(i64, String)> = conn
        .query_row(
            "SELECT schema_version, role FROM schema_meta WHERE meta_key = 'primary'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .unwrap_or(None);
    let version = u32::try_from(user_version).unwrap_or(0);
    match &meta {
        Some((v, role)) if *v == user_version && role == "agent" => {}
        Some((v, role)) => {
            return Err(unsupported(format!(
                "{} is not an agent database this addon knows: user_version {user_version}, schema_meta says {role} schema {v}",
                db.display()
            )))
        }
        None => {
            return Err(unsupported(format!(
                "{} is not an OpenClaw agent database: it has no schema_meta row 'primary' (user_version {user_version})",
                db.display()
            )))
        }
    }
    if !SUPPORTED_VERSIONS.contains(&version) {
        return Err(unsupported(format!(
            "{} uses agent schema version {version}, which this addon has not been tested with (supported: {})",
            db.display(),
            SUPPORTED_VERSIONS.map(|v| v.to_string()).join(", ")
        )));
    }
    let schema = Schema::of(version);
    for (table, expected) in schema.expected_tables() {
        let mut found = columns(conn, table)?;
        if table == "session_nodes" {
            // Added by OpenClaw on first use, without a version change
            // (schema 21 creates it; a store migrated from 19 may lack it).
            found.retain(|c| c != NODE_LAZY_COLUMN);
        }
        if found != expected {
            return Err(unsupported(format!(
                "{}: table {table} of agent schema {version} differs from the tested one (found columns: {})",
                db.display(),
                if found.is_empty() {
                    "none, the table is missing".to_owned()
                } else {
                    found.join(", ")
                }
            )));
        }
    }
    Ok(schema)
}
