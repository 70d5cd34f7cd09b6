//! Handoff capture, offer, status and retention (docs/api/handoff.md) on generated
//! OpenClaw transcripts and the real moltbot fixtures, with an injected clock.

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};
use session_intel_core::handoff::messages::{fingerprint, recent_messages};
use session_intel_core::handoff::state::render_context;
use session_intel_core::handoff::store::{
    capture_handoff, check_for_handoff, clear_handoff, handoff_status, prepare_capture,
    CaptureRequest, HandoffDir, Summarizer, SummaryRequest,
};
use session_intel_core::handoff::summary::{summary_from_reply, HandoffSummary};
use session_intel_core::ErrorCode;
use std::fs;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;

const SESSION: &str = "0193c1a2-7b3e-7c4d-9e8f-0a1b2c3d4e5f";

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn header() -> Value {
    json!({"type":"session","version":3,"id":SESSION,"timestamp":"2026-03-01T09:00:00.000Z","cwd":"/home/u/clawd"})
}

fn message(id: &str, parent: Option<&str>, role: &str, text: &str) -> Value {
    let content = if role == "assistant" {
        json!([{"type":"thinking","thinking":"hmm"},{"type":"text","text":text}])
    } else {
        json!([{"type":"text","text":text}])
    };
    json!({"type":"message","id":id,"parentId":parent,"timestamp":format!("2026-03-01T09:{:02}:00.000Z", id.len()),
           "message":{"role":role,"content":content,"timestamp":1772355600000u64}})
}

fn write_lines(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(path, text).unwrap();
}

/// A state dir with agent `main` and one transcript of `lines`.
fn state_with(lines: &[Value]) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("agents/main/sessions");
    fs::create_dir_all(&sessions).unwrap();
    let transcript = sessions.join(format!("{SESSION}.jsonl"));
    write_lines(&transcript, lines);
    let state = dir.path().to_path_buf();
    (dir, state, transcript)
}

/// A work conversation: a blocker, a decision, a fix, an announced next step.
fn conversation() -> Vec<Value> {
    vec![
        header(),
        json!({"type":"model_change","id":"m0","parentId":null,"timestamp":"2026-03-01T09:00:00.000Z","provider":"anthropic","modelId":"claude-sonnet-4-6"}),
        message(
            "a1",
            Some("m0"),
            "user",
            "Please fix the login redirect bug in the auth module",
        ),
        message(
            "a2",
            Some("a1"),
            "assistant",
            "I'm stuck on the OAuth callback: the state parameter never matches.",
        ),
        message(
            "a3",
            Some("a2"),
            "user",
            "Let's go with server-side sessions instead of the JWT cookie.",
        ),
        message(
            "a4",
            Some("a3"),
            "assistant",
            "Fixed the redirect: the callback now reads the session store and the tests pass.",
        ),
        message("a5", Some("a4"), "user", "thanks!"),
        message(
            "a6",
            Some("a5"),
            "assistant",
            "Next I'll migrate the remaining routes in routes.rs to the session store.",
        ),
    ]
}

fn request(state: &Path, now: DateTime<Utc>) -> CaptureRequest {
    CaptureRequest {
        agent_id: "main".into(),
        session_id: None,
        state_dir: state.to_path_buf(),
        project: Some("auth-service".into()),
        mode: None,
        trigger: "reset".into(),
        expiry_hours: 24.0,
        message_limit: 50,
        summarize_timeout_ms: 200,
        now,
    }
}

fn capture(
    req: CaptureRequest,
    summarizer: Option<&dyn Summarizer>,
) -> session_intel_core::Result<session_intel_core::handoff::state::SessionState> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(capture_handoff(req, summarizer))
}

fn files_under(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = walk(dir)
        .into_iter()
        .map(|p| p.strip_prefix(dir).unwrap().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

#[test]
fn recent_messages_follow_the_active_branch_and_fingerprint_what_was_read() {
    let mut lines = conversation();
    // A rewrite re-appended a7 from a3: a4..a6 are an abandoned branch.
    lines.push(message(
        "a7",
        Some("a3"),
        "assistant",
        "Rewritten answer on the new branch.",
    ));
    let (_d, _state, path) = state_with(&lines);
    let recent = recent_messages(&std::fs::read(&path).unwrap(), 50);
    let texts: Vec<&str> = recent.messages.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Please fix the login redirect bug in the auth module",
            "I'm stuck on the OAuth callback: the state parameter never matches.",
            "Let's go with server-side sessions instead of the JWT cookie.",
            "Rewritten answer on the new branch."
        ]
    );
    assert_eq!(recent.last_message_index, 8);
    let bytes = fs::read(&path).unwrap();
    assert_eq!(recent.transcript_bytes as usize, bytes.len());
    assert_eq!(recent.transcript_hash, fingerprint(&bytes));

    // A leaf record moves the active leaf back to a6.
    lines.push(json!({"type":"leaf","id":"l1","parentId":"a7","timestamp":"2026-03-01T10:00:00.000Z","targetId":"a6"}));
    write_lines(&path, &lines);
    let recent = recent_messages(&std::fs::read(&path).unwrap(), 2);
    assert_eq!(
        recent.messages.len(),
        2,
        "the limit keeps the last messages"
    );
    assert_eq!(
        recent.messages[1].text,
        "Next I'll migrate the remaining routes in routes.rs to the session store."
    );
    assert_eq!(recent.messages[0].role, "user");
    assert_eq!(recent.last_message_index, 7);
}

#[test]
fn recent_messages_take_the_last_fifty_of_a_long_linear_transcript_and_skip_bad_lines() {
    let mut lines = vec![header()];
    let mut parent: Option<String> = None;
    for i in 0..80 {
        let id = format!("{i:08x}");
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        lines.push(message(
            &id,
            parent.as_deref(),
            role,
            &format!("message number {i}"),
        ));
        parent = Some(id);
    }
    let (_d, _state, path) = state_with(&lines);
    let mut text = fs::read_to_string(&path).unwrap();
    text.insert_str(text.find('\n').unwrap() + 1, "{not json\n\n");
    fs::write(&path, text).unwrap();
    let recent = recent_messages(&std::fs::read(&path).unwrap(), 50);
    assert_eq!(recent.messages.len(), 50);
    assert_eq!(recent.messages[0].text, "message number 30");
    assert_eq!(recent.messages[49].text, "message number 79");
}

#[test]
fn capture_writes_state_snapshot_and_day_patterns_with_the_derived_summary() {
    let (_d, state, path) = state_with(&conversation());
    let now = at("2026-03-01T10:00:00Z");
    let s = capture(request(&state, now), None).unwrap();
    assert_eq!(s.previous_session_id.as_deref(), Some(SESSION));
    assert_eq!(s.session_key, "agent:main:main");
    assert_eq!(
        (s.created_at.as_str(), s.updated_at.as_str()),
        ("2026-03-01T10:00:00.000Z", "2026-03-01T10:00:00.000Z")
    );
    assert_eq!(s.expires_at, "2026-03-02T10:00:00.000Z");
    assert_eq!(
        (s.project.as_str(), s.mode.as_str(), s.trigger.as_str()),
        ("auth-service", "work", "reset")
    );
    assert!(s.resume_available && s.resume_offered_at.is_none());
    assert_eq!(s.summary_source, "derived");
    assert_eq!(s.last_message_index, 7);
    assert_eq!(s.transcript_hash, fingerprint(&fs::read(&path).unwrap()));

    let kinds: Vec<(&str, u32, Option<bool>)> = s
        .patterns
        .iter()
        .map(|p| (p.kind.as_str(), p.source_message_index, p.resolved))
        .collect();
    assert!(kinds.contains(&("blocker", 3, Some(true))), "{kinds:?}");
    assert!(kinds.contains(&("decision", 4, None)), "{kinds:?}");
    assert!(kinds.contains(&("accomplishment", 5, None)), "{kinds:?}");

    assert_eq!(
        s.summary.last_topic,
        "Let's go with server-side sessions instead of the JWT cookie."
    );
    assert_eq!(
        s.summary.in_progress,
        [
            "Please fix the login redirect bug in the auth module",
            "Let's go with server-side sessions instead of the JWT cookie."
        ]
    );
    assert!(s.summary.blockers.is_empty(), "the blocker was fixed later");
    assert_eq!(
        s.summary.decisions,
        ["Let's go with server-side sessions instead of the JWT cookie."]
    );
    assert_eq!(
        s.summary.next_step,
        "Next I'll migrate the remaining routes in routes.rs to the session store"
    );

    let dir = HandoffDir::of(&state, "main");
    assert_eq!(
        files_under(&dir.root),
        [
            "patterns/2026-03-01.jsonl",
            "session-state.json",
            "snapshots/2026-03-01T10-00-00.json"
        ]
    );
    let stored: Value = serde_json::from_slice(&fs::read(dir.state_path()).unwrap()).unwrap();
    assert_eq!(stored["previousSessionId"], SESSION);
    assert_eq!(stored["summary"]["nextStep"], s.summary.next_step.as_str());
    assert_eq!(dir.read_state().unwrap(), s);
    let day = fs::read_to_string(dir.patterns().join("2026-03-01.jsonl")).unwrap();
    assert_eq!(day.lines().count(), s.patterns.len());
    assert!(day
        .lines()
        .all(|l| serde_json::from_str::<Value>(l).unwrap()["sessionId"] == SESSION));

    // A second capture the same day: same pattern ids, no duplicate lines, a
    // second snapshot, createdAt kept for the same session.
    let later = capture(request(&state, now + Duration::minutes(30)), None).unwrap();
    assert_eq!(later.created_at, "2026-03-01T10:00:00.000Z");
    assert_eq!(later.updated_at, "2026-03-01T10:30:00.000Z");
    assert_eq!(
        later.patterns.iter().map(|p| &p.id).collect::<Vec<_>>(),
        s.patterns.iter().map(|p| &p.id).collect::<Vec<_>>()
    );
    assert_eq!(
        fs::read_to_string(dir.patterns().join("2026-03-01.jsonl")).unwrap(),
        day
    );
    assert_eq!(files_under(&dir.snapshots()).len(), 2);
}

#[test]
fn offers_once_per_five_minutes_until_expiry_unless_forced() {
    let (_d, state, _) = state_with(&conversation());
    let t0 = at("2026-03-01T10:00:00Z");
    capture(request(&state, t0), None).unwrap();
    let dir = HandoffDir::of(&state, "main");

    let first = check_for_handoff(&dir, t0 + Duration::minutes(1), false, 24.0)
        .unwrap()
        .unwrap();
    assert_eq!(
        first.resume_offered_at.as_deref(),
        Some("2026-03-01T10:01:00.000Z")
    );
    assert_eq!(
        dir.read_state().unwrap().resume_offered_at,
        first.resume_offered_at,
        "marked on disk"
    );
    assert!(
        check_for_handoff(&dir, t0 + Duration::minutes(5), false, 24.0)
            .unwrap()
            .is_none()
    );
    let forced = check_for_handoff(&dir, t0 + Duration::minutes(5), true, 24.0)
        .unwrap()
        .unwrap();
    assert_eq!(
        forced.resume_offered_at.as_deref(),
        Some("2026-03-01T10:05:00.000Z")
    );
    assert!(
        check_for_handoff(&dir, t0 + Duration::minutes(9), false, 24.0)
            .unwrap()
            .is_none()
    );
    assert!(
        check_for_handoff(&dir, t0 + Duration::minutes(11), false, 24.0)
            .unwrap()
            .is_some()
    );

    let status = handoff_status(&dir, t0 + Duration::minutes(12));
    assert!(!status.offerable);
    assert_eq!(
        status.reason.as_deref(),
        Some("offered less than 5 minutes ago")
    );
    assert_eq!(status.transcript_intact, Some(true));
    assert_eq!(
        status.expires_in_ms,
        Some((Duration::hours(24) - Duration::minutes(12)).num_milliseconds())
    );

    // Expired: never offered, even when forced.
    let expired = t0 + Duration::hours(24) + Duration::seconds(1);
    assert!(check_for_handoff(&dir, expired, true, 24.0)
        .unwrap()
        .is_none());
    let status = handoff_status(&dir, expired);
    assert!(status.expired && !status.offerable);
    assert_eq!(status.reason.as_deref(), Some("expired"));

    assert!(clear_handoff(&dir).unwrap());
    assert!(!clear_handoff(&dir).unwrap());
    assert!(check_for_handoff(&dir, t0, true, 24.0).unwrap().is_none());
    assert_eq!(
        handoff_status(&dir, t0).reason.as_deref(),
        Some("no handoff captured")
    );
}

#[test]
fn status_notices_a_rewritten_transcript_but_not_an_appended_one() {
    let (_d, state, path) = state_with(&conversation());
    let t0 = at("2026-03-01T10:00:00Z");
    capture(request(&state, t0), None).unwrap();
    let dir = HandoffDir::of(&state, "main");
    let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
    std::io::Write::write_all(
        &mut f,
        format!("{}\n", message("a8", Some("a6"), "user", "more")).as_bytes(),
    )
    .unwrap();
    assert_eq!(handoff_status(&dir, t0).transcript_intact, Some(true));
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("login redirect", "logout redirect");
    fs::write(&path, text).unwrap();
    assert_eq!(handoff_status(&dir, t0).transcript_intact, Some(false));
    fs::remove_file(&path).unwrap();
    assert_eq!(handoff_status(&dir, t0).transcript_intact, None);
}

#[test]
fn snapshots_and_pattern_files_older_than_the_expiry_are_pruned() {
    let (_d, state, _) = state_with(&conversation());
    let t0 = at("2026-03-01T10:00:00Z");
    capture(request(&state, t0), None).unwrap();
    let dir = HandoffDir::of(&state, "main");
    // Two days later: the first snapshot and day file have expired.
    capture(request(&state, t0 + Duration::hours(49)), None).unwrap();
    assert_eq!(
        files_under(&dir.root),
        [
            "patterns/2026-03-03.jsonl",
            "session-state.json",
            "snapshots/2026-03-03T11-00-00.json"
        ]
    );
    // A check prunes too; an unrelated file is left alone.
    fs::write(dir.snapshots().join("notes.txt"), "keep").unwrap();
    check_for_handoff(&dir, t0 + Duration::hours(120), false, 24.0).unwrap();
    assert_eq!(
        files_under(&dir.root),
        ["session-state.json", "snapshots/notes.txt"]
    );
}

#[test]
fn a_failed_capture_leaves_the_handoff_directory_as_it_was() {
    let (_d, state, _) = state_with(&conversation());
    let t0 = at("2026-03-01T10:00:00Z");
    capture(request(&state, t0), None).unwrap();
    let dir = HandoffDir::of(&state, "main");
    let before: Vec<(String, Vec<u8>)> = files_under(&dir.root)
        .into_iter()
        .map(|f| (f.clone(), fs::read(dir.root.join(&f)).unwrap()))
        .collect();
    // The state file cannot be replaced: a directory stands in its way
    // (modes do not stop root, a directory does).
    fs::remove_file(dir.state_path()).unwrap();
    fs::create_dir(dir.state_path()).unwrap();
    fs::write(dir.state_path().join("x"), "x").unwrap();
    let mut new_message = conversation();
    new_message.push(message(
        "a9",
        Some("a6"),
        "user",
        "We decided to use Redis for the session store.",
    ));
    write_lines(
        &state.join(format!("agents/main/sessions/{SESSION}.jsonl")),
        &new_message,
    );
    let err = capture(request(&state, t0 + Duration::minutes(10)), None).unwrap_err();
    assert_eq!(err.code, ErrorCode::WriteFailed, "{err:?}");
    fs::remove_dir_all(dir.state_path()).unwrap();
    let after: Vec<String> = files_under(&dir.root);
    let expected: Vec<String> = before
        .iter()
        .map(|(f, _)| f.clone())
        .filter(|f| f != "session-state.json")
        .collect();
    assert_eq!(after, expected, "no snapshot or pattern line left behind");
    for (f, bytes) in before.iter().filter(|(f, _)| f != "session-state.json") {
        assert_eq!(&fs::read(dir.root.join(f)).unwrap(), bytes, "{f} unchanged");
    }
}

struct Canned(Result<Value, String>, std::time::Duration);

impl Summarizer for Canned {
    fn summarize(
        &self,
        request: SummaryRequest,
    ) -> Pin<Box<dyn Future<Output = Result<Value, String>> + Send + '_>> {
        assert!(request
            .prompt
            .contains("[user] Please fix the login redirect bug"));
        assert_eq!(request.messages.len(), 6);
        Box::pin(async move {
            tokio::time::sleep(self.1).await;
            self.0.clone()
        })
    }
}

#[test]
fn the_model_summary_is_used_when_valid_and_in_time_and_the_derived_one_otherwise() {
    let (_d, state, _) = state_with(&conversation());
    let t0 = at("2026-03-01T10:00:00Z");
    let quick = std::time::Duration::ZERO;
    let good = Canned(
        Ok(
            json!({"lastTopic":"auth redirect","inProgress":["migrate routes"],"nextStep":"migrate /admin"}),
        ),
        quick,
    );
    let s = capture(request(&state, t0), Some(&good)).unwrap();
    assert_eq!(s.summary_source, "model");
    assert_eq!(s.summary.last_topic, "auth redirect");
    assert_eq!(s.summary.in_progress, ["migrate routes"]);
    assert_eq!(s.summary.next_step, "migrate /admin");
    assert_eq!(
        s.summary.decisions.len(),
        1,
        "missing fields come from the derived summary"
    );

    let text = Canned(
        Ok(json!(
            "Sure!\n```json\n{\"lastTopic\":\"from text\",\"blockers\":[]}\n```"
        )),
        quick,
    );
    let s = capture(request(&state, t0), Some(&text)).unwrap();
    assert_eq!(
        (s.summary_source.as_str(), s.summary.last_topic.as_str()),
        ("model", "from text")
    );

    let cases: [(Canned, &str); 3] = [
        (
            Canned(
                Ok(json!({"lastTopic":"x"})),
                std::time::Duration::from_secs(5),
            ),
            "did not answer within 200 ms",
        ),
        (
            Canned(Err("rate limited".into()), quick),
            "failed: rate limited",
        ),
        (
            Canned(Ok(json!({"blockers":"none"})), quick),
            "summary.blockers is a string, not an array",
        ),
    ];
    for (summarizer, why) in cases {
        let started = std::time::Instant::now();
        let s = capture(request(&state, t0), Some(&summarizer)).unwrap();
        assert!(
            started.elapsed() < std::time::Duration::from_secs(4),
            "the timeout bounds the wait"
        );
        assert_eq!(s.summary_source, "derived");
        assert!(
            s.summary_error.as_deref().unwrap().contains(why),
            "{:?}",
            s.summary_error
        );
        assert_eq!(
            s.summary.last_topic,
            "Let's go with server-side sessions instead of the JWT cookie."
        );
    }
}

#[test]
fn summary_replies_are_checked_field_by_field() {
    let fallback = HandoffSummary {
        last_topic: "t".into(),
        in_progress: vec!["p".into()],
        blockers: vec![],
        decisions: vec!["d".into()],
        next_step: "n".into(),
    };
    assert_eq!(summary_from_reply(&json!({}), &fallback).unwrap(), fallback);
    let s =
        summary_from_reply(&json!({"blockers":[" b ", ""],"nextStep":null}), &fallback).unwrap();
    assert_eq!(
        (s.blockers, s.next_step.as_str()),
        (vec!["b".to_string()], "n")
    );
    assert!(summary_from_reply(&json!([1]), &fallback)
        .unwrap_err()
        .contains("an array, not an object"));
    assert!(summary_from_reply(&json!({"decisions":[1]}), &fallback)
        .unwrap_err()
        .contains("summary.decisions holds a number"));
    assert!(summary_from_reply(&json!({"lastTopic":3}), &fallback)
        .unwrap_err()
        .contains("summary.lastTopic is a number"));
}

#[test]
fn capture_rejects_unknown_triggers_modes_and_agents() {
    let (_d, state, _) = state_with(&conversation());
    let t0 = at("2026-03-01T10:00:00Z");
    let mut bad = request(&state, t0);
    bad.trigger = "reboot".into();
    assert_eq!(
        capture(bad, None).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    let mut bad = request(&state, t0);
    bad.mode = Some("play".into());
    assert_eq!(
        capture(bad, None).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    let mut bad = request(&state, t0);
    bad.expiry_hours = 0.0;
    assert_eq!(
        capture(bad, None).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    let mut bad = request(&state, t0);
    bad.agent_id = "ghost".into();
    assert_eq!(
        capture(bad, None).unwrap_err().code,
        ErrorCode::AgentNotFound
    );
    let mut bad = request(&state, t0);
    bad.session_id = Some("ffff".into());
    assert_eq!(
        capture(bad, None).unwrap_err().code,
        ErrorCode::SessionNotFound
    );
    assert!(
        !HandoffDir::of(&state, "main").root.exists(),
        "nothing written"
    );
}

#[test]
fn captures_the_real_moltbot_transcripts() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("agents/main/sessions");
    fs::create_dir_all(&sessions).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/shared/openclaw/moltbot-2026-01-31");
    for entry in fs::read_dir(&fixtures).unwrap().flatten() {
        fs::copy(entry.path(), sessions.join(entry.file_name())).unwrap();
    }
    let t0 = at("2026-01-31T12:00:00Z");
    for (id, last_user) in [("1b975ccf", "NB"), ("f8c3e7a8", "你自己无法配置吗")] {
        let mut req = request(dir.path(), t0);
        req.session_id = Some(id.into());
        let s = capture(req, None).unwrap();
        assert!(s.previous_session_id.as_deref().unwrap().starts_with(id));
        let recent = recent_messages(&std::fs::read(Path::new(&s.transcript_file)).unwrap(), 50);
        assert_eq!(
            recent
                .messages
                .iter()
                .rev()
                .find(|m| m.role == "user")
                .unwrap()
                .text,
            last_user
        );
        assert!(recent.messages.iter().all(|m| !m.text.is_empty()));
        assert_eq!(s.transcript_hash, recent.transcript_hash);
        assert!(s.session_key.starts_with("agent:main:"));
    }
}

#[test]
fn renders_the_seed_context_block() {
    let summary = HandoffSummary {
        last_topic: "auth".into(),
        in_progress: vec!["migrate routes".into(), "drop JWT".into()],
        blockers: vec![],
        decisions: vec!["server-side sessions".into()],
        next_step: "migrate /admin".into(),
    };
    assert_eq!(
        render_context("2026-03-01T10:00:00.000Z", "auth-service", &summary),
        "## Previous Session Context\n\nThe previous session ended at 2026-03-01T10:00:00.000Z.\n\n\
         ### Current Project\nauth-service\n\n### In Progress\n- migrate routes\n- drop JWT\n\n\
         ### Recent Blockers\n- (none)\n\n### Recent Decisions\n- server-side sessions\n\n\
         ### Suggested Next Step\nmigrate /admin\n\n---\n\n\
         Ask the user: \"Would you like to continue where we left off with auth-service?\"\n"
    );
    assert!(
        render_context("t", "", &HandoffSummary::default()).contains("### Current Project\n(none)")
    );
}

#[test]
fn the_summary_prompt_clips_long_messages_but_the_request_keeps_them_whole() {
    let mut lines = conversation();
    let pasted = format!("Here is the log:\n{}", "E".repeat(50_000));
    lines.push(message("a7", Some("a6"), "user", &pasted));
    let (_d, state, _) = state_with(&lines);
    let prepared = prepare_capture(&request(&state, at("2026-03-01T10:00:00Z"))).unwrap();
    assert_eq!(prepared.request.messages.last().unwrap().text, pasted);
    assert!(
        prepared.request.prompt.len() < 5_000,
        "{}",
        prepared.request.prompt.len()
    );
    assert!(prepared.request.prompt.contains("[user] Here is the log:"));
}
