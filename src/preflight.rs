//! The spawn pre-flight: `preflightSpawn`, the spawn record
//! (`recordSpawn`, `listSpawns`) and `findSpawnedSession`.

use crate::error::CoreTask;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core as core;
use session_intel_core::claude_code::layout::paths::claude_config_dir;
use session_intel_core::claude_code::records::spawn_record::{SpawnLog, SpawnRecord as CoreRecord};
use session_intel_core::claude_code::{DiscoveryCache, PersistentCache};
use session_intel_core::openclaw::state_dir::{resolve_state_dir, DEFAULT_AGENT_ID};
use session_intel_core::preflight as pf;
use session_intel_core::spawns;
use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

/// The `sessions_spawn` call as the model made it (the fields the
/// pre-flight reads).
#[napi(object)]
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
    pub agent_id: Option<String>,
    /// That agent's workspace folder, named to the model as a likely `cwd` when
    /// none is given.
    pub requester_workspace: Option<String>,
}

/// A spawn of this gateway that the host has not reported ended.
#[napi(object)]
pub struct InFlightSpawn {
    /// The repository root `preflightSpawn` returned for it (else its cwd).
    pub repo_path: Option<String>,
    /// Its `cwd`.
    pub cwd: String,
    /// Its Claude Code session id, once known.
    pub claude_session_id: Option<String>,
    /// OpenClaw's child session key, once known.
    pub child_session_key: Option<String>,
    /// When the pre-flight let it through, in milliseconds since the
    /// epoch. For `SPAWN_POLICY.startGraceMs` after it the spawn counts as
    /// running on the caller's word; then, once seen starting, with its
    /// Claude Code session known only while that session shows it runs
    /// (its process's liveness record, or its transcript written within the
    /// busy window), since OpenClaw does not report the end of every spawn,
    /// and with its session unknown for `SPAWN_POLICY.learnForMs` from its
    /// start. Absent: it counts as running until the caller leaves it out.
    pub started_at_ms: Option<f64>,
    /// The host was seen starting it: its child session was reported, or
    /// its transcript found (default true). One never seen starting stops
    /// counting once its start grace has passed.
    pub started: Option<bool>,
    /// Its nonce (the `spawn=` pair of its origin marker), by which its
    /// transcript is found before the host has learned its session.
    pub nonce: Option<String>,
    /// The host reported its run ended (or is delivering its answer)
    /// before its Claude Code session was learned (default false): it makes
    /// no repository busy, and its session, found by its nonce, counts as
    /// ended, so that its last writes are not taken for work.
    pub run_ended: Option<bool>,
}

/// A Claude Code session the host can still resume for the requester.
#[napi(object)]
pub struct ResumableSession {
    /// The Claude Code session id.
    pub claude_session_id: String,
    /// The folder it runs in (its repository root or cwd).
    pub cwd: String,
    /// OpenClaw's child session key, when known.
    pub child_session_key: Option<String>,
}

/// How the pre-flight runs (all optional; defaults as documented in
/// `docs/plugin.md`).
#[napi(object)]
#[derive(Default)]
pub struct PreflightOptions {
    /// Claude Code's config root (default `$CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub claude_config_dir: Option<String>,
    /// OpenClaw's state root (default: OpenClaw's own resolution).
    pub registry_root: Option<String>,
    /// Add the briefing after the task (default true; false adds only the
    /// origin marker).
    pub briefing: Option<bool>,
    /// Longest briefing in characters (default 1500).
    pub briefing_max_chars: Option<u32>,
    /// No `cwd`: `"block"` (default), `"warn"` or `"off"`.
    #[napi(ts_type = "'block' | 'warn' | 'off'")]
    pub missing_cwd: Option<String>,
    /// A relative, missing or non-folder `cwd`: `"block"` (default), `"warn"` or `"off"`.
    #[napi(ts_type = "'block' | 'warn' | 'off'")]
    pub invalid_cwd: Option<String>,
    /// A Claude Code session running in the repository: `"block"` (default), `"warn"` or `"off"`.
    #[napi(ts_type = "'block' | 'warn' | 'off'")]
    pub busy: Option<String>,
    /// An explicit `resumeSessionId` whose transcript is gone: `"block"`
    /// (default), `"warn"` or `"off"`.
    #[napi(ts_type = "'block' | 'warn' | 'off'")]
    pub missing_resume: Option<String>,
    /// Set `resumeSessionId` to a resumable session picked for the task
    /// (default true).
    pub continuation_resume: Option<bool>,
    /// Describe an earlier relevant session in the briefing (default true).
    pub continuation_context: Option<bool>,
    /// Slim the transcript of a session the continuation resumes, in place,
    /// when it is larger than this many megabytes (MiB) and its CLI is not
    /// running (default none: never).
    pub slim_over_mb: Option<f64>,
    /// Score a session must reach to be picked (default 0.6, the selection's).
    pub resume_threshold: Option<f64>,
    /// The spawns of this gateway the host has not reported ended; whether
    /// each still runs is decided by its state and what its session shows.
    pub in_flight: Option<Vec<InFlightSpawn>>,
    /// Sessions the host can still resume for the requester; one is resumed,
    /// and its live process does not make the repository busy, only while its
    /// transcript shows it idle (its last turn ended).
    pub resumable: Option<Vec<ResumableSession>>,
    /// Claude Code sessions the host reported ended: their last writes are not
    /// a sign of a session running now.
    pub finished_session_ids: Option<Vec<String>>,
    /// A transcript written this many milliseconds ago or less counts as a
    /// running session (default 10000).
    pub busy_window_ms: Option<f64>,
    /// How long `gh` may take, in milliseconds (default 1500).
    pub github_timeout_ms: Option<f64>,
    /// How long to wait for the working tree's status, in milliseconds from
    /// the call (default: until it is read). Past it the briefing says the
    /// status was not read in time and has everything else; the read goes
    /// on in the background and speeds up the next call.
    pub status_budget_ms: Option<f64>,
    /// The time, in milliseconds, the host gives the whole pre-flight
    /// (default none). With it the working tree's status is waited for
    /// three quarters of it (unless `statusBudgetMs` says otherwise) and
    /// `gh` at most half of it. A host gives `SPAWN_POLICY.preflightBudgetMs`
    /// unless configured otherwise.
    pub budget_ms: Option<f64>,
    /// The spawn's nonce, put in the origin marker; a briefing needs one (the
    /// addon draws a fresh one when none is given).
    pub nonce: Option<String>,
    /// Keep session scans in a cache file between processes (the addon does
    /// unless this is `false`).
    pub persistent_cache: Option<bool>,
    /// When the spawn runs in a git worktree of its own (default `"busy"`:
    /// when its repository is busy; `"always"`: every spawn into a git
    /// repository; `"off"`: never, the busy guard decides).
    #[napi(ts_type = "'busy' | 'always' | 'off'")]
    pub isolation: Option<String>,
    /// Keep a spare worktree of the repository ready in the background once
    /// a spawn runs in its main tree (with `isolation` `"busy"`: the next
    /// spawn into it is isolated while this one runs) or is isolated into
    /// it, so that the next isolation takes it instead of checking the
    /// repository out (default `true`; see `prepareSpareWorktree`).
    pub spare_worktree: Option<bool>,
}

/// The parameters to patch into the spawn.
#[napi(object)]
pub struct SpawnParamsPatch {
    /// The task Claude Code receives: the original, then the briefing.
    pub task: Option<String>,
    /// The session to resume.
    pub resume_session_id: Option<String>,
    /// The `cwd` to run in: the spawn's worktree root joined with the
    /// subfolder the spawn named, when it is isolated.
    pub cwd: Option<String>,
}

/// The git worktree a spawn was isolated into, and why.
#[napi(object)]
pub struct SpawnIsolation {
    /// The worktree's root, `<repo>/.claude/worktrees/spawn-<nonce>`.
    pub worktree_path: String,
    /// Its branch, `worktree-spawn-<nonce>`.
    pub branch: String,
    /// The commit it starts from: the repository's `HEAD` when it was made.
    pub base_commit: String,
    /// The main working tree's root.
    pub repo_path: String,
    /// Where the spawn's `cwd` lies below the repository root (absent: at it).
    pub subfolder: Option<String>,
    /// The session editing the main working tree, when found by id.
    pub busy_session_id: Option<String>,
    /// The worktree is the repository's spare, taken: only what differed
    /// from the commit it was prepared at was checked out.
    pub from_spare: bool,
    /// Why, in a sentence.
    pub reason: String,
}

/// A Claude Code session running in the repository.
#[napi(object)]
pub struct RunningSessionInfo {
    /// Its Claude Code session id, when known.
    pub session_id: Option<String>,
    /// OpenClaw's child session key, when it is a spawn of this gateway.
    pub child_session_key: Option<String>,
    /// How it was found.
    #[napi(ts_type = "'spawn' | 'liveness' | 'recent-write'")]
    pub signal: String,
}

/// What the pre-flight decided.
#[napi(object)]
pub struct PreflightResult {
    /// `"pass"` (leave the spawn as asked), `"brief"`, `"resume"` or `"block"`.
    #[napi(ts_type = "'pass' | 'brief' | 'resume' | 'block'")]
    pub decision: String,
    /// Refuse the spawn with `reason`.
    pub block: bool,
    /// The block reason the model reads, else a one-line summary.
    pub reason: String,
    /// The guard that blocked or warned (`missingCwd`, `invalidCwd`, `busy`,
    /// `missingResume`), if any.
    #[napi(ts_type = "'missingCwd' | 'invalidCwd' | 'busy' | 'missingResume'")]
    pub guard: Option<String>,
    /// The parameters to patch (absent when the spawn is left as asked).
    pub params: Option<SpawnParamsPatch>,
    /// The briefing added after the task.
    pub briefing: Option<String>,
    /// The briefing was cut to its size.
    pub truncated: bool,
    /// What the guards in warn mode found.
    pub warnings: Vec<String>,
    /// The repository root of `cwd`.
    pub repo_path: Option<String>,
    /// The running session the busy guard found.
    pub running: Option<RunningSessionInfo>,
    /// The earlier session the briefing describes.
    pub prior_session_id: Option<String>,
    /// The spawn's nonce, as put in the origin marker.
    pub nonce: String,
    /// The slim of the resumed session's transcript (`slim_over_bytes`), when
    /// it was over the threshold.
    pub resume_slim: Option<ResumeSlim>,
    /// The worktree the spawn was isolated into, and why.
    pub isolation: Option<SpawnIsolation>,
    /// The full id of the repository's `HEAD` commit when the spawn was let
    /// through (the worktree's base when isolated), by which its commits
    /// are found later.
    pub base_commit: Option<String>,
}

/// What the continuation did about a large transcript before resuming it.
#[napi(object)]
pub struct ResumeSlim {
    /// The session resumed.
    pub session_id: String,
    /// Bytes of its transcript before.
    pub size_original: f64,
    /// Bytes of its transcript after (the same when it was not slimmed).
    pub size_after: f64,
    /// Why it was not slimmed (its CLI is running, not enough time left, an
    /// error); absent when it was.
    pub skipped: Option<String>,
    /// Where the original transcript was kept (`restoreClaudeSession` puts
    /// it back).
    pub backup_path: Option<String>,
    /// What the briefing says about it (absent when it was not slimmed).
    pub briefing_line: Option<String>,
    /// The slim did not fit the pre-flight's time: the host slims the
    /// session once this run has ended (`slimClaudeSession`, in the
    /// background), before it is resumed again.
    pub deferred: bool,
}

impl From<pf::ResumeSlim> for ResumeSlim {
    fn from(r: pf::ResumeSlim) -> Self {
        ResumeSlim {
            session_id: r.session_id,
            size_original: r.size_original as f64,
            size_after: r.size_after as f64,
            skipped: r.skipped,
            backup_path: r.backup_path,
            briefing_line: r.briefing_line,
            deferred: r.deferred,
        }
    }
}

/// A guard's mode from its option (absent: the core's default, `block`).
fn mode(value: Option<String>) -> core::Result<pf::GuardMode> {
    match value.as_deref() {
        None => Ok(pf::GuardMode::default()),
        Some("block") => Ok(pf::GuardMode::Block),
        Some("warn") => Ok(pf::GuardMode::Warn),
        Some("off") => Ok(pf::GuardMode::Off),
        Some(other) => Err(core::Error::new(
            core::ErrorCode::InvalidArgument,
            format!("a guard's mode must be 'block', 'warn' or 'off', not {other:?}"),
        )
        .with_hint("set missingCwd, invalidCwd, busy and missingResume to block, warn or off")),
    }
}

impl From<InFlightSpawn> for spawns::InFlightSpawn {
    fn from(s: InFlightSpawn) -> Self {
        let d = spawns::InFlightSpawn::default();
        spawns::InFlightSpawn {
            repo_path: s.repo_path,
            cwd: s.cwd,
            claude_session_id: s.claude_session_id,
            child_session_key: s.child_session_key,
            started_at: s
                .started_at_ms
                .filter(|ms| ms.is_finite() && *ms >= 0.0)
                .map(|ms| std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms as u64)),
            started: s.started.unwrap_or(d.started),
            nonce: s.nonce.filter(|n| !n.is_empty()),
            run_ended: s.run_ended.unwrap_or(d.run_ended),
        }
    }
}

impl From<ResumableSession> for pf::ResumableSession {
    fn from(s: ResumableSession) -> Self {
        pf::ResumableSession {
            claude_session_id: s.claude_session_id,
            cwd: s.cwd,
            child_session_key: s.child_session_key,
        }
    }
}

impl From<SpawnRequest> for pf::SpawnRequest {
    fn from(r: SpawnRequest) -> Self {
        pf::SpawnRequest {
            task: r.task,
            cwd: r.cwd,
            resume_session_id: r.resume_session_id,
            label: r.label,
            agent_id: r.agent_id.unwrap_or_else(|| DEFAULT_AGENT_ID.into()),
            requester_workspace: r.requester_workspace,
        }
    }
}

impl TryFrom<PreflightOptions> for pf::PreflightOptions {
    type Error = core::Error;

    fn try_from(o: PreflightOptions) -> core::Result<Self> {
        let d = pf::PreflightOptions::default();
        Ok(pf::PreflightOptions {
            claude_config_dir: o.claude_config_dir.map(PathBuf::from),
            registry_root: o.registry_root.map(PathBuf::from),
            briefing: o.briefing.unwrap_or(d.briefing),
            briefing_max_chars: o
                .briefing_max_chars
                .map_or(d.briefing_max_chars, |n| n as usize),
            guards: pf::Guards {
                missing_cwd: mode(o.missing_cwd)?,
                invalid_cwd: mode(o.invalid_cwd)?,
                busy: mode(o.busy)?,
                missing_resume: mode(o.missing_resume)?,
            },
            continuation_resume: o.continuation_resume.unwrap_or(d.continuation_resume),
            continuation_context: o.continuation_context.unwrap_or(d.continuation_context),
            slim_over_bytes: o
                .slim_over_mb
                .map(|mb| (mb.max(0.0) * (1u64 << 20) as f64) as u64)
                .or(d.slim_over_bytes),
            resume_threshold: o.resume_threshold.unwrap_or(d.resume_threshold),
            min_relevance: d.min_relevance,
            in_flight: o.in_flight.into_iter().flatten().map(Into::into).collect(),
            resumable: o.resumable.into_iter().flatten().map(Into::into).collect(),
            finished_session_ids: o.finished_session_ids.unwrap_or_default(),
            busy_window: o.busy_window_ms.map_or(d.busy_window, |ms| {
                Duration::from_millis(ms.max(0.0) as u64)
            }),
            github_timeout: o.github_timeout_ms.map_or(d.github_timeout, |ms| {
                Duration::from_millis(core::timer_ms(ms))
            }),
            status_budget: o
                .status_budget_ms
                .map(|ms| Duration::from_millis(core::timer_ms(ms))),
            budget: o
                .budget_ms
                .map(|ms| Duration::from_millis(core::timer_ms(ms))),
            nonce: o
                .nonce
                .filter(|n| !n.is_empty())
                .unwrap_or_else(pf::new_nonce),
            persistent_cache: PersistentCache::unless_turned_off(o.persistent_cache),
            isolation: o
                .isolation
                .as_deref()
                .map_or(Ok(d.isolation), pf::Isolation::parse)?,
            spare_worktree: o.spare_worktree.unwrap_or(d.spare_worktree),
        })
    }
}

/// The pre-flight of a Claude Code spawn: the guards (no `cwd`, a `cwd`
/// that is not a folder, a session running in the repository, a
/// `resumeSessionId` without transcript), continuation (a resumable
/// session picked for the task, else an earlier relevant session described)
/// and the task Claude Code receives (the task, then a bounded briefing
/// opened by the origin marker with the spawn's nonce). Runs off the
/// JavaScript thread. Rejects with `E_INVALID_ARGUMENT` for a bad option.
#[napi(catch_unwind, ts_return_type = "Promise<PreflightResult>")]
pub fn preflight_spawn(
    request: SpawnRequest,
    options: Option<PreflightOptions>,
) -> AsyncTask<CoreTask<pf::PreflightOutcome, PreflightResult>> {
    let opts = pf::PreflightOptions::try_from(options.unwrap_or_default());
    let req = pf::SpawnRequest::from(request);
    AsyncTask::new(CoreTask::new(
        move || pf::preflight_spawn(&req, &opts?, DiscoveryCache::global()),
        PreflightResult::from,
    ))
}

impl From<pf::PreflightOutcome> for PreflightResult {
    fn from(o: pf::PreflightOutcome) -> Self {
        let params = (o.task.is_some() || o.resume_session_id.is_some() || o.cwd.is_some())
            .then_some(SpawnParamsPatch {
                task: o.task,
                resume_session_id: o.resume_session_id,
                cwd: o.cwd,
            });
        PreflightResult {
            decision: o.decision.as_str().into(),
            block: o.decision == pf::Decision::Block,
            reason: o.reason,
            guard: o.guard.map(Into::into),
            params,
            briefing: o.briefing,
            truncated: o.truncated,
            warnings: o.warnings,
            repo_path: o.repo_path,
            running: o.running.map(|r| RunningSessionInfo {
                session_id: r.session_id,
                child_session_key: r.child_session_key,
                signal: r.signal.into(),
            }),
            prior_session_id: o.prior_session_id,
            nonce: o.nonce,
            resume_slim: o.resume_slim.map(Into::into),
            isolation: o.isolation.map(|i| SpawnIsolation {
                worktree_path: i.worktree.worktree_path,
                branch: i.worktree.branch,
                base_commit: i.worktree.base_commit,
                repo_path: i.worktree.repo_path,
                subfolder: Some(i.worktree.subfolder).filter(|s| !s.is_empty()),
                busy_session_id: i.busy_session_id,
                from_spare: i.worktree.from_spare,
                reason: i.reason,
            }),
            base_commit: o.base_commit,
        }
    }
}

/// The task a spawn sends when no briefing is written: `task` unchanged,
/// then the `---` separator and the origin marker
/// `[openclaw:agent=<agentId>,spawn=<nonce>]`, the layout of a briefing's
/// opening (so the task stays the session's title). What the plugin sends
/// when the pre-flight fails or runs out of time, so that the spawn is
/// still recorded and its transcript found.
#[napi(catch_unwind)]
pub fn mark_spawn_task(task: String, agent_id: String, nonce: String) -> String {
    pf::briefing::marked_task(&task, &agent_id, &nonce)
}

/// One spawn the pre-flight let through, as recorded in
/// `<stateRoot>/agents/<agentId>/claude-code-spawns.json`.
#[napi(object)]
pub struct SpawnRecord {
    /// The spawn's nonce, unique per spawn (`PreflightResult.nonce`, the
    /// `spawn=` marker pair).
    pub nonce: String,
    /// The Claude Code session id (the transcript's file name), once known.
    pub claude_session_id: Option<String>,
    /// OpenClaw's key of the ACP child session (`agent:claude:acp:<uuid>`).
    pub child_session_key: Option<String>,
    /// The session key of the agent that called `sessions_spawn`.
    pub requester_session_key: Option<String>,
    /// The agent that called `sessions_spawn` (the file's agent).
    pub agent_id: Option<String>,
    /// The task as the model gave it (without the briefing).
    pub task: Option<String>,
    /// The spawn's `label`.
    pub label: Option<String>,
    /// The `cwd` Claude Code was started in.
    pub cwd: Option<String>,
    /// The repository root of `cwd` (the work tree root, else `cwd`).
    pub repo_path: Option<String>,
    /// `"run"` or `"session"`, as the spawn asked.
    pub mode: Option<String>,
    /// The spawn resumed this session (its `resumeSessionId`).
    pub resumed: Option<bool>,
    /// What the pre-flight decided (`"brief"`, `"resume"`, `"pass"`), or
    /// `"failed"` or `"overrun"` when it did not finish and the spawn went
    /// ahead with its origin marker only.
    pub decision: Option<String>,
    /// When the spawn was let through (ISO-8601).
    pub started_at: Option<String>,
    /// When the host reported it ended (ISO-8601).
    pub ended_at: Option<String>,
    /// How it ended: the host's outcome (`"ok"`, `"error"`, `"timeout"`,
    /// `"killed"`), or `"rejected"` when the host refused the spawn.
    pub outcome: Option<String>,
    /// The full id of the repository's `HEAD` commit when the spawn was let
    /// through (`PreflightResult.baseCommit`): its commits are those after it.
    pub base_commit: Option<String>,
    /// The git worktree the spawn was isolated into (its root).
    pub worktree_path: Option<String>,
    /// That worktree's branch.
    pub worktree_branch: Option<String>,
    /// That worktree was removed when the spawn finished (it held nothing).
    pub worktree_removed: Option<bool>,
    /// The spawn's last known state (`starting`, `running`, `waiting`,
    /// `ended`, `failed`), as the host last saw it.
    pub final_state: Option<String>,
}

impl From<SpawnRecord> for CoreRecord {
    fn from(r: SpawnRecord) -> Self {
        CoreRecord {
            nonce: r.nonce,
            claude_session_id: r.claude_session_id,
            child_session_key: r.child_session_key,
            requester_session_key: r.requester_session_key,
            agent_id: r.agent_id,
            task: r.task,
            label: r.label,
            cwd: r.cwd,
            repo_path: r.repo_path,
            mode: r.mode,
            resumed: r.resumed,
            decision: r.decision,
            started_at: r.started_at,
            ended_at: r.ended_at,
            outcome: r.outcome,
            base_commit: r.base_commit,
            worktree_path: r.worktree_path,
            worktree_branch: r.worktree_branch,
            worktree_removed: r.worktree_removed,
            final_state: r.final_state,
        }
    }
}

impl From<CoreRecord> for SpawnRecord {
    fn from(r: CoreRecord) -> Self {
        SpawnRecord {
            nonce: r.nonce,
            claude_session_id: r.claude_session_id,
            child_session_key: r.child_session_key,
            requester_session_key: r.requester_session_key,
            agent_id: r.agent_id,
            task: r.task,
            label: r.label,
            cwd: r.cwd,
            repo_path: r.repo_path,
            mode: r.mode,
            resumed: r.resumed,
            decision: r.decision,
            started_at: r.started_at,
            ended_at: r.ended_at,
            outcome: r.outcome,
            base_commit: r.base_commit,
            worktree_path: r.worktree_path,
            worktree_branch: r.worktree_branch,
            worktree_removed: r.worktree_removed,
            final_state: r.final_state,
        }
    }
}

/// Adds or completes the record of one spawn (locked, atomic): the fields
/// given replace those stored, the others stay. `stateDir` defaults to
/// OpenClaw's own resolution. Resolves to the record as stored. Rejects
/// with `E_INVALID_ARGUMENT` for a bad agent id or nonce, `E_WRITE_FAILED`
/// when the file cannot be written.
#[napi(catch_unwind, ts_return_type = "Promise<SpawnRecord>")]
pub fn record_spawn(
    agent_id: String,
    record: SpawnRecord,
    state_dir: Option<String>,
) -> AsyncTask<CoreTask<CoreRecord, SpawnRecord>> {
    let log = SpawnLog::new(resolve_state_dir(
        state_dir.as_deref().map(std::path::Path::new),
    ));
    let record = CoreRecord::from(record);
    AsyncTask::new(CoreTask::new(
        move || log.update(&agent_id, &record),
        SpawnRecord::from,
    ))
}

/// Every recorded spawn of one agent, oldest first.
#[napi(catch_unwind, ts_return_type = "Promise<Array<SpawnRecord>>")]
pub fn list_spawns(
    agent_id: String,
    state_dir: Option<String>,
) -> AsyncTask<CoreTask<Vec<CoreRecord>, Vec<SpawnRecord>>> {
    let log = SpawnLog::new(resolve_state_dir(
        state_dir.as_deref().map(std::path::Path::new),
    ));
    AsyncTask::new(CoreTask::new(
        move || log.list(&agent_id),
        |v| v.into_iter().map(SpawnRecord::from).collect(),
    ))
}

/// Options of `findSpawnedSession`.
#[napi(object)]
#[derive(Default)]
pub struct FindSpawnedOptions {
    /// Claude Code's config root (default `$CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub claude_config_dir: Option<String>,
    /// Only transcripts written at or after this time (milliseconds since
    /// the epoch).
    pub since_ms: Option<f64>,
}

/// The Claude Code session id of the spawn with `nonce` in `cwd`: the
/// transcript whose first lines carry `spawn=<nonce>` in the origin marker,
/// or `null` while there is none.
#[napi(catch_unwind, ts_return_type = "Promise<string | null>")]
pub fn find_spawned_session(
    cwd: String,
    nonce: String,
    options: Option<FindSpawnedOptions>,
) -> AsyncTask<CoreTask<Option<String>, Option<String>>> {
    let o = options.unwrap_or_default();
    let claude_dir = claude_config_dir(o.claude_config_dir.as_deref().map(std::path::Path::new));
    let since = o
        .since_ms
        .filter(|ms| ms.is_finite() && *ms > 0.0)
        .map(|ms| UNIX_EPOCH + Duration::from_millis(ms as u64));
    AsyncTask::new(CoreTask::new(
        move || Ok(pf::find_spawned_session(&claude_dir, &cwd, &nonce, since)),
        |v| v,
    ))
}
