//! Builds the benchmark's SQLite agent stores from a real one (the schema 23
//! fixture OpenClaw 2026.9.6 wrote), for `npm run bench`:
//! `cargo run --release -p session-intel-core --example sqlite_bench_store -- <template.sqlite> <out.sqlite> <key> <transcript.jsonl> [<copies>]`
//!
//! Adds `<copies>` sessions (default 1) holding the transcript's events, as
//! OpenClaw's import does (a session node and window, the events as seq
//! 0..n-1 with their identity rows), then stores every event of 1 KiB to
//! 4 MiB without `\u` escapes as a level-1 zstd frame with a navigation
//! record, as OpenClaw 2026.9.6 does, so that reads decode what real stores
//! hold. The first copy's key is `<key>`, the others `<key>-<n>`.

use rusqlite::{params, Connection};
use session_intel_core::openclaw::store::sqlite::{schema, write};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [template, out, key, transcript] = &args[..4] else {
        panic!("usage: sqlite_bench_store <template.sqlite> <out.sqlite> <key> <transcript.jsonl> [<copies>]");
    };
    let copies: usize = args
        .get(4)
        .map_or(1, |n| n.parse().expect("a number of copies"));
    std::fs::write(
        out,
        std::fs::read(template).expect("read the template store"),
    )
    .expect("write the store");
    let text = std::fs::read(transcript).expect("read the transcript");
    let lines: Vec<&[u8]> = text
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut conn = Connection::open(out).unwrap();
    conn.execute_batch("PRAGMA foreign_keys = ON").unwrap();
    let schema = schema::check(&conn, std::path::Path::new(out)).expect("a supported store");
    let now = chrono::Utc::now().timestamp_millis();
    let tx = conn.transaction().unwrap();
    for n in 0..copies {
        let key = if n == 0 {
            key.clone()
        } else {
            format!("{key}-{n}")
        };
        let sid = uuid::Uuid::new_v4().to_string();
        let at = now - (copies - n) as i64 * 1000;
        tx.execute(
            "INSERT INTO session_nodes (session_key, current_session_id, entry_json, entry_valid, updated_at) \
             VALUES (?1, ?2, json_object('sessionId', ?2, 'updatedAt', ?3), 1, ?3)",
            params![key, sid, at],
        )
        .unwrap();
        tx.execute(
            "INSERT INTO session_windows (session_id, session_key, created_at, updated_at, transcript_updated_at) VALUES (?1, ?2, ?3, ?3, ?3)",
            params![sid, key, at],
        )
        .unwrap();
        write::replace_all(&tx, &schema, &sid, &lines, at).unwrap();
    }
    if schema.compressed_events {
        let rows: Vec<(String, i64, String)> = tx
            .prepare("SELECT session_id, seq, event_json FROM transcript_events WHERE event_json IS NOT NULL AND octet_length(event_json) BETWEEN 1024 AND 4194304 AND instr(event_json, '\\u') = 0 AND seq > 0")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let mut update = tx
            .prepare("UPDATE transcript_events SET event_json = NULL, event_zstd = ?3, event_utf8_bytes = ?4, navigation_json = ?5 WHERE session_id = ?1 AND seq = ?2")
            .unwrap();
        let mut encoder = zstd::bulk::Compressor::new(1).unwrap();
        encoder.include_checksum(true).unwrap();
        for (sid, seq, json) in rows {
            let frame = encoder.compress(json.as_bytes()).unwrap();
            if frame.len() + 200 > json.len() - (json.len() / 10).max(64) {
                continue; // OpenClaw stores it plain when zstd saves too little
            }
            let n = json.len();
            let navigation = format!(
                r#"{{"version":1,"report":{{"kind":"canonical"}},"navigation":{{}},"reset":{{}},"model":{{}},"modelBytes":{n},"modelWithoutCheckpointBytes":{n},"withoutCustomDataBytes":{n}}}"#
            );
            update
                .execute(params![sid, seq, frame, n as i64, navigation])
                .unwrap();
        }
    }
    tx.commit().unwrap();
    // Give back the pages the plain rows took before compression, as
    // OpenClaw's maintenance does on its incremental-vacuum stores.
    // (The pragma frees one page per step: step it to the end.)
    let mut vacuum = conn.prepare("PRAGMA incremental_vacuum").unwrap();
    let mut freed = vacuum.query([]).unwrap();
    while freed.next().unwrap().is_some() {}
    drop(freed);
    drop(vacuum);
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
}
