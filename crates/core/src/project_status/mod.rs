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
pub(crate) mod repo_cache;
pub mod short_status;
#[cfg(unix)]
mod status_cache;
pub mod working_tree;

use crate::claude_code::{discover_sessions, DiscoverOptions, DiscoveredSession, DiscoveryCache};
use crate::error::{Error, ErrorCode, Result};
use crate::repo_path::RepoPath;
use git::{read_git_history, GitState};
use github::{github_state, GithubState};
use short_status::ShortStatus;
#[cfg(unix)]
pub use status_cache::{folder_watched, tracked_folders_stated, untracked_listings};
use std::path::Path;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};
use working_tree::short_status;

/// Options of [`gather_project_status`].
#[derive(Debug, Clone)]
pub struct ProjectStatusOptions {
    /// Passed to session discovery.
    pub discover: DiscoverOptions,
    /// How long each `gh` call may take (default 5 s).
    pub github_timeout: Duration,
    /// Until when the working tree's status is waited for (default: until
    /// it is read). Past it the status is left empty and
    /// [`ProjectStatus::status_read`] is false: a huge work tree must not
    /// hold up a caller with a time budget (the spawn pre-flight). The read
    /// goes on in the background and warms the status cache.
    pub status_deadline: Option<Instant>,
}

impl Default for ProjectStatusOptions {
    fn default() -> Self {
        ProjectStatusOptions {
            discover: DiscoverOptions::default(),
            github_timeout: Duration::from_secs(5),
            status_deadline: None,
        }
    }
}

/// Which repository was looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoInfo {
    /// Work tree root (the path itself when it is not inside a repository).
    pub path: String,
    /// The last component of `path` (the reference's `basename`).
    pub name: String,
    /// Whether the path is inside a git repository. The reference only checks
    /// for a `.git` entry in the path itself.
    pub is_git_repo: bool,
}

/// Guidance documents at the repository root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Docs {
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

/// The repository's sessions, as the reference groups them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionsBrief {
    /// Sessions running now (`isRunning`).
    pub active: Vec<DiscoveredSession>,
    /// The first five sessions: running ones first, then the newest.
    pub recent: Vec<DiscoveredSession>,
    /// The first three sessions of the requesting agent; empty without an
    /// `agentId`.
    pub own_recent: Vec<DiscoveredSession>,
}

/// The whole briefing.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectStatus {
    /// The repository looked at.
    pub repo: RepoInfo,
    /// Its git state.
    pub git: GitState,
    /// GitHub state; absent outside a repository and when `gh` is missing,
    /// fails, times out or has nothing to report.
    pub github: Option<GithubState>,
    /// Its Claude Code sessions.
    pub sessions: SessionsBrief,
    /// Its guidance documents.
    pub docs: Docs,
    /// When the briefing was gathered (ISO-8601 string with milliseconds, UTC).
    pub timestamp: String,
    /// The working tree's status was read (false: its deadline passed
    /// first, and `git.status` is empty).
    pub status_read: bool,
}

/// Gathers the briefing for the repository at (or containing) `repo_path`.
/// A path that does not exist is `E_REPO_NOT_FOUND`; a directory outside any
/// repository gives `isGitRepo: false` and empty git fields.
pub fn gather_project_status(
    repo_path: &str,
    agent_id: Option<&str>,
    options: &ProjectStatusOptions,
    cache: &DiscoveryCache,
) -> Result<ProjectStatus> {
    let repo = RepoPath::resolve(repo_path);
    gather_with_sessions(&repo, agent_id, options, cache).map(|(status, _, _)| status)
}

/// [`gather_project_status`] on a path resolved by its caller, with every
/// session discovery found (the briefing keeps only a few) and the root of
/// the repository (the folder itself outside one) they are of.
pub fn gather_with_sessions(
    resolved: &RepoPath,
    agent_id: Option<&str>,
    options: &ProjectStatusOptions,
    cache: &DiscoveryCache,
) -> Result<(ProjectStatus, Arc<Vec<DiscoveredSession>>, RepoPath)> {
    if !resolved.exists() {
        return Err(Error::new(
            ErrorCode::RepoNotFound,
            format!("{} does not exist", resolved.display()),
        )
        .with_hint("pass the path of a repository (or any directory inside one)"));
    }
    let repo_root = repo_cache::with_repository(resolved, |r| {
        r.workdir().unwrap_or_else(|| r.path()).to_path_buf()
    });
    let is_git_repo = repo_root.is_some();
    let root = repo_root.map_or_else(|| resolved.clone(), |r| RepoPath::of(&r));
    let root_str = root.to_string_lossy().into_owned();
    let now = chrono::Utc::now();

    // The git state is read on a thread of its own, HEAD and history first;
    // the working tree's status, the one part that grows with the work
    // tree, may be left behind by its deadline (the thread then finishes
    // it for the status cache).
    let (history_tx, history_rx) = std::sync::mpsc::channel();
    let (status_tx, status_rx) = std::sync::mpsc::channel();
    let at = resolved.as_path().to_path_buf();
    let read = move || {
        repo_cache::with_repository(&at, |r| {
            let _ = history_tx.send(read_git_history(r, now.timestamp()));
            let _ = status_tx.send(short_status(r).unwrap_or_default());
        });
    };
    // Without a thread (the system refuses one) the state stays empty.
    let _ = std::thread::Builder::new()
        .name("git-state".into())
        .spawn(read);
    let (github, sessions) = std::thread::scope(|s| {
        let github = s.spawn(|| {
            is_git_repo
                .then(|| github_state(&root, options.github_timeout, now))
                .flatten()
        });
        let sessions = discover_sessions(&root, &options.discover, cache);
        let join = |e| {
            Error::new(
                ErrorCode::Internal,
                format!("a status worker failed: {e:?}"),
            )
        };
        Ok::<_, Error>((github.join().map_err(join)?, sessions))
    })?;
    let (git, status_read) = collect_git(&history_rx, &status_rx, options.status_deadline);

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
        timestamp: crate::time::iso_millis(now),
        status_read,
    };
    Ok((status, sessions, root))
}

/// The git state the reading thread sends: HEAD and history, then the
/// working tree's status unless `deadline` passes first. With it, whether
/// the status was read (a folder outside any repository has none to read).
fn collect_git(
    history: &Receiver<GitState>,
    status: &Receiver<ShortStatus>,
    deadline: Option<Instant>,
) -> (GitState, bool) {
    let mut git = history.recv().unwrap_or_default();
    let status = match deadline {
        None => status.recv().map_err(|_| RecvTimeoutError::Disconnected),
        Some(at) => status.recv_timeout(at.saturating_duration_since(Instant::now())),
    };
    match status {
        Ok(status) => {
            git.status = status;
            (git, true)
        }
        Err(e) => (git, e == RecvTimeoutError::Disconnected),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    fn history() -> GitState {
        GitState {
            current_branch: "main".into(),
            ..GitState::default()
        }
    }

    #[test]
    fn the_status_is_waited_for_until_its_deadline_and_left_out_past_it() {
        let status = ShortStatus {
            lines: vec![" M a.rs".into()],
            ..ShortStatus::default()
        };
        // Read in time.
        let (htx, hrx) = channel();
        let (stx, srx) = channel();
        htx.send(history()).unwrap();
        stx.send(status.clone()).unwrap();
        let (git, read) = collect_git(&hrx, &srx, Some(Instant::now()));
        assert_eq!(
            (git.current_branch.as_str(), git.status, read),
            ("main", status, true)
        );
        // Still being read at the deadline: the history alone.
        let (htx, hrx) = channel();
        let (_stx, srx) = channel::<ShortStatus>();
        htx.send(history()).unwrap();
        let (git, read) = collect_git(&hrx, &srx, Some(Instant::now() + Duration::from_millis(20)));
        assert_eq!(
            (git.current_branch.as_str(), git.status.lines.len(), read),
            ("main", 0, false)
        );
        // No repository: nothing to read, nothing missing.
        let (htx, hrx) = channel::<GitState>();
        let (stx, srx) = channel::<ShortStatus>();
        drop((htx, stx));
        let (git, read) = collect_git(&hrx, &srx, Some(Instant::now()));
        assert_eq!((git, read), (GitState::default(), true));
    }
}
