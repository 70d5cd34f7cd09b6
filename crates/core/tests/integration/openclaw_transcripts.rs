//! Listing, resolving and reading OpenClaw transcripts on the real moltbot
//! fixtures (fixtures/shared/openclaw) and generated edge cases.

use session_intel_core::openclaw::store::AgentStore;
use session_intel_core::openclaw::transcripts::transcript_info;
use session_intel_core::ErrorCode;
use std::fs;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/shared/openclaw/moltbot-2026-01-31")
}

/// A state dir whose agent `main` holds a writable copy of the fixtures.
fn state() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("agents/main/sessions");
    fs::create_dir_all(&sessions).unwrap();
    for entry in fs::read_dir(fixtures()).unwrap().flatten() {
        fs::copy(entry.path(), sessions.join(entry.file_name())).unwrap();
    }
    let state = dir.path().to_path_buf();
    (dir, state)
}

fn sessions_dir(state: &Path) -> PathBuf {
    state.join("agents/main/sessions")
}

fn touch(path: &Path, secs_ago: u64) {
    let t = std::time::SystemTime::now() - std::time::Duration::from_secs(secs_ago);
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

#[test]
fn lists_live_transcripts_with_their_index_entries_newest_first() {
    let (_dir, state) = state();
    let agent = AgentStore::open(&state, "Main").unwrap();
    let sessions = &sessions_dir(&state);
    touch(
        &sessions.join("1b975ccf-9dbe-4f4e-9d2b-8abe12178979.jsonl"),
        100,
    );
    touch(
        &sessions.join("f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1.jsonl"),
        10,
    );
    // Archives, checkpoints and backups are not live transcripts.
    for other in [
        "f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1.jsonl.bak.2026-01-31T11-00-00.000Z",
        "x.checkpoint.1234.jsonl",
        "x.trajectory.jsonl",
        "x.corrupt-2026-01-31-abcd1234.jsonl",
        "old.jsonl.reset.2026-01-30T10-00-00.000Z",
    ] {
        fs::write(sessions.join(other), "{}\n").unwrap();
    }
    let list = agent.list().unwrap();
    let ids: Vec<&str> = list.iter().map(|t| t.session_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1",
            "1b975ccf-9dbe-4f4e-9d2b-8abe12178979"
        ]
    );
    assert_eq!(
        list[0].session_keys,
        ["agent:main:openresponses-user:9e983849"]
    );
    assert_eq!(
        list[0].updated_at.unwrap().timestamp_millis(),
        1769847231376
    );
    assert_eq!(list[0].size_bytes, 36911);
    assert_eq!(list[1].size_bytes, 2340);
}

#[test]
fn resolves_full_ids_unique_prefixes_and_the_most_recent() {
    let (_dir, state) = state();
    let agent = AgentStore::open(&state, "main").unwrap();
    touch(
        &sessions_dir(&state).join("1b975ccf-9dbe-4f4e-9d2b-8abe12178979.jsonl"),
        5,
    );
    touch(
        &sessions_dir(&state).join("f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1.jsonl"),
        500,
    );
    assert_eq!(
        agent.resolve(None).unwrap().session_id,
        "1b975ccf-9dbe-4f4e-9d2b-8abe12178979"
    );
    assert_eq!(
        agent.resolve(Some("f8c")).unwrap().session_id,
        "f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1"
    );
    assert_eq!(
        agent
            .resolve(Some("1b975ccf-9dbe-4f4e-9d2b-8abe12178979"))
            .unwrap()
            .size_bytes,
        2340
    );
    fs::write(
        sessions_dir(&state).join("f8c99999-0000-4000-8000-000000000000.jsonl"),
        "",
    )
    .unwrap();
    let err = agent.resolve(Some("f8c")).unwrap_err();
    assert_eq!(err.code, ErrorCode::AmbiguousSession);
    assert!(
        err.message.contains("f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1")
            && err.message.contains("f8c99999")
    );
    assert_eq!(
        agent.resolve(Some("zzz")).unwrap_err().code,
        ErrorCode::SessionNotFound
    );
    assert_eq!(
        agent.resolve(Some("../../x")).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
}

#[test]
fn agents_that_do_not_exist_or_use_sqlite_are_refused_with_codes() {
    let (_dir, state) = state();
    let err = AgentStore::open(&state, "ops").unwrap_err();
    assert_eq!(err.code, ErrorCode::AgentNotFound);
    assert_eq!(err.hint.as_deref(), Some("available agents: main"));
    fs::create_dir_all(state.join("agents/main/agent")).unwrap();
    fs::write(
        state.join("agents/main/agent/openclaw-agent.sqlite"),
        "SQLite format 3\0",
    )
    .unwrap();
    // The database wins over the sessions folder; a file that is not a
    // database is refused when it is read.
    let agent = AgentStore::open(&state, "main").unwrap();
    let err = agent.list().unwrap_err();
    assert_eq!(err.code, ErrorCode::Parse, "{err}");
    assert!(err.hint.unwrap().contains("openclaw doctor"));
    let empty = tempfile::tempdir().unwrap();
    fs::create_dir_all(empty.path().join("agents/main/sessions")).unwrap();
    let agent = AgentStore::open(empty.path(), "main").unwrap();
    assert_eq!(agent.resolve(None).unwrap_err().code, ErrorCode::NoSessions);
}

#[test]
fn counts_what_a_transcript_holds() {
    let f8 = transcript_info(
        &fs::read(fixtures().join("f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1.jsonl")).unwrap(),
    );
    assert_eq!(f8.format_version, 3);
    assert_eq!(f8.cwd.as_deref(), Some("/home/admin/clawd"));
    assert_eq!(f8.entry_count, 32);
    assert_eq!(f8.message_count, 27);
    assert_eq!(
        (
            f8.messages_by_role["user"],
            f8.messages_by_role["assistant"],
            f8.messages_by_role["toolResult"]
        ),
        (3, 13, 11)
    );
    assert_eq!(
        (
            f8.tool_call_count,
            f8.tool_result_count,
            f8.compaction_count
        ),
        (11, 11, 2)
    );
    assert_eq!(f8.entries_by_type["compaction"], 2);
    assert!(f8.turns_with_tools >= 1 && f8.turns_with_tools <= f8.turn_count);
    assert!(f8.estimated_tokens > 100);
    let small = transcript_info(
        &fs::read(fixtures().join("1b975ccf-9dbe-4f4e-9d2b-8abe12178979.jsonl")).unwrap(),
    );
    assert_eq!(
        (
            small.message_count,
            small.thinking_block_count,
            small.tool_call_count,
            small.turns_with_tools
        ),
        (2, 1, 0, 0)
    );
    assert_eq!(small.entries_by_type["custom"], 1);
    // An empty transcript and a v1 header are fine; garbage lines are counted.
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("e.jsonl");
    fs::write(&empty, "").unwrap();
    assert_eq!(transcript_info(&fs::read(&empty).unwrap()).message_count, 0);
    let v1 = dir.path().join("v1.jsonl");
    fs::write(&v1, "{\"type\":\"session\",\"id\":\"x\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\nnot json\n{\"type\":\"message\",\"message\":{\"role\":\"bashExecution\",\"command\":\"ls\"}}\n").unwrap();
    let info = transcript_info(&fs::read(&v1).unwrap());
    assert_eq!(
        (
            info.format_version,
            info.unparsable_lines,
            info.messages_by_role["bashExecution"]
        ),
        (1, 1, 1)
    );
}

#[test]
fn session_files_outside_the_sessions_dir_are_ignored() {
    let (_dir, state) = state();
    let agent = AgentStore::open(&state, "main").unwrap();
    let outside = state.join("outside.jsonl");
    fs::write(&outside, "{}\n").unwrap();
    fs::write(
        sessions_dir(&state).join("sessions.json"),
        format!(
            r#"{{"agent:main:a": {{"sessionId": "f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1", "updatedAt": 1, "sessionFile": "../../../outside.jsonl"}},
               "agent:main:b": {{"sessionId": "1b975ccf-9dbe-4f4e-9d2b-8abe12178979", "updatedAt": 2, "sessionFile": "{}"}}}}"#,
            sessions_dir(&state).join("1b975ccf-9dbe-4f4e-9d2b-8abe12178979.jsonl").display()
        ),
    )
    .unwrap();
    let list = agent.list().unwrap();
    assert!(list
        .iter()
        .all(|t| t.path.starts_with(sessions_dir(&state))));
    // The escaping entry falls back to <sessionId>.jsonl inside the dir, as OpenClaw does.
    let f8 = list
        .iter()
        .find(|t| t.session_id.starts_with("f8c3"))
        .unwrap();
    assert_eq!(f8.session_keys, ["agent:main:a"]);
    let b = list
        .iter()
        .find(|t| t.session_id.starts_with("1b97"))
        .unwrap();
    assert_eq!(b.session_keys, ["agent:main:b"]);
}
