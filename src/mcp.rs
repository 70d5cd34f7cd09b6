//! Payloads of the MCP bridge tools `openclaw_project_status` and
//! `openclaw_session_list`.

use crate::claude_code::DiscoveredSession;
use crate::project_status::{ProjectCommit, ProjectStatus};
use chrono::Utc;
use napi_derive::napi;
use session_intel_core::mcp;

/// A session in `openclaw_project_status`.
#[napi(object)]
pub struct ToolBriefSession {
    pub session_id: String,
    pub agent: Option<String>,
    pub branch: String,
    pub last_task: String,
    /// `"2h ago"`.
    pub age: String,
}

/// Which guidance documents exist.
#[napi(object)]
pub struct ToolDocs {
    pub claude_md: bool,
    pub specs: Vec<String>,
    pub todo: bool,
}

/// An open pull request.
#[napi(object)]
pub struct ToolPullRequest {
    pub number: f64,
    pub title: String,
    pub branch: String,
    /// `"open"`, `"merged"`, `"closed"`.
    pub status: String,
}

/// What `openclaw_project_status` returns.
#[napi(object)]
pub struct ProjectStatusToolPayload {
    pub repo: String,
    pub branch: String,
    /// `"abc1234 — subject"`.
    pub head_commit: String,
    pub uncommitted_changes: Vec<String>,
    pub staged_changes: Vec<String>,
    pub stash_count: u32,
    pub recent_commits: Vec<ProjectCommit>,
    pub active_sessions: Vec<ToolBriefSession>,
    pub recent_sessions: Vec<ToolBriefSession>,
    pub docs: ToolDocs,
    pub open_prs: Vec<ToolPullRequest>,
}

/// A session in `openclaw_session_list`.
#[napi(object)]
pub struct ToolSession {
    pub session_id: String,
    #[napi(ts_type = "\"openclaw\" | \"native-only\"")]
    pub source: String,
    pub agent: Option<String>,
    pub branch: String,
    pub first_message: String,
    /// ISO-8601.
    pub last_modified: String,
    pub message_count: f64,
    pub cost: Option<f64>,
    pub turns: Option<f64>,
    pub last_task: Option<String>,
    pub is_running: bool,
}

/// What `openclaw_session_list` returns.
#[napi(object)]
pub struct SessionListToolPayload {
    pub sessions: Vec<ToolSession>,
    pub total: u32,
    pub active_count: u32,
}

/// Options of `sessionListToolPayload`.
#[napi(object)]
pub struct SessionListToolOptions {
    /// Include sessions OpenClaw did not spawn (default true).
    pub include_native: Option<bool>,
}

fn facts(s: &DiscoveredSession) -> mcp::SessionFacts {
    mcp::SessionFacts {
        session_id: s.session_id.clone(),
        source: s.source.clone(),
        agent_id: s.agent_id.clone(),
        origin_marker: s.origin_marker.clone(),
        branch: s.branch.clone(),
        first_message: s.first_message.clone(),
        last_modified: s.last_modified,
        message_count: s.message_count.max(0) as u64,
        total_cost_usd: s.total_cost_usd,
        total_turns: s.total_turns,
        last_task: s.last_task.clone(),
        last_user_message: s.last_user_message.clone(),
        is_running: s.is_running,
    }
}

fn brief(list: Vec<mcp::BriefSession>) -> Vec<ToolBriefSession> {
    list.into_iter()
        .map(|b| ToolBriefSession {
            session_id: b.session_id,
            agent: b.agent,
            branch: b.branch,
            last_task: b.last_task,
            age: b.age,
        })
        .collect()
}

/// The `openclaw_project_status` tool result for a briefing from
/// `gatherProjectStatus`, ready for the MCP bridge to return as is.
#[napi(catch_unwind)]
pub fn project_status_tool_payload(status: ProjectStatus) -> ProjectStatusToolPayload {
    let g = status.git;
    let input = mcp::StatusFacts {
        repo_name: status.repo.name,
        branch: g.current_branch,
        head_sha: g.head_commit_sha,
        head_message: g.head_commit_message,
        uncommitted: g.uncommitted_changes,
        staged: g.staged_changes,
        stash_count: g.stash_count,
        recent_commits: g
            .recent_commits
            .into_iter()
            .map(|c| mcp::BriefCommit {
                sha: c.sha,
                message: c.message,
                author: c.author,
                date: c.date,
            })
            .collect(),
        active: status.sessions.active.iter().map(facts).collect(),
        recent: status.sessions.recent.iter().map(facts).collect(),
        has_claude_md: status.docs.has_claude_md,
        spec_files: status.docs.spec_files,
        has_todo: status.docs.has_todo,
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
    };
    let p = mcp::project_status_payload(&input, Utc::now());
    ProjectStatusToolPayload {
        repo: p.repo,
        branch: p.branch,
        head_commit: p.head_commit,
        uncommitted_changes: p.uncommitted_changes,
        staged_changes: p.staged_changes,
        stash_count: p.stash_count,
        recent_commits: p
            .recent_commits
            .into_iter()
            .map(|c| ProjectCommit {
                sha: c.sha,
                message: c.message,
                author: c.author,
                date: c.date,
            })
            .collect(),
        active_sessions: brief(p.active_sessions),
        recent_sessions: brief(p.recent_sessions),
        docs: ToolDocs {
            claude_md: p.docs_claude_md,
            specs: p.docs_specs,
            todo: p.docs_todo,
        },
        open_prs: p
            .open_prs
            .into_iter()
            .map(|pr| ToolPullRequest {
                number: pr.number,
                title: pr.title,
                branch: pr.branch,
                status: pr.status,
            })
            .collect(),
    }
}

/// The `openclaw_session_list` tool result for sessions from
/// `discoverSessions`, ready for the MCP bridge to return as is.
#[napi(catch_unwind)]
pub fn session_list_tool_payload(
    sessions: Vec<DiscoveredSession>,
    options: Option<SessionListToolOptions>,
) -> SessionListToolPayload {
    let include_native = options.and_then(|o| o.include_native).unwrap_or(true);
    let list: Vec<mcp::SessionFacts> = sessions.iter().map(facts).collect();
    let p = mcp::session_list_payload(&list, include_native);
    SessionListToolPayload {
        total: p.total,
        active_count: p.active_count,
        sessions: p
            .sessions
            .into_iter()
            .map(|s| ToolSession {
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
            })
            .collect(),
    }
}
