//! Slimming a Claude Code transcript (`session_intel_core::slim`) on what
//! the real CLI 2.1.328 wrote (`fixtures/claude-code-2.1`), bloated the way
//! sessions really grow: a tool result carrying a base64 image and a long
//! text, the CLI's `toolUseResult` copy of it, progress lines in the chain.
//! Discovery's view is compared before and after; the hostile cases (a
//! running session, a half-written last line, a writer appending during the
//! slim) leave nothing lost.

use crate::util::spotter::copy_dir;
use serde_json::Value;
use session_intel_core::claude_code::{discover_sessions, DiscoverOptions, DiscoveryCache};
use session_intel_core::repo_path::RepoPath;
use session_intel_core::slim::cuts::{slim_line, LineFate};
use session_intel_core::slim::{
    preset, restore_claude_session, savings, slim_claude_session, SlimRequest,
};
use session_intel_core::ErrorCode;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

const CWD: &str = "/tmp/osi-claude-code-2.1/work/alpha";
const SLUG: &str = "-tmp-osi-claude-code-2-1-work-alpha";
/// The `subagents` session: a foreground Agent call and its result.
const ID: &str = "8fe872f4-07ea-4932-a67d-831299623dc6";
const RESULT_ID: &str = "toolu_fake_5_0";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/claude-code-2.1")
}

struct World {
    _tmp: tempfile::TempDir,
    config: PathBuf,
}

impl World {
    fn transcript(&self) -> PathBuf {
        self.config
            .join("projects")
            .join(SLUG)
            .join(format!("{ID}.jsonl"))
    }

    fn request(&self) -> SlimRequest {
        let mut req = SlimRequest::new(ID);
        req.session.claude_config_dir = Some(self.config.clone());
        req
    }

    fn discovered(&self, id: &str) -> session_intel_core::claude_code::DiscoveredSession {
        let options = DiscoverOptions {
            claude_config_dir: Some(self.config.clone()),
            registry_root: Some(self.config.parent().unwrap().join("state")),
            ..DiscoverOptions::default()
        };
        discover_sessions(&RepoPath::resolve(CWD), &options, &DiscoveryCache::new())
            .iter()
            .find(|s| s.session_id == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} discovered"))
    }
}

/// The fixture's projects, with the `subagents` session bloated.
fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("config");
    copy_dir(&fixture().join("projects"), &config.join("projects"));
    fs::create_dir_all(tmp.path().join("state")).unwrap();
    let w = World { _tmp: tmp, config };
    let text = fs::read_to_string(w.transcript()).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        let is_result = line.contains(&format!(r#""tool_use_id":"{RESULT_ID}""#));
        if is_result {
            // A progress line between the call and its result, in the chain.
            let progress = serde_json::json!({
                "parentUuid": v["parentUuid"], "isSidechain": false, "type": "progress",
                "data": { "type": "hook_progress", "hookName": "PostToolUse" },
                "uuid": "00000000-0000-4000-8000-00000000beef", "sessionId": ID,
                "timestamp": v["timestamp"],
            });
            out.push_str(&serde_json::to_string(&progress).unwrap());
            out.push('\n');
            v["parentUuid"] = "00000000-0000-4000-8000-00000000beef".into();
            let blocks = v["message"]["content"][0]["content"]
                .as_array_mut()
                .unwrap();
            blocks.push(serde_json::json!({ "type": "text", "text": long_text(200_000) }));
            blocks.push(serde_json::json!({ "type": "image", "source": {
                "type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo".repeat(30_000) } }));
            v["toolUseResult"]["content"][0]["text"] = long_text(200_000).into();
        }
        out.push_str(&serde_json::to_string(&v).unwrap());
        out.push('\n');
    }
    fs::write(w.transcript(), out).unwrap();
    w
}

fn long_text(bytes: usize) -> String {
    (0..)
        .map(|i| format!("line {i} of a long tool output\n"))
        .scan(0, |n, l| {
            *n += l.len();
            (*n <= bytes).then_some(l)
        })
        .collect()
}

/// The lines of a transcript as JSON (unparsable ones skipped).
fn lines(path: &Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn in_place_slim_keeps_the_conversation_and_discovery_and_restores_byte_exact() {
    let w = world();
    let original = fs::read(w.transcript()).unwrap();
    let before = w.discovered(ID);
    let outcome = slim_claude_session(&w.request()).unwrap();
    assert!(outcome.changed);
    assert_eq!(outcome.stats.images_removed, 1);
    assert_eq!(outcome.stats.tool_results_cut, 1);
    assert_eq!(outcome.stats.tool_use_results_slimmed, 1);
    assert_eq!(outcome.stats.lines_dropped, 1);
    assert!(
        outcome.size_after * 5 < outcome.size_original,
        "{outcome:?}"
    );
    assert!(
        outcome.estimated_input_tokens_saved > 100_000,
        "{outcome:?}"
    );
    assert_eq!(
        fs::metadata(w.transcript()).unwrap().len(),
        outcome.size_after
    );

    // Discovery's view: the same but for the line count.
    let after = w.discovered(ID);
    assert_eq!(after.tokens, before.tokens);
    assert_eq!(after.total_cost_usd, before.total_cost_usd);
    assert_eq!(after.title, before.title);
    assert_eq!(after.first_message, before.first_message);
    assert_eq!(after.compaction_count, before.compaction_count);
    assert_eq!(after.message_count, before.message_count - 1);
    assert_eq!(
        after.last_modified, before.last_modified,
        "kept its place in the resume list"
    );

    // The conversation: every line but the progress line, same order, same
    // chain (the result re-linked past the dropped line), every tool_use
    // with its tool_result.
    let old = lines(&outcome.backup_path.clone().unwrap());
    let new = lines(&w.transcript());
    let kept: Vec<&Value> = old.iter().filter(|l| l["type"] != "progress").collect();
    assert_eq!(kept.len(), new.len());
    for (a, b) in kept.iter().zip(&new) {
        assert_eq!(a["uuid"], b["uuid"]);
        assert_eq!(a["type"], b["type"]);
        assert_eq!(a["sessionId"], b["sessionId"]);
        if a["message"]["content"][0]["tool_use_id"] == RESULT_ID {
            assert_eq!(
                b["parentUuid"],
                old.iter().find(|l| l["type"] == "progress").unwrap()["parentUuid"]
            );
            let blocks = b["message"]["content"][0]["content"].as_array().unwrap();
            let texts: Vec<&str> = blocks.iter().map(|b| b["text"].as_str().unwrap()).collect();
            assert!(
                texts[0].starts_with("[Subagent hand-back]"),
                "the head is kept"
            );
            assert!(texts[1].starts_with("line 0 of a long tool output"));
            assert!(texts[1].contains("cut by slim"));
            assert!(texts[1].trim_end().ends_with("of a long tool output"));
            assert!(
                texts[2].contains("image removed by slim: image/png"),
                "{}",
                texts[2]
            );
        } else {
            assert_eq!(a["parentUuid"], b["parentUuid"]);
            if a["type"] == "user" || a["type"] == "assistant" {
                assert_eq!(a["message"], b["message"], "every other message as it was");
            }
        }
    }
    let uses: Vec<&Value> = new
        .iter()
        .filter_map(|l| l["message"]["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| &b["id"])
        .collect();
    let results: Vec<&Value> = new
        .iter()
        .filter_map(|l| l["message"]["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| &b["tool_use_id"])
        .collect();
    assert!(!uses.is_empty());
    assert_eq!(uses, results);

    // Twice: nothing more to cut.
    let again = slim_claude_session(&w.request()).unwrap();
    assert!(!again.changed);

    let session = w.request().session;
    let restored = restore_claude_session(&session, 5).unwrap();
    assert_eq!(fs::read(w.transcript()).unwrap(), original, "byte for byte");
    assert_eq!(w.discovered(ID).message_count, before.message_count);
    // A second restore undoes the first.
    restore_claude_session(&session, 5).unwrap();
    assert_eq!(
        fs::metadata(w.transcript()).unwrap().len(),
        outcome.size_after
    );
    assert!(restored.replaced_backup.exists());
}

/// A session id, discovery's figures of what a slim would save (bytes,
/// tokens), and what a slim's own pass says.
type Savings = (String, (u64, u64), (u64, u64));

/// [`Savings`] of every session of the repository in `w`.
fn savings_both_ways(w: &World) -> Vec<Savings> {
    let options = DiscoverOptions {
        claude_config_dir: Some(w.config.clone()),
        registry_root: Some(w.config.parent().unwrap().join("state")),
        ..DiscoverOptions::default()
    };
    let settings = preset("default").unwrap();
    discover_sessions(&RepoPath::resolve(CWD), &options, &DiscoveryCache::new())
        .iter()
        .map(|s| {
            let path = PathBuf::from(s.transcript_path.clone().unwrap());
            let reference = savings(&path, &settings).unwrap();
            (
                s.session_id.clone(),
                (s.slim_savings_bytes, s.slim_savings_tokens),
                reference,
            )
        })
        .collect()
}

#[test]
fn discovery_reports_what_a_slim_would_save_as_the_slim_measures_it() {
    let w = world();
    // A progress line opening the session (its parent null): the line
    // after it is re-linked to null, which the figures count too.
    let text = fs::read_to_string(w.transcript()).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let opener = serde_json::json!({
        "parentUuid": null, "isSidechain": false, "type": "progress",
        "data": { "type": "hook_progress", "hookName": "SessionStart" },
        "uuid": "00000000-0000-4000-8000-00000000cafe", "sessionId": ID,
        "timestamp": first["timestamp"],
    });
    let mut chained = first.clone();
    chained["parentUuid"] = opener["uuid"].clone();
    let rest: Vec<&str> = text.lines().skip(1).collect();
    fs::write(
        w.transcript(),
        format!("{opener}\n{chained}\n{}\n", rest.join("\n")),
    )
    .unwrap();
    let all = savings_both_ways(&w);
    assert!(all.len() > 3, "{all:?}");
    for (id, discovered, reference) in &all {
        assert_eq!(discovered, reference, "session {id}");
    }
    let (_, bloated, _) = all.iter().find(|(id, ..)| id == ID).unwrap();
    assert!(bloated.0 > 500_000, "{bloated:?}");
    assert!(bloated.1 > 100_000, "{bloated:?}");
    // Once slimmed, nothing is left to save.
    slim_claude_session(&w.request()).unwrap();
    let (_, after, _) = savings_both_ways(&w)
        .into_iter()
        .find(|(id, ..)| id == ID)
        .unwrap();
    assert_eq!(after, (0, 0));
}

#[test]
fn a_dry_run_reports_and_writes_nothing() {
    let w = world();
    let original = fs::read(w.transcript()).unwrap();
    let mut req = w.request();
    req.dry_run = true;
    let outcome = slim_claude_session(&req).unwrap();
    assert!(outcome.changed && outcome.dry_run);
    assert!(outcome.size_after * 5 < outcome.size_original);
    assert_eq!(fs::read(w.transcript()).unwrap(), original);
    let names = fs::read_dir(w.transcript().parent().unwrap())
        .unwrap()
        .count();
    assert_eq!(
        names,
        fs::read_dir(fixture().join("projects").join(SLUG))
            .unwrap()
            .count()
    );
}

#[test]
fn a_fork_is_a_new_titled_session_and_the_original_is_untouched() {
    let w = world();
    let original = fs::read(w.transcript()).unwrap();
    let before = w.discovered(ID);
    let mut req = w.request();
    req.fork = true;
    req.settings = preset("aggressive").unwrap();
    let outcome = slim_claude_session(&req).unwrap();
    let fork_id = outcome.fork_session_id.clone().unwrap();
    assert_ne!(fork_id, ID);
    assert_eq!(fs::read(w.transcript()).unwrap(), original);
    let fork_path = outcome.fork_path.clone().unwrap();
    assert_eq!(
        fork_path,
        w.transcript().with_file_name(format!("{fork_id}.jsonl"))
    );
    let fork_lines = lines(&fork_path);
    assert!(fork_lines
        .iter()
        .all(|l| l.get("sessionId").is_none_or(|s| s == fork_id.as_str())));
    assert!(fork_lines
        .iter()
        .filter(|l| l["type"] == "assistant")
        .all(|l| l["requestSessionId"] == ID));
    let title = fork_lines.last().unwrap();
    assert_eq!(title["type"], "custom-title");
    assert_eq!(title["slimmedFrom"], ID);
    let fork = w.discovered(&fork_id);
    assert_eq!(fork.title, format!("{} (slimmed)", before.title));
    assert!(fork.file_size_bytes * 5 < before.file_size_bytes);
    assert_eq!(
        w.discovered(ID).tokens,
        before.tokens,
        "the original's totals"
    );
}

#[test]
#[cfg(target_os = "linux")]
fn a_running_session_is_refused_and_left_alone() {
    let w = world();
    let original = fs::read(w.transcript()).unwrap();
    // This process, recorded as the CLI records the process running a session.
    let pid = std::process::id();
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let start = stat[stat.rfind(')').unwrap() + 2..]
        .split(' ')
        .nth(19)
        .unwrap()
        .to_owned();
    let sessions = w.config.join("sessions");
    fs::create_dir_all(&sessions).unwrap();
    let record = serde_json::json!({ "pid": pid, "sessionId": ID, "cwd": CWD, "procStart": start });
    fs::write(sessions.join(format!("{pid}.json")), record.to_string()).unwrap();
    let err = slim_claude_session(&w.request()).unwrap_err();
    assert_eq!(err.code, ErrorCode::SessionBusy);
    assert!(
        err.message.contains(ID) && err.message.contains(&pid.to_string()),
        "{}",
        err.message
    );
    assert_eq!(fs::read(w.transcript()).unwrap(), original);
    // A dry run and a fork read it; they work.
    let mut req = w.request();
    req.dry_run = true;
    assert!(slim_claude_session(&req).unwrap().changed);
    req.fork = true;
    req.dry_run = false;
    assert!(slim_claude_session(&req)
        .unwrap()
        .fork_path
        .unwrap()
        .exists());
    let err = restore_claude_session(&w.request().session, 5).unwrap_err();
    assert_eq!(err.code, ErrorCode::SessionBusy);
}

#[test]
fn a_half_written_last_line_is_kept_as_it_is() {
    let w = world();
    let half = br#"{"parentUuid":"x","type":"user","message":{"role":"user","content":"interru"#;
    fs::OpenOptions::new()
        .append(true)
        .open(w.transcript())
        .unwrap()
        .write_all(half)
        .unwrap();
    let outcome = slim_claude_session(&w.request()).unwrap();
    assert!(outcome.changed);
    let after = fs::read(w.transcript()).unwrap();
    assert!(after.ends_with(half));
    assert_eq!(after.len() as u64, outcome.size_after);
    restore_claude_session(&w.request().session, 5).unwrap();
    assert!(fs::read(w.transcript()).unwrap().ends_with(half));
}

#[test]
fn a_writer_appending_during_the_slim_loses_nothing() {
    for round in 0..3 {
        let w = world();
        let path = w.transcript();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let writer = {
            let (path, stop) = (path.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut written = Vec::new();
                for i in 0..400 {
                    if stop.load(std::sync::atomic::Ordering::Relaxed) && i > 20 {
                        break;
                    }
                    let line = format!(
                        r#"{{"type":"queue-operation","operation":"enqueue","sessionId":"{ID}","content":"append {round}-{i}"}}"#
                    );
                    // As the CLI appends: open, write the line, close.
                    let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
                    f.write_all(format!("{line}\n").as_bytes()).unwrap();
                    written.push(line);
                    // A turn's lines come together, then a pause.
                    let pause = if i % 25 == 24 { 40 } else { 2 };
                    std::thread::sleep(std::time::Duration::from_millis(pause));
                }
                written
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(10));
        let result = slim_claude_session(&w.request());
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let written = writer.join().unwrap();
        let text = fs::read_to_string(&path).unwrap();
        match result {
            Ok(outcome) => {
                assert!(outcome.changed);
                eprintln!(
                    "round {round}: {} appended lines carried",
                    outcome.appended_lines_kept
                );
            }
            Err(e) => assert_eq!(e.code, ErrorCode::ConcurrentModification, "{e}"),
        }
        // Every appended line is there once, in order.
        let found: Vec<&str> = text.lines().filter(|l| l.contains("\"append ")).collect();
        assert_eq!(found, written, "round {round}");
    }
}

#[test]
fn unknown_sessions_and_prefixes() {
    let w = world();
    let mut req = w.request();
    req.session.session_id = "8fe872f4".into();
    req.dry_run = true;
    assert_eq!(slim_claude_session(&req).unwrap().session_id, ID);
    req.session.session_id = "00000000-dead".into();
    assert_eq!(
        slim_claude_session(&req).unwrap_err().code,
        ErrorCode::SessionNotFound
    );
    req.session.session_id = "../etc".into();
    assert_eq!(
        slim_claude_session(&req).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    let err = restore_claude_session(&w.request().session, 5).unwrap_err();
    assert_eq!(err.code, ErrorCode::NoBackup);
}

/// A config folder holding one session of `text`, and a request for it.
fn lone_session(text: &[u8]) -> (tempfile::TempDir, SlimRequest, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("config");
    let dir = config.join("projects").join(SLUG);
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{ID}.jsonl"));
    fs::write(&path, text).unwrap();
    let mut req = SlimRequest::new(ID);
    req.session.claude_config_dir = Some(config);
    (tmp, req, path)
}

/// Transcript lines of tool results, one a result: each with a
/// `toolUseResult` copy of a few KB at most.
fn result_lines(results: impl IntoIterator<Item = String>) -> Vec<u8> {
    let mut text = Vec::new();
    for (n, result) in (1..).zip(results) {
        let v = serde_json::json!({
            "parentUuid": format!("u{}", n - 1), "uuid": format!("u{n}"), "sessionId": ID,
            "type": "user", "timestamp": "2026-11-01T00:00:00.000Z",
            "message": { "role": "user", "content": [
                { "type": "tool_result", "tool_use_id": format!("t{n}"), "content": result } ] },
            "toolUseResult": { "stdout": "x".repeat(n % 5 * 1_000) },
        });
        text.extend_from_slice(serde_json::to_string(&v).unwrap().as_bytes());
        text.push(b'\n');
    }
    text
}

/// Slims `text` (in a dry run, then in place) and checks that the file
/// written is each line as the slim of that line alone writes it, and
/// that the dry run said so.
fn assert_slimmed_line_by_line(text: &[u8]) {
    let settings = preset("default").unwrap();
    let mut cut = 0;
    let expected: Vec<u8> = text
        .split_inclusive(|&b| b == b'\n')
        .flat_map(|l| {
            let body = &l[..l.len() - 1];
            let mut stats = Default::default();
            let mut out = match slim_line(body, &settings, &mut stats) {
                LineFate::Replace(bytes) => bytes,
                _ => body.to_vec(),
            };
            cut += stats.tool_results_cut;
            out.push(b'\n');
            out
        })
        .collect();
    let (_tmp, mut req, path) = lone_session(text);
    req.dry_run = true;
    let dry = slim_claude_session(&req).unwrap();
    req.dry_run = false;
    let outcome = slim_claude_session(&req).unwrap();
    assert!(cut > 0);
    assert_eq!(outcome.stats.tool_results_cut, cut);
    assert_eq!(
        (dry.size_after, dry.stats),
        (outcome.size_after, outcome.stats)
    );
    let written = fs::read(&path).unwrap();
    assert_eq!(written.len(), expected.len());
    assert!(written == expected, "the slim of each line, in order");
}

#[test]
fn a_transcript_of_many_read_blocks_is_slimmed_line_by_line() {
    // Lines of every size around the read block (a few MB), one longer
    // than it, and runs of small lines kept as they are between them.
    let sizes = [
        10, 20_000, 1_000_000, 3_000_000, 5_000_000, 700_000, 4_194_000,
    ];
    let results = sizes.into_iter().flat_map(|size| {
        (0..40)
            .map(|small| format!("ok {small}"))
            .chain([long_text(size)])
    });
    assert_slimmed_line_by_line(&result_lines(results));
}

#[test]
fn lines_cut_by_the_end_of_a_read_block_are_slimmed_whole() {
    // 9 MB of lines of up to 3 KB, then 12 MB of lines of 300 KB to 1 MB:
    // the first blocks end inside a short line (joined to the next block
    // in the room kept in front of it), the later ones inside a long one
    // (gathered until its end).
    let short = (0..).map(|i| long_text(i % 3_000)).scan(0, |n, t| {
        *n += t.len() + 300;
        (*n < 9 << 20).then_some(t)
    });
    let long = (0..)
        .map(|i| long_text(300_000 + i * 77_777 % 700_000))
        .scan(0, |n, t| {
            *n += t.len();
            (*n < 12 << 20).then_some(t)
        });
    assert_slimmed_line_by_line(&result_lines(short.chain(long)));
}

#[test]
fn lines_after_dropped_ones_are_relinked_by_parent_and_logical_parent() {
    let line = |v: Value| serde_json::to_string(&v).unwrap();
    let text = [
        line(serde_json::json!({"parentUuid": null, "uuid": "u1", "sessionId": ID, "type": "user",
            "message": {"role": "user", "content": "hello"}})),
        line(serde_json::json!({"parentUuid": "u1", "uuid": "p1", "sessionId": ID, "type": "progress",
            "data": {"type": "hook_progress"}})),
        line(serde_json::json!({"parentUuid": "p1", "uuid": "p2", "sessionId": ID, "type": "progress",
            "data": {"type": "hook_progress"}})),
        line(serde_json::json!({"parentUuid": null, "logicalParentUuid": "p2", "uuid": "c1",
            "sessionId": ID, "type": "system", "subtype": "compact_boundary"})),
        line(serde_json::json!({"type": "cost-state", "sessionId": ID, "totalCostUSD": 0.5})),
        // A member of the same name inside the message, before the line's
        // own: left as it is.
        line(serde_json::json!({"sessionId": ID, "uuid": "u2", "type": "user",
            "message": {"role": "user", "content": "again", "parentUuid": "p2"},
            "parentUuid": "p2"})),
    ]
    .map(|l| l + "\n")
    .concat();
    let (_tmp, req, path) = lone_session(text.as_bytes());
    let outcome = slim_claude_session(&req).unwrap();
    assert_eq!(outcome.stats.lines_dropped, 2);
    let after = lines(&path);
    assert_eq!(after.len(), 4);
    assert_eq!(after[1]["logicalParentUuid"], "u1");
    assert_eq!(after[1]["parentUuid"], Value::Null);
    assert_eq!(after[3]["parentUuid"], "u1");
    assert_eq!(after[3]["message"]["parentUuid"], "p2");
    let written = fs::read_to_string(&path).unwrap();
    assert!(written.contains(&line(
        serde_json::json!({"type": "cost-state", "sessionId": ID, "totalCostUSD": 0.5})
    )));
}
