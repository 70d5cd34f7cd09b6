//! The continuation slimming a large transcript before resuming it
//! (`slim_over_bytes`): on a real git repository and a Claude Code
//! transcript bloated by a long tool result and an image.

use session_intel_core::claude_code::layout::paths::full_slug;
use session_intel_core::claude_code::{DiscoveryCache, PersistentCache};
use session_intel_core::preflight::{
    preflight_spawn, Decision, PreflightOptions, ResumableSession, SpawnRequest,
};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::util::git_repo::*;

const ID: &str = "5a1e0000-0000-4000-8000-000000000001";

struct World {
    _tmp: tempfile::TempDir,
    repo: PathBuf,
    claude: PathBuf,
    state: PathBuf,
    transcript: PathBuf,
}

/// A repository and an idle session of it about its cart, whose one tool
/// call read a long file and a screenshot.
fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let repo = new_repo(&base, "shop");
    write(&repo, "src/cart.rs", "fn cart() {}\n");
    git_in(&repo, &["add", "."]);
    commit(&repo, "Add the cart", 7200);
    let claude = base.join("claude");
    let state = base.join("state");
    fs::create_dir_all(&state).unwrap();
    let dir = claude
        .join("projects")
        .join(full_slug(&repo.to_string_lossy()));
    fs::create_dir_all(&dir).unwrap();
    let cwd = repo.to_string_lossy();
    let env = |uuid: &str, parent: Option<&str>| {
        serde_json::json!({ "parentUuid": parent, "isSidechain": false, "sessionId": ID, "cwd": cwd,
            "gitBranch": "main", "timestamp": "2026-11-27T07:00:00.000Z", "uuid": uuid })
    };
    let with = |mut v: serde_json::Value, more: serde_json::Value| {
        v.as_object_mut()
            .unwrap()
            .extend(more.as_object().unwrap().clone());
        v.to_string()
    };
    let long = "fn cart_total() -> u64 { 0 }\n".repeat(10_000);
    let lines = [
        with(
            env("00000000-0000-4000-8000-000000000001", None),
            serde_json::json!({ "type": "user",
            "message": { "role": "user", "content": "Refactor the cart totals into cents" } }),
        ),
        with(
            env(
                "00000000-0000-4000-8000-000000000002",
                Some("00000000-0000-4000-8000-000000000001"),
            ),
            serde_json::json!({ "type": "assistant", "requestId": "r1",
            "message": { "id": "m1", "role": "assistant", "model": "claude-opus-5", "stop_reason": "tool_use",
                "content": [{ "type": "tool_use", "id": "t1", "name": "Read", "input": { "file_path": "src/cart.rs" } }],
                "usage": { "input_tokens": 10, "output_tokens": 5 } } }),
        ),
        with(
            env(
                "00000000-0000-4000-8000-000000000003",
                Some("00000000-0000-4000-8000-000000000002"),
            ),
            serde_json::json!({ "type": "user",
            "message": { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "t1", "content": [
                { "type": "text", "text": long },
                { "type": "image", "source": { "type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo".repeat(20_000) } } ] }] },
            "toolUseResult": { "type": "text", "file": { "filePath": "src/cart.rs", "content": long } } }),
        ),
        with(
            env(
                "00000000-0000-4000-8000-000000000004",
                Some("00000000-0000-4000-8000-000000000003"),
            ),
            serde_json::json!({ "type": "assistant", "requestId": "r2",
            "message": { "id": "m2", "role": "assistant", "model": "claude-opus-5", "stop_reason": "end_turn",
                "content": [{ "type": "text", "text": "Done." }], "usage": { "input_tokens": 10, "output_tokens": 5 } } }),
        ),
    ];
    let transcript = dir.join(format!("{ID}.jsonl"));
    fs::write(&transcript, lines.join("\n") + "\n").unwrap();
    fs::File::options()
        .write(true)
        .open(&transcript)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
    World {
        _tmp: tmp,
        repo,
        claude,
        state,
        transcript,
    }
}

impl World {
    fn options(&self, slim_over: Option<u64>) -> PreflightOptions {
        PreflightOptions {
            claude_config_dir: Some(self.claude.clone()),
            registry_root: Some(self.state.clone()),
            nonce: "n0nce0000000001".into(),
            persistent_cache: PersistentCache::Off,
            slim_over_bytes: slim_over,
            resumable: vec![ResumableSession {
                claude_session_id: ID.into(),
                cwd: self.repo.to_string_lossy().into_owned(),
                child_session_key: Some("agent:claude:acp:1".into()),
            }],
            ..PreflightOptions::default()
        }
    }

    fn request(&self) -> SpawnRequest {
        SpawnRequest {
            task: "Finish the cart totals refactor in cents".into(),
            cwd: Some(self.repo.to_string_lossy().into_owned()),
            agent_id: "main".into(),
            ..SpawnRequest::default()
        }
    }
}

fn size(p: &Path) -> u64 {
    fs::metadata(p).unwrap().len()
}

#[test]
fn a_resumed_session_over_the_threshold_is_slimmed_first_and_the_briefing_says_what_was_cut() {
    let w = world();
    let before = size(&w.transcript);
    let out = preflight_spawn(
        &w.request(),
        &w.options(Some(64 * 1024)),
        &DiscoveryCache::new(),
    )
    .unwrap();
    assert_eq!(out.decision, Decision::Resume, "{}", out.reason);
    assert_eq!(out.resume_session_id.as_deref(), Some(ID));
    let slim = out.resume_slim.expect("slimmed");
    assert_eq!(slim.skipped, None);
    assert_eq!(slim.size_original, before);
    assert_eq!(slim.size_after, size(&w.transcript));
    assert!(slim.size_after * 4 < before, "{slim:?}");
    assert!(Path::new(slim.backup_path.as_deref().unwrap()).exists());
    let briefing = out.briefing.unwrap();
    let line = slim.briefing_line.unwrap();
    assert!(briefing.contains(&line), "{briefing}");
    assert!(
        line.contains("1 image(s)") && line.contains("1 long tool output(s)"),
        "{line}"
    );
}

#[test]
fn off_by_default_and_under_the_threshold_nothing_is_touched() {
    let w = world();
    let original = fs::read(&w.transcript).unwrap();
    for slim_over in [None, Some(100 << 20)] {
        let out =
            preflight_spawn(&w.request(), &w.options(slim_over), &DiscoveryCache::new()).unwrap();
        assert_eq!(out.decision, Decision::Resume, "{}", out.reason);
        assert_eq!(out.resume_slim, None);
        assert_eq!(fs::read(&w.transcript).unwrap(), original);
    }
}

#[test]
fn no_time_left_leaves_it_as_it_is_and_says_why() {
    let w = world();
    let original = fs::read(&w.transcript).unwrap();
    let mut opts = w.options(Some(1024));
    opts.budget = Some(Duration::from_millis(1));
    let out = preflight_spawn(&w.request(), &opts, &DiscoveryCache::new()).unwrap();
    if let Some(slim) = out.resume_slim {
        assert!(slim.skipped.is_some(), "{slim:?}");
        assert!(slim.briefing_line.is_none());
    }
    assert_eq!(fs::read(&w.transcript).unwrap(), original);
}
