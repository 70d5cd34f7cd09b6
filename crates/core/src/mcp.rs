//! The JSON the MCP bridge tools `openclaw_project_status` and
//! `openclaw_session_list` return, built from a briefing and
//! discovered sessions so the bridge can hand them to Claude Code as they are.

use chrono::{DateTime, Utc};

/// What the payloads need to know about a session.
#[derive(Debug, Clone, Default)]
pub struct SessionFacts {
    /// Claude Code's session id (the transcript's file name without `.jsonl`).
    pub session_id: String,
    /// `openclaw` when an OpenClaw registry lists the session, `native-only`
    /// when only Claude Code's own folders hold it. Left out: `openclaw` when
    /// `agentId` is given, else `native-only`.
    pub source: Option<String>,
    /// The OpenClaw agent whose registry lists the session; absent for
    /// `native-only` sessions.
    pub agent_id: Option<String>,
    /// The agent id of the `[openclaw:agent=<id>]` marker that opens the first
    /// real prompt (an OpenClaw spawn); absent when it has none.
    pub origin_marker: Option<String>,
    /// Git branch the session is on (its last main-chain line), or "unknown".
    /// The reference reads the first line's branch instead.
    pub branch: String,
    /// First real prompt, at most 200 UTF-16 units, or "(no message)".
    pub first_message: String,
    /// The transcript's modification time; for a registry session, the later of
    /// that and the registry's `lastResumedAt`; the epoch when neither is
    /// known.
    pub last_modified: DateTime<Utc>,
    /// Non-blank lines of the main transcript (the reference's measure); 0 when
    /// it was not found.
    pub message_count: u64,
    /// US dollars. A session OpenClaw spawned: what its registry recorded. Any
    /// other: the CLI's own figure from its last `cost-state` (for a fork,
    /// beyond what it inherited); absent where the transcript has none, or
    /// where the CLI had no price for a model it used.
    pub total_cost_usd: Option<f64>,
    /// Turns the registry recorded; absent for `native-only` sessions.
    pub total_turns: Option<f64>,
    /// The last task of the registry's task history; absent for `native-only`
    /// sessions and for a registry entry without tasks.
    pub last_task: Option<String>,
    /// The last real prompt, at most 200 UTF-16 units; absent when there is
    /// none. Left out: the project status payload's `lastTask` falls back to
    /// `firstMessage`.
    pub last_user_message: Option<String>,
    /// A Claude Code process runs the session now (its liveness record in
    /// `<config>/sessions/`, with the process alive and started when the record
    /// says), or the host said so (`runningSessionIds`, `repoBusy`). Left out:
    /// `false`.
    pub is_running: bool,
    /// Input tokens every resumed turn would no longer send once the session
    /// is slimmed (message content cut, about 4 bytes a token); 0 when there
    /// is nothing to cut.
    /// Left out: 0.
    pub slim_savings_tokens: u64,
}

impl SessionFacts {
    /// Where the session is known from: its `source`, else `openclaw` when
    /// a registry agent is known and `native-only` otherwise.
    fn source(&self) -> &str {
        match (&self.source, &self.agent_id) {
            (Some(source), _) => source,
            (None, Some(_)) => "openclaw",
            (None, None) => "native-only",
        }
    }

    /// The agent that owns the session: the registry's, else the marker's.
    fn agent(&self) -> Option<String> {
        self.agent_id.clone().or_else(|| self.origin_marker.clone())
    }

    /// What the session was last asked to do.
    fn last_task(&self) -> String {
        self.last_task
            .clone()
            .or_else(|| self.last_user_message.clone())
            .unwrap_or_else(|| self.first_message.clone())
    }
}

/// A session as `openclaw_session_list` lists it (its JSON: the fields in
/// camelCase, those absent left out).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedSession {
    /// Claude Code's session id.
    pub session_id: String,
    /// `openclaw` when an OpenClaw registry lists it, else `native-only`.
    pub source: String,
    /// The OpenClaw agent of the session: the registry's, else its origin
    /// marker's; absent for a session neither names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Git branch the session is on, or "unknown".
    pub branch: String,
    /// First real prompt (at most 200 UTF-16 units), or "(no message)".
    pub first_message: String,
    /// When the session was last modified: ISO-8601 in UTC, whole seconds
    /// (`2026-02-20T16:30:00Z`).
    pub last_modified: String,
    /// Non-blank lines of the transcript.
    pub message_count: u64,
    /// Cost in USD the registry recorded; absent for `native-only` sessions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// Turns the registry recorded; absent for `native-only` sessions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turns: Option<f64>,
    /// The registry's last task; absent for `native-only` sessions and entries
    /// without tasks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_task: Option<String>,
    /// The host said it runs now.
    pub is_running: bool,
    /// Input tokens every resumed turn would no longer send once the session
    /// is slimmed (message content cut, about 4 bytes a token); 0 when there
    /// is nothing to cut.
    pub slim_savings_tokens: u64,
}

/// The `openclaw_session_list` result.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionListPayload {
    /// The sessions listed, in the order given.
    pub sessions: Vec<ListedSession>,
    /// How many sessions are listed.
    pub total: u32,
    /// How many of them run now.
    pub active_count: u32,
    /// The sessions worth slimming before they are resumed: those a slim
    /// spares at least 20,000 input tokens a resumed turn, most saved first.
    pub worth_slimming: Vec<String>,
}

/// Input tokens a resumed turn must be spared for a session to be listed as
/// worth slimming.
pub const SLIM_WORTH_TOKENS: u64 = 20_000;

/// Whether `openclaw_session_list` lists the sessions OpenClaw did not
/// spawn when the caller does not say.
pub const DEFAULT_INCLUDE_NATIVE: bool = true;

/// `openclaw_session_list`: every session, or only OpenClaw's when
/// `include_native` is false.
pub fn session_list_payload(sessions: &[SessionFacts], include_native: bool) -> SessionListPayload {
    let listed: Vec<ListedSession> = sessions
        .iter()
        .filter(|s| include_native || s.source() != "native-only")
        .map(|s| ListedSession {
            session_id: s.session_id.clone(),
            source: s.source().to_owned(),
            agent: s.agent(),
            branch: s.branch.clone(),
            first_message: s.first_message.clone(),
            last_modified: s.last_modified.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            message_count: s.message_count,
            cost: s.total_cost_usd,
            turns: s.total_turns,
            last_task: s.last_task.clone(),
            is_running: s.is_running,
            slim_savings_tokens: s.slim_savings_tokens,
        })
        .collect();
    let mut worth: Vec<&ListedSession> = listed
        .iter()
        .filter(|s| s.slim_savings_tokens >= SLIM_WORTH_TOKENS)
        .collect();
    worth.sort_by_key(|s| std::cmp::Reverse(s.slim_savings_tokens));
    SessionListPayload {
        worth_slimming: worth.iter().map(|s| s.session_id.clone()).collect(),
        total: listed.len() as u32,
        active_count: listed.iter().filter(|s| s.is_running).count() as u32,
        sessions: listed,
    }
}

/// A session in the project status payload.
#[derive(Debug, Clone, PartialEq)]
pub struct BriefSession {
    /// Claude Code's session id.
    pub session_id: String,
    /// The OpenClaw agent of the session: the registry's, else its origin
    /// marker's; absent for a session neither names.
    pub agent: Option<String>,
    /// Git branch the session is on, or "unknown".
    pub branch: String,
    /// What the session was last asked: the registry's last task, else the last
    /// prompt, else the first.
    pub last_task: String,
    /// Time since the session was last modified, e.g. `"2h ago"` (`"45s"`,
    /// `"12m"`, `"3d"`; `"just now"` for a time in the future).
    pub age: String,
}

/// A commit in the project status payload.
#[derive(Debug, Clone, PartialEq)]
pub struct BriefCommit {
    /// Abbreviated as `git log --format=%h` does.
    pub sha: String,
    /// Subject line (`%s`), `|` and all.
    pub message: String,
    /// Author name (`%an`).
    pub author: String,
    /// Relative author date, worded as git's `%ar` (e.g. `2 hours ago`).
    pub date: String,
}

/// An open pull request in the project status payload.
#[derive(Debug, Clone, PartialEq)]
pub struct BriefPr {
    /// The pull request's number.
    pub number: f64,
    /// Its title.
    pub title: String,
    /// Its head branch.
    pub branch: String,
    /// `"open"`, `"merged"`, `"closed"`.
    pub status: String,
}

/// What the project status payload is made from.
#[derive(Debug, Clone, Default)]
pub struct StatusFacts {
    /// The repository's folder name.
    pub repo_name: String,
    /// The current branch (`""` when HEAD is detached).
    pub branch: String,
    /// HEAD's abbreviated commit id (`""` without a commit).
    pub head_sha: String,
    /// HEAD's subject line.
    pub head_message: String,
    /// `git status --short` lines with a working-tree change.
    pub uncommitted: Vec<String>,
    /// `git status --short` lines with a staged change.
    pub staged: Vec<String>,
    /// Entries of `git stash list`.
    pub stash_count: u32,
    /// The last commits, newest first.
    pub recent_commits: Vec<BriefCommit>,
    /// Sessions running now.
    pub active: Vec<SessionFacts>,
    /// The briefing's recent sessions.
    pub recent: Vec<SessionFacts>,
    /// `CLAUDE.md` exists at the root.
    pub has_claude_md: bool,
    /// The `.md` files of `.specs`, sorted.
    pub spec_files: Vec<String>,
    /// `TODO.md` exists at the root.
    pub has_todo: bool,
    /// Open pull requests.
    pub open_prs: Vec<BriefPr>,
}

/// The `openclaw_project_status` result.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectStatusPayload {
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
    pub recent_commits: Vec<BriefCommit>,
    /// Sessions running now.
    pub active_sessions: Vec<BriefSession>,
    /// The briefing's five most relevant sessions (running first, then newest).
    pub recent_sessions: Vec<BriefSession>,
    /// `CLAUDE.md` exists at the root.
    pub docs_claude_md: bool,
    /// The `.md` files of `.specs`, sorted.
    pub docs_specs: Vec<String>,
    /// `TODO.md` exists at the root.
    pub docs_todo: bool,
    /// Open pull requests, status in lower case; empty when `gh` gave none.
    pub open_prs: Vec<BriefPr>,
}

/// `"45s ago"`, `"12m ago"`, `"2h ago"`, `"3d ago"` (`"just now"` in the future).
pub fn short_age(then: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let s = now.signed_duration_since(then).num_seconds();
    match s {
        ..=0 => "just now".into(),
        1..=59 => format!("{s}s ago"),
        60..=3599 => format!("{}m ago", s / 60),
        3600..=86399 => format!("{}h ago", s / 3600),
        _ => format!("{}d ago", s / 86400),
    }
}

/// `openclaw_project_status` at `now`.
pub fn project_status_payload(status: &StatusFacts, now: DateTime<Utc>) -> ProjectStatusPayload {
    let brief = |list: &[SessionFacts]| -> Vec<BriefSession> {
        list.iter()
            .map(|s| BriefSession {
                session_id: s.session_id.clone(),
                agent: s.agent(),
                branch: s.branch.clone(),
                last_task: s.last_task(),
                age: short_age(s.last_modified, now),
            })
            .collect()
    };
    ProjectStatusPayload {
        repo: status.repo_name.clone(),
        branch: status.branch.clone(),
        head_commit: if status.head_sha.is_empty() {
            String::new()
        } else {
            format!("{} \u{2014} {}", status.head_sha, status.head_message)
        },
        uncommitted_changes: status.uncommitted.clone(),
        staged_changes: status.staged.clone(),
        stash_count: status.stash_count,
        recent_commits: status.recent_commits.clone(),
        active_sessions: brief(&status.active),
        recent_sessions: brief(&status.recent),
        docs_claude_md: status.has_claude_md,
        docs_specs: status.spec_files.clone(),
        docs_todo: status.has_todo,
        open_prs: status
            .open_prs
            .iter()
            .map(|p| BriefPr {
                status: p.status.to_lowercase(),
                ..p.clone()
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_like_the_seed() {
        let now = DateTime::parse_from_rfc3339("2026-02-20T16:30:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let ago = |s: i64| short_age(now - chrono::Duration::seconds(s), now);
        assert_eq!(ago(-5), "just now");
        assert_eq!(ago(45), "45s ago");
        assert_eq!(ago(12 * 60), "12m ago");
        assert_eq!(ago(2 * 3600 + 100), "2h ago");
        assert_eq!(ago(3 * 86400), "3d ago");
    }
}
