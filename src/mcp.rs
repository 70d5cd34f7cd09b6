//! Payloads of the MCP bridge tools `openclaw_project_status` and
//! `openclaw_session_list`.

use crate::claude_code::DiscoveredSessionInput;
use crate::project_status::{ProjectCommit, ProjectStatusInput};
use chrono::Utc;
use napi_derive::napi;
use session_intel_core::mcp;

/// A session in `openclaw_project_status`.
#[napi(object)]
pub struct ToolBriefSession {
    /// Claude Code's session id.
    pub session_id: String,
    /// The OpenClaw agent of the session: the registry's, else its origin
    /// marker's; absent for a session neither names.
    pub agent: Option<String>,
    /// Git branch the session is on, or "unknown".
    pub branch: String,
    /// What the session was last asked: the registry's last task, else the
    /// last prompt, else the first.
    pub last_task: String,
    /// Time since the session was last modified, e.g. `"2h ago"` (`"45s"`,
    /// `"12m"`, `"3d"`; `"just now"` for a time in the future).
    pub age: String,
}

impl From<mcp::BriefSession> for ToolBriefSession {
    fn from(b: mcp::BriefSession) -> Self {
        ToolBriefSession {
            session_id: b.session_id,
            agent: b.agent,
            branch: b.branch,
            last_task: b.last_task,
            age: b.age,
        }
    }
}

/// Which guidance documents exist.
#[napi(object)]
pub struct ToolDocs {
    /// `CLAUDE.md` exists at the repository root.
    pub claude_md: bool,
    /// The `.md` file names in `.specs`, sorted.
    pub specs: Vec<String>,
    /// `TODO.md` exists at the repository root.
    pub todo: bool,
}

/// An open pull request.
#[napi(object)]
pub struct ToolPullRequest {
    /// The pull request's number.
    pub number: f64,
    /// Its title.
    pub title: String,
    /// Its head branch.
    pub branch: String,
    /// `"open"`, `"merged"`, `"closed"`.
    pub status: String,
}

impl From<mcp::BriefPr> for ToolPullRequest {
    fn from(pr: mcp::BriefPr) -> Self {
        ToolPullRequest {
            number: pr.number,
            title: pr.title,
            branch: pr.branch,
            status: pr.status,
        }
    }
}

/// What `openclaw_project_status` returns.
#[napi(object)]
pub struct ProjectStatusToolPayload {
    /// The repository's folder name.
    pub repo: String,
    /// The current branch; `""` when HEAD is detached.
    pub branch: String,
    /// `"abc1234 — subject"`, or `""` without a commit.
    pub head_commit: String,
    /// `git status --short` lines with a working-tree change (untracked
    /// included).
    pub uncommitted_changes: Vec<String>,
    /// `git status --short` lines with a staged change.
    pub staged_changes: Vec<String>,
    /// Entries of `git stash list`.
    pub stash_count: u32,
    /// The last ten commits, newest first.
    pub recent_commits: Vec<ProjectCommit>,
    /// Sessions running now.
    pub active_sessions: Vec<ToolBriefSession>,
    /// The briefing's five most relevant sessions (running first, then newest).
    pub recent_sessions: Vec<ToolBriefSession>,
    /// Which guidance documents exist.
    pub docs: ToolDocs,
    /// Open pull requests, status in lower case; empty when `gh` gave none.
    pub open_prs: Vec<ToolPullRequest>,
}

/// A session in `openclaw_session_list`.
#[napi(object)]
pub struct ToolSession {
    /// Claude Code's session id.
    pub session_id: String,
    /// `openclaw` when an OpenClaw registry lists it, else `native-only`.
    #[napi(ts_type = "\"openclaw\" | \"native-only\"")]
    pub source: String,
    /// The OpenClaw agent of the session: the registry's, else its origin
    /// marker's; absent for a session neither names.
    pub agent: Option<String>,
    /// Git branch the session is on, or "unknown".
    pub branch: String,
    /// First real prompt (at most 200 UTF-16 units), or "(no message)".
    pub first_message: String,
    /// When the session was last modified: ISO-8601 in UTC, whole seconds
    /// (`2026-02-20T16:30:00Z`).
    pub last_modified: String,
    /// Non-blank lines of the transcript.
    pub message_count: f64,
    /// Cost in USD the registry recorded; absent for `native-only` sessions.
    pub cost: Option<f64>,
    /// Turns the registry recorded; absent for `native-only` sessions.
    pub turns: Option<f64>,
    /// The registry's last task; absent for `native-only` sessions and entries
    /// without tasks.
    pub last_task: Option<String>,
    /// The host said it runs now.
    pub is_running: bool,
    /// Input tokens every resumed turn would no longer send once the session
    /// is slimmed (message content cut, about 4 bytes a token); 0 when there
    /// is nothing to cut.
    pub slim_savings_tokens: f64,
}

impl From<mcp::ListedSession> for ToolSession {
    fn from(s: mcp::ListedSession) -> Self {
        ToolSession {
            session_id: s.session_id,
            source: s.source,
            agent: s.agent,
            branch: s.branch,
            first_message: s.first_message,
            last_modified: s.last_modified,
            message_count: s.message_count as f64,
            cost: s.cost,
            turns: s.turns,
            last_task: s.last_task,
            is_running: s.is_running,
            slim_savings_tokens: s.slim_savings_tokens as f64,
        }
    }
}

/// What `openclaw_session_list` returns.
#[napi(object)]
pub struct SessionListToolPayload {
    /// The sessions listed, in the order given.
    pub sessions: Vec<ToolSession>,
    /// How many sessions are listed.
    pub total: u32,
    /// How many of them run now.
    pub active_count: u32,
    /// The sessions worth slimming before they are resumed: those a slim
    /// spares at least 20,000 input tokens a resumed turn, most saved first.
    pub worth_slimming: Vec<String>,
}

/// Options of `sessionListToolPayload`.
#[napi(object)]
pub struct SessionListToolOptions {
    /// Include sessions OpenClaw did not spawn (default true).
    pub include_native: Option<bool>,
}

impl From<DiscoveredSessionInput> for mcp::SessionFacts {
    fn from(s: DiscoveredSessionInput) -> Self {
        mcp::SessionFacts {
            session_id: s.session_id,
            source: s.source,
            agent_id: s.agent_id,
            origin_marker: s.origin_marker,
            branch: s.branch,
            first_message: s.first_message,
            last_modified: s.last_modified,
            // `as` saturates: a negative count or NaN is 0.
            message_count: s.message_count as u64,
            total_cost_usd: s.total_cost_usd,
            total_turns: s.total_turns,
            last_task: s.last_task,
            last_user_message: s.last_user_message,
            is_running: s.is_running.unwrap_or_default(),
            slim_savings_tokens: s.slim_savings_tokens.unwrap_or_default() as u64,
        }
    }
}

impl From<ProjectStatusInput> for mcp::StatusFacts {
    fn from(status: ProjectStatusInput) -> Self {
        let g = status.git;
        let (has_claude_md, spec_files, has_todo) =
            status.docs.map_or_else(Default::default, |d| {
                (d.has_claude_md, d.spec_files, d.has_todo)
            });
        mcp::StatusFacts {
            repo_name: status.repo.map(|r| r.name).unwrap_or_default(),
            branch: g.current_branch,
            head_sha: g.head_commit_sha.unwrap_or_default(),
            head_message: g.head_commit_message.unwrap_or_default(),
            uncommitted: g.uncommitted_changes.unwrap_or_default(),
            staged: g.staged_changes.unwrap_or_default(),
            stash_count: g.stash_count.unwrap_or_default(),
            recent_commits: g
                .recent_commits
                .into_iter()
                .flatten()
                .map(Into::into)
                .collect(),
            active: status.sessions.active.into_iter().map(Into::into).collect(),
            recent: status.sessions.recent.into_iter().map(Into::into).collect(),
            has_claude_md,
            spec_files,
            has_todo,
            open_prs: status
                .github
                .map(|gh| {
                    gh.open_prs
                        .into_iter()
                        .map(|p| mcp::BriefPr {
                            number: p.number,
                            title: p.title,
                            branch: p.branch,
                            status: p.state,
                        })
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}

impl From<ProjectCommit> for mcp::BriefCommit {
    fn from(c: ProjectCommit) -> Self {
        mcp::BriefCommit {
            sha: c.sha,
            message: c.message,
            author: c.author,
            date: c.date,
        }
    }
}

impl From<mcp::BriefCommit> for ProjectCommit {
    fn from(c: mcp::BriefCommit) -> Self {
        ProjectCommit {
            sha: c.sha,
            message: c.message,
            author: c.author,
            date: c.date,
        }
    }
}

impl From<mcp::ProjectStatusPayload> for ProjectStatusToolPayload {
    fn from(p: mcp::ProjectStatusPayload) -> Self {
        let brief = |v: Vec<mcp::BriefSession>| v.into_iter().map(Into::into).collect();
        ProjectStatusToolPayload {
            repo: p.repo,
            branch: p.branch,
            head_commit: p.head_commit,
            uncommitted_changes: p.uncommitted_changes,
            staged_changes: p.staged_changes,
            stash_count: p.stash_count,
            recent_commits: p.recent_commits.into_iter().map(Into::into).collect(),
            active_sessions: brief(p.active_sessions),
            recent_sessions: brief(p.recent_sessions),
            docs: ToolDocs {
                claude_md: p.docs_claude_md,
                specs: p.docs_specs,
                todo: p.docs_todo,
            },
            open_prs: p.open_prs.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<mcp::SessionListPayload> for SessionListToolPayload {
    fn from(p: mcp::SessionListPayload) -> Self {
        SessionListToolPayload {
            total: p.total,
            active_count: p.active_count,
            sessions: p.sessions.into_iter().map(Into::into).collect(),
            worth_slimming: p.worth_slimming,
        }
    }
}

/// The `openclaw_project_status` tool result for a briefing from
/// `gatherProjectStatus`, ready for the MCP bridge to return as is.
#[napi(catch_unwind)]
pub fn project_status_tool_payload(status: ProjectStatusInput) -> ProjectStatusToolPayload {
    mcp::project_status_payload(&status.into(), Utc::now()).into()
}

/// The `openclaw_session_list` tool result for sessions from
/// `discoverSessions`, ready for the MCP bridge to return as is.
#[napi(catch_unwind)]
pub fn session_list_tool_payload(
    sessions: Vec<DiscoveredSessionInput>,
    options: Option<SessionListToolOptions>,
) -> SessionListToolPayload {
    let include_native = options
        .and_then(|o| o.include_native)
        .unwrap_or(mcp::DEFAULT_INCLUDE_NATIVE);
    let list: Vec<mcp::SessionFacts> = sessions.into_iter().map(Into::into).collect();
    mcp::session_list_payload(&list, include_native).into()
}
