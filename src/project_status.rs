//! The `project-status.ts` drop-in: `gatherProjectStatus`.

use crate::claude_code::DiscoveredSession;
use crate::error::CoreTask;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core::claude_code::{DiscoverOptions, ScanCache};
use session_intel_core::project_status as ps;
use std::path::PathBuf;
use std::time::Duration;

/// Options of `gatherProjectStatus` (all optional).
#[napi(object)]
#[derive(Default)]
pub struct ProjectStatusOptions {
    /// Claude Code's config root, for session discovery.
    pub claude_config_dir: Option<String>,
    /// OpenClaw's state root, for session discovery.
    pub registry_root: Option<String>,
    /// Session ids the host knows to be running now.
    pub running_session_ids: Option<Vec<String>>,
    /// The host is running Claude Code in this repository.
    pub repo_busy: Option<bool>,
    /// How long each `gh` call may take, in milliseconds (default 5000),
    /// read as Node's `setTimeout` reads a delay.
    pub github_timeout_ms: Option<f64>,
    /// Keep session scans in a cache file between processes (default true;
    /// see `DiscoverOptions.persistentCache`).
    pub persistent_cache: Option<bool>,
}

/// The repository looked at.
#[napi(object)]
pub struct ProjectRepo {
    /// Work tree root (the path itself when it is not inside a repository).
    pub path: String,
    pub name: String,
    pub is_git_repo: bool,
}

/// One of the last ten commits.
#[napi(object)]
pub struct ProjectCommit {
    /// Abbreviated as `git log --format=%h` does.
    pub sha: String,
    /// Subject line, `|` and all.
    pub message: String,
    pub author: String,
    /// Relative author date, worded as git's `%ar`.
    pub date: String,
}

/// Git state, as the git CLI would print it.
#[napi(object)]
pub struct ProjectGit {
    /// `""` when HEAD is detached.
    pub current_branch: String,
    pub head_commit_sha: String,
    pub head_commit_message: String,
    /// `git status --short` lines with a working-tree change (untracked included).
    pub uncommitted_changes: Vec<String>,
    /// `git status --short` lines with a staged change.
    pub staged_changes: Vec<String>,
    pub stash_count: u32,
    pub recent_commits: Vec<ProjectCommit>,
    /// Untracked paths (folders collapsed, ending in `/`).
    pub untracked_files: Vec<String>,
}

/// A pull request.
#[napi(object)]
pub struct ProjectPullRequest {
    pub number: f64,
    pub title: String,
    pub branch: String,
    pub state: String,
    pub author: Option<String>,
    pub updated_at: Option<String>,
}

/// A failing CI check of the current branch.
#[napi(object)]
pub struct ProjectCheck {
    pub name: String,
    pub status: String,
    pub conclusion: Option<String>,
}

/// GitHub state from `gh`.
#[napi(object)]
pub struct ProjectGithub {
    pub open_prs: Vec<ProjectPullRequest>,
    pub failing_checks: Vec<ProjectCheck>,
    /// Pull requests updated in the last 24 hours, in any state.
    pub recent_pr_activity: Vec<ProjectPullRequest>,
}

/// The repository's Claude Code sessions.
#[napi(object)]
pub struct ProjectSessions {
    pub active: Vec<DiscoveredSession>,
    pub recent: Vec<DiscoveredSession>,
    pub own_recent: Vec<DiscoveredSession>,
}

/// Guidance documents at the repository root.
#[napi(object)]
pub struct ProjectDocs {
    pub has_claude_md: bool,
    pub has_specs: bool,
    pub spec_files: Vec<String>,
    pub has_todo: bool,
    pub has_readme: bool,
}

/// The pre-flight briefing on a repository.
#[napi(object)]
pub struct ProjectStatus {
    pub repo: ProjectRepo,
    pub git: ProjectGit,
    pub github: Option<ProjectGithub>,
    pub sessions: ProjectSessions,
    pub docs: ProjectDocs,
    /// When the briefing was gathered (ISO-8601).
    pub timestamp: String,
}

fn pr(p: ps::github::PullRequest) -> ProjectPullRequest {
    ProjectPullRequest {
        number: p.number,
        title: p.title,
        branch: p.branch,
        state: p.state,
        author: p.author,
        updated_at: p.updated_at,
    }
}

fn sessions(
    list: Vec<session_intel_core::claude_code::DiscoveredSession>,
) -> Vec<DiscoveredSession> {
    list.into_iter().map(Into::into).collect()
}

impl From<ps::ProjectStatus> for ProjectStatus {
    fn from(s: ps::ProjectStatus) -> Self {
        let g = s.git;
        ProjectStatus {
            repo: ProjectRepo {
                path: s.repo.path,
                name: s.repo.name,
                is_git_repo: s.repo.is_git_repo,
            },
            git: ProjectGit {
                uncommitted_changes: g.status.unstaged(),
                staged_changes: g.status.staged(),
                untracked_files: g.status.untracked,
                current_branch: g.current_branch,
                head_commit_sha: g.head_commit_sha,
                head_commit_message: g.head_commit_message,
                stash_count: g.stash_count,
                recent_commits: g
                    .recent_commits
                    .into_iter()
                    .map(|c| ProjectCommit {
                        sha: c.sha,
                        message: c.message,
                        author: c.author,
                        date: c.date,
                    })
                    .collect(),
            },
            github: s.github.map(|gh| ProjectGithub {
                open_prs: gh.open_prs.into_iter().map(pr).collect(),
                failing_checks: gh
                    .failing_checks
                    .into_iter()
                    .map(|c| ProjectCheck {
                        name: c.name,
                        status: c.status,
                        conclusion: c.conclusion,
                    })
                    .collect(),
                recent_pr_activity: gh.recent_pr_activity.into_iter().map(pr).collect(),
            }),
            sessions: ProjectSessions {
                active: sessions(s.sessions.active),
                recent: sessions(s.sessions.recent),
                own_recent: sessions(s.sessions.own_recent),
            },
            docs: ProjectDocs {
                has_claude_md: s.docs.has_claude_md,
                has_specs: s.docs.has_specs,
                spec_files: s.docs.spec_files,
                has_todo: s.docs.has_todo,
                has_readme: s.docs.has_readme,
            },
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
    let o = options.unwrap_or_default();
    let options = ps::ProjectStatusOptions {
        discover: DiscoverOptions {
            claude_config_dir: o.claude_config_dir.map(PathBuf::from),
            registry_root: o.registry_root.map(PathBuf::from),
            running_session_ids: o.running_session_ids.unwrap_or_default(),
            repo_busy: o.repo_busy.unwrap_or(false),
            persistent_cache: crate::claude_code::persistent_cache(o.persistent_cache),
            stat_every_file: false,
            claude_desktop_dir: None,
        },
        github_timeout: Duration::from_millis(
            o.github_timeout_ms
                .map_or(5000, session_intel_core::timer_ms),
        ),
    };
    AsyncTask::new(CoreTask::new(
        move || {
            ps::gather_project_status(
                &repo_path,
                agent_id.as_deref(),
                &options,
                ScanCache::global(),
            )
        },
        ProjectStatus::from,
    ))
}
