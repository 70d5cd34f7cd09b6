//! The busy rule: whether a Claude Code session is running in a repository
//! now, so that a second one would edit the same working tree.
//!
//! Three signals, strongest first:
//! 1. a spawn of this gateway in flight there, as the host reports it and
//!    as its phase makes it ([`InFlightSpawn::phase`]): one whose turn has
//!    ended (its answer given), or whose run the host reported ended, never
//!    counts, also within its start grace, and neither do its session's
//!    process and last writes;
//!    else starting or not learned yet, it counts on the host's word; with
//!    its session known, only while that session shows it runs (signals 2
//!    and 3 for that session);
//! 2. a Claude Code process whose liveness record puts it in the repository
//!    (one of the repository's sessions, or its `cwd` there, unless a
//!    program drives it through the Agent SDK and it has had no prompt yet;
//!    the records themselves are read by [`crate::claude_code::liveness`]);
//! 3. a transcript of the repository written within the busy window.
//!
//! Sessions the host reported ended count only by the first; sessions the
//! caller exempts (idle ones the spawn may resume) by none; and work in a
//! worktree of the repository under `.claude/worktrees/` (an isolated
//! spawn's) by none: it does not edit the main tree.

use super::find::find_spawned_session;
use crate::claude_code::layout::session_files::find_transcript;
use crate::claude_code::liveness::{running_sessions, LiveSession};
use crate::claude_code::{DiscoveredSession, ScanCache};
use crate::repo_path::resolve_lexically;
use crate::spawns::{InFlightSpawn, SessionSignals, SpawnPhase, SPAWN_POLICY};
use crate::worktree::WORKTREES_DIR;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// A Claude Code session found running in the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningSession {
    /// Its Claude Code session id, when known.
    pub session_id: Option<String>,
    /// OpenClaw's child session key, when it is a spawn of this gateway.
    pub child_session_key: Option<String>,
    /// How it was found: `"spawn"` (in flight here), `"liveness"` (Claude
    /// Code's record of a live process) or `"recent-write"`.
    pub signal: &'static str,
}

impl RunningSession {
    /// Who runs, for a block reason: the session, OpenClaw's child session
    /// and the signal it was found by.
    pub fn describe(&self) -> String {
        let mut out = match &self.session_id {
            Some(id) => format!("session {id}"),
            None => "a session this gateway spawned moments ago".to_owned(),
        };
        if let Some(key) = &self.child_session_key {
            out.push_str(&format!(" (OpenClaw session {key})"));
        }
        out.push_str(match self.signal {
            "spawn" => ", spawned through OpenClaw and not finished",
            "liveness" => ", whose Claude Code process is alive",
            _ => ", whose transcript was written seconds ago",
        });
        out
    }
}

/// Whether `dir` lies in the repository `repo` (is it, or below it).
pub fn lies_in(dir: &str, repo: &Path) -> bool {
    resolve_lexically(dir).starts_with(repo)
}

/// One repository's busy check: the repository, its sessions and what the
/// host knows.
pub struct BusyCheck<'a> {
    /// The repository root, resolved.
    pub repo: &'a Path,
    /// Claude Code's config root, where the liveness records are.
    pub claude_dir: &'a Path,
    /// The repository's sessions, as discovery found them.
    pub sessions: &'a [DiscoveredSession],
    /// The host's spawns in flight.
    pub in_flight: &'a [InFlightSpawn],
    /// Claude Code sessions the host reported ended.
    pub finished_session_ids: &'a [String],
    /// A transcript written this recently counts as a running session.
    pub busy_window: Duration,
    /// The scans of transcripts, for whether a spawn's turn has ended.
    pub cache: &'a ScanCache,
}

/// Whether the transcript at `path` shows its last turn ended, written at
/// or after `since` (the turn is the spawn's, not an earlier one of a
/// session it resumed).
pub fn turn_ended_since(cache: &ScanCache, path: &Path, since: Option<SystemTime>) -> bool {
    let written = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let after = match (since, written) {
        (Some(since), Some(at)) => at >= since,
        (None, Some(_)) => true,
        (_, None) => false,
    };
    after && cache.scan(path).facts.turn_ended == Some(true)
}

impl BusyCheck<'_> {
    /// Whether the live process `l` is one a program drives through the
    /// Agent SDK (its prompts come over its input: `entrypoint` `sdk-ts`,
    /// `sdk-py`, ...; not `sdk-cli`, whose prompt is on its command line)
    /// that has had no prompt yet: its session has no transcript. It edits
    /// nothing. The Claude ACP adapter starts such processes for moments
    /// around its sessions' runs, beside the one that works.
    fn awaits_first_prompt(&self, l: &LiveSession) -> bool {
        let by_program = l
            .entrypoint
            .as_deref()
            .is_some_and(|e| e.starts_with("sdk-") && e != "sdk-cli");
        by_program
            && l.cwd.as_deref().is_some_and(|cwd| {
                find_transcript(self.claude_dir, Path::new(cwd), &l.session_id).is_none()
            })
    }

    /// A Claude Code session running in the repository now, by the
    /// strongest signal (see the module docs); none counts a session
    /// `exempt` names.
    pub fn running(&self, exempt: &dyn Fn(&str) -> bool) -> Option<RunningSession> {
        let live = running_sessions(self.claude_dir);
        let now = SystemTime::now();
        // Whether a session's transcript was written within the busy window.
        let written_recently = |s: &DiscoveredSession| {
            s.transcript_path
                .as_deref()
                .and_then(|p| std::fs::metadata(p).ok())
                .and_then(|m| m.modified().ok())
                .is_some_and(|t| now.duration_since(t).unwrap_or_default() < self.busy_window)
        };
        let shows_running = |id: &str| {
            live.iter().any(|l| l.session_id == id)
                || self
                    .sessions
                    .iter()
                    .any(|d| d.session_id == id && written_recently(d))
        };
        // Each spawn of the repository with its session and phase.
        let phase = |s: &InFlightSpawn| {
            // Its session: as the host learned it, else by its nonce.
            let id = s.claude_session_id.clone().or_else(|| {
                let since = s.started_at.map(|t| t - SPAWN_POLICY.lookup_slack);
                s.nonce
                    .as_deref()
                    .and_then(|n| find_spawned_session(self.claude_dir, &s.cwd, n, since))
            });
            let signals = id.as_deref().map_or(SessionSignals::default(), |id| {
                let path = self
                    .sessions
                    .iter()
                    .find(|d| d.session_id == id)
                    .and_then(|d| d.transcript_path.as_deref().map(std::path::PathBuf::from))
                    .or_else(|| find_transcript(self.claude_dir, Path::new(&s.cwd), id));
                SessionSignals {
                    live: live.iter().any(|l| l.session_id == id),
                    written_recently: shows_running(id),
                    turn_ended: path
                        .is_some_and(|p| turn_ended_since(self.cache, &p, s.started_at)),
                }
            });
            (id, s.phase(now, &SPAWN_POLICY, signals))
        };
        // Work in a worktree of the repository (an isolated spawn's, Claude
        // Code's own) does not edit its main tree.
        let worktrees = self.repo.join(WORKTREES_DIR);
        let in_worktree = |dir: Option<&str>| dir.is_some_and(|d| lies_in(d, &worktrees));
        let session_in_worktree = |id: &str| {
            self.sessions
                .iter()
                .any(|s| s.session_id == id && in_worktree(s.cwd.as_deref()))
        };
        // Sessions of spawns that have given their answer: their process
        // and last writes are no sign of work either.
        let mut answered: Vec<String> = Vec::new();
        for s in self.in_flight.iter().filter(|s| {
            (lies_in(s.repo_path.as_deref().unwrap_or(&s.cwd), self.repo)
                || lies_in(&s.cwd, self.repo))
                && !in_worktree(Some(&s.cwd))
                && !s.claude_session_id.as_deref().is_some_and(exempt)
        }) {
            match phase(s) {
                (_, p) if p.is_busy() => {
                    return Some(RunningSession {
                        session_id: s.claude_session_id.clone(),
                        child_session_key: s.child_session_key.clone(),
                        signal: "spawn",
                    })
                }
                (Some(id), SpawnPhase::Waiting | SpawnPhase::Ended) => answered.push(id),
                _ => {}
            }
        }
        let finished = |id: &str| {
            self.finished_session_ids.iter().any(|f| f == id)
                || answered.iter().any(|a| a == id)
                || exempt(id)
        };
        if let Some(live) = live.into_iter().find(|l| {
            !finished(&l.session_id)
                && !in_worktree(l.cwd.as_deref())
                && !session_in_worktree(&l.session_id)
                && (self.sessions.iter().any(|s| s.session_id == l.session_id)
                    || (l.cwd.as_deref().is_some_and(|cwd| lies_in(cwd, self.repo))
                        && !self.awaits_first_prompt(l)))
        }) {
            return Some(RunningSession {
                session_id: Some(live.session_id),
                child_session_key: None,
                signal: "liveness",
            });
        }
        // Only sessions discovery saw change within the window (and a second
        // of slack) are stat'ed again.
        let since =
            chrono::Duration::from_std(self.busy_window.saturating_add(Duration::from_secs(1)))
                .ok()
                .and_then(|window| {
                    chrono::DateTime::<chrono::Utc>::from(now).checked_sub_signed(window)
                })
                .unwrap_or(chrono::DateTime::<chrono::Utc>::MIN_UTC);
        self.sessions
            .iter()
            .filter(|s| s.last_modified >= since)
            .filter(|s| !finished(&s.session_id) && !in_worktree(s.cwd.as_deref()))
            .find(|s| written_recently(s))
            .map(|s| RunningSession {
                session_id: Some(s.session_id.clone()),
                child_session_key: None,
                signal: "recent-write",
            })
    }
}
