//! OpenClaw's SQLite events decoded from rows: the rows of one session, as
//! OpenClaw writes them or as a damaged database may hold them, are written
//! into an in-memory copy of a real agent database (schema 19 or 23); the
//! decoder never panics, and it gives exactly what each row holds, in `seq`
//! order (text as stored, a zstd frame decompressed to its recorded size),
//! or a coded error where a row is not one OpenClaw could have written.
//!
//! Input: a flags byte (bit 0: schema 23, else 19; bit 1: the schema's
//! CHECK constraints off, as in a damaged database), then rows, each
//! `kind, seq step, length (u16 LE), payload` and for kinds 1 and 2 a
//! size: kind 0 is text, kind 1 text stored as a zstd frame (size: an i8
//! added to the true size), kind 2 a raw frame (size: i32 LE), kind 3 a row
//! with neither. Seeds in `corpus/sqlite_rows/` come from the fixtures' rows.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rusqlite::{params, Connection, MAIN_DB};
use session_intel_core::error::ErrorCode;
use session_intel_core::openclaw::store::sqlite::{
    schema, SqliteStore, MAX_EVENT_BYTES, MAX_SESSION_BYTES,
};
use std::cell::RefCell;
use std::path::{Path, PathBuf};

const SESSION: &str = "00000000-0000-4000-8000-00000000f022";

/// A row as the input gives it.
enum Payload {
    Text(Vec<u8>),
    /// A frame and the size recorded beside it.
    Frame(Vec<u8>, i64),
    Neither,
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/shared/openclaw-sqlite")
        .join(name)
        .join("agents/main/agent/openclaw-agent.sqlite")
}

/// An in-memory copy of a real agent database of each schema, made once.
struct Store {
    conn: Connection,
    schema: schema::Schema,
    /// A `navigation_json` that passes the schema's CHECK.
    navigation: Option<String>,
}

impl Store {
    fn open(name: &str) -> Store {
        // Copied first: opening a database in WAL mode writes beside it.
        let copy = std::env::temp_dir().join(format!("sqlite_rows-{}-{name}", std::process::id()));
        std::fs::copy(fixture(name), &copy).unwrap();
        let mut conn = Connection::open_in_memory().unwrap();
        conn.restore(MAIN_DB, &copy, None::<fn(_)>).unwrap();
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", copy.display()));
        }
        let schema = schema::check(&conn, Path::new(name)).unwrap();
        let navigation = if schema.compressed_events {
            conn.query_row(
                "SELECT navigation_json FROM transcript_events WHERE navigation_json IS NOT NULL LIMIT 1",
                [],
                |r| r.get(0),
            )
            .ok()
        } else {
            None
        };
        Store {
            conn,
            schema,
            navigation,
        }
    }
}

thread_local! {
    static STORES: RefCell<[Store; 2]> = RefCell::new([Store::open("v19-2026.8.2"), Store::open("v23-2026.9.6")]);
}

/// The rows of an input, in input order, with their `seq`.
fn rows(mut data: &[u8]) -> Vec<(i64, Payload)> {
    let mut out = Vec::new();
    let mut seq = 0i64;
    while let [kind, step, lo, hi, rest @ ..] = data {
        seq += i64::from(*step as i8);
        let len = usize::from(u16::from_le_bytes([*lo, *hi])).min(rest.len());
        let (bytes, rest) = rest.split_at(len);
        data = rest;
        let payload = match kind % 4 {
            0 => Payload::Text(bytes.to_vec()),
            1 => {
                let Some((&off, rest)) = data.split_first() else {
                    break;
                };
                data = rest;
                let frame = zstd::bulk::compress(bytes, 1).unwrap();
                Payload::Frame(frame, bytes.len() as i64 + i64::from(off as i8))
            }
            2 => {
                let [a, b, c, d, rest @ ..] = data else {
                    break;
                };
                data = rest;
                Payload::Frame(
                    bytes.to_vec(),
                    i64::from(i32::from_le_bytes([*a, *b, *c, *d])),
                )
            }
            _ => Payload::Neither,
        };
        out.push((seq, payload));
    }
    out
}

/// What one row decodes to, by the rules the decoder must follow: `None`
/// where the row is not one OpenClaw could have written.
fn expected(payload: &Payload) -> Option<Vec<u8>> {
    let bytes = match payload {
        Payload::Text(text) => text.clone(),
        Payload::Frame(frame, size) => {
            if !(1..=MAX_EVENT_BYTES).contains(size) {
                return None;
            }
            let text = zstd::stream::decode_all(&frame[..]).ok()?;
            if text.len() as i64 != *size {
                return None;
            }
            text
        }
        Payload::Neither => return None,
    };
    (memchr::memchr(b'\n', &bytes).is_none()).then_some(bytes)
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, data)) = data.split_first() else {
        return;
    };
    let compressed = flags & 1 == 1;
    let damaged = flags & 2 == 2;
    STORES.with_borrow_mut(|stores| {
        let store = &mut stores[usize::from(compressed)];
        let conn = &store.conn;
        conn.execute("DELETE FROM transcript_events WHERE session_id = ?1", [SESSION])
            .unwrap();
        conn.pragma_update(None, "ignore_check_constraints", damaged)
            .unwrap();
        // The rows the database took (a CHECK, the primary key or the
        // column types may refuse one), by seq.
        let mut stored: Vec<(i64, Payload)> = Vec::new();
        for (seq, payload) in rows(data) {
            let taken = match &payload {
                Payload::Text(text) => conn.execute(
                    "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?1, ?2, CAST(?3 AS TEXT), 0)",
                    params![SESSION, seq, text],
                ),
                Payload::Frame(frame, size) if store.schema.compressed_events => conn.execute(
                    "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json) VALUES (?1, ?2, NULL, 0, ?3, ?4, ?5)",
                    params![SESSION, seq, frame, size, store.navigation],
                ),
                Payload::Neither if damaged => conn.execute(
                    "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?1, ?2, NULL, 0)",
                    params![SESSION, seq],
                ),
                _ => continue,
            };
            if taken.is_ok() {
                stored.push((seq, payload));
            }
        }
        stored.sort_by_key(|(seq, _)| *seq);

        let declared: i64 = stored
            .iter()
            .map(|(_, p)| match p {
                Payload::Text(text) => text.len() as i64 + 1,
                Payload::Frame(_, size) => size + 1,
                Payload::Neither => 1,
            })
            .sum();
        let want: Option<(Vec<u8>, Vec<i64>)> = (declared <= MAX_SESSION_BYTES)
            .then(|| {
                let mut jsonl = Vec::new();
                for (_, payload) in &stored {
                    jsonl.extend(expected(payload)?);
                    jsonl.push(b'\n');
                }
                Some((jsonl, stored.iter().map(|(seq, _)| *seq).collect()))
            })
            .flatten();

        let db = SqliteStore::new("main", Path::new("/nonexistent"), PathBuf::new());
        match db.read_events(&mut store.conn, &store.schema, SESSION) {
            Ok((events, _)) => {
                let (jsonl, seqs) = want.expect("the decoder accepted rows OpenClaw cannot write");
                assert!(events.bytes() == jsonl, "the decoded events differ from the rows");
                assert_eq!(events.seqs(), seqs);
            }
            Err(err) => {
                assert!(
                    want.is_none(),
                    "rows OpenClaw writes were refused: {}",
                    err.message
                );
                assert!(
                    matches!(err.code, ErrorCode::Parse | ErrorCode::UnsupportedStore),
                    "{:?}: {}",
                    err.code,
                    err.message
                );
            }
        }
    });
});
