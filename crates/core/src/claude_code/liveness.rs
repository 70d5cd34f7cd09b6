//! Which Claude Code sessions have a CLI process running them now, from the
//! liveness records the CLI keeps: `<config>/sessions/<pid>.json`, written
//! when a CLI process starts a session and deleted when it exits.
//!
//! A record says which process (`pid`) runs which session (`sessionId`)
//! and when that process started (`procStart`). A CLI that crashed or was
//! killed leaves its record behind, and the system hands its pid to some
//! later process; so a record counts only while its pid is alive **and**
//! that process started when the record says:
//!
//! | platform | the record's start time | compared with |
//! | --- | --- | --- |
//! | Linux | `procStart`: field 22 of `/proc/<pid>/stat` (clock ticks after boot), as text | the same field now; a zombie counts as exited. A record whose `pidDomain` (`linux:<machine id>:<pid namespace>`) is not this process's comes from another machine or container: its pid means nothing here and it does not count |
//! | macOS | `procStart`: `ps -o lstart=` in UTC (`Fri Nov 27 07:24:55 2026`) | the process's start second (`proc_pidinfo`); a zombie the system reports as one counts as exited |
//! | Windows | `procStartFt`: the creation time as a `FILETIME` | the process's creation time (`GetProcessTimes`); a value of another magnitude is not compared (as the CLI does) |
//! | other | — | the pid alone |
//!
//! Where the start time cannot be read (a record without one, written by an
//! older CLI; a process of another user on Windows; a system without
//! `/proc`), a live pid is all that is checked ([`LivenessCheck::PidOnly`]).
//!
//! Reading the records is cheap (a folder of a few small files, one `stat`
//! read per record) and touches no transcript, so discovery reads them on
//! every call.

use crate::platform::{self, ProcessStart};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

/// Records larger than this are not liveness records (they hold a few
/// hundred bytes).
const MAX_RECORD_BYTES: u64 = 64 * 1024;

/// How a [`LiveSession`]'s process was confirmed to be the one its record
/// names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LivenessCheck {
    /// The pid is alive and started when the record says.
    StartTime,
    /// The pid is alive; its start time could not be compared (see the
    /// module's table).
    PidOnly,
}

/// A Claude Code session whose CLI process is running now, from its
/// liveness record.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveSession {
    /// The CLI's process id.
    pub pid: u64,
    /// The session the process runs (`sessionId`).
    pub session_id: String,
    /// The process's working folder (`cwd`), when recorded.
    pub cwd: Option<String>,
    /// When the process took up the session, milliseconds since the Unix
    /// epoch (`startedAt`), when recorded.
    pub started_at_ms: Option<u64>,
    /// The CLI's version (`version`), when recorded.
    pub version: Option<String>,
    /// `interactive` (also under `-p`) or another kind the CLI records.
    pub kind: Option<String>,
    /// How the CLI was started (`entrypoint`: `cli` in a terminal,
    /// `sdk-cli` for `-p`, ...), when recorded.
    pub entrypoint: Option<String>,
    /// What the CLI says it is doing (`status`, e.g. `busy`), when recorded.
    pub status: Option<String>,
    /// The display name the CLI gave the session (`name`), when recorded.
    pub name: Option<String>,
    /// How the process was confirmed.
    pub checked: LivenessCheck,
    /// The record's file.
    pub record: PathBuf,
}

/// The sessions whose Claude Code CLI process is running now, by the
/// liveness records under `config_dir` (Claude Code's config root, e.g.
/// `~/.claude`): each record whose pid is alive and, where the platform can
/// tell, started when the record says (see the module docs). Stale records
/// (a crashed CLI's, a reused pid's) and unreadable ones are left out.
/// Sorted by session id, then pid; empty when the folder does not exist.
///
/// This is the signal `discoverSessions` marks `isRunning` with, and what a
/// host should check before starting or resuming a session that may be busy.
pub fn running_sessions(config_dir: &Path) -> Vec<LiveSession> {
    let dir = config_dir.join("sessions");
    let Ok(entries) = fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut live: Vec<LiveSession> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let pid = pid_of_record_name(name.to_str()?)?;
            read_live(&dir.join(&name), pid)
        })
        .collect();
    live.sort_by(|a, b| a.session_id.cmp(&b.session_id).then(a.pid.cmp(&b.pid)));
    live
}

/// The ids of [`running_sessions`], sorted, each once.
pub fn running_session_ids(config_dir: &Path) -> Vec<String> {
    let mut ids: Vec<String> = running_sessions(config_dir)
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    ids.dedup();
    ids
}

/// The pid of a record's file name, `<pid>.json`.
fn pid_of_record_name(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(".json")?;
    if digits.is_empty() || digits.len() > 10 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|&pid| pid > 0)
}

/// The record at `path` as a live session, if it is one.
fn read_live(path: &Path, pid: u64) -> Option<LiveSession> {
    let meta = fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_RECORD_BYTES {
        return None;
    }
    let record: Value = serde_json::from_slice(&fs::read(path).ok()?).ok()?;
    let session_id = text(&record, "sessionId")?;
    if !super::layout::session_files::is_safe_session_id(&session_id) {
        return None;
    }
    if record.get("pid").is_some_and(|p| p.as_u64() != Some(pid)) {
        return None;
    }
    if !same_pid_domain(&record) {
        return None;
    }
    let checked = confirm(&record, platform::process_start(pid))?;
    Some(LiveSession {
        pid,
        session_id,
        cwd: text(&record, "cwd"),
        started_at_ms: record.get("startedAt").and_then(Value::as_u64),
        version: text(&record, "version"),
        kind: text(&record, "kind"),
        entrypoint: text(&record, "entrypoint"),
        status: text(&record, "status"),
        name: text(&record, "name"),
        checked,
        record: path.to_owned(),
    })
}

/// A string field, or a number's decimal text.
fn text(record: &Value, key: &str) -> Option<String> {
    match record.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Whether the record's pids are this process table's: true unless both it
/// and this system name a pid domain and they differ (Linux).
fn same_pid_domain(record: &Value) -> bool {
    match (
        record.get("pidDomain").and_then(Value::as_str),
        platform::pid_domain(),
    ) {
        (Some(theirs), Some(ours)) => theirs == ours,
        _ => true,
    }
}

/// How the process now at the record's pid is confirmed to be the record's,
/// or `None` when it is gone or started at another time.
fn confirm(record: &Value, now: ProcessStart) -> Option<LivenessCheck> {
    use LivenessCheck::{PidOnly, StartTime};
    let same = |recorded: Option<u64>, actual: u64| (recorded == Some(actual)).then_some(StartTime);
    match now {
        ProcessStart::Gone => None,
        ProcessStart::Unknown => Some(PidOnly),
        ProcessStart::BootTicks(ticks) => match text(record, "procStart") {
            None => Some(PidOnly),
            Some(s) => same(s.trim().parse().ok(), ticks),
        },
        ProcessStart::EpochSeconds(secs) => match text(record, "procStart") {
            None => Some(PidOnly),
            Some(s) => same(lstart_epoch_seconds(&s), secs),
        },
        ProcessStart::FileTime(ft) => match text(record, "procStartFt") {
            None => Some(PidOnly),
            Some(s) => {
                let recorded: Option<u64> = s.trim().parse().ok();
                // The CLI compares only values of one magnitude (either
                // side past 3e17 or neither); so does this.
                const SPLIT: u64 = 300_000_000_000_000_000;
                match recorded {
                    Some(r) if (r > SPLIT) != (ft > SPLIT) => Some(PidOnly),
                    _ => same(recorded, ft),
                }
            }
        },
    }
}

/// Seconds since the Unix epoch of a start time as `ps -o lstart=` prints
/// it in UTC with the C locale (`Fri Nov 27 07:24:55 2026`; a day under 10
/// padded with a space).
fn lstart_epoch_seconds(s: &str) -> Option<u64> {
    let words: Vec<&str> = s.split_whitespace().collect();
    let t = chrono::NaiveDateTime::parse_from_str(&words.join(" "), "%a %b %d %H:%M:%S %Y").ok()?;
    u64::try_from(t.and_utc().timestamp()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Child, Command, Stdio};

    /// A real record the CLI wrote while it ran a session (see
    /// fixtures/claude-code-2.1/README.md).
    fn fixture_record() -> Value {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/claude-code-2.1/sessions/5105.json");
        serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
    }

    /// A child process that lives until killed.
    fn sleeper() -> Child {
        let mut cmd = if cfg!(windows) {
            let mut c = Command::new("powershell");
            c.args(["-NoProfile", "-Command", "Start-Sleep -Seconds 60"]);
            c
        } else {
            let mut c = Command::new("sleep");
            c.arg("60");
            c
        };
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap()
    }

    /// The pid of a process that has exited and been collected.
    fn dead_pid() -> u64 {
        let mut child = if cfg!(windows) {
            Command::new("cmd").args(["/C", "exit"]).spawn().unwrap()
        } else {
            Command::new("true").spawn().unwrap()
        };
        let pid = child.id() as u64;
        child.wait().unwrap();
        pid
    }

    /// `record` with its pid and start time set, as the CLI would have
    /// written it for the process `pid` whose start time is `start`.
    fn record_for(pid: u64, start: ProcessStart) -> Value {
        let mut r = fixture_record();
        r["pid"] = pid.into();
        match start {
            ProcessStart::BootTicks(t) => r["procStart"] = t.to_string().into(),
            ProcessStart::EpochSeconds(s) => {
                let t = chrono::DateTime::from_timestamp(s as i64, 0).unwrap();
                r["procStart"] = t.format("%a %b %e %H:%M:%S %Y").to_string().into();
            }
            ProcessStart::FileTime(ft) => {
                r.as_object_mut().unwrap().remove("procStart");
                r["procStartFt"] = ft.to_string().into();
            }
            ProcessStart::Gone | ProcessStart::Unknown => {}
        }
        if let Some(domain) = platform::pid_domain() {
            r["pidDomain"] = domain.into();
        }
        r
    }

    fn config_with(records: &[(u64, &Value)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sessions")).unwrap();
        for (pid, r) in records {
            let path = dir.path().join("sessions").join(format!("{pid}.json"));
            fs::write(path, serde_json::to_vec(r).unwrap()).unwrap();
        }
        dir
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn proc_start_is_field_22_of_proc_stat() {
        let fixture = fixture_record();
        let manifest: Value = serde_json::from_slice(
            &fs::read(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../../fixtures/claude-code-2.1/manifest.json"),
            )
            .unwrap(),
        )
        .unwrap();
        // The stat line read while the CLI that wrote the record ran.
        let stat = manifest["liveness"]["procStat"].as_str().unwrap();
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let field22 = after.split(' ').nth(19).unwrap();
        assert_eq!(fixture["procStart"].as_str(), Some(field22));
        // And what this module reads for a live process is that field.
        let mut child = sleeper();
        let pid = child.id() as u64;
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let field22: u64 = after.split(' ').nth(19).unwrap().parse().unwrap();
        assert_eq!(
            platform::process_start(pid),
            ProcessStart::BootTicks(field22)
        );
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn a_live_process_started_when_recorded_is_running() {
        let mut child = sleeper();
        let pid = child.id() as u64;
        let start = platform::process_start(pid);
        let record = record_for(pid, start);
        let config = config_with(&[(pid, &record)]);
        let live = running_sessions(config.path());
        assert_eq!(live.len(), 1, "{live:?}");
        assert_eq!(live[0].pid, pid);
        assert_eq!(live[0].session_id, record["sessionId"].as_str().unwrap());
        assert_eq!(live[0].entrypoint.as_deref(), Some("sdk-cli"));
        assert_eq!(live[0].status.as_deref(), Some("busy"));
        assert_eq!(live[0].version.as_deref(), Some("2.1.328"));
        if cfg!(any(target_os = "linux", target_os = "macos", windows)) {
            assert_eq!(live[0].checked, LivenessCheck::StartTime);
        }
        assert_eq!(
            running_session_ids(config.path()),
            vec![record["sessionId"].as_str().unwrap().to_owned()]
        );
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(running_sessions(config.path()).is_empty());
    }

    #[test]
    #[cfg(any(target_os = "linux", target_os = "macos", windows))]
    fn a_reused_pid_is_not_running() {
        let mut child = sleeper();
        let pid = child.id() as u64;
        let other = match platform::process_start(pid) {
            ProcessStart::BootTicks(t) => ProcessStart::BootTicks(t - 1),
            ProcessStart::EpochSeconds(s) => ProcessStart::EpochSeconds(s - 60),
            ProcessStart::FileTime(ft) => ProcessStart::FileTime(ft - 10_000_000),
            s => panic!("start time not read: {s:?}"),
        };
        let config = config_with(&[(pid, &record_for(pid, other))]);
        assert!(running_sessions(config.path()).is_empty());
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn a_dead_pid_and_the_fixture_left_behind_are_not_running() {
        let pid = dead_pid();
        let dead = record_for(pid, ProcessStart::Unknown);
        // The CLI's own record, left as it was: its process exited long ago
        // (and if the pid was reused, not at the recorded start time).
        let fixture = fixture_record();
        let config = config_with(&[(pid, &dead), (5105, &fixture)]);
        assert!(running_sessions(config.path()).is_empty());
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_zombie_is_not_running() {
        let mut child = Command::new("true").spawn().unwrap();
        let pid = child.id() as u64;
        // Exited, not yet collected.
        for _ in 0..200 {
            if platform::process_start(pid) == ProcessStart::Gone {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(
            platform::process_alive(pid),
            "a zombie still answers kill(0)"
        );
        assert_eq!(platform::process_start(pid), ProcessStart::Gone);
        child.wait().unwrap();
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_record_from_another_pid_domain_is_not_running() {
        let mut child = sleeper();
        let pid = child.id() as u64;
        let mut record = record_for(pid, platform::process_start(pid));
        record["pidDomain"] = "linux:0123456789abcdef:pid:[4026531999]".into();
        let config = config_with(&[(pid, &record)]);
        assert!(running_sessions(config.path()).is_empty());
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn records_without_a_start_time_check_the_pid_alone() {
        let mut child = sleeper();
        let pid = child.id() as u64;
        let mut record = record_for(pid, ProcessStart::Unknown);
        let obj = record.as_object_mut().unwrap();
        obj.remove("procStart");
        obj.remove("procStartFt");
        let config = config_with(&[(pid, &record)]);
        let live = running_sessions(config.path());
        assert_eq!(live.len(), 1);
        assert_eq!(live[0].checked, LivenessCheck::PidOnly);
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn other_files_and_broken_records_are_skipped() {
        let mut children = [sleeper(), sleeper(), sleeper()];
        let [a, b, c] = [0, 1, 2].map(|i| children[i].id() as u64);
        let good = record_for(a, platform::process_start(a));
        // A record naming another pid than its file's is not trusted.
        let other_pid = record_for(a, platform::process_start(a));
        let mut unsafe_id = record_for(c, platform::process_start(c));
        unsafe_id["sessionId"] = "../../etc".into();
        let config = config_with(&[(a, &good), (b, &other_pid), (c, &unsafe_id)]);
        let sessions = config.path().join("sessions");
        fs::write(sessions.join(format!("{a}.abc.key")), "{}").unwrap();
        fs::write(
            sessions.join("notes.json"),
            serde_json::to_vec(&good).unwrap(),
        )
        .unwrap();
        fs::write(
            sessions.join(format!("{}.json", std::process::id())),
            b"{not json",
        )
        .unwrap();
        let live = running_sessions(config.path());
        assert_eq!(live.iter().map(|s| s.pid).collect::<Vec<_>>(), vec![a]);
        assert!(running_sessions(&config.path().join("missing")).is_empty());
        for child in &mut children {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    #[test]
    fn lstart_text_is_read_as_utc_seconds() {
        assert_eq!(
            lstart_epoch_seconds("Fri Nov 27 07:24:55 2026"),
            Some(1_795_764_295)
        );
        assert_eq!(
            lstart_epoch_seconds("Tue Dec  1 09:00:00 2026"),
            Some(1_796_115_600)
        );
        assert_eq!(lstart_epoch_seconds("73339"), None);
    }

    #[test]
    fn record_names_are_pids() {
        assert_eq!(pid_of_record_name("20876.json"), Some(20876));
        assert_eq!(pid_of_record_name("0.json"), None);
        assert_eq!(pid_of_record_name("20876.07a7.key"), None);
        assert_eq!(pid_of_record_name("x.json"), None);
        assert_eq!(pid_of_record_name("99999999999.json"), None);
    }
}
