//! The cleaner, transcript reads and exports on OpenClaw's SQLite store, on
//! the real stores OpenClaw 2026.8.2 (schema 19), 2026.9.5 (21) and
//! 2026.9.6 (23) wrote, and on stores the tests derive from them. What
//! OpenClaw itself makes of an edited store is proven by
//! `__test__/openclaw/` with the real OpenClaw.

use rusqlite::{params, Connection};
use session_intel_core::fs_safe::LockOptions;
use session_intel_core::openclaw::edit::{CloneRequest, EditRequest};
use session_intel_core::openclaw::gateway;
use session_intel_core::openclaw::store::{sqlite_path, AgentStore};
use session_intel_core::openclaw::strip::{resolve_settings, strip_tools};
use session_intel_core::openclaw::transcripts::{transcript_info, Availability, StoreKind};
use session_intel_core::ErrorCode;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

const SYNTH: &str = "6513270e-269e-4d37-b2a7-4de452e6b438";
const F8: &str = "f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1";
const SMALL: &str = "1b975ccf-9dbe-4f4e-9d2b-8abe12178979";
const MAIN: &str = "76cc5ab5-0425-4038-b41f-0af9f313d594";
const VERSIONS: [u32; 3] = [19, 21, 23];

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/shared")
}

fn gunzip(path: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(fs::File::open(path).unwrap())
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// A writable state dir holding a copy of the store OpenClaw wrote at
/// `version`.
fn store(version: u32) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let db = sqlite_path(&state, "main");
    fs::create_dir_all(db.parent().unwrap()).unwrap();
    match version {
        19 | 23 => {
            let name = if version == 19 {
                "v19-2026.8.2"
            } else {
                "v23-2026.9.6"
            };
            let src = shared()
                .join("openclaw-sqlite")
                .join(name)
                .join("agents/main/agent/openclaw-agent.sqlite");
            fs::write(&db, fs::read(src).unwrap()).unwrap();
        }
        21 => {
            let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(
                "../../fixtures/openclaw-sqlite-v21/agents/main/agent/openclaw-agent.sqlite.gz",
            );
            fs::write(&db, gunzip(&src)).unwrap();
        }
        _ => unreachable!(),
    }
    (dir, state)
}

fn connect(state: &Path) -> Connection {
    let c = Connection::open(sqlite_path(state, "main")).unwrap();
    c.execute_batch("PRAGMA foreign_keys = ON").unwrap();
    c
}

/// The JSONL OpenClaw imported each session from.
fn source_jsonl(session: &str) -> Vec<u8> {
    if session == SYNTH {
        gunzip(&shared().join(format!("openclaw-sqlite/inputs/{SYNTH}.jsonl.gz")))
    } else {
        fs::read(shared().join(format!("openclaw/moltbot-2026-01-31/{session}.jsonl"))).unwrap()
    }
}

/// Every row of every table, hashed: equal digests mean nothing was written.
fn digest(state: &Path) -> String {
    let c = connect(state);
    let tables: Vec<String> = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut h = Sha256::new();
    for t in tables {
        let mut stmt = c.prepare(&format!("SELECT * FROM \"{t}\"")).unwrap();
        let n = stmt.column_count();
        let mut rows = stmt.query([]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            for i in 0..n {
                h.update(format!("{:?}", r.get_ref(i).unwrap()).as_bytes());
            }
        }
    }
    format!("{:x}", h.finalize())
}

/// A session's stored rows: seq → (event_json, event_zstd, event_utf8_bytes, created_at).
type Row = (Option<Vec<u8>>, Option<Vec<u8>>, Option<i64>, i64);
fn rows(state: &Path, sid: &str) -> BTreeMap<i64, Row> {
    let c = connect(state);
    let zstd = c
        .prepare("SELECT 1 FROM pragma_table_info('transcript_events') WHERE name = 'event_zstd'")
        .unwrap()
        .exists([])
        .unwrap();
    let sql = if zstd {
        "SELECT seq, CAST(event_json AS BLOB), event_zstd, event_utf8_bytes, created_at FROM transcript_events WHERE session_id = ?1"
    } else {
        "SELECT seq, CAST(event_json AS BLOB), NULL, NULL, created_at FROM transcript_events WHERE session_id = ?1"
    };
    let mut stmt = c.prepare(sql).unwrap();
    stmt.query_map([sid], |r| {
        Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// Identity rows: seq → (event_id, event_type, parent_id, idempotency key).
type IdentityRow = (String, Option<String>, Option<String>, Option<String>);
fn identities(state: &Path, sid: &str) -> BTreeMap<i64, IdentityRow> {
    let c = connect(state);
    let mut stmt = c
        .prepare("SELECT seq, event_id, event_type, parent_id, message_idempotency_key FROM transcript_event_identities WHERE session_id = ?1")
        .unwrap();
    stmt.query_map([sid], |r| {
        Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// The bookkeeping OpenClaw keys its caches on.
fn bookkeeping(state: &Path, sid: &str) -> (Option<String>, Option<i64>, Option<i64>) {
    connect(state)
        .query_row(
            "SELECT (SELECT generation FROM transcript_rewrite_watermarks WHERE session_id = ?1), \
                    (SELECT needs_rebuild FROM session_transcript_index_state WHERE session_id = ?1), \
                    (SELECT transcript_updated_at FROM session_windows WHERE session_id = ?1)",
            [sid],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap()
}

fn checks_pass(state: &Path) {
    let c = connect(state);
    let fk: i64 = c
        .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
            r.get(0)
        })
        .unwrap();
    let quick: String = c.query_row("PRAGMA quick_check", [], |r| r.get(0)).unwrap();
    assert_eq!((fk, quick.as_str()), (0, "ok"));
}

fn request(session: &str, preset: &str, dry_run: bool) -> EditRequest {
    let (keep, pct) = resolve_settings(Some(preset), None, None, &[]).unwrap();
    EditRequest {
        session: Some(session.into()),
        keep_turns_with_tools: keep,
        truncate_percent: pct,
        dry_run,
        backups_to_keep: 5,
        lock: LockOptions::default(),
        quiet_ms: session_intel_core::openclaw::gateway::QUIET_MS,
    }
}

fn open(state: &Path) -> AgentStore {
    AgentStore::open(state, "main").unwrap()
}

fn export(state: &Path, sid: &str) -> Vec<u8> {
    open(state).export(Some(sid), None).unwrap().jsonl.unwrap()
}

#[test]
fn lists_every_session_of_each_schema() {
    for v in VERSIONS {
        let (_d, state) = store(v);
        let agent = open(&state);
        assert_eq!(agent.kind(), StoreKind::Sqlite);
        let list = agent.list().unwrap();
        let by_id: BTreeMap<&str, _> = list.iter().map(|t| (t.session_id.as_str(), t)).collect();
        assert_eq!(by_id.len(), 5, "schema {v}");
        for (sid, events, key) in [
            (SYNTH, 283, "agent:main:synthetic-tools"),
            (F8, 33, "agent:main:openresponses-user:9e983849"),
            (SMALL, 6, "agent:main:openresponses-user:659fbde2"),
        ] {
            let t = by_id[sid];
            assert_eq!(t.availability, Availability::Available);
            assert_eq!(t.event_count, Some(events));
            assert_eq!(t.session_keys, [key]);
            assert_eq!(t.window_key.as_deref(), Some(key));
            assert_eq!(
                t.size_bytes,
                source_jsonl(sid).len() as u64,
                "decoded size of {sid}"
            );
            assert_eq!(t.path, sqlite_path(&state, "main"));
        }
        assert_eq!(by_id[MAIN].availability, Availability::Empty);
        assert_eq!(by_id[MAIN].session_keys, ["agent:main:main"]);
        // Newest activity first: the synthetic session's events are the latest.
        assert_eq!(list[0].session_id, SYNTH);
    }
}

#[test]
fn decodes_every_event_exactly_plain_and_zstd() {
    for v in VERSIONS {
        let (_d, state) = store(v);
        for sid in [SYNTH, F8, SMALL] {
            assert_eq!(export(&state, sid), source_jsonl(sid), "schema {v}, {sid}");
        }
        let info = transcript_info(&export(&state, SYNTH));
        assert_eq!((info.tool_call_count, info.tool_result_count), (99, 99));
    }
    // Schema 23 holds most tool results as zstd frames.
    let (_d, state) = store(23);
    let zstd = rows(&state, SYNTH)
        .values()
        .filter(|r| r.1.is_some())
        .count();
    assert_eq!(zstd, 97);
}

#[test]
fn resolves_ids_keys_and_prefixes() {
    let (_d, state) = store(23);
    let agent = open(&state);
    assert_eq!(agent.resolve(Some("6513")).unwrap().session_id, SYNTH);
    assert_eq!(
        agent
            .resolve(Some("agent:main:synthetic-tools"))
            .unwrap()
            .session_id,
        SYNTH
    );
    assert_eq!(
        agent.resolve(Some("synthetic-tools")).unwrap().session_id,
        SYNTH
    );
    assert_eq!(agent.resolve(Some("main")).unwrap().session_id, MAIN);
    assert_eq!(agent.resolve(None).unwrap().session_id, SYNTH);
    assert_eq!(
        agent.resolve(Some("agent:main:nope")).unwrap_err().code,
        ErrorCode::SessionNotFound
    );
    assert_eq!(
        agent.resolve(Some("../x")).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        agent.resolve(Some("a\u{0}:b")).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
}

#[test]
fn edits_equal_the_jsonl_cleaner_and_write_only_the_rows_they_change() {
    for v in VERSIONS {
        for preset in ["default", "aggressive", "extreme"] {
            let (_d, state) = store(v);
            let before_rows = rows(&state, SYNTH);
            let before_ids = identities(&state, SYNTH);
            let (generation, _, updated) = bookkeeping(&state, SYNTH);
            let source = source_jsonl(SYNTH);
            let (keep, pct) = resolve_settings(Some(preset), None, None, &[]).unwrap();
            let plan = strip_tools(&source, keep, pct).unwrap();
            let expected = plan.render(&source);

            let r = open(&state).edit(&request(SYNTH, preset, false)).unwrap();
            assert!(r.changed, "{preset} changes the synthetic session");
            assert_eq!(r.path, sqlite_path(&state, "main"));
            assert_eq!(
                export(&state, SYNTH),
                expected,
                "schema {v} {preset}: the JSONL cleaner's result"
            );
            assert_eq!(r.size_after, expected.len() as u64);
            assert_eq!(
                fs::read(r.backup_path.as_ref().unwrap()).unwrap(),
                source,
                "backup = the session as it was"
            );

            // Untouched rows are the very same bytes (zstd frames included);
            // changed rows are in identity form; deleted rows took their
            // identities with them.
            let after_rows = rows(&state, SYNTH);
            let after_ids = identities(&state, SYNTH);
            let mut changed = 0;
            for (seq, row) in &after_rows {
                let old = &before_rows[seq];
                if row != old {
                    changed += 1;
                    assert!(row.0.is_some() && row.1.is_none(), "identity form");
                    if v == 23 {
                        assert_eq!(row.2, Some(row.0.as_ref().unwrap().len() as i64));
                    }
                    assert_eq!(row.3, old.3, "created_at kept");
                }
            }
            let replaced = plan
                .edits
                .iter()
                .filter(|e| matches!(e, session_intel_core::openclaw::strip::LineEdit::Replace(_)))
                .count();
            assert_eq!(
                changed, replaced,
                "schema {v} {preset}: only changed rows written"
            );
            assert_eq!(
                before_rows.len() - after_rows.len(),
                plan.stats.entries_removed as usize
            );
            assert!(after_ids.keys().all(|s| after_rows.contains_key(s)));
            // Identity parents follow the events' parentId.
            for (seq, (id, _, parent, _)) in &after_ids {
                let json: serde_json::Value =
                    serde_json::from_slice(after_rows[seq].0.as_deref().unwrap_or(b"{}"))
                        .unwrap_or_default();
                if after_rows[seq].0.is_some() {
                    assert_eq!(json["id"].as_str(), Some(id.as_str()));
                    assert_eq!(
                        json["parentId"].as_str(),
                        parent.as_deref(),
                        "identity of {id}"
                    );
                }
            }
            assert!(after_ids.len() < before_ids.len());
            let (g2, rebuild, u2) = bookkeeping(&state, SYNTH);
            assert_ne!(g2, generation, "generation rotated");
            assert_eq!(g2.as_ref().map(|g| g.len()), Some(32));
            assert_eq!(rebuild, Some(1), "projection marked for rebuild");
            assert!(u2 > updated, "transcript_updated_at advanced");
            checks_pass(&state);
            // The other sessions are untouched.
            assert_eq!(export(&state, F8), source_jsonl(F8));
        }
    }
}

#[test]
fn dry_runs_and_edits_that_change_nothing_write_nothing() {
    for v in VERSIONS {
        let (_d, state) = store(v);
        let before = digest(&state);
        let dry = open(&state).edit(&request(SYNTH, "extreme", true)).unwrap();
        assert!(dry.dry_run && dry.changed && dry.backup_path.is_none());
        assert!(dry.strip.stats.tool_calls_removed > 0);
        let none = open(&state)
            .edit(&request(SMALL, "extreme", false))
            .unwrap();
        assert!(!none.changed);
        assert_eq!(digest(&state), before, "schema {v}: nothing written");
        assert!(
            !state.join("agents/main/session-intel-backups").exists()
                || fs::read_dir(state.join("agents/main/session-intel-backups"))
                    .unwrap()
                    .count()
                    == 0
        );
    }
}

#[test]
fn an_edit_whose_backup_cannot_be_written_changes_nothing() {
    // The backup is written while the rows are changed; the commit waits
    // for it, so a backup that fails rolls the edit back.
    for v in VERSIONS {
        let (_d, state) = store(v);
        let backups = state.join("agents/main/session-intel-backups");
        fs::write(&backups, b"a file where the backup folder goes").unwrap();
        let before = digest(&state);
        let err = open(&state)
            .edit(&request(SYNTH, "extreme", false))
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::WriteFailed, "schema {v}: {err:?}");
        assert_eq!(digest(&state), before, "schema {v}: nothing written");
        assert_eq!(
            fs::read(&backups).unwrap(),
            b"a file where the backup folder goes"
        );
        checks_pass(&state);
    }
}

#[test]
fn restore_puts_the_session_back_and_can_be_undone() {
    for v in VERSIONS {
        let (_d, state) = store(v);
        let original_ids = identities(&state, SYNTH);
        let edit = open(&state)
            .edit(&request(SYNTH, "extreme", false))
            .unwrap();
        let edited = export(&state, SYNTH);
        let restored = open(&state)
            .restore(Some("6513"), LockOptions::default(), 5)
            .unwrap();
        assert_eq!(restored.restored_from, edit.backup_path.unwrap());
        assert_eq!(
            export(&state, SYNTH),
            source_jsonl(SYNTH),
            "schema {v}: the original events"
        );
        assert_eq!(
            fs::read(&restored.replaced_backup).unwrap(),
            edited,
            "what it replaced is kept"
        );
        // As OpenClaw's full replace: seq 0..n-1, identities as derived from the events.
        let r = rows(&state, SYNTH);
        assert_eq!(
            r.keys().copied().collect::<Vec<_>>(),
            (0..283).collect::<Vec<i64>>()
        );
        let ids: BTreeSet<_> = identities(&state, SYNTH).into_values().collect();
        assert_eq!(ids, original_ids.into_values().collect::<BTreeSet<_>>());
        assert_eq!(bookkeeping(&state, SYNTH).1, Some(1));
        checks_pass(&state);
        // Restoring again undoes the restore.
        open(&state)
            .restore(Some(SYNTH), LockOptions::default(), 5)
            .unwrap();
        assert_eq!(export(&state, SYNTH), edited);
        checks_pass(&state);
        // Backups are outside sessions/, named as OpenClaw's archives, newest 5.
        for _ in 0..6 {
            open(&state)
                .restore(Some(SYNTH), LockOptions::default(), 5)
                .unwrap();
        }
        let names: Vec<String> = fs::read_dir(state.join("agents/main/session-intel-backups"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 5);
        assert!(names
            .iter()
            .all(|n| n.starts_with(&format!("{SYNTH}.jsonl.bak.2"))));
    }
}

/// A compressed event may claim 4 MiB from a frame of a few hundred bytes,
/// within the schema's CHECKs: a small database could otherwise make the
/// addon allocate far more than the machine has, which aborts the gateway.
#[test]
fn a_session_that_decodes_to_more_than_a_gibibyte_is_refused_before_it_is_read() {
    let (_d, state) = store(23);
    {
        let mut c = connect(&state);
        let tx = c.transaction().unwrap();
        let navigation: String = tx
            .query_row(
                "SELECT navigation_json FROM transcript_events WHERE navigation_json IS NOT NULL LIMIT 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let size = 4 << 20;
        let frame = zstd::bulk::compress(&vec![b'x'; size], 19).unwrap();
        assert!(frame.len() < 1024, "{}", frame.len());
        for seq in 0..257 {
            tx.execute(
                "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json) VALUES (?1, ?2, NULL, 0, ?3, ?4, ?5)",
                params![SMALL, 1000 + seq, frame, size as i64, navigation],
            )
            .unwrap();
        }
        tx.commit().unwrap();
    }
    let before = digest(&state);
    let agent = open(&state);
    for err in [
        agent.export(Some(SMALL), None).unwrap_err(),
        agent.edit(&request(SMALL, "extreme", false)).unwrap_err(),
    ] {
        assert_eq!(err.code, ErrorCode::UnsupportedStore, "{err}");
        assert!(
            err.message.contains("more than the 1073741824 bytes"),
            "{err}"
        );
    }
    // The other sessions read as before.
    assert_eq!(export(&state, F8), source_jsonl(F8));
    assert_eq!(digest(&state), before);
}

#[test]
fn cold_and_empty_sessions_are_listed_as_such_and_refused() {
    let (_d, state) = store(23);
    // Archive the small session the way OpenClaw's cold tier leaves it: a
    // cold-archive row and no events.
    {
        let c = connect(&state);
        c.execute(
            "DELETE FROM transcript_events WHERE session_id = ?1",
            [SMALL],
        )
        .unwrap();
        c.execute(
            "INSERT INTO session_transcript_cold_archives (session_id, generation, archive_name, archive_sha256, event_count, raw_bytes, archive_bytes, last_seq, archived_at, storage, archive_blob) \
             VALUES (?1, 'g', 'a.jsonl.zst', ?2, 6, 5000, 1000, 5, 1, 'file', NULL)",
            params![SMALL, "0".repeat(64)],
        )
        .unwrap();
    }
    let before = digest(&state);
    let agent = open(&state);
    let list = agent.list().unwrap();
    let small = list.iter().find(|t| t.session_id == SMALL).unwrap();
    assert_eq!(
        (small.availability, small.event_count, small.size_bytes),
        (Availability::Cold, Some(6), 5000)
    );
    for (sid, word) in [(SMALL, "cold archive"), (MAIN, "no events")] {
        for err in [
            agent.edit(&request(sid, "extreme", false)).unwrap_err(),
            agent.export(Some(sid), None).unwrap_err(),
        ] {
            assert_eq!(err.code, ErrorCode::TranscriptUnavailable, "{err}");
            assert!(err.message.contains(word), "{err}");
        }
    }
    assert_eq!(digest(&state), before);
}

#[test]
fn other_schema_versions_and_changed_tables_are_refused_untouched() {
    let cases: [(&str, &str); 4] = [
        ("PRAGMA user_version = 22; UPDATE schema_meta SET schema_version = 22 WHERE meta_key = 'primary'", "version 22"),
        ("PRAGMA user_version = 24; UPDATE schema_meta SET schema_version = 24 WHERE meta_key = 'primary'", "version 24"),
        ("UPDATE schema_meta SET schema_version = 19 WHERE meta_key = 'primary'", "schema_meta says agent schema 19"),
        ("ALTER TABLE transcript_events ADD COLUMN extra TEXT", "table transcript_events"),
    ];
    for (change, says) in cases {
        let (_d, state) = store(23);
        connect(&state).execute_batch(change).unwrap();
        let before = digest(&state);
        let agent = open(&state);
        for err in [
            agent.list().unwrap_err(),
            agent.edit(&request(SYNTH, "extreme", false)).unwrap_err(),
            agent
                .restore(Some(SYNTH), LockOptions::default(), 5)
                .unwrap_err(),
        ] {
            assert_eq!(err.code, ErrorCode::UnsupportedStore, "{change}: {err}");
            assert!(err.message.contains(says), "{err}");
            assert!(err.hint.as_deref().unwrap().contains("19, 21, 23"));
        }
        assert_eq!(digest(&state), before);
    }
}

#[test]
fn a_running_gateway_blocks_edits_of_sessions_that_are_not_idle() {
    let (_d, state) = store(23);
    let lock_dir = gateway::lock_dir(&state);
    fs::create_dir_all(&lock_dir).unwrap();
    let lock = lock_dir.join("gateway.state.lock");
    let idle_since = chrono::Utc::now().timestamp_millis() - 60_000;
    connect(&state)
        .execute(
            "UPDATE session_windows SET transcript_updated_at = ?1",
            [idle_since],
        )
        .unwrap();
    // A live gateway (this process stands in for its pid).
    fs::write(
        &lock,
        format!(
            r#"{{"pid":{},"ownerId":"x","createdAt":"2026-11-23T00:00:00.000Z"}}"#,
            std::process::id()
        ),
    )
    .unwrap();
    assert_eq!(
        gateway::state_owner(&state).map(|o| o.role),
        Some("gateway".to_owned())
    );
    let busy_cases = [
        "UPDATE session_nodes SET status = 'running' WHERE current_session_id = ?1",
        "UPDATE session_windows SET status = 'running' WHERE session_id = ?1",
        "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.lifecycleRunId', 'run-1') WHERE current_session_id = ?1",
        "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.status', 'running') WHERE current_session_id = ?1",
        "UPDATE session_windows SET transcript_updated_at = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE session_id = ?1",
        "INSERT INTO session_pending_inputs (input_id, session_key, session_id, idempotency_key, run_id, request_hash, message_json, lifecycle_generation, state, accepted_at) \
         SELECT 'i1', session_key, session_id, 'k1', 'r1', 'h', '{}', 'g', 'queued', 1 FROM session_windows WHERE session_id = ?1",
    ];
    for case in busy_cases {
        let (_d2, s2) = store(23);
        fs::create_dir_all(gateway::lock_dir(&s2)).unwrap();
        fs::copy(&lock, gateway::lock_dir(&s2).join("gateway.state.lock")).unwrap();
        let c = connect(&s2);
        c.execute(
            "UPDATE session_windows SET transcript_updated_at = ?1",
            [idle_since],
        )
        .unwrap();
        c.execute(case, [SYNTH]).unwrap();
        drop(c);
        let before = digest(&s2);
        let err = open(&s2).edit(&request(SYNTH, "extreme", false)).err();
        assert_eq!(err.map(|e| e.code), Some(ErrorCode::SessionBusy), "{case}");
        assert_eq!(digest(&s2), before);
        // A dry run only reads: it is allowed.
        assert!(open(&s2).edit(&request(SYNTH, "extreme", true)).is_ok());
        // A caller whose own write was the last one (a chat command) may
        // waive the quiet period, and nothing else.
        let own_write = request(SYNTH, "extreme", false);
        let waived = open(&s2).edit(&EditRequest {
            quiet_ms: 0,
            ..own_write
        });
        if case.contains("transcript_updated_at") {
            assert!(waived.is_ok(), "{case}: {:?}", waived.err());
        } else {
            assert_eq!(
                waived.err().map(|e| e.code),
                Some(ErrorCode::SessionBusy),
                "{case}"
            );
            assert_eq!(digest(&s2), before);
        }
    }
    // Idle with the gateway up: allowed.
    open(&state)
        .edit(&request(SYNTH, "extreme", false))
        .unwrap();
    // A lock whose process is gone is no owner at all; a session still
    // marked running is then a crashed turn OpenClaw will resume: refused.
    fs::write(&lock, r#"{"pid":999999999}"#).unwrap();
    assert!(gateway::state_owner(&state).is_none());
    open(&state).edit(&request(F8, "default", false)).unwrap();
    connect(&state)
        .execute(
            "UPDATE session_nodes SET status = 'running' WHERE current_session_id = ?1",
            [F8],
        )
        .unwrap();
    let err = open(&state)
        .edit(&request(F8, "extreme", false))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::SessionBusy);
    assert!(err.message.contains("crash"), "{err}");
}

#[test]
fn a_state_owner_is_found_by_its_coordinator_pid_and_start_time() {
    let (_d, state) = store(23);
    let dir = gateway::lock_dir(&state);
    fs::create_dir_all(&dir).unwrap();
    let lock = dir.join("gateway.state.lock");
    // The coordinator held exclusively, as a live owner holds it, makes the
    // owner live whatever the lock file says.
    let coordinator = Connection::open(dir.join("gateway.state.lock.sqlite")).unwrap();
    coordinator
        .execute_batch("PRAGMA journal_mode = MEMORY; BEGIN EXCLUSIVE")
        .unwrap();
    fs::write(&lock, r#"{"pid":999999999,"role":"sqlite-maintenance"}"#).unwrap();
    let owner = gateway::state_owner(&state).unwrap();
    assert!(owner.is_maintenance());
    let before = digest(&state);
    let err = open(&state)
        .edit(&request(F8, "extreme", false))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::SessionBusy);
    assert!(err.message.contains("doctor"), "{err}");
    assert_eq!(digest(&state), before);
    coordinator.execute_batch("ROLLBACK").unwrap();
    drop(coordinator);
    assert!(
        gateway::state_owner(&state).is_none(),
        "released coordinator, dead pid"
    );
    // A live pid whose start time differs from the recorded one was reused.
    let me = std::process::id();
    fs::write(&lock, format!(r#"{{"pid":{me},"startTime":1}}"#)).unwrap();
    assert!(gateway::state_owner(&state).is_none());
    fs::write(&lock, format!(r#"{{"pid":{me}}}"#)).unwrap();
    assert!(gateway::state_owner(&state).is_some());
}

#[test]
fn exports_and_clones_to_jsonl_and_refuses_to_register_a_clone() {
    let (d, state) = store(23);
    let out = d.path().join("out.jsonl");
    let r = open(&state).export(Some(F8), Some(&out)).unwrap();
    assert_eq!(
        (r.event_count, r.bytes),
        (33, source_jsonl(F8).len() as u64)
    );
    assert_eq!(fs::read(&out).unwrap(), source_jsonl(F8));
    #[cfg(unix)]
    assert_eq!(
        session_intel_core::platform::mode(&fs::metadata(&out).unwrap()),
        0o600
    );
    assert_eq!(
        open(&state).export(Some(F8), Some(&out)).unwrap_err().code,
        ErrorCode::InvalidArgument,
        "never overwrites"
    );
    let sessions = state.join("agents/main/sessions");
    fs::create_dir_all(&sessions).unwrap();
    assert_eq!(
        open(&state)
            .export(Some(F8), Some(&sessions.join("x.jsonl")))
            .unwrap_err()
            .code,
        ErrorCode::InvalidArgument
    );

    let before = digest(&state);
    let registered = CloneRequest {
        session: Some(SYNTH.into()),
        strip: Some((0, 0)),
        output: None,
        no_register: false,
    };
    let err = open(&state).clone_session(&registered).unwrap_err();
    assert_eq!(err.code, ErrorCode::UnsupportedStore);
    assert!(err.hint.unwrap().contains("--no-register"));
    let copy = d.path().join("copy.jsonl");
    let c = open(&state)
        .clone_session(&CloneRequest {
            output: Some(copy.clone()),
            no_register: true,
            ..registered
        })
        .unwrap();
    assert_eq!(c.stats.tool_calls_removed, 99);
    let text = fs::read_to_string(&copy).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["id"], c.cloned_session_id.as_str());
    assert_eq!(header["parentSession"], SYNTH);
    assert_eq!(digest(&state), before, "the store is untouched");
}

/// Appends an event the way OpenClaw's append does: the next seq, its
/// identity row, the mutation time advanced; the generation kept.
fn append_event(c: &Connection, sid: &str, json: &str) {
    let seq: i64 = c
        .query_row(
            "SELECT coalesce(max(seq), -1) + 1 FROM transcript_events WHERE session_id = ?1",
            [sid],
            |r| r.get(0),
        )
        .unwrap();
    let zstd = c
        .prepare("SELECT 1 FROM pragma_table_info('transcript_events') WHERE name = 'event_zstd'")
        .unwrap()
        .exists([])
        .unwrap();
    if zstd {
        c.execute(
            "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?1, ?2, ?3, 1, ?4)",
            params![sid, seq, json, json.len() as i64],
        )
        .unwrap();
    } else {
        c.execute(
            "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?1, ?2, ?3, 1)",
            params![sid, seq, json],
        )
        .unwrap();
    }
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    c.execute(
        "INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5, 1)",
        params![sid, v["id"].as_str(), seq, v["type"].as_str(), v["parentId"].as_str()],
    )
    .unwrap();
    c.execute(
        "UPDATE session_windows SET transcript_updated_at = coalesce(transcript_updated_at, 0) + 1 WHERE session_id = ?1",
        [sid],
    )
    .unwrap();
}

const LAST_SYNTH: &str = "69ac0f03";
const LATE_APPEND: &str = r#"{"type":"message","id":"late0001","parentId":"69ac0f03","timestamp":"2026-06-01T11:00:00.000Z","message":{"role":"user","content":"one more thing","timestamp":9}}"#;

/// The child process of the concurrency tests: holds a write transaction
/// on the database for a while, appending an event in it when asked, as
/// an OpenClaw writer would. Does nothing unless spawned by a test.
#[test]
#[ignore = "spawned by the concurrency tests as a second process"]
fn writer_process() {
    let Ok(db) = std::env::var("OSI_WRITER_DB") else {
        return;
    };
    let hold: u64 = std::env::var("OSI_WRITER_HOLD_MS")
        .unwrap()
        .parse()
        .unwrap();
    let c = Connection::open(db).unwrap();
    c.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
    c.execute_batch("PRAGMA foreign_keys = ON; BEGIN IMMEDIATE")
        .unwrap();
    println!("LOCKED");
    use std::io::Write;
    std::io::stdout().flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(hold));
    if std::env::var("OSI_WRITER_APPEND").is_ok() {
        append_event(&c, SYNTH, LATE_APPEND);
    }
    c.execute_batch("COMMIT").unwrap();
}

/// The tests that time an edit against a writer in another process run one
/// at a time: the addon's SQLite operations in one process take turns, and
/// an edit waiting out the busy timeout in one test would hold the other's
/// edit back past its writer's hold.
static WRITER_TESTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// This test's turn among those that start a [`writer_process`].
fn writer_test_turn() -> std::sync::MutexGuard<'static, ()> {
    WRITER_TESTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts [`writer_process`] in a second process and waits until it holds
/// the write lock.
fn spawn_writer(state: &Path, hold_ms: u64, append: bool) -> std::process::Child {
    use std::io::BufRead;
    // The test's name in this binary: its module path below the crate's.
    let name = match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::writer_process"),
        None => "writer_process".to_owned(),
    };
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        &name,
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env("OSI_WRITER_DB", sqlite_path(state, "main"))
    .env("OSI_WRITER_HOLD_MS", hold_ms.to_string())
    .stdout(std::process::Stdio::piped());
    if append {
        cmd.env("OSI_WRITER_APPEND", "1");
    }
    let mut child = cmd.spawn().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("LOCKED") {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the writer process ended early"
        );
    }
    // Keep reading, so that the child's last words find an open pipe.
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    child
}

#[test]
fn an_edit_waits_for_a_writer_holding_the_lock_and_gives_up_after_the_busy_timeout() {
    let _turn = writer_test_turn();
    let (_d, state) = store(23);
    let source = source_jsonl(SYNTH);
    let expected = strip_tools(&source, 0, 0).unwrap().render(&source);
    // Timed from before the writer starts: it holds the lock for 1.5 s
    // from the moment it has it, however late this reads that it does.
    let started = std::time::Instant::now();
    let mut writer = spawn_writer(&state, 1500, false);
    let r = open(&state)
        .edit(&request(SYNTH, "extreme", false))
        .unwrap();
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(1500),
        "it waited for the lock"
    );
    assert!(r.changed);
    assert_eq!(export(&state, SYNTH), expected);
    assert!(writer.wait().unwrap().success());

    let (_d, state) = store(23);
    let before = digest(&state);
    // The writer holds the lock well past the 5 s busy timeout, so that a
    // loaded machine (CI runs suites side by side) still sees the edit give
    // up rather than the writer let go.
    let mut writer = spawn_writer(&state, 12_000, false);
    let started = std::time::Instant::now();
    let err = open(&state)
        .edit(&request(SYNTH, "extreme", false))
        .err()
        .unwrap();
    let waited = started.elapsed();
    assert_eq!(err.code, ErrorCode::SessionBusy, "{err}");
    assert!(
        waited >= std::time::Duration::from_millis(4500)
            && waited < std::time::Duration::from_millis(11_000),
        "{waited:?}"
    );
    assert!(writer.wait().unwrap().success());
    assert_eq!(digest(&state), before, "nothing changed");
    assert_eq!(
        fs::read_dir(state.join("agents/main/session-intel-backups"))
            .unwrap()
            .count(),
        0,
        "the unused backup is gone"
    );
}

#[test]
fn an_append_between_plan_and_commit_is_kept_and_the_edit_refused() {
    let _turn = writer_test_turn();
    for v in VERSIONS {
        let (_d, state) = store(v);
        // The writer appends after holding the lock long enough for the
        // edit to have planned on what was there before, also on a loaded
        // machine.
        let mut writer = spawn_writer(&state, 3000, true);
        let err = open(&state)
            .edit(&request(SYNTH, "extreme", false))
            .err()
            .unwrap();
        assert!(writer.wait().unwrap().success());
        assert_eq!(
            err.code,
            ErrorCode::ConcurrentModification,
            "schema {v}: {err}"
        );
        // Every original event and the appended one are there, unchanged.
        let mut expected = source_jsonl(SYNTH);
        expected.extend_from_slice(LATE_APPEND.as_bytes());
        expected.push(b'\n');
        assert_eq!(export(&state, SYNTH), expected);
        assert_eq!(
            fs::read_dir(state.join("agents/main/session-intel-backups"))
                .unwrap()
                .count(),
            0
        );
        // Run again, it edits and keeps the appended message.
        open(&state)
            .edit(&request(SYNTH, "extreme", false))
            .unwrap();
        assert!(String::from_utf8(export(&state, SYNTH))
            .unwrap()
            .ends_with(&format!("{LATE_APPEND}\n")));
        checks_pass(&state);
    }
}

#[test]
fn handoff_reads_the_messages_a_reset_hides_from_the_sqlite_store() {
    use session_intel_core::handoff::store::{
        commit_capture, handoff_status, prepare_capture, CaptureRequest, HandoffDir,
    };
    let capture = |state: &Path, trigger: &str| {
        let req = CaptureRequest {
            agent_id: "main".into(),
            session_id: Some("synthetic-tools".into()),
            state_dir: state.to_path_buf(),
            project: None,
            mode: None,
            trigger: trigger.into(),
            expiry_hours: 24.0,
            message_limit: 50,
            summarize_timeout_ms: 1000,
            now: chrono::Utc::now(),
        };
        prepare_capture(&req).unwrap()
    };
    for v in VERSIONS {
        let (_d, state) = store(v);
        let before = capture(&state, "manual").request.messages;
        assert_eq!(before.last().unwrap().text, "Done with task 38.");
        // /reset recorded as OpenClaw 2026.9 does it, in the same session.
        let c = connect(&state);
        append_event(
            &c,
            SYNTH,
            &format!(
                r#"{{"type":"reset","id":"rst00001","parentId":"{LAST_SYNTH}","timestamp":"2026-06-01T11:00:00.000Z","reason":"reset"}}"#
            ),
        );
        drop(c);
        // Captured after the boundary was written (chat /reset): the hidden messages.
        let hidden = capture(&state, "command:reset");
        assert_eq!(hidden.request.messages, before, "schema {v}");
        assert_eq!(hidden.request.trigger, "reset");
        let state_file = commit_capture(hidden, chrono::Utc::now()).unwrap();
        assert_eq!(state_file.transcript_store, "sqlite");
        assert_eq!(state_file.previous_session_id.as_deref(), Some(SYNTH));
        assert_eq!(state_file.session_key, "agent:main:synthetic-tools");
        let status = handoff_status(&HandoffDir::of(&state, "main"), chrono::Utc::now());
        assert_eq!(status.transcript_intact, Some(true));
        // The next conversation after the reset is its own stretch.
        let c = connect(&state);
        append_event(
            &c,
            SYNTH,
            r#"{"type":"message","id":"new00001","parentId":"rst00001","timestamp":"2026-06-01T11:01:00.000Z","message":{"role":"user","content":"fresh start","timestamp":9}}"#,
        );
        drop(c);
        let after = capture(&state, "manual").request.messages;
        assert_eq!(after.len(), 1);
        assert_eq!(after[0].text, "fresh start");
        // An edit rewrites what the capture hashed.
        open(&state)
            .edit(&request(SYNTH, "extreme", false))
            .unwrap();
        let status = handoff_status(&HandoffDir::of(&state, "main"), chrono::Utc::now());
        assert_eq!(status.transcript_intact, Some(false));
    }
}

#[test]
fn refuses_a_database_another_sqlite_of_this_process_has_open() {
    let (_d, state) = store(23);
    // Any descriptor of this process on the file counts: here a plain one,
    // as a foreign SQLite library (the gateway's node:sqlite) would hold.
    let held = fs::File::open(sqlite_path(&state, "main")).unwrap();
    let before = digest(&state);
    for err in [
        open(&state).list().unwrap_err(),
        open(&state)
            .edit(&request(SYNTH, "extreme", false))
            .err()
            .unwrap(),
    ] {
        assert_eq!(err.code, ErrorCode::UnsupportedStore);
        assert!(err.hint.unwrap().contains("separate process"));
    }
    drop(held);
    assert_eq!(digest(&state), before);
    assert_eq!(
        open(&state).list().unwrap().len(),
        5,
        "fine once it is closed"
    );
}
