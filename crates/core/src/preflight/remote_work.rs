//! The briefing's section on Claude Code work on the same repository on
//! other machines (`remoteWorkBriefing`): from the host pages the gateway
//! gathered from its paired nodes, the sessions running there now first,
//! then recent ones relevant to the task (selection's offline relevance,
//! [`semantic_fallback`]), at most a few lines. Pure: no file is read.

use crate::project_status::relative_date::relative_date;
use crate::selection::candidate::Candidate;
use crate::selection::relevance::semantic_fallback;
use crate::text::truncate_utf16;

/// Lines of sessions when the caller does not say.
pub const DEFAULT_MAX_LINES: usize = 5;
/// A recent session is named when its relevance to the task is at least this.
pub const MIN_RELEVANCE: f64 = 0.2;
/// A session is recent when it changed at most this long ago (seven days).
pub const RECENT_MS: i64 = 7 * 24 * 3600 * 1000;
/// Longest title or branch quoted, in UTF-16 units.
const MAX_QUOTED: usize = 80;

/// One host's sessions of the repository, as the gateway received them.
#[derive(Debug, Clone, Default)]
pub struct RemoteHostWork {
    /// The host's display name.
    pub host: String,
    /// The host's id (`node:<id>`).
    pub host_id: String,
    /// Its sessions.
    pub sessions: Vec<RemoteSession>,
    /// The sessions came from OpenClaw's own session catalog (the node does
    /// not run this plugin): no liveness, fewer facts.
    pub fallback: bool,
}

/// A session on another host.
#[derive(Debug, Clone, Default)]
pub struct RemoteSession {
    /// What relevance reads of it (id, branch, texts, files, last change).
    pub candidate: Candidate,
    /// A Claude Code process runs it now on its host.
    pub running: bool,
    /// The folder it belongs to on its host.
    pub project_path: Option<String>,
}

/// The section's lines: a heading, then one line per session named —
/// running ones first (newest first), then recent ones by relevance to
/// `task` — at most `max_lines` sessions (a last line counts those left
/// out). `None` when no session is running or recent and relevant.
/// `now_ms`: the time, in milliseconds since the epoch.
pub fn remote_work_briefing(
    task: &str,
    hosts: &[RemoteHostWork],
    max_lines: usize,
    now_ms: i64,
) -> Option<String> {
    let mut running: Vec<(&RemoteHostWork, &RemoteSession)> = Vec::new();
    let mut recent: Vec<(f64, &RemoteHostWork, &RemoteSession, String)> = Vec::new();
    for host in hosts {
        for s in &host.sessions {
            if s.running {
                running.push((host, s));
                continue;
            }
            let age = now_ms - s.candidate.last_modified.timestamp_millis();
            if age > RECENT_MS {
                continue;
            }
            let r = semantic_fallback(task, &s.candidate);
            if r.relevance >= MIN_RELEVANCE {
                recent.push((r.relevance, host, s, r.reasoning));
            }
        }
    }
    if running.is_empty() && recent.is_empty() {
        return None;
    }
    let newest = |s: &RemoteSession| std::cmp::Reverse(s.candidate.last_modified);
    running.sort_by_key(|(_, s)| newest(s));
    recent.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| newest(a.2).cmp(&newest(b.2)))
    });
    let total = running.len() + recent.len();
    let max_lines = max_lines.max(1);
    let mut lines = vec!["Claude Code work on this repository on other machines:".to_owned()];
    for (host, s) in running.iter().take(max_lines) {
        lines.push(format!(
            "- {} now: {}",
            where_(host, s),
            describe(s, now_ms)
        ));
    }
    for (relevance, host, s, why) in recent.iter().take(max_lines.saturating_sub(running.len())) {
        lines.push(format!(
            "- {}: {} (relevance {relevance:.2}, {why})",
            where_(host, s),
            describe(s, now_ms)
        ));
    }
    let shown = lines.len() - 1;
    if shown < total {
        lines.push(format!("- and {} more", total - shown));
    }
    Some(lines.join("\n"))
}

/// One line of text, at most [`MAX_QUOTED`] UTF-16 units.
fn quoted(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut = truncate_utf16(&flat, MAX_QUOTED);
    if cut.len() < flat.len() {
        format!("{cut}…")
    } else {
        flat
    }
}

/// Where the session runs: the host, its folder, how it is known.
fn where_(host: &RemoteHostWork, s: &RemoteSession) -> String {
    let mut out = format!("on {}", quoted(&host.host));
    if let Some(path) = s.project_path.as_deref().filter(|p| !p.is_empty()) {
        out.push_str(&format!(" in {}", quoted(path)));
    }
    if host.fallback {
        out.push_str(" [from OpenClaw's session catalog]");
    }
    out
}

/// What the session is: its title, branch, id and last change.
fn describe(s: &RemoteSession, now_ms: i64) -> String {
    let c = &s.candidate;
    let title = c
        .title
        .as_deref()
        .or(c.last_task.as_deref())
        .unwrap_or(&c.first_message);
    let id: String = c.session_id.chars().take(8).collect();
    let mut out = format!("\"{}\"", quoted(title));
    if !c.branch.is_empty() && c.branch != "unknown" {
        out.push_str(&format!(" on branch {}", quoted(&c.branch)));
    }
    let then = c.last_modified.timestamp();
    out.push_str(&format!(
        " (session {id}, last active {})",
        relative_date(then, now_ms.div_euclid(1000))
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};

    fn session(id: &str, title: &str, ago_ms: i64, now: i64, running: bool) -> RemoteSession {
        RemoteSession {
            candidate: Candidate {
                session_id: id.into(),
                branch: "main".into(),
                first_message: title.into(),
                title: Some(title.into()),
                last_modified: DateTime::<Utc>::from_timestamp_millis(now - ago_ms)
                    .unwrap_or_default(),
                ..Candidate::default()
            },
            running,
            project_path: Some("/home/u/widget".into()),
        }
    }

    #[test]
    fn running_first_then_relevant_recent_ones_bounded_and_none_when_nothing_to_say() {
        let now = 1_800_000_000_000;
        let laptop = RemoteHostWork {
            host: "laptop".into(),
            host_id: "node:a".into(),
            sessions: vec![
                session("aaaaaaaa-1", "Fix webhook retries", 3_600_000, now, false),
                session("bbbbbbbb-2", "Update README badges", 60_000, now, false),
                session("cccccccc-3", "Refactor billing export", 120_000, now, true),
                session(
                    "dddddddd-4",
                    "Webhook signature check",
                    30 * 86_400_000,
                    now,
                    false,
                ),
            ],
            fallback: false,
        };
        let text = remote_work_briefing(
            "webhook retries fail",
            std::slice::from_ref(&laptop),
            5,
            now,
        )
        .unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(
            lines[1].starts_with("- on laptop in /home/u/widget now: \"Refactor billing export\""),
            "{text}"
        );
        assert!(
            lines[2].contains("\"Fix webhook retries\"") && lines[2].contains("relevance"),
            "{text}"
        );
        assert!(
            !text.contains("README") && !text.contains("signature"),
            "{text}"
        );
        let one = remote_work_briefing(
            "webhook retries fail",
            std::slice::from_ref(&laptop),
            1,
            now,
        )
        .unwrap();
        assert!(one.ends_with("- and 1 more"), "{one}");
        let idle = RemoteHostWork {
            sessions: laptop.sessions.into_iter().filter(|s| !s.running).collect(),
            ..laptop
        };
        assert_eq!(
            remote_work_briefing("database migration", &[idle], 5, now),
            None
        );
    }
}
