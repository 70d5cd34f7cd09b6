//! Pins and the resume decision: every guard and reason code, compare-and-
//! clear, retirement and epochs, on real directories.

use session_intel_core::claude_code::layout::paths::full_slug;
use session_intel_core::resume::pins::{DecisionRequest, PinRequest, PinStore};
use std::fs;
use std::path::{Path, PathBuf};

const NOW: &str = "2026-11-22T10:00:00.000Z";
const SID: &str = "0b6c5e1a-1111-4222-8333-444455556666";

struct World {
    _dir: tempfile::TempDir,
    state: PathBuf,
    claude: PathBuf,
    work: PathBuf,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(dir.path()).unwrap();
    let (state, claude, work) = (base.join("state"), base.join("claude"), base.join("repo"));
    fs::create_dir_all(&work).unwrap();
    World {
        _dir: dir,
        state,
        claude,
        work,
    }
}

fn transcript(w: &World, dir: &Path, id: &str) -> PathBuf {
    let folder = w
        .claude
        .join("projects")
        .join(full_slug(&dir.to_string_lossy()));
    fs::create_dir_all(&folder).unwrap();
    let file = folder.join(format!("{id}.jsonl"));
    fs::write(&file, "{\"type\":\"user\"}\n").unwrap();
    file
}

fn pin_req(w: &World, session: &str) -> PinRequest {
    PinRequest {
        conversation_id: "conv-1".into(),
        agent_id: "main".into(),
        session_id: session.into(),
        work_dir: w.work.to_string_lossy().into(),
        runtime_id: "claude@2.1.80".into(),
        history_epoch: 0,
        model: Some("claude-opus-4-6".into()),
    }
}

fn turn(w: &World) -> DecisionRequest {
    DecisionRequest {
        conversation_id: "conv-1".into(),
        agent_id: "main".into(),
        work_dir: w.work.to_string_lossy().into(),
        runtime_id: "claude@2.1.80".into(),
        history_epoch: 0,
        model: Some("claude-opus-4-6".into()),
        force_fresh: false,
        supports_resume: true,
        has_prior_assistant_turn: true,
    }
}

#[test]
fn pins_only_sessions_that_persisted_a_turn_and_never_by_nothing() {
    let w = world();
    let store = PinStore::new(&w.state, &w.claude);
    assert_eq!(
        store.pin(&pin_req(&w, SID), NOW).unwrap().reason,
        "no_transcript"
    );
    transcript(&w, &w.work, SID);
    assert_eq!(store.pin(&pin_req(&w, SID), NOW).unwrap().reason, "pinned");
    assert_eq!(
        store.pin(&pin_req(&w, ""), NOW).unwrap().reason,
        "empty_session_id"
    );
    let d = store.decide(&turn(&w)).unwrap();
    assert_eq!(
        (d.resume, d.reason, d.session_id.as_deref()),
        (true, "resume", Some(SID))
    );
    assert_eq!(d.cli_args, ["--resume", SID]);
    assert!(d.skip_transcript);
    let file = w.state.join("agents/main/claude-code-resume.json");
    #[cfg(unix)]
    assert_eq!(
        session_intel_core::platform::mode(&fs::metadata(&file).unwrap()),
        0o600
    );
    let text = fs::read_to_string(&file).unwrap();
    assert!(!text.ends_with('\n') && text.contains("\"historyEpoch\": 0"));
}

#[test]
fn every_guard_has_its_reason_and_never_resumes_without_skipping_the_transcript() {
    let w = world();
    let store = PinStore::new(&w.state, &w.claude);
    let file = transcript(&w, &w.work, SID);
    store.pin(&pin_req(&w, SID), NOW).unwrap();
    let check = |req: DecisionRequest, reason: &str| {
        let d = store.decide(&req).unwrap();
        assert_eq!(d.reason, reason);
        assert_eq!(d.resume, reason == "resume");
        assert_eq!(d.skip_transcript, d.resume, "one decision: {reason}");
        assert_eq!(d.cli_args.is_empty(), !d.resume);
    };
    check(
        DecisionRequest {
            supports_resume: false,
            ..turn(&w)
        },
        "no_capability",
    );
    check(
        DecisionRequest {
            force_fresh: true,
            ..turn(&w)
        },
        "force_fresh",
    );
    check(
        DecisionRequest {
            has_prior_assistant_turn: false,
            ..turn(&w)
        },
        "no_prior_turn",
    );
    check(
        DecisionRequest {
            conversation_id: "other".into(),
            ..turn(&w)
        },
        "no_pin",
    );
    check(
        DecisionRequest {
            agent_id: "ops".into(),
            ..turn(&w)
        },
        "agent_switched",
    );
    check(
        DecisionRequest {
            history_epoch: 1,
            ..turn(&w)
        },
        "epoch_changed",
    );
    let elsewhere = w.work.parent().unwrap().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    check(
        DecisionRequest {
            work_dir: elsewhere.to_string_lossy().into(),
            ..turn(&w)
        },
        "workdir_changed",
    );
    // The same directory spelled differently (a symlink) is the same work dir.
    let link = w.work.parent().unwrap().join("link-to-repo");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&w.work, &link).unwrap();
    #[cfg(windows)]
    std::os::windows::fs::symlink_dir(&w.work, &link).unwrap();
    check(
        DecisionRequest {
            work_dir: format!("{}/./", link.to_string_lossy()),
            ..turn(&w)
        },
        "resume",
    );
    check(
        DecisionRequest {
            runtime_id: "openclaude@1.0".into(),
            ..turn(&w)
        },
        "runtime_changed",
    );
    check(
        DecisionRequest {
            model: Some("claude-sonnet-4-5".into()),
            ..turn(&w)
        },
        "model_changed",
    );
    check(
        DecisionRequest {
            model: None,
            ..turn(&w)
        },
        "resume",
    );
    fs::remove_file(&file).unwrap(); // Claude Code deleted it (cleanupPeriodDays)
    check(turn(&w), "transcript_gone");
    transcript(&w, &w.work, SID);
    store.retire(SID, "resume_rejected", NOW).unwrap();
    check(turn(&w), "retired");
    assert_eq!(store.pin(&pin_req(&w, SID), NOW).unwrap().reason, "retired");
}

#[test]
fn epochs_bump_and_clears_compare_before_they_clear() {
    let w = world();
    let store = PinStore::new(&w.state, &w.claude);
    transcript(&w, &w.work, SID);
    store.pin(&pin_req(&w, SID), NOW).unwrap();
    assert_eq!(store.epoch("conv-1", "main").unwrap(), 0);
    assert_eq!(store.bump_epoch("conv-1", "main").unwrap(), 1);
    assert_eq!(store.bump_epoch("conv-1", "main").unwrap(), 2);
    assert_eq!(
        store.bump_epoch("conv-1", "ops").unwrap(),
        1,
        "epochs are per agent"
    );
    assert_eq!(
        store
            .decide(&DecisionRequest {
                history_epoch: 2,
                ..turn(&w)
            })
            .unwrap()
            .reason,
        "epoch_changed"
    );
    // A caller that still passes the old epoch is not fooled by it.
    assert_eq!(store.decide(&turn(&w)).unwrap().reason, "epoch_changed");
    let repin = PinRequest {
        history_epoch: 2,
        ..pin_req(&w, SID)
    };
    store.pin(&repin, NOW).unwrap();
    assert!(
        !store.clear("conv-1", "main", "a-newer-session").unwrap(),
        "a stale clear leaves a newer pin"
    );
    assert_eq!(store.decide(&turn(&w)).unwrap().reason, "resume");
    assert!(store.clear("conv-1", "main", SID).unwrap());
    assert_eq!(store.decide(&turn(&w)).unwrap().reason, "no_pin");
    assert!(!store.clear("conv-1", "main", SID).unwrap());
}

#[test]
fn unknown_fields_survive_and_bad_ids_are_refused() {
    let w = world();
    let store = PinStore::new(&w.state, &w.claude);
    let file = w.state.join("agents/main/claude-code-resume.json");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(
        &file,
        r#"{"schema":3,"pins":{"conv-1":{"sessionId":"x","forkNextResume":true}},"notes":[1]}"#,
    )
    .unwrap();
    transcript(&w, &w.work, SID);
    store.pin(&pin_req(&w, SID), NOW).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(doc["schema"], 3);
    assert_eq!(doc["notes"][0], 1);
    assert_eq!(doc["pins"]["conv-1"]["forkNextResume"], true);
    assert_eq!(doc["pins"]["conv-1"]["sessionId"], SID);
    for bad in ["../x", "a/b", ""] {
        assert!(store
            .pin(
                &PinRequest {
                    agent_id: bad.into(),
                    ..pin_req(&w, SID)
                },
                NOW
            )
            .is_err());
    }
    assert!(store
        .pin(
            &PinRequest {
                conversation_id: "".into(),
                ..pin_req(&w, SID)
            },
            NOW
        )
        .is_err());
    // A session id that would leave the projects folder is never found.
    assert_eq!(
        store
            .pin(&pin_req(&w, "../../etc/passwd"), NOW)
            .unwrap()
            .reason,
        "no_transcript"
    );
}
