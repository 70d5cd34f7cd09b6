//! The spawn pre-flight on real git repositories made with the git CLI and
//! Claude Code transcripts written as Claude Code writes them.

use session_intel_core::claude_code::discovery::discover_sessions;
use session_intel_core::claude_code::layout::paths::full_slug;
use session_intel_core::claude_code::records::spawn_record::{SpawnLog, SpawnRecord};
use session_intel_core::claude_code::{
    DiscoverOptions, DiscoveredSession, DiscoveryCache, PersistentCache, SessionSource,
};
use session_intel_core::preflight::{
    find_spawned_session, preflight_spawn, Decision, GuardMode, Isolation, PreflightOptions,
    PreflightOutcome, ResumableSession, SpawnRequest,
};
use session_intel_core::spawns::{InFlightSpawn, SPAWN_POLICY};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::util::git_repo::*;
use crate::util::scratch::{shop_repo, Scratch};
use session_intel_core::repo_path::RepoPath;

/// A repository with history and changes of every kind, a Claude config
/// folder and a state folder, all in one temporary folder.
struct World {
    _scratch: Scratch,
    repo: PathBuf,
    other: PathBuf,
    claude: PathBuf,
    state: PathBuf,
}

impl World {
    fn new() -> World {
        let scratch = Scratch::new();
        let base = scratch.base.clone();
        let repo = shop_repo(&base, 7200, &[("README.md", "shop\n")]);
        git_in(&repo, &["checkout", "-q", "-b", "feature/cart-totals"]);
        write(&repo, "src/cart.rs", "fn cart() { total() }\n");
        git_in(&repo, &["add", "src/cart.rs"]);
        commit(&repo, "Cart totals in cents", 600);
        write(&repo, "src/cart.rs", "fn cart() { total(); tax() }\n");
        write(&repo, "src/tax.rs", "fn tax() {}\n");
        git_in(&repo, &["add", "src/tax.rs"]);
        write(&repo, "notes.txt", "todo\n");
        let other = new_repo(&base, "blog");
        write(&other, "index.md", "blog\n");
        git_in(&other, &["add", "."]);
        commit(&other, "Start the blog", 100);
        World {
            repo,
            other,
            claude: scratch.claude.clone(),
            state: scratch.state.clone(),
            _scratch: scratch,
        }
    }

    fn options(&self) -> PreflightOptions {
        PreflightOptions {
            claude_config_dir: Some(self.claude.clone()),
            registry_root: Some(self.state.clone()),
            nonce: "n0nce0000000001".into(),
            persistent_cache: PersistentCache::Off,
            // The busy guard's own tests; isolation has its own below.
            isolation: Isolation::Off,
            ..PreflightOptions::default()
        }
    }

    fn request(&self, task: &str, cwd: Option<&Path>) -> SpawnRequest {
        SpawnRequest {
            task: task.into(),
            cwd: cwd.map(|p| p.to_string_lossy().into_owned()),
            agent_id: "main".into(),
            requester_workspace: Some("/home/u/.openclaw/workspace".into()),
            ..SpawnRequest::default()
        }
    }

    /// The repository's sessions, as discovery lists them from this world.
    fn discover(&self) -> Arc<Vec<DiscoveredSession>> {
        discover_sessions(
            &RepoPath::resolve(self.repo.to_str().unwrap()),
            &DiscoverOptions {
                claude_config_dir: Some(self.claude.clone()),
                registry_root: Some(self.state.clone()),
                persistent_cache: PersistentCache::Off,
                ..DiscoverOptions::default()
            },
            &DiscoveryCache::new(),
        )
    }

    fn run(&self, req: &SpawnRequest, opts: &PreflightOptions) -> PreflightOutcome {
        preflight_spawn(req, opts, &DiscoveryCache::new()).unwrap()
    }

    /// Writes a transcript of `id` in `cwd` whose first prompt is
    /// `prompt`, touching `files`, its turn ended (idle), last written
    /// `age` ago.
    fn session(
        &self,
        cwd: &Path,
        id: &str,
        prompt: &str,
        files: &[&str],
        age: Duration,
    ) -> PathBuf {
        let dir = self
            .claude
            .join("projects")
            .join(full_slug(&cwd.to_string_lossy()));
        fs::create_dir_all(&dir).unwrap();
        let cwd_s = cwd.to_string_lossy();
        let user = serde_json::json!({
            "type": "user", "sessionId": id, "cwd": cwd_s, "gitBranch": "feature/cart-totals",
            "timestamp": "2026-11-27T07:00:00.000Z", "uuid": "00000000-0000-0000-0000-000000000001",
            "message": {"role": "user", "content": prompt}
        });
        let mut lines = vec![user.to_string()];
        for (i, f) in files.iter().enumerate() {
            lines.push(serde_json::json!({
                "type": "assistant", "sessionId": id, "cwd": cwd_s, "gitBranch": "feature/cart-totals",
                "timestamp": "2026-11-27T07:01:00.000Z", "uuid": format!("00000000-0000-0000-0000-00000000010{i}"),
                "requestId": format!("r{i}"),
                "message": {"id": format!("m{i}"), "role": "assistant", "model": "claude-opus-5",
                  "content": [{"type": "tool_use", "id": format!("t{i}"), "name": "Edit", "input": {"file_path": f}}],
                  "usage": {"input_tokens": 10, "output_tokens": 5}}
            }).to_string());
        }
        lines.push(serde_json::json!({
            "type": "assistant", "sessionId": id, "cwd": cwd_s, "gitBranch": "feature/cart-totals",
            "timestamp": "2026-11-27T07:02:00.000Z", "uuid": "00000000-0000-0000-0000-000000000200",
            "requestId": "rend",
            "message": {"id": "mend", "role": "assistant", "model": "claude-opus-5", "stop_reason": "end_turn",
              "content": [{"type": "text", "text": "Done."}],
              "usage": {"input_tokens": 10, "output_tokens": 5}}
        }).to_string());
        let path = dir.join(format!("{id}.jsonl"));
        fs::write(&path, lines.join("\n") + "\n").unwrap();
        last_written(&path, age);
        path
    }
}

/// Sets `path`'s modification time to `age` ago.
fn last_written(path: &Path, age: Duration) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now() - age)
        .unwrap();
}

const HOUR: Duration = Duration::from_secs(3600);
const A: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const B: &str = "bbbbbbbb-2222-4222-8222-222222222222";

#[test]
fn a_work_tree_whose_status_is_not_read_in_time_leaves_only_that_line_out_of_the_briefing() {
    let w = World::new();
    // Enough files that their status takes far longer than the rest.
    let bulk = w.repo.join("bulk");
    fs::create_dir_all(&bulk).unwrap();
    for i in 0..40_000 {
        fs::write(bulk.join(format!("f{i}.txt")), "x").unwrap();
    }
    // The host's budget for the whole pre-flight gives the status its share
    // of it (`status_budget` sets that share directly).
    let mut hurried = w.options();
    hurried.budget = Some(Duration::from_millis(1));
    let out = w.run(&w.request("Refactor the cart", Some(&w.repo)), &hurried);
    let briefing = out.briefing.unwrap();
    assert!(
        briefing.contains("Working tree: not read within the pre-flight's time"),
        "{briefing}"
    );
    assert!(
        briefing.contains("branch feature/cart-totals"),
        "{briefing}"
    );
    assert!(
        briefing.contains("Add the cart (2 hours ago)"),
        "{briefing}"
    );
    assert!(
        out.reason
            .ends_with("(its working tree's status not read in time)"),
        "{}",
        out.reason
    );
    // Given the time, the same call reads it.
    let out = w.run(&w.request("Refactor the cart", Some(&w.repo)), &w.options());
    assert!(out
        .briefing
        .unwrap()
        .contains("1 staged, 1 modified, 2 untracked"));
}

#[test]
fn the_task_comes_first_unchanged_then_a_bounded_briefing_of_the_real_repository() {
    let w = World::new();
    let task = "Refactor the cart totals\nKeep the API.";
    let out = w.run(&w.request(task, Some(&w.repo)), &w.options());
    assert_eq!(out.decision, Decision::Brief, "{out:?}");
    let sent = out.task.unwrap();
    let (first, rest) = sent.split_once("\n\n---\n").unwrap();
    assert_eq!(first, task, "the task is unchanged and first");
    let head = git_in(&w.repo, &["rev-parse", "--short", "HEAD"]);
    assert!(
        rest.starts_with("[openclaw:agent=main,spawn=n0nce0000000001]\n"),
        "{rest}"
    );
    for fact in [
        format!("Repository: {}", w.repo.display()),
        "branch feature/cart-totals".into(),
        format!("head {} \"Cart totals in cents\"", head.trim()),
        "Working tree: 1 staged, 1 modified, 1 untracked: src/cart.rs, src/tax.rs, notes.txt"
            .into(),
        "Recent commits: ".into(),
        "Add the cart (2 hours ago)".into(),
    ] {
        assert!(rest.contains(&fact), "{fact:?} missing from:\n{rest}");
    }
    assert!(!out.truncated);
    assert!(out.briefing.as_deref().unwrap().chars().count() <= 1500);
    assert_eq!(out.repo_path.as_deref(), Some(w.repo.to_str().unwrap()));

    // A small bound cuts it, says so, and keeps the marker.
    let mut small = w.options();
    small.briefing_max_chars = 200;
    let out = w.run(&w.request(task, Some(&w.repo.join("src"))), &small);
    let briefing = out.briefing.unwrap();
    assert!(out.truncated);
    assert!(
        briefing.chars().count() <= 200,
        "{}",
        briefing.chars().count()
    );
    assert!(briefing.contains("[openclaw:agent=main,spawn=n0nce0000000001]"));
    assert!(briefing.ends_with("[briefing truncated to 200 characters]"));

    // Briefing off: only the marker is added.
    let mut off = w.options();
    off.briefing = false;
    let out = w.run(&w.request(task, Some(&w.repo)), &off);
    assert_eq!(
        out.task.unwrap(),
        format!("{task}\n\n---\n[openclaw:agent=main,spawn=n0nce0000000001]")
    );
}

#[test]
fn a_spawn_without_cwd_is_blocked_naming_cwd_and_the_workspace_unless_the_guard_says_otherwise() {
    let w = World::new();
    let out = w.run(&w.request("Fix it", None), &w.options());
    assert_eq!(out.decision, Decision::Block);
    assert_eq!(out.guard, Some("missingCwd"));
    assert!(out.reason.contains("`cwd`"), "{}", out.reason);
    assert!(
        out.reason.contains("/home/u/.openclaw/workspace"),
        "{}",
        out.reason
    );
    let mut warn = w.options();
    warn.guards.missing_cwd = GuardMode::Warn;
    let out = w.run(&w.request("Fix it", None), &warn);
    assert_eq!(out.decision, Decision::Pass);
    assert_eq!(out.warnings.len(), 1);
    // Passed unbriefed, it still carries its origin marker.
    assert_eq!(
        out.task.as_deref(),
        Some(format!("Fix it\n\n---\n[openclaw:agent=main,spawn={}]", out.nonce).as_str())
    );
    warn.guards.missing_cwd = GuardMode::Off;
    let out = w.run(&w.request("Fix it", None), &warn);
    assert_eq!((out.decision, out.warnings.len()), (Decision::Pass, 0));
}

#[test]
fn a_spawn_without_a_task_is_left_to_openclaw_untouched() {
    let w = World::new();
    let out = w.run(&w.request(" \n", Some(&w.repo)), &w.options());
    assert_eq!(out.decision, Decision::Pass);
    assert_eq!((out.task, out.resume_session_id), (None, None));
}

#[test]
fn a_cwd_that_is_not_a_folder_is_blocked_naming_the_path() {
    let w = World::new();
    let missing = w.repo.join("no-such-dir");
    let file = w.repo.join("README.md");
    for (cwd, says) in [
        (missing.to_str().unwrap(), "does not exist"),
        (file.to_str().unwrap(), "is not a folder"),
        ("shop/src", "is relative"),
    ] {
        let mut req = w.request("Fix it", None);
        req.cwd = Some(cwd.into());
        let out = w.run(&req, &w.options());
        assert_eq!(out.decision, Decision::Block, "{cwd}");
        assert_eq!(out.guard, Some("invalidCwd"));
        assert!(out.reason.contains(cwd), "{}", out.reason);
        assert!(out.reason.contains(says), "{}", out.reason);
    }
}

/// Adds a prompt to the transcript at `path`: its session is at work on a
/// new turn.
fn at_work(path: &Path) {
    let line = serde_json::json!({
        "type": "user", "sessionId": "x", "timestamp": "2026-11-27T07:03:00.000Z",
        "uuid": "00000000-0000-0000-0000-000000000300",
        "message": {"role": "user", "content": "And the tax too"}
    });
    let mut text = fs::read_to_string(path).unwrap();
    text.push_str(&format!("{line}\n"));
    fs::write(path, text).unwrap();
}

#[test]
fn a_spawn_that_has_given_its_answer_never_makes_its_repository_busy() {
    let w = World::new();
    let mut opts = w.options();
    let started = SystemTime::now() - Duration::from_secs(3);
    opts.in_flight = vec![InFlightSpawn {
        cwd: w.repo.to_string_lossy().into_owned(),
        started_at: Some(started),
        nonce: Some("quick0000000001".into()),
        ..InFlightSpawn::default()
    }];
    // Within its start grace, its session not learned yet: busy.
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.guard, Some("busy"), "{}", out.reason);
    // It answered a second ago (found by its nonce, the host has not
    // learned its session yet): neither the spawn nor its fresh write
    // makes the repository busy.
    w.session(
        &w.repo,
        A,
        "Add tax\n\n---\n[openclaw:agent=main,spawn=quick0000000001]",
        &[],
        Duration::from_secs(1),
    );
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.decision, Decision::Brief, "{}", out.reason);
    // Learned, the same.
    opts.in_flight[0].claude_session_id = Some(A.into());
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.decision, Decision::Brief, "{}", out.reason);
    // An ended turn from before the spawn started (a session it resumes,
    // not at work on the new prompt yet) is not its answer.
    opts.in_flight[0].started_at = Some(SystemTime::now() + Duration::from_secs(1));
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.guard, Some("busy"), "{}", out.reason);
}

#[test]
fn a_spawn_whose_run_the_host_reported_ended_makes_no_repository_busy_before_its_session_is_learned(
) {
    let w = World::new();
    let mut opts = w.options();
    opts.in_flight = vec![InFlightSpawn {
        cwd: w.repo.to_string_lossy().into_owned(),
        started_at: Some(SystemTime::now() - Duration::from_secs(3)),
        nonce: Some("ended000000001".into()),
        ..InFlightSpawn::default()
    }];
    // Its transcript, found by its nonce, was written a second ago and
    // shows a turn still open (the host ended the run mid-turn).
    let written = w.session(
        &w.repo,
        A,
        "Add tax\n\n---\n[openclaw:agent=main,spawn=ended000000001]",
        &[],
        Duration::from_secs(1),
    );
    at_work(&written);
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.guard, Some("busy"), "at work by its transcript");
    // The host reported its run ended: neither the spawn nor its session's
    // fresh write makes the repository busy, within its start grace too.
    opts.in_flight[0].run_ended = true;
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.decision, Decision::Brief, "{}", out.reason);
    // Its transcript not found yet either: the host's word is enough.
    fs::remove_file(written).unwrap();
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.decision, Decision::Brief, "{}", out.reason);
}

#[test]
fn a_running_session_blocks_its_repository_and_only_its_repository() {
    let w = World::new();
    // A spawn of this gateway in flight in a folder of the repository.
    let mut opts = w.options();
    opts.in_flight = vec![InFlightSpawn {
        repo_path: None,
        cwd: w.repo.join("src").to_string_lossy().into_owned(),
        claude_session_id: Some(A.into()),
        child_session_key: Some("agent:claude:acp:1234".into()),
        started_at: None,
        started: true,
        nonce: None,
        run_ended: false,
    }];
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.decision, Decision::Block);
    assert_eq!(out.guard, Some("busy"));
    assert!(out.reason.contains(A), "{}", out.reason);
    assert!(
        out.reason.contains("agent:claude:acp:1234"),
        "{}",
        out.reason
    );
    assert_eq!(out.running.unwrap().signal, "spawn");
    // Another repository at the same moment is not blocked.
    let out = w.run(&w.request("Write a post", Some(&w.other)), &opts);
    assert_eq!(out.decision, Decision::Brief, "{}", out.reason);
    // A spawn whose session is known holds its repository past its start
    // grace only while that session shows it runs: OpenClaw does not
    // report the end of every spawn.
    opts.in_flight[0].started_at = Some(SystemTime::now());
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.guard, Some("busy"), "{}", out.reason);
    let long_ago = SystemTime::now() - SPAWN_POLICY.start_grace - Duration::from_secs(5);
    opts.in_flight[0].started_at = Some(long_ago);
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.decision, Decision::Brief, "{}", out.reason);
    // ...and its transcript written seconds ago, its turn not ended, shows
    // it still runs.
    let written = w.session(&w.repo, A, "Add tax", &[], Duration::from_secs(1));
    at_work(&written);
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.guard, Some("busy"), "{}", out.reason);
    assert_eq!(out.running.unwrap().signal, "spawn");
    fs::remove_file(written).unwrap();
    // Seen starting with its session not learned, it counts while that
    // session is looked for, and not after.
    opts.in_flight[0].claude_session_id = None;
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.guard, Some("busy"), "{}", out.reason);
    let unlearned = SystemTime::now() - SPAWN_POLICY.learn_for - Duration::from_secs(5);
    opts.in_flight[0].started_at = Some(unlearned);
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.decision, Decision::Brief, "{}", out.reason);
    // Never seen starting (OpenClaw refused it without a hook), it counts
    // only within its start grace.
    opts.in_flight[0].started = false;
    opts.in_flight[0].started_at = Some(SystemTime::now());
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.guard, Some("busy"), "{}", out.reason);
    opts.in_flight[0].started_at = Some(long_ago);
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.decision, Decision::Brief, "{}", out.reason);

    // A transcript written seconds ago by another process.
    let opts = w.options();
    w.session(&w.repo, B, "Rename the cart", &[], Duration::from_secs(1));
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &opts);
    assert_eq!(out.guard, Some("busy"), "{}", out.reason);
    assert!(out.reason.contains(B), "{}", out.reason);
    assert_eq!(out.running.unwrap().signal, "recent-write");
    let out = w.run(&w.request("Write a post", Some(&w.other)), &opts);
    assert_eq!(out.decision, Decision::Brief);
    // ...unless the host said it ended, or it is older than the window.
    let mut ended = w.options();
    ended.finished_session_ids = vec![B.into()];
    assert_eq!(
        w.run(&w.request("Add tax", Some(&w.repo)), &ended).decision,
        Decision::Brief
    );
    let mut narrow = w.options();
    narrow.busy_window = Duration::from_millis(1);
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(
        w.run(&w.request("Add tax", Some(&w.repo)), &narrow)
            .decision,
        Decision::Brief
    );
    // Warn mode lets it through and tells Claude Code.
    let mut warn = w.options();
    warn.guards.busy = GuardMode::Warn;
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &warn);
    assert_eq!(out.decision, Decision::Brief);
    assert!(out.briefing.unwrap().contains(&format!(
        "Warning: Claude Code is already working in {}",
        w.repo.display()
    )));
}

/// A Claude Code CLI process's liveness record, as the CLI writes it in a
/// terminal.
#[cfg(target_os = "linux")]
fn live_record(w: &World, pid: u32, session: &str, cwd: &Path) {
    live_record_of(w, pid, session, cwd, "cli");
}

/// A liveness record of a CLI started as `entrypoint` says (`cli` in a
/// terminal, `sdk-ts` by a program through the Agent SDK).
#[cfg(target_os = "linux")]
fn live_record_of(w: &World, pid: u32, session: &str, cwd: &Path, entrypoint: &str) {
    use session_intel_core::platform::{process_start, ProcessStart};
    let ProcessStart::BootTicks(ticks) = process_start(pid.into()) else {
        panic!("no start time for {pid}");
    };
    let dir = w.claude.join("sessions");
    fs::create_dir_all(&dir).unwrap();
    let record = serde_json::json!({
        "pid": pid, "sessionId": session, "cwd": cwd, "startedAt": 1795764752558u64,
        "procStart": ticks.to_string(), "version": "2.1.328", "kind": "interactive",
        "entrypoint": entrypoint, "status": "busy",
    });
    fs::write(dir.join(format!("{pid}.json")), record.to_string()).unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn a_live_claude_code_process_blocks_its_repository_by_its_liveness_record() {
    let w = World::new();
    // An idle terminal session: nothing written for an hour, its process alive.
    w.session(&w.repo, A, "Rename the cart", &[], HOUR);
    let mut cli = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    live_record(&w, cli.id(), A, &w.repo.join("src"));
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &w.options());
    assert_eq!(out.guard, Some("busy"), "{}", out.reason);
    assert!(out.reason.contains(A), "{}", out.reason);
    assert_eq!(out.running.unwrap().signal, "liveness");
    assert!(out.reason.contains("process is alive"), "{}", out.reason);
    let out = w.run(&w.request("Write a post", Some(&w.other)), &w.options());
    assert_eq!(out.decision, Decision::Brief, "{}", out.reason);
    cli.kill().unwrap();
    cli.wait().unwrap();
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &w.options());
    assert_eq!(
        out.decision,
        Decision::Brief,
        "a dead process's record: {}",
        out.reason
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_process_a_program_started_that_has_had_no_prompt_yet_does_not_make_its_repository_busy() {
    let w = World::new();
    let mut cli = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    // Started through the Agent SDK (as the Claude ACP adapter does), no
    // transcript of its session anywhere: it has had no prompt.
    live_record_of(&w, cli.id(), B, &w.repo, "sdk-ts");
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &w.options());
    assert_eq!(out.decision, Decision::Brief, "{}", out.reason);
    // A person's terminal session there, no prompt yet either: busy.
    live_record_of(&w, cli.id(), B, &w.repo, "cli");
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &w.options());
    assert_eq!(out.guard, Some("busy"), "{}", out.reason);
    // So is `claude -p`, whose prompt is on its command line.
    live_record_of(&w, cli.id(), B, &w.repo, "sdk-cli");
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &w.options());
    assert_eq!(out.guard, Some("busy"), "{}", out.reason);
    // Once the program's session has a transcript, it is at work: busy.
    live_record_of(&w, cli.id(), B, &w.repo, "sdk-ts");
    w.session(&w.repo, B, "Rename the cart", &[], HOUR);
    let out = w.run(&w.request("Add tax", Some(&w.repo)), &w.options());
    assert_eq!(out.guard, Some("busy"), "{}", out.reason);
    assert_eq!(out.running.unwrap().signal, "liveness");
    cli.kill().unwrap();
    cli.wait().unwrap();
}

/// Appends a prompt to a transcript: its session is at work on a turn.
fn open_turn(path: &Path, age: Duration) {
    let line = serde_json::json!({
        "type": "user", "sessionId": "s", "timestamp": "2026-11-27T07:03:00.000Z",
        "uuid": "00000000-0000-0000-0000-000000000300",
        "message": {"role": "user", "content": "And the tax too"}
    });
    let mut text = fs::read_to_string(path).unwrap();
    text.push_str(&format!("{line}\n"));
    fs::write(path, text).unwrap();
    last_written(path, age);
}

#[cfg(target_os = "linux")]
#[test]
fn an_idle_persistent_session_the_spawn_may_resume_does_not_make_its_repository_busy() {
    let w = World::new();
    // A persistent spawn's session between its tasks: its process alive,
    // its last turn ended.
    let path = w.session(
        &w.repo,
        A,
        "Refactor the cart totals into cents",
        &["src/cart.rs"],
        HOUR,
    );
    let mut cli = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    live_record(&w, cli.id(), A, &w.repo);
    let mut opts = w.options();
    opts.resumable = vec![ResumableSession {
        claude_session_id: A.into(),
        cwd: w.repo.to_string_lossy().into_owned(),
        child_session_key: None,
    }];
    let related = w.request("Finish the cart totals refactor in cents", Some(&w.repo));
    let out = w.run(&related, &opts);
    assert_eq!(out.decision, Decision::Resume, "{}", out.reason);
    assert_eq!(out.resume_session_id.as_deref(), Some(A));
    // The model resuming it by itself is let through too, not resumable or not.
    let mut explicit = w.request("Continue the cart totals", Some(&w.repo));
    explicit.resume_session_id = Some(A.into());
    assert_eq!(w.run(&explicit, &w.options()).decision, Decision::Brief);
    // Anyone else's spawn there is still refused.
    let out = w.run(&related, &w.options());
    assert_eq!(out.guard, Some("busy"), "{}", out.reason);
    // At work on a turn, it is busy to all, and not resumed.
    open_turn(&path, Duration::from_secs(600));
    let out = w.run(&related, &opts);
    assert_eq!(out.guard, Some("busy"), "{}", out.reason);
    cli.kill().unwrap();
    cli.wait().unwrap();
    let out = w.run(&related, &opts);
    assert_eq!(out.resume_session_id, None, "mid-turn: {}", out.reason);
}

#[test]
fn an_explicit_resume_is_kept_when_its_transcript_exists_and_blocked_when_it_is_gone() {
    let w = World::new();
    w.session(&w.repo, A, "Refactor the cart totals", &[], HOUR);
    let mut req = w.request("Continue the cart totals", Some(&w.repo));
    req.resume_session_id = Some(A.into());
    let out = w.run(&req, &w.options());
    assert_eq!(out.decision, Decision::Brief, "{}", out.reason);
    assert_eq!(
        out.resume_session_id, None,
        "the model's own id stays as it is"
    );
    req.resume_session_id = Some(B.into());
    let out = w.run(&req, &w.options());
    assert_eq!(out.decision, Decision::Block);
    assert_eq!(out.guard, Some("missingResume"));
    assert!(
        out.reason.contains(B) && out.reason.contains("Omit resumeSessionId"),
        "{}",
        out.reason
    );
}

#[test]
fn continuation_resumes_a_resumable_session_picked_for_the_task_and_never_an_unrelated_one() {
    let w = World::new();
    w.session(
        &w.repo,
        A,
        "Refactor the cart totals into cents",
        &["src/cart.rs"],
        HOUR,
    );
    let mut opts = w.options();
    opts.resumable = vec![ResumableSession {
        claude_session_id: A.into(),
        cwd: w.repo.to_string_lossy().into_owned(),
        child_session_key: Some("agent:claude:acp:1".into()),
    }];
    let out = w.run(
        &w.request("Finish the cart totals refactor in cents", Some(&w.repo)),
        &opts,
    );
    assert_eq!(out.decision, Decision::Resume, "{}", out.reason);
    assert_eq!(out.resume_session_id.as_deref(), Some(A));
    let out = w.run(
        &w.request("Translate the blog footer to German", Some(&w.repo)),
        &opts,
    );
    assert_eq!(out.resume_session_id, None, "{}", out.reason);
    // Not resumable by the host: never resumed, described instead.
    let out = w.run(
        &w.request("Finish the cart totals refactor in cents", Some(&w.repo)),
        &w.options(),
    );
    assert_eq!(out.resume_session_id, None);
    assert_eq!(out.prior_session_id.as_deref(), Some(A));
    let briefing = out.briefing.unwrap();
    assert!(
        briefing.contains(&format!("Earlier session on this work: {A}")),
        "{briefing}"
    );
    assert!(
        briefing.contains("Refactor the cart totals into cents"),
        "{briefing}"
    );
    assert!(
        briefing.contains("Files it touched: src/cart.rs"),
        "{briefing}"
    );
    // An unrelated task gets no prior context.
    let out = w.run(
        &w.request("Translate the blog footer to German", Some(&w.repo)),
        &w.options(),
    );
    assert_eq!(out.prior_session_id, None);
    assert!(!out.briefing.unwrap().contains("Earlier session"));
    // Only a session the host holds for the requester, in this repository.
    let mut elsewhere = w.options();
    elsewhere.resumable = vec![
        ResumableSession {
            claude_session_id: B.into(),
            cwd: w.repo.to_string_lossy().into_owned(),
            child_session_key: None,
        },
        ResumableSession {
            claude_session_id: A.into(),
            cwd: w.other.to_string_lossy().into_owned(),
            child_session_key: None,
        },
    ];
    let out = w.run(
        &w.request("Finish the cart totals refactor in cents", Some(&w.repo)),
        &elsewhere,
    );
    assert_eq!(out.resume_session_id, None, "{}", out.reason);
    // A task sharing a word or two scores high on branch and recency, but
    // too little of it is shared to continue that session.
    let out = w.run(
        &w.request(
            "Translate the cart footer to German and Spanish",
            Some(&w.repo),
        ),
        &opts,
    );
    assert_eq!(
        (out.resume_session_id, out.prior_session_id),
        (None, None),
        "{}",
        out.reason
    );
    // Continuation off: neither.
    let mut off = opts.clone();
    off.continuation_resume = false;
    off.continuation_context = false;
    let out = w.run(
        &w.request("Finish the cart totals refactor in cents", Some(&w.repo)),
        &off,
    );
    assert_eq!((out.resume_session_id, out.prior_session_id), (None, None));
}

#[test]
fn a_relevant_session_that_scores_under_the_threshold_is_not_continued() {
    let w = World::new();
    // Relevant, but ten days old and on another branch.
    let path = w.session(
        &w.repo,
        A,
        "Refactor the cart totals into cents",
        &["src/cart.rs"],
        240 * HOUR,
    );
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("feature/cart-totals", "main");
    fs::write(&path, text).unwrap();
    last_written(&path, 240 * HOUR);
    let mut opts = w.options();
    opts.resumable = vec![ResumableSession {
        claude_session_id: A.into(),
        cwd: w.repo.to_string_lossy().into_owned(),
        child_session_key: None,
    }];
    let out = w.run(
        &w.request("Finish the cart totals refactor in cents", Some(&w.repo)),
        &opts,
    );
    assert_eq!(
        (out.resume_session_id, out.prior_session_id),
        (None, None),
        "{}",
        out.reason
    );
}

#[test]
fn a_recorded_spawn_is_found_by_its_nonce_and_stays_openclaws_in_discovery() {
    let w = World::new();
    let out = w.run(
        &w.request("Refactor the cart totals", Some(&w.repo)),
        &w.options(),
    );
    let sent = out.task.unwrap();
    // Claude Code writes the spawn's transcript; a terminal session runs beside it.
    let spawned = w.session(&w.repo, A, &sent, &[], HOUR);
    w.session(&w.repo, B, "Look at the tax code", &[], 2 * HOUR);
    let since = SystemTime::now() - 2 * HOUR - Duration::from_secs(5);
    assert_eq!(
        find_spawned_session(
            &w.claude,
            w.repo.to_str().unwrap(),
            "n0nce0000000001",
            Some(since)
        )
        .as_deref(),
        Some(A)
    );
    assert_eq!(
        find_spawned_session(&w.claude, w.repo.to_str().unwrap(), "other", None),
        None
    );
    assert_eq!(
        find_spawned_session(
            &w.claude,
            w.repo.to_str().unwrap(),
            "n0nce0000000001",
            Some(SystemTime::now() + HOUR)
        ),
        None,
        "only transcripts written since the spawn"
    );
    assert!(spawned.is_file());

    let log = SpawnLog::new(&w.state);
    log.update(
        "main",
        &SpawnRecord {
            nonce: "n0nce0000000001".into(),
            claude_session_id: Some(A.into()),
            child_session_key: Some("agent:claude:acp:9".into()),
            requester_session_key: Some("agent:main:main".into()),
            agent_id: Some("main".into()),
            task: Some("Refactor the cart totals".into()),
            label: Some("cart".into()),
            cwd: Some(w.repo.to_string_lossy().into_owned()),
            repo_path: out.repo_path.clone(),
            started_at: Some("2026-11-27T07:00:00.000Z".into()),
            ..SpawnRecord::default()
        },
    )
    .unwrap();
    let sessions = w.discover();
    let a = sessions.iter().find(|s| s.session_id == A).unwrap();
    assert_eq!(a.source, SessionSource::Openclaw);
    assert_eq!(a.agent_id.as_deref(), Some("main"));
    assert_eq!(a.label.as_deref(), Some("cart"));
    assert_eq!(a.last_task.as_deref(), Some("Refactor the cart totals"));
    // Titled by the task; the marker is the source, not part of it.
    assert_eq!(a.title, "Refactor the cart totals");
    assert_eq!(a.first_message, "Refactor the cart totals");
    assert_eq!(a.origin_marker.as_deref(), Some("main"));
    let b = sessions.iter().find(|s| s.session_id == B).unwrap();
    assert_eq!(b.source, SessionSource::NativeOnly);
}

#[test]
fn a_spawn_whose_session_was_never_learned_is_still_openclaws_by_the_nonce_its_transcript_carries()
{
    let w = World::new();
    let out = w.run(
        &w.request("Refactor the cart totals", Some(&w.repo)),
        &w.options(),
    );
    w.session(&w.repo, A, &out.task.unwrap(), &[], HOUR);
    w.session(&w.repo, B, "Look at the tax code", &[], 2 * HOUR);
    // The record has no Claude session id: the gateway stopped, say,
    // before it was learned.
    SpawnLog::new(&w.state)
        .update(
            "ops",
            &SpawnRecord {
                nonce: out.nonce.clone(),
                task: Some("Refactor the cart totals".into()),
                label: Some("cart".into()),
                cwd: Some(w.repo.to_string_lossy().into_owned()),
                repo_path: out.repo_path.clone(),
                started_at: Some("2026-11-27T07:00:00.000Z".into()),
                ..SpawnRecord::default()
            },
        )
        .unwrap();
    let sessions = w.discover();
    let a = sessions.iter().find(|s| s.session_id == A).unwrap();
    assert_eq!(
        (
            a.source,
            a.agent_id.as_deref(),
            a.label.as_deref(),
            a.last_task.as_deref()
        ),
        (
            SessionSource::Openclaw,
            Some("ops"),
            Some("cart"),
            Some("Refactor the cart totals")
        )
    );
    let b = sessions.iter().find(|s| s.session_id == B).unwrap();
    assert_eq!(b.source, SessionSource::NativeOnly);
}

#[test]
fn a_claude_config_dir_that_is_a_file_fails_the_preflight() {
    let w = World::new();
    let mut opts = w.options();
    opts.claude_config_dir = Some(w.repo.join("README.md"));
    let err = preflight_spawn(
        &w.request("x", Some(&w.repo)),
        &opts,
        &DiscoveryCache::new(),
    )
    .unwrap_err();
    assert_eq!(err.code.as_str(), "E_INVALID_ARGUMENT");
}
