//! The pre-flight briefing on a repository (`gatherProjectStatus`): git state
//! read in-process with libgit2, GitHub state from `gh` when installed, the
//! repository's Claude Code sessions, and which guidance documents exist.
//! Git, GitHub and session discovery run at the same time.

// git's stat-based fast path needs lstat data (Unix); elsewhere libgit2 walks.
#[cfg(unix)]
mod fast_status;
pub mod git;
pub mod github;
pub mod relative_date;
mod repo_cache;
pub mod short_status;
#[cfg(unix)]
mod status_cache;

use crate::claude_code::paths::resolve_lexically;
use crate::claude_code::{discover_sessions, DiscoverOptions, DiscoveredSession, ScanCache};
use crate::error::{Error, ErrorCode, Result};
use git::{read_git_state, GitState};
use github::{github_state, GithubState};
#[cfg(unix)]
pub use status_cache::{folder_watched, tracked_folders_stated, untracked_listings};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Options of [`gather_project_status`].
#[derive(Debug, Clone)]
pub struct ProjectStatusOptions {
    /// Passed to session discovery.
    pub discover: DiscoverOptions,
    /// How long each `gh` call may take (default 5 s).
    pub github_timeout: Duration,
}

impl Default for ProjectStatusOptions {
    fn default() -> Self {
        ProjectStatusOptions {
            discover: DiscoverOptions::default(),
            github_timeout: Duration::from_secs(5),
        }
    }
}

/// Which repository was looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoInfo {
    /// The work tree root (the path itself when it is not in a repository).
    pub path: String,
    pub name: String,
    pub is_git_repo: bool,
}

/// Guidance documents at the repository root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Docs {
    pub has_claude_md: bool,
    pub has_specs: bool,
    /// `.specs/*.md`, sorted.
    pub spec_files: Vec<String>,
    pub has_todo: bool,
    pub has_readme: bool,
}

/// The repository's sessions, as the reference groups them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionsBrief {
    pub active: Vec<DiscoveredSession>,
    pub recent: Vec<DiscoveredSession>,
    pub own_recent: Vec<DiscoveredSession>,
}

/// The whole briefing.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectStatus {
    pub repo: RepoInfo,
    pub git: GitState,
    pub github: Option<GithubState>,
    pub sessions: SessionsBrief,
    pub docs: Docs,
    /// When the briefing was gathered (ISO-8601).
    pub timestamp: String,
}

/// Gathers the briefing for the repository at (or containing) `repo_path`.
/// A path that does not exist is `E_REPO_NOT_FOUND`; a directory outside any
/// repository gives `isGitRepo: false` and empty git fields.
pub fn gather_project_status(
    repo_path: &str,
    agent_id: Option<&str>,
    options: &ProjectStatusOptions,
    cache: &ScanCache,
) -> Result<ProjectStatus> {
    gather_with_sessions(repo_path, agent_id, options, cache).map(|(status, _)| status)
}

/// [`gather_project_status`], with every session discovery found (the
/// briefing keeps only a few).
pub fn gather_with_sessions(
    repo_path: &str,
    agent_id: Option<&str>,
    options: &ProjectStatusOptions,
    cache: &ScanCache,
) -> Result<(ProjectStatus, Arc<Vec<DiscoveredSession>>)> {
    let resolved = resolve_lexically(repo_path);
    if !resolved.exists() {
        return Err(Error::new(
            ErrorCode::RepoNotFound,
            format!("{} does not exist", resolved.display()),
        )
        .with_hint("pass the path of a repository (or any directory inside one)"));
    }
    let repo_root = repo_cache::with_repository(&resolved, |r| {
        r.workdir().unwrap_or_else(|| r.path()).to_path_buf()
    });
    let is_git_repo = repo_root.is_some();
    let root = repo_root.unwrap_or_else(|| resolved.clone());
    let root = PathBuf::from(root.to_string_lossy().trim_end_matches('/'));
    let root_str = root.to_string_lossy().into_owned();
    let now = chrono::Utc::now();

    let (git, github, sessions) = std::thread::scope(|s| {
        let git = s.spawn(|| {
            repo_cache::with_repository(&resolved, |r| read_git_state(r, now.timestamp()))
                .unwrap_or_default()
        });
        let github = s.spawn(|| {
            is_git_repo
                .then(|| github_state(&root, options.github_timeout, now))
                .flatten()
        });
        let sessions = discover_sessions(&root_str, &options.discover, cache);
        let join = |e| {
            Error::new(
                ErrorCode::Internal,
                format!("a status worker failed: {e:?}"),
            )
        };
        Ok::<_, Error>((
            git.join().map_err(join)?,
            github.join().map_err(join)?,
            sessions,
        ))
    })?;

    let own_recent = match agent_id {
        Some(agent) => sessions
            .iter()
            .filter(|s| s.agent_id.as_deref() == Some(agent))
            .take(3)
            .cloned()
            .collect(),
        None => Vec::new(),
    };
    let brief = SessionsBrief {
        active: sessions.iter().filter(|s| s.is_running).cloned().collect(),
        recent: sessions.iter().take(5).cloned().collect(),
        own_recent,
    };
    let status = ProjectStatus {
        repo: RepoInfo {
            name: root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            path: root_str,
            is_git_repo,
        },
        git,
        github,
        sessions: brief,
        docs: docs(&root),
        timestamp: now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    };
    Ok((status, sessions))
}

fn docs(root: &Path) -> Docs {
    let specs = root.join(".specs");
    let mut spec_files: Vec<String> = std::fs::read_dir(&specs)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".md"))
                .collect()
        })
        .unwrap_or_default();
    spec_files.sort();
    Docs {
        has_claude_md: root.join("CLAUDE.md").exists(),
        has_specs: specs.exists(),
        spec_files,
        has_todo: root.join("TODO.md").exists(),
        has_readme: root.join("README.md").exists(),
    }
}
