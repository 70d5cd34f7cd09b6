//! The pre-flight of a Claude Code spawn (`preflightSpawn`): what OpenClaw's
//! `sessions_spawn` should do before it starts Claude Code in a repository.
//!
//! Given the spawn as the model asked for it, it
//! - checks the guards: a `cwd` is given, it is an existing folder, no
//!   Claude Code session is running in that repository now ([`busy`]), and an
//!   explicit `resumeSessionId` still has its transcript. Each guard
//!   blocks with a reason that tells the model what to do instead, or
//!   only warns, or is off;
//! - isolates a spawn into a busy git repository: it runs in a worktree
//!   of its own, its `cwd` rewritten there ([`isolation`]); the busy guard
//!   decides only when that cannot be done;
//! - picks a session to continue: one the host can still resume for this
//!   requester (given by the caller) that the selection's score picks for
//!   the task becomes the `resumeSessionId`; else an earlier session of
//!   the repository relevant to the task is described in the briefing;
//! - writes the task Claude Code receives: the task unchanged, then a
//!   bounded briefing on the repository opened by the origin marker (with
//!   the spawn's nonce, by which its transcript is found later, see
//!   [`find_spawned_session`]).
//!
//! Nothing here talks to OpenClaw: the caller says which spawns are in
//! flight and which sessions are resumable.

pub mod briefing;
pub mod budget;
pub mod busy;
mod find;
pub mod isolation;
pub mod remote_work;
pub mod resume_slim;

pub use busy::RunningSession;
pub use find::find_spawned_session;
pub use isolation::{Isolation, SpawnIsolation};
pub use resume_slim::ResumeSlim;

use crate::claude_code::layout::paths::claude_config_dir;
use crate::claude_code::layout::session_files::find_transcript;
use crate::claude_code::{DiscoverOptions, DiscoveredSession, DiscoveryCache};
use crate::error::{Error, ErrorCode, Result};
use crate::project_status::{gather_with_sessions, ProjectStatusOptions};
use crate::repo_path::RepoPath;
use crate::selection::relevance::semantic_fallback;
use crate::selection::scoring::score_session;
use crate::selection::{Candidate, DEFAULT_RESUME_THRESHOLD};
use crate::spawns::InFlightSpawn;
use briefing::{
    bounded, briefing_lines, marked_task, marker_briefing, spawn_marker, task_with_briefing,
    PriorContext,
};
use busy::BusyCheck;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A fresh spawn nonce: 16 hexadecimal digits, random.
pub fn new_nonce() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..16].to_owned()
}

/// What a guard does when its condition holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GuardMode {
    /// Refuse the spawn, with the reason.
    #[default]
    Block,
    /// Let it through; the reason goes to the log (and into the briefing
    /// when there is one).
    Warn,
    /// Do not check.
    Off,
}

/// The mode of each guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Guards {
    /// The spawn gives no `cwd`.
    pub missing_cwd: GuardMode,
    /// The `cwd` is relative, missing, or not a folder.
    pub invalid_cwd: GuardMode,
    /// A Claude Code session is running in the repository now.
    pub busy: GuardMode,
    /// An explicit `resumeSessionId` whose transcript is gone.
    pub missing_resume: GuardMode,
}

/// A Claude Code session the host still holds for the requester, so that a
/// `resumeSessionId` naming it is accepted.
#[derive(Debug, Clone, Default)]
pub struct ResumableSession {
    /// The Claude Code session id.
    pub claude_session_id: String,
    /// The folder it runs in (its repository root or cwd).
    pub cwd: String,
    /// OpenClaw's child session key, when known.
    pub child_session_key: Option<String>,
}

/// The spawn as the model asked for it.
#[derive(Debug, Clone, Default)]
pub struct SpawnRequest {
    /// `task`, as given.
    pub task: String,
    /// `cwd`, as given (absent: none given).
    pub cwd: Option<String>,
    /// `resumeSessionId`, as given.
    pub resume_session_id: Option<String>,
    /// `label`, as given.
    pub label: Option<String>,
    /// The agent calling `sessions_spawn` (default `main`).
    pub agent_id: String,
    /// That agent's workspace folder, named to the model as a likely `cwd` when
    /// none is given.
    pub requester_workspace: Option<String>,
}

/// How the pre-flight runs; [`Default`] is the documented default.
#[derive(Debug, Clone)]
pub struct PreflightOptions {
    /// Claude Code's config root (default `$CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub claude_config_dir: Option<PathBuf>,
    /// OpenClaw's state root (default: OpenClaw's own resolution).
    pub registry_root: Option<PathBuf>,
    /// Add the briefing after the task (default true; false adds only the
    /// origin marker).
    pub briefing: bool,
    /// Longest briefing in characters (default 1500).
    pub briefing_max_chars: usize,
    /// The guards' modes (default: all block).
    pub guards: Guards,
    /// Set `resumeSessionId` to a resumable session picked for the task
    /// (default true).
    pub continuation_resume: bool,
    /// Describe an earlier relevant session in the briefing (default true).
    pub continuation_context: bool,
    /// Slim the transcript of a session the continuation resumes, in place,
    /// when it is larger than this many bytes and its CLI is not running
    /// (default none: never).
    pub slim_over_bytes: Option<u64>,
    /// Score a session must reach to be picked (default 0.6, the selection's).
    pub resume_threshold: f64,
    /// Relevance (0..1) a candidate must reach besides its score (default
    /// 0.4: for tasks of a few words, two words shared).
    pub min_relevance: f64,
    /// The spawns of this gateway the host has not reported ended; whether
    /// each still runs is decided by its state and what its session shows.
    pub in_flight: Vec<InFlightSpawn>,
    /// Sessions the host can still resume for the requester; one is resumed,
    /// and its live process does not make the repository busy, only while its
    /// transcript shows it idle (its last turn ended).
    pub resumable: Vec<ResumableSession>,
    /// Claude Code sessions the host reported ended: their last writes are not
    /// a sign of a session running now.
    pub finished_session_ids: Vec<String>,
    /// A transcript written this recently counts as a running session
    /// (default 10 s).
    pub busy_window: Duration,
    /// How long `gh` may take (default 1.5 s; with a `budget`, at most
    /// [`budget::github_share`] of it).
    pub github_timeout: Duration,
    /// How long the pre-flight waits for the working tree's status, from
    /// its start (default: [`budget::status_share`] of the `budget`, else
    /// until it is read). Past it the briefing says the status was not read
    /// in time and has everything else.
    pub status_budget: Option<Duration>,
    /// The time the host gives the whole pre-flight (default none; a host
    /// gives [`budget::DEFAULT_BUDGET`] unless configured otherwise). The
    /// host lets the spawn go ahead unbriefed past it; the reads whose time
    /// the pre-flight does not control get their share of it.
    pub budget: Option<Duration>,
    /// The spawn's nonce, put in the origin marker; a briefing needs one (the
    /// addon draws a fresh one when none is given).
    pub nonce: String,
    /// Keep session scans in a cache file between processes (the addon does
    /// unless this is `false`).
    pub persistent_cache: crate::claude_code::PersistentCache,
    /// When the spawn runs in a git worktree of its own (default `"busy"`:
    /// when its repository is busy; `"always"`: every spawn into a git
    /// repository; `"off"`: never, the busy guard decides).
    pub isolation: Isolation,
    /// Keep a spare worktree of the repository ready in the background once
    /// a spawn runs in its main tree (with `isolation` `"busy"`: the next
    /// spawn into it is isolated while this one runs) or is isolated into
    /// it, so that the next isolation takes it instead of checking the
    /// repository out (default `true`; see `prepareSpareWorktree`).
    pub spare_worktree: bool,
}

/// Earlier sessions weighed for the briefing's context: the most recent
/// ones, as many as the briefing's recent sessions `selectSession` weighs.
const RECENT_CANDIDATES: usize = 5;

/// Default longest briefing, in characters.
pub const DEFAULT_BRIEFING_MAX_CHARS: usize = 1500;

impl Default for PreflightOptions {
    fn default() -> Self {
        PreflightOptions {
            claude_config_dir: None,
            registry_root: None,
            briefing: true,
            briefing_max_chars: DEFAULT_BRIEFING_MAX_CHARS,
            guards: Guards::default(),
            continuation_resume: true,
            continuation_context: true,
            slim_over_bytes: None,
            resume_threshold: DEFAULT_RESUME_THRESHOLD,
            min_relevance: 0.4,
            in_flight: Vec::new(),
            resumable: Vec::new(),
            finished_session_ids: Vec::new(),
            busy_window: Duration::from_secs(10),
            github_timeout: Duration::from_millis(1500),
            status_budget: None,
            budget: None,
            nonce: String::new(),
            persistent_cache: Default::default(),
            isolation: Isolation::default(),
            spare_worktree: true,
        }
    }
}

/// What the pre-flight decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Leave the spawn as asked but for its origin marker after the task (a
    /// guard off or warning without a folder to brief on).
    Pass,
    /// Add the briefing to the task.
    Brief,
    /// Add the briefing and resume a session.
    Resume,
    /// Refuse the spawn.
    Block,
}

impl Decision {
    /// The name the binding reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Pass => "pass",
            Decision::Brief => "brief",
            Decision::Resume => "resume",
            Decision::Block => "block",
        }
    }
}

/// The pre-flight's answer.
#[derive(Debug, Clone)]
pub struct PreflightOutcome {
    /// `"pass"` (leave the spawn as asked), `"brief"`, `"resume"` or `"block"`.
    pub decision: Decision,
    /// The block reason the model reads, else a one-line summary.
    pub reason: String,
    /// The guard that blocked or warned (`missingCwd`, `invalidCwd`, `busy`,
    /// `missingResume`), if any.
    pub guard: Option<&'static str>,
    /// The task Claude Code should receive (absent: unchanged).
    pub task: Option<String>,
    /// The `resumeSessionId` to set (absent: unchanged).
    pub resume_session_id: Option<String>,
    /// The briefing added after the task.
    pub briefing: Option<String>,
    /// The briefing was cut to its size.
    pub truncated: bool,
    /// What the guards in warn mode found.
    pub warnings: Vec<String>,
    /// The repository root of `cwd`.
    pub repo_path: Option<String>,
    /// The running session the busy guard found.
    pub running: Option<RunningSession>,
    /// The earlier session the briefing describes.
    pub prior_session_id: Option<String>,
    /// The spawn's nonce, as put in the origin marker.
    pub nonce: String,
    /// The slim of the resumed session's transcript (`slim_over_bytes`), when
    /// it was over the threshold.
    pub resume_slim: Option<ResumeSlim>,
    /// The `cwd` to set (absent: unchanged): in the spawn's worktree when
    /// it is isolated.
    pub cwd: Option<String>,
    /// The worktree the spawn was isolated into, and why.
    pub isolation: Option<SpawnIsolation>,
    /// The full id of the repository's `HEAD` commit when the spawn was let
    /// through (the worktree's base when isolated), by which its commits
    /// are found later.
    pub base_commit: Option<String>,
}

impl PreflightOutcome {
    fn new(decision: Decision, reason: String) -> Self {
        PreflightOutcome {
            nonce: String::new(),
            decision,
            reason,
            guard: None,
            task: None,
            resume_session_id: None,
            briefing: None,
            truncated: false,
            warnings: Vec::new(),
            repo_path: None,
            running: None,
            prior_session_id: None,
            resume_slim: None,
            cwd: None,
            isolation: None,
            base_commit: None,
        }
    }

    fn blocked(guard: &'static str, reason: String) -> Self {
        PreflightOutcome {
            guard: Some(guard),
            ..PreflightOutcome::new(Decision::Block, reason)
        }
    }
}

/// A guard's finding: blocks, becomes a warning, or nothing.
fn apply(
    mode: GuardMode,
    guard: &'static str,
    reason: String,
    warnings: &mut Vec<String>,
    warned: &mut Option<&'static str>,
) -> Option<PreflightOutcome> {
    match mode {
        GuardMode::Block => Some(PreflightOutcome::blocked(guard, reason)),
        GuardMode::Warn => {
            warnings.push(reason);
            warned.get_or_insert(guard);
            None
        }
        GuardMode::Off => None,
    }
}

/// Runs the pre-flight of one spawn. Fails only when the state on disk
/// cannot be read at all; every finding is in the outcome.
pub fn preflight_spawn(
    req: &SpawnRequest,
    opts: &PreflightOptions,
    cache: &DiscoveryCache,
) -> Result<PreflightOutcome> {
    decide(req, opts, cache).map(|outcome| PreflightOutcome {
        nonce: opts.nonce.clone(),
        ..outcome
    })
}

/// [`preflight_spawn`] without the nonce in its outcome.
fn decide(
    req: &SpawnRequest,
    opts: &PreflightOptions,
    cache: &DiscoveryCache,
) -> Result<PreflightOutcome> {
    let started = Instant::now();
    let mut warnings = Vec::new();
    let mut warned = None;
    // A spawn let through unbriefed still carries its origin marker, by
    // which it is recorded and its transcript found.
    let pass = |warnings: Vec<String>, warned, reason: &str| PreflightOutcome {
        warnings,
        guard: warned,
        task: Some(marked_task(&req.task, &req.agent_id, &opts.nonce)),
        ..PreflightOutcome::new(Decision::Pass, reason.to_owned())
    };

    // No task: OpenClaw refuses the call itself; nothing is added to it.
    if req.task.trim().is_empty() {
        return Ok(PreflightOutcome::new(
            Decision::Pass,
            "no task: left to OpenClaw, which refuses a spawn without one".to_owned(),
        ));
    }

    // The folder.
    let Some(cwd) = req.cwd.as_deref().map(str::trim).filter(|c| !c.is_empty()) else {
        let hint = match &req.requester_workspace {
            Some(ws) => {
                format!(" Your workspace is {ws}: if the repository is there, pass cwd: \"{ws}\".")
            }
            None => String::new(),
        };
        let reason = format!(
            "sessions_spawn for Claude Code needs `cwd`, the absolute path of the repository to work in. Without it Claude Code starts in OpenClaw's own workspace for the claude agent, not in your repository.{hint} Call sessions_spawn again with cwd set."
        );
        return Ok(apply(
            opts.guards.missing_cwd,
            "missingCwd",
            reason,
            &mut warnings,
            &mut warned,
        )
        .unwrap_or_else(|| pass(warnings, warned, "no cwd to brief on")));
    };
    let cwd_path = Path::new(cwd);
    let invalid = if !cwd_path.is_absolute() {
        Some(format!("`cwd` must be an absolute path; {cwd:?} is relative. Call sessions_spawn again with the repository's absolute path."))
    } else {
        match std::fs::metadata(cwd_path) {
            Err(_) => Some(format!("`cwd` {cwd} does not exist. Check the path (list the parent folder), or create the folder first, then call sessions_spawn again.")),
            Ok(m) if !m.is_dir() => Some(format!("`cwd` {cwd} is not a folder. Pass the repository folder, not a file in it.")),
            Ok(_) => None,
        }
    };
    if let Some(reason) = invalid {
        return Ok(apply(
            opts.guards.invalid_cwd,
            "invalidCwd",
            reason,
            &mut warnings,
            &mut warned,
        )
        .unwrap_or_else(|| pass(warnings, warned, "cwd is not a folder to brief on")));
    }
    // Resolved once: everything below compares this form.
    let cwd_dir = RepoPath::resolve(cwd);

    let claude_dir = claude_config_dir(opts.claude_config_dir.as_deref());
    if claude_dir.exists() && !claude_dir.is_dir() {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("Claude Code's config folder {} is not a folder", claude_dir.display()),
        )
        .with_hint("set claudeConfigDir (or $CLAUDE_CONFIG_DIR) to Claude Code's config folder, e.g. ~/.claude"));
    }

    // An explicit resume must have a transcript to resume.
    if let Some(id) = req.resume_session_id.as_deref().filter(|s| !s.is_empty()) {
        if find_transcript(&claude_dir, &cwd_dir, id).is_none() {
            let reason = format!(
                "resumeSessionId {id}: that Claude Code session's transcript is gone (not under {}), so resuming it would fail. Omit resumeSessionId to start a fresh session; describe in the task what the earlier session did.",
                claude_dir.join("projects").display()
            );
            if let Some(blocked) = apply(
                opts.guards.missing_resume,
                "missingResume",
                reason,
                &mut warnings,
                &mut warned,
            ) {
                return Ok(blocked);
            }
        }
    }

    let discover = DiscoverOptions {
        claude_config_dir: Some(claude_dir.clone()),
        registry_root: opts.registry_root.clone(),
        running_session_ids: opts
            .in_flight
            .iter()
            .filter_map(|s| s.claude_session_id.clone())
            .collect(),
        repo_busy: false,
        persistent_cache: opts.persistent_cache.clone(),
        stat_every_file: false,
        context_windows: Default::default(),
        claude_desktop_dir: None,
    };
    let (status, sessions, repo) = gather_with_sessions(
        &cwd_dir,
        Some(&req.agent_id),
        &ProjectStatusOptions {
            discover,
            github_timeout: opts.budget.map_or(opts.github_timeout, |b| {
                budget::github_share(opts.github_timeout, b)
            }),
            status_deadline: opts
                .status_budget
                .or(opts.budget.map(budget::status_share))
                .map(|b| started + b),
        },
        cache,
    )?;

    // A session of the repository whose Claude Code process waits for its
    // next prompt: its transcript's last turn has ended.
    let idle = |id: &str| {
        sessions
            .iter()
            .find(|s| s.session_id == id)
            .and_then(|s| s.transcript_path.as_deref())
            .is_some_and(|p| cache.scans().scan(Path::new(p)).facts.turn_ended == Some(true))
    };
    // The sessions this spawn may resume: the one it names, and those the
    // host holds for its requester.
    let explicit_resume = req.resume_session_id.clone().filter(|s| !s.is_empty());
    let may_resume = |id: &str| {
        explicit_resume.as_deref() == Some(id)
            || opts.resumable.iter().any(|r| r.claude_session_id == id)
    };

    // A session running in the repository now. One this spawn may resume
    // that sits idle does not count: a persistent spawn keeps its process
    // alive between tasks, and resuming it is the point.
    let mut running = None;
    if opts.guards.busy != GuardMode::Off || opts.isolation != Isolation::Off {
        let exempt = |id: &str| may_resume(id) && idle(id);
        let check = BusyCheck {
            repo: &repo,
            claude_dir: &claude_dir,
            sessions: &sessions,
            in_flight: &opts.in_flight,
            finished_session_ids: &opts.finished_session_ids,
            busy_window: opts.busy_window,
            cache: cache.scans(),
        };
        running = check.running(&exempt);
    }
    // A busy git repository, or any with isolation `always`: the spawn
    // gets a worktree of its own. One that cannot be made leaves the
    // decision to the busy guard, with the reason.
    let mut isolated = None;
    let mut not_isolated = None;
    let wants_worktree = match opts.isolation {
        Isolation::Busy => running.is_some(),
        Isolation::Always => true,
        Isolation::Off => false,
    };
    if wants_worktree && status.repo.is_git_repo {
        let deadline = opts
            .budget
            .map_or(started + crate::worktree::DEFAULT_TIMEOUT, |b| {
                started + budget::isolation_share(b)
            });
        match isolation::isolate(cwd_path, &opts.nonce, running.as_ref(), deadline) {
            Ok(iso) => isolated = Some(iso),
            Err(e) => {
                not_isolated = Some(format!(
                    " It could not run in a git worktree of its own: {}.",
                    e.message
                ))
            }
        }
    } else if wants_worktree && running.is_some() {
        not_isolated = Some(
            " It is not a git repository, so the spawn cannot run in a worktree of its own."
                .to_owned(),
        );
    }
    // A spawn into the main tree makes its repository busy while it runs,
    // and a repository isolated into once is likely to be again: the next
    // isolation takes a spare worktree, prepared now off this thread.
    let may_isolate_next = wants_worktree || opts.isolation == Isolation::Busy;
    if opts.spare_worktree && may_isolate_next && status.repo.is_git_repo {
        crate::worktree::prepare_spare_in_background(repo.clone().into());
    }
    if let Some(running) = running
        .clone()
        .filter(|_| isolated.is_none() && opts.guards.busy != GuardMode::Off)
    {
        let who = running.describe();
        let reason = format!(
            "Claude Code is already working in {}: {who}. Two Claude Code sessions editing one working tree overwrite each other's changes. Wait until it has finished (its result is announced to you), or spawn in another repository or git worktree.{}",
            status.repo.path,
            not_isolated.as_deref().unwrap_or("")
        );
        if let Some(mut blocked) =
            apply(opts.guards.busy, "busy", reason, &mut warnings, &mut warned)
        {
            blocked.running = Some(running);
            blocked.repo_path = Some(status.repo.path.clone());
            return Ok(blocked);
        }
    }
    let base_commit = match &isolated {
        Some(iso) => Some(iso.worktree.base_commit.clone()),
        None => isolation::head_commit(&repo),
    };

    // Continuation.
    let now = chrono::Utc::now();
    let mut resume = None;
    let mut prior = None;
    if explicit_resume.is_none() {
        let branch = &status.git.current_branch;
        if opts.continuation_resume {
            // Only between its turns: resuming one at work would run two
            // processes on one transcript.
            let resumable: Vec<&DiscoveredSession> = sessions
                .iter()
                .filter(|s| {
                    opts.resumable
                        .iter()
                        .any(|r| r.claude_session_id == s.session_id && repo.holds(&r.cwd))
                        && idle(&s.session_id)
                })
                .collect();
            resume = pick(&req.task, branch, &resumable, opts, now).map(|s| s.session_id.clone());
        }
        if resume.is_none() && opts.continuation_context {
            // The sessions `selectSession` weighs: the briefing's recent ones.
            let earlier: Vec<&DiscoveredSession> = sessions
                .iter()
                .filter(|s| !s.is_running)
                .take(RECENT_CANDIDATES)
                .collect();
            prior = pick(&req.task, branch, &earlier, opts, now)
                .map(|session| PriorContext { session });
        }
    }

    // A resumed session re-sends its whole transcript on every turn.
    let resume_slim = match (&resume, opts.slim_over_bytes) {
        (Some(id), Some(over)) => sessions.iter().find(|s| &s.session_id == id).and_then(|s| {
            let deadline = opts.budget.map(|b| started + b);
            resume_slim::slim_before_resume(s, over, opts.claude_config_dir.clone(), deadline)
        }),
        _ => None,
    };

    let marker = spawn_marker(&req.agent_id, &opts.nonce);
    let (briefing, truncated) = if opts.briefing {
        let mut lines =
            briefing_lines(&marker, &status, prior.as_ref(), &warnings, now.timestamp());
        // Right after the opening lines, where a bounded briefing keeps it.
        if let Some(line) = resume_slim.as_ref().and_then(|r| r.briefing_line.clone()) {
            lines.insert(lines.len().min(3), line);
        }
        if let Some(iso) = &isolated {
            // Right after the opening, so that a cut briefing keeps them.
            let at = lines.len().min(3);
            lines.splice(at..at, isolation::isolation_lines(iso, &status));
        }
        bounded(&lines, opts.briefing_max_chars)
    } else {
        (marker_briefing(&marker), false)
    };
    let decision = if resume.is_some() {
        Decision::Resume
    } else {
        Decision::Brief
    };
    let reason = match (&resume, &prior) {
        (Some(id), _) => format!("resuming Claude Code session {id}, picked for the task"),
        (None, Some(p)) => format!(
            "briefed on {}, with earlier session {}",
            status.repo.path, p.session.session_id
        ),
        (None, None) => format!("briefed on {}", status.repo.path),
    } + if status.status_read {
        ""
    } else {
        " (its working tree's status not read in time)"
    } + &isolated
        .as_ref()
        .map(|i| {
            format!(
                "; isolated in worktree {} on branch {}",
                i.worktree.worktree_path, i.worktree.branch
            )
        })
        .unwrap_or_default();
    Ok(PreflightOutcome {
        task: Some(task_with_briefing(&req.task, &briefing)),
        resume_session_id: resume,
        briefing: Some(briefing),
        truncated,
        warnings,
        guard: warned,
        repo_path: Some(status.repo.path.clone()),
        prior_session_id: prior.map(|p| p.session.session_id.clone()),
        resume_slim,
        cwd: isolated.as_ref().map(|i| i.worktree.cwd.clone()),
        running: running.filter(|_| isolated.is_some()),
        isolation: isolated,
        base_commit,
        ..PreflightOutcome::new(decision, reason)
    })
}

/// The session among `candidates` the selection's score picks for `task`:
/// the best scored at least the threshold, with at least the minimum
/// relevance.
fn pick<'a>(
    task: &str,
    branch: &str,
    candidates: &[&'a DiscoveredSession],
    opts: &PreflightOptions,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<&'a DiscoveredSession> {
    candidates
        .iter()
        .filter_map(|s| {
            let c = Candidate::from(*s);
            let rel = semantic_fallback(task, &c);
            if rel.relevance < opts.min_relevance {
                return None;
            }
            let score = score_session(&c, branch, &rel, None, opts.resume_threshold, now);
            (score.score >= opts.resume_threshold).then_some((*s, score.score))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(s, _)| s)
}
