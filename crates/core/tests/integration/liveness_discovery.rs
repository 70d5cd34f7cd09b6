//! `isRunning` from Claude Code's liveness records, through discovery and
//! its caches: a process that starts or ends changes no project folder, so
//! a kept result must not hide it, and a record left behind by a process
//! that is gone (or whose pid now belongs to another process) counts for
//! nothing.
#![cfg(target_os = "linux")]

use crate::util::spotter::*;
use session_intel_core::claude_code::{discover_sessions, DiscoveryCache, PersistentCache};
use session_intel_core::platform::{process_start, ProcessStart};
use session_intel_core::repo_path::RepoPath;
use std::fs;
use std::process::{Child, Command};

const MAIN_ID: &str = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";

fn sleeper() -> Child {
    Command::new("sleep").arg("60").spawn().unwrap()
}

/// Writes the liveness record the CLI writes for `pid` running `MAIN_ID`,
/// with the start time `proc_start`.
fn write_record(s: &Setup, pid: u32, proc_start: &str) {
    let dir = s.config.join("sessions");
    fs::create_dir_all(&dir).unwrap();
    let record = serde_json::json!({
        "pid": pid, "sessionId": MAIN_ID, "cwd": REPO, "startedAt": 1795764752558u64,
        "procStart": proc_start, "version": "2.1.328", "kind": "interactive",
        "entrypoint": "cli", "status": "busy",
    });
    fs::write(dir.join(format!("{pid}.json")), record.to_string()).unwrap();
}

fn ticks(pid: u32) -> u64 {
    match process_start(pid.into()) {
        ProcessStart::BootTicks(t) => t,
        other => panic!("no start time for {pid}: {other:?}"),
    }
}

#[test]
fn a_session_is_running_while_its_cli_process_lives_and_not_after() {
    let s = Setup::new();
    let process = DiscoveryCache::new();
    let options = s.options(PersistentCache::Off);
    let running = || {
        let found = discover_sessions(&RepoPath::resolve(REPO), &options, &process);
        let main = found.iter().find(|x| x.session_id == MAIN_ID).unwrap();
        (main.is_running, found[0].session_id.clone())
    };
    // Read, then vouched for by the change monitor: later calls read nothing.
    for _ in 0..3 {
        assert!(!running().0);
    }

    let mut cli = sleeper();
    write_record(&s, cli.id(), &ticks(cli.id()).to_string());
    assert_eq!(
        running(),
        (true, MAIN_ID.to_owned()),
        "running, and listed first"
    );
    assert!(running().0, "and still on a repeat call");

    cli.kill().unwrap();
    cli.wait().unwrap();
    assert!(
        s.config.join("sessions").read_dir().unwrap().count() == 1,
        "the record is left behind"
    );
    assert!(!running().0, "a dead pid's record is stale");

    // A live process at the recorded pid that started at another time: the
    // pid was reused.
    let mut other = sleeper();
    write_record(&s, other.id(), &(ticks(other.id()) - 1).to_string());
    assert!(!running().0, "a reused pid's record is stale");
    write_record(&s, other.id(), &ticks(other.id()).to_string());
    assert!(running().0);
    other.kill().unwrap();
    other.wait().unwrap();
    assert!(!running().0);
}
