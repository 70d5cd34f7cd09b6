//! The `project-status.ts` drop-in: `gatherProjectStatus`.

use crate::claude_code::{DiscoverOptions, DiscoveredSession, DiscoveredSessionInput};
use crate::error::CoreTask;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core::claude_code::DiscoveryCache;
use session_intel_core::project_status as ps;
use std::time::Duration;

/// Options of `gatherProjectStatus` (all optional; the reference takes none).
#[napi(object)]
#[derive(Default)]
pub struct ProjectStatusOptions {
    /// Claude Code's config root, for session discovery (see
    /// `DiscoverOptions.claudeConfigDir`).
    pub claude_config_dir: Option<String>,
    /// OpenClaw's state root, for session discovery (see
    /// `DiscoverOptions.registryRoot`).
    pub registry_root: Option<String>,
    /// Session ids the host knows to be running now (they make up
    /// `sessions.active`).
    pub running_session_ids: Option<Vec<String>>,
    /// The host is running Claude Code in this repository: every registry
    /// session of it counts as active. Default false.
    pub repo_busy: Option<bool>,
    /// How long each `gh` call may take, in milliseconds (default 5000),
    /// read as Node's `setTimeout` reads a delay.
    pub github_timeout_ms: Option<f64>,
    /// Keep session scans in a cache file between processes (default true;
    /// see `DiscoverOptions.persistentCache`).
    pub persistent_cache: Option<bool>,
    /// Context windows (tokens) by model id, for session discovery (see
    /// `DiscoverOptions.contextWindows`).
    pub context_windows: Option<std::collections::HashMap<String, f64>>,
}

impl From<ProjectStatusOptions> for ps::ProjectStatusOptions {
    fn from(o: ProjectStatusOptions) -> Self {
        let discover = DiscoverOptions {
            claude_config_dir: o.claude_config_dir,
            registry_root: o.registry_root,
            running_session_ids: o.running_session_ids,
            repo_busy: o.repo_busy,
            persistent_cache: o.persistent_cache,
            context_windows: o.context_windows,
            claude_desktop_dir: None,
        };
        ps::ProjectStatusOptions {
            discover: discover.into(),
            github_timeout: o
                .github_timeout_ms
                .map_or(ps::ProjectStatusOptions::default().github_timeout, |ms| {
                    Duration::from_millis(session_intel_core::timer_ms(ms))
                }),
            status_deadline: None,
        }
    }
}

/// The repository looked at.
#[napi(object)]
pub struct ProjectRepo {
    /// Work tree root (the path itself when it is not inside a repository).
    pub path: String,
    /// The last component of `path` (the reference's `basename`).
    pub name: String,
    /// Whether the path is inside a git repository. The reference only checks
    /// for a `.git` entry in the path itself.
    pub is_git_repo: bool,
}

impl From<ps::RepoInfo> for ProjectRepo {
    fn from(r: ps::RepoInfo) -> Self {
        ProjectRepo {
            path: r.path,
            name: r.name,
            is_git_repo: r.is_git_repo,
        }
    }
}

/// One of the last ten commits.
#[napi(object)]
pub struct ProjectCommit {
    /// Abbreviated as `git log --format=%h` does.
    pub sha: String,
    /// Subject line (`%s`), `|` and all.
    pub message: String,
    /// Author name (`%an`).
    pub author: String,
    /// Relative author date, worded as git's `%ar` (e.g. `2 hours ago`).
    pub date: String,
}

impl From<ps::git::RecentCommit> for ProjectCommit {
    fn from(c: ps::git::RecentCommit) -> Self {
        ProjectCommit {
            sha: c.sha,
            message: c.message,
            author: c.author,
            date: c.date,
        }
    }
}

/// Git state, as the git CLI would print it; every field is empty (`""`, 0,
/// `[]`) outside a repository, and the commit fields on an unborn branch.
#[napi(object, object_from_js = false)]
pub struct ProjectGit {
    /// The current branch (`git branch --show-current`); `""` when HEAD is
    /// detached.
    pub current_branch: String,
    /// HEAD's commit id, abbreviated as `git log --format=%h` does (`""`
    /// without a commit).
    pub head_commit_sha: String,
    /// HEAD's subject line (`%s`).
    pub head_commit_message: String,
    /// `git status --short` lines with a working-tree change (untracked included).
    pub uncommitted_changes: Vec<String>,
    /// `git status --short` lines with a staged change.
    pub staged_changes: Vec<String>,
    /// Entries of `git stash list`.
    pub stash_count: u32,
    /// The last ten commits reachable from HEAD, newest first.
    pub recent_commits: Vec<ProjectCommit>,
    /// Untracked paths (folders collapsed, ending in `/`).
    pub untracked_files: Vec<String>,
}

/// Git state as it comes back in (`selectSession`,
/// `projectStatusToolPayload`): a `ProjectGit`, or the reference's `git`
/// part. Only `currentBranch` is required; an absent list is empty, an
/// absent text `""` and an absent count 0.
#[napi(object, object_to_js = false)]
pub struct ProjectGitInput {
    /// The current branch (`git branch --show-current`); `""` when HEAD is
    /// detached.
    pub current_branch: String,
    /// HEAD's commit id, abbreviated as `git log --format=%h` does (`""`
    /// without a commit).
    pub head_commit_sha: Option<String>,
    /// HEAD's subject line (`%s`).
    pub head_commit_message: Option<String>,
    /// `git status --short` lines with a working-tree change (untracked included).
    pub uncommitted_changes: Option<Vec<String>>,
    /// `git status --short` lines with a staged change.
    pub staged_changes: Option<Vec<String>>,
    /// Entries of `git stash list`.
    pub stash_count: Option<u32>,
    /// The last ten commits reachable from HEAD, newest first.
    pub recent_commits: Option<Vec<ProjectCommit>>,
    /// Untracked paths (folders collapsed, ending in `/`). Not read.
    pub untracked_files: Option<Vec<String>>,
}

impl From<ps::git::GitState> for ProjectGit {
    fn from(g: ps::git::GitState) -> Self {
        ProjectGit {
            uncommitted_changes: g.status.unstaged(),
            staged_changes: g.status.staged(),
            untracked_files: g.status.untracked,
            current_branch: g.current_branch,
            head_commit_sha: g.head_commit_sha,
            head_commit_message: g.head_commit_message,
            stash_count: g.stash_count,
            recent_commits: g.recent_commits.into_iter().map(Into::into).collect(),
        }
    }
}

/// A pull request, as `gh pr list --json` reports it.
#[napi(object)]
pub struct ProjectPullRequest {
    /// The pull request's number.
    pub number: f64,
    /// Its title.
    pub title: String,
    /// Its head branch (`headRefName`).
    pub branch: String,
    /// `OPEN`, `MERGED` or `CLOSED`, as `gh` spells it.
    pub state: String,
    /// The author's login; absent when `gh` gives none.
    pub author: Option<String>,
    /// When it was last updated (ISO-8601 string); absent when `gh` gives none.
    pub updated_at: Option<String>,
}

impl From<ps::github::PullRequest> for ProjectPullRequest {
    fn from(p: ps::github::PullRequest) -> Self {
        ProjectPullRequest {
            number: p.number,
            title: p.title,
            branch: p.branch,
            state: p.state,
            author: p.author,
            updated_at: p.updated_at,
        }
    }
}

/// A failing CI check of the current branch (`gh pr checks`).
#[napi(object)]
pub struct ProjectCheck {
    /// The check's name.
    pub name: String,
    /// Its state as `gh` reports it (`FAILURE` for every check listed here).
    pub status: String,
    /// Its conclusion or bucket when `gh` gives one; absent otherwise.
    pub conclusion: Option<String>,
}

impl From<ps::github::Check> for ProjectCheck {
    fn from(c: ps::github::Check) -> Self {
        ProjectCheck {
            name: c.name,
            status: c.status,
            conclusion: c.conclusion,
        }
    }
}

/// GitHub state from `gh`.
#[napi(object, object_from_js = false)]
pub struct ProjectGithub {
    /// Open pull requests of the repository (at most 5).
    pub open_prs: Vec<ProjectPullRequest>,
    /// Failing checks of the current branch's pull request.
    pub failing_checks: Vec<ProjectCheck>,
    /// Pull requests updated in the last 24 hours, in any state.
    pub recent_pr_activity: Vec<ProjectPullRequest>,
}

/// GitHub state as it comes back in (`projectStatusToolPayload`): a
/// `ProjectGithub`, or the reference's `github` part, which has no
/// `recentPrActivity`.
#[napi(object, object_to_js = false)]
pub struct ProjectGithubInput {
    /// Open pull requests of the repository (at most 5).
    pub open_prs: Vec<ProjectPullRequest>,
    /// Failing checks of the current branch's pull request.
    pub failing_checks: Vec<ProjectCheck>,
    /// Pull requests updated in the last 24 hours, in any state. Not read.
    pub recent_pr_activity: Option<Vec<ProjectPullRequest>>,
}

impl From<ps::github::GithubState> for ProjectGithub {
    fn from(gh: ps::github::GithubState) -> Self {
        ProjectGithub {
            open_prs: gh.open_prs.into_iter().map(Into::into).collect(),
            failing_checks: gh.failing_checks.into_iter().map(Into::into).collect(),
            recent_pr_activity: gh.recent_pr_activity.into_iter().map(Into::into).collect(),
        }
    }
}

/// The repository's Claude Code sessions, as `discoverSessions` orders them.
#[napi(object, object_from_js = false)]
pub struct ProjectSessions {
    /// Sessions running now (`isRunning`).
    pub active: Vec<DiscoveredSession>,
    /// The first five sessions: running ones first, then the newest.
    pub recent: Vec<DiscoveredSession>,
    /// The first three sessions of the requesting agent; empty without an
    /// `agentId`.
    pub own_recent: Vec<DiscoveredSession>,
}

/// The sessions part as it comes back in (`selectSession`,
/// `projectStatusToolPayload`).
#[napi(object, object_to_js = false)]
pub struct ProjectSessionsInput {
    /// Sessions running now (`isRunning`).
    pub active: Vec<DiscoveredSessionInput>,
    /// The first five sessions: running ones first, then the newest.
    pub recent: Vec<DiscoveredSessionInput>,
    /// The first three sessions of the requesting agent; empty without an
    /// `agentId`. Not read.
    pub own_recent: Option<Vec<DiscoveredSessionInput>>,
}

impl From<ps::SessionsBrief> for ProjectSessions {
    fn from(s: ps::SessionsBrief) -> Self {
        let list = |v: Vec<session_intel_core::claude_code::DiscoveredSession>| {
            v.into_iter().map(Into::into).collect()
        };
        ProjectSessions {
            active: list(s.active),
            recent: list(s.recent),
            own_recent: list(s.own_recent),
        }
    }
}

/// Guidance documents at the repository root.
#[napi(object)]
pub struct ProjectDocs {
    /// `CLAUDE.md` exists.
    pub has_claude_md: bool,
    /// A `.specs` folder exists.
    pub has_specs: bool,
    /// The `.md` file names in `.specs`, sorted.
    pub spec_files: Vec<String>,
    /// `TODO.md` exists.
    pub has_todo: bool,
    /// `README.md` exists.
    pub has_readme: bool,
}

impl From<ps::Docs> for ProjectDocs {
    fn from(d: ps::Docs) -> Self {
        ProjectDocs {
            has_claude_md: d.has_claude_md,
            has_specs: d.has_specs,
            spec_files: d.spec_files,
            has_todo: d.has_todo,
            has_readme: d.has_readme,
        }
    }
}

/// The pre-flight briefing on a repository (the reference's `ProjectStatus`).
/// Functions that take a briefing back take a `ProjectStatusInput`.
#[napi(object, object_from_js = false)]
pub struct ProjectStatus {
    /// The repository looked at.
    pub repo: ProjectRepo,
    /// Its git state.
    pub git: ProjectGit,
    /// GitHub state; absent outside a repository and when `gh` is missing,
    /// fails, times out or has nothing to report.
    pub github: Option<ProjectGithub>,
    /// Its Claude Code sessions.
    pub sessions: ProjectSessions,
    /// Its guidance documents.
    pub docs: ProjectDocs,
    /// When the briefing was gathered (ISO-8601 string with milliseconds, UTC).
    pub timestamp: String,
}

/// A briefing as it comes back in (`selectSession`,
/// `projectStatusToolPayload`): a `ProjectStatus`, or an object built to
/// the reference's `ProjectStatus` type, or only the parts a function
/// reads. Required: `git.currentBranch` and the `active` and `recent`
/// sessions; every other part may be absent and reads as empty.
#[napi(object, object_to_js = false)]
pub struct ProjectStatusInput {
    /// The repository looked at. Left out: the payload's `repo` is `""`.
    pub repo: Option<ProjectRepo>,
    /// Its git state.
    pub git: ProjectGitInput,
    /// GitHub state; absent outside a repository and when `gh` is missing,
    /// fails, times out or has nothing to report.
    pub github: Option<ProjectGithubInput>,
    /// Its Claude Code sessions.
    pub sessions: ProjectSessionsInput,
    /// Its guidance documents. Left out: none.
    pub docs: Option<ProjectDocs>,
    /// When the briefing was gathered (ISO-8601 string with milliseconds,
    /// UTC). Not read.
    pub timestamp: Option<String>,
}

impl From<ps::ProjectStatus> for ProjectStatus {
    fn from(s: ps::ProjectStatus) -> Self {
        ProjectStatus {
            repo: s.repo.into(),
            git: s.git.into(),
            github: s.github.map(Into::into),
            sessions: s.sessions.into(),
            docs: s.docs.into(),
            timestamp: s.timestamp,
        }
    }
}

/// The pre-flight briefing on a repository: git state (read in-process, as
/// the git CLI would print it), GitHub state when `gh` is installed, the
/// repository's Claude Code sessions and its guidance documents, gathered
/// concurrently. Rejects with `E_REPO_NOT_FOUND` for a path that does not exist.
#[napi(catch_unwind, ts_return_type = "Promise<ProjectStatus>")]
pub fn gather_project_status(
    repo_path: String,
    agent_id: Option<String>,
    options: Option<ProjectStatusOptions>,
) -> AsyncTask<CoreTask<ps::ProjectStatus, ProjectStatus>> {
    let options = ps::ProjectStatusOptions::from(options.unwrap_or_default());
    AsyncTask::new(CoreTask::new(
        move || {
            ps::gather_project_status(
                &repo_path,
                agent_id.as_deref(),
                &options,
                DiscoveryCache::global(),
            )
        },
        ProjectStatus::from,
    ))
}
