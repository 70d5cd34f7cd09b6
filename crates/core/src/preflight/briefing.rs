//! The briefing text a spawned Claude Code reads after its task: the
//! repository's state in a few plain lines, bounded in size.

use crate::claude_code::fold::origin::{origin_marker_for, BRIEFING_SEPARATOR};
use crate::claude_code::DiscoveredSession;
use crate::project_status::relative_date::relative_date;
use crate::project_status::ProjectStatus;
use crate::text::truncate_utf16;

/// Changed paths named before the rest are only counted.
const PATHS_SHOWN: usize = 5;
/// Recent commits named.
const COMMITS_SHOWN: usize = 3;
/// Sessions named.
const SESSIONS_SHOWN: usize = 3;
/// Open pull requests named.
const PRS_SHOWN: usize = 3;
/// Longest quote of a prompt or title, in UTF-16 units.
const QUOTE_UNITS: usize = 120;
/// Files of an earlier session named.
const FILES_SHOWN: usize = 8;

/// An earlier session of the repository that seems relevant to the task,
/// for the briefing to describe.
#[derive(Debug, Clone)]
pub struct PriorContext<'a> {
    /// The session.
    pub session: &'a DiscoveredSession,
}

/// The origin marker of a spawn by `agent_id`: `[openclaw:agent=<id>]`,
/// with `spawn=<nonce>` when there is a nonce (by which the spawn's
/// transcript is found later).
pub fn spawn_marker(agent_id: &str, nonce: &str) -> String {
    let extra = if nonce.is_empty() {
        vec![]
    } else {
        vec![("spawn".to_owned(), nonce.to_owned())]
    };
    origin_marker_for(agent_id, &extra)
}

/// The briefing with no facts in it: the separator and the origin marker.
pub fn marker_briefing(marker: &str) -> String {
    format!("{BRIEFING_SEPARATOR}\n{marker}")
}

/// The task Claude Code receives: the task unchanged and first (so that it
/// stays the session's title), a blank line, then the briefing.
pub fn task_with_briefing(task: &str, briefing: &str) -> String {
    format!("{task}\n\n{briefing}")
}

/// The task a spawn sends when no briefing is written (the briefing off,
/// a guard letting the spawn pass, the pre-flight failed or out of
/// time): the task, then only the separator and the spawn's origin marker.
pub fn marked_task(task: &str, agent_id: &str, nonce: &str) -> String {
    task_with_briefing(task, &marker_briefing(&spawn_marker(agent_id, nonce)))
}

/// The lines of the briefing, each a fact; `marker` opens it.
pub fn briefing_lines(
    marker: &str,
    status: &ProjectStatus,
    prior: Option<&PriorContext<'_>>,
    warnings: &[String],
    now: i64,
) -> Vec<String> {
    let mut lines = vec![
        BRIEFING_SEPARATOR.to_owned(),
        marker.to_owned(),
        "Briefing from OpenClaw on the repository you were started in (as it was when you were spawned):".to_owned(),
    ];
    lines.extend(warnings.iter().map(|w| format!("Warning: {w}")));
    let g = &status.git;
    let mut repo = format!("Repository: {}", status.repo.path);
    if status.repo.is_git_repo {
        if g.current_branch.is_empty() {
            repo.push_str(", detached HEAD");
        } else {
            repo.push_str(&format!(", branch {}", g.current_branch));
        }
        if !g.head_commit_sha.is_empty() {
            repo.push_str(&format!(
                ", head {} \"{}\"",
                g.head_commit_sha,
                quote(&g.head_commit_message)
            ));
        }
    } else {
        repo.push_str(" (not a git repository)");
    }
    lines.push(repo);
    if status.repo.is_git_repo {
        lines.push(working_tree(status));
    }
    if !g.recent_commits.is_empty() {
        let commits: Vec<String> = g
            .recent_commits
            .iter()
            .take(COMMITS_SHOWN)
            .map(|c| format!("{} {} ({})", c.sha, quote(&c.message), c.date))
            .collect();
        lines.push(format!("Recent commits: {}", commits.join("; ")));
    }
    if let Some(prior) = prior {
        lines.push(prior_line(prior, &status.repo.path, now));
    }
    let sessions: Vec<String> = status
        .sessions
        .recent
        .iter()
        .filter(|s| prior.is_none_or(|p| p.session.session_id != s.session_id))
        .take(SESSIONS_SHOWN)
        .map(|s| session_summary(s, now))
        .collect();
    if !sessions.is_empty() {
        lines.push(format!(
            "Other Claude Code sessions here: {}",
            sessions.join("; ")
        ));
    }
    if let Some(gh) = &status.github {
        if !gh.open_prs.is_empty() {
            let prs: Vec<String> = gh
                .open_prs
                .iter()
                .take(PRS_SHOWN)
                .map(|p| format!("#{} {} ({})", p.number, quote(&p.title), p.branch))
                .collect();
            lines.push(format!("Open pull requests: {}", prs.join("; ")));
        }
    }
    lines
}

/// `Working tree: …` with counts and the first few paths.
fn working_tree(status: &ProjectStatus) -> String {
    if !status.status_read {
        return "Working tree: not read within the pre-flight's time (a large work tree); run `git status` to see the changes".to_owned();
    }
    let s = &status.git.status;
    let staged = s.staged().len();
    let unstaged = s
        .lines
        .iter()
        .filter(|l| !l.starts_with("??") && b"MADRCTm".contains(&l.as_bytes()[1]))
        .count();
    let untracked = s.untracked.len();
    if s.lines.is_empty() {
        return "Working tree: clean".to_owned();
    }
    let paths: Vec<&str> = s
        .lines
        .iter()
        .map(|l| l.get(3..).unwrap_or(l))
        .take(PATHS_SHOWN)
        .collect();
    let more = s.lines.len().saturating_sub(PATHS_SHOWN);
    format!(
        "Working tree: {staged} staged, {unstaged} modified, {untracked} untracked: {}{}",
        paths.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

fn session_summary(s: &DiscoveredSession, now: i64) -> String {
    let when = if s.is_running {
        "running now".to_owned()
    } else {
        relative_date(s.last_modified.timestamp(), now)
    };
    let by = if s.agent_id.is_some() {
        ", spawned by OpenClaw"
    } else {
        ""
    };
    format!(
        "{} \"{}\" ({when}, branch {}{by})",
        s.session_id,
        quote(&s.title),
        s.branch
    )
}

fn prior_line(p: &PriorContext<'_>, repo: &str, now: i64) -> String {
    let s = p.session;
    let asked = s.last_task.as_deref().unwrap_or(&s.first_message);
    let mut line = format!(
        "Earlier session on this work: {} ({}, branch {}). It was asked: \"{}\".",
        s.session_id,
        relative_date(s.last_modified.timestamp(), now),
        s.branch,
        quote(asked)
    );
    if let Some(last) = s.last_user_message.as_deref().filter(|l| *l != asked) {
        line.push_str(&format!(" It stopped after: \"{}\".", quote(last)));
    }
    if !s.files_touched.is_empty() {
        let inside = format!("{}/", repo.trim_end_matches('/'));
        let files: Vec<&str> = s
            .files_touched
            .iter()
            .rev()
            .take(FILES_SHOWN)
            .map(|f| f.strip_prefix(&inside).unwrap_or(f))
            .collect();
        line.push_str(&format!(" Files it touched: {}.", files.join(", ")));
    }
    if let Some(path) = &s.transcript_path {
        line.push_str(&format!(" Transcript: {path}"));
    }
    line
}

/// One line of text, cut to [`QUOTE_UNITS`].
fn quote(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut = truncate_utf16(&one_line, QUOTE_UNITS);
    if cut.len() < one_line.len() {
        format!("{cut}…")
    } else {
        one_line
    }
}

/// The note that ends a briefing cut to size.
pub fn truncation_note(max_chars: usize) -> String {
    format!("[briefing truncated to {max_chars} characters]")
}

/// `lines` joined, at most `max_chars` characters: whole lines while they
/// fit, then the truncation note. The first two lines (the separator and
/// the origin marker) are always kept.
pub fn bounded(lines: &[String], max_chars: usize) -> (String, bool) {
    let full = lines.join("\n");
    if full.chars().count() <= max_chars {
        return (full, false);
    }
    let note = truncation_note(max_chars);
    let budget = max_chars.saturating_sub(note.chars().count() + 1);
    let mut out = String::new();
    let mut used = 0;
    for (i, line) in lines.iter().enumerate() {
        let n = line.chars().count() + usize::from(i > 0);
        if i >= 2 && used + n > budget {
            let room = budget.saturating_sub(used + usize::from(i > 0));
            if room > 40 {
                let cut: String = line.chars().take(room - 1).collect();
                out.push('\n');
                out.push_str(&cut);
                out.push('…');
            }
            break;
        }
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line);
        used += n;
    }
    out.push('\n');
    out.push_str(&note);
    (out, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_keeps_whole_lines_the_marker_and_says_it_cut() {
        let lines: Vec<String> = [
            "---",
            "[openclaw:agent=main]",
            "a".repeat(50).as_str(),
            "b".repeat(500).as_str(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (text, cut) = bounded(&lines, 10_000);
        assert!(!cut);
        assert_eq!(text, lines.join("\n"));
        let (text, cut) = bounded(&lines, 200);
        assert!(cut);
        assert!(text.chars().count() <= 200, "{}", text.chars().count());
        assert!(text.starts_with("---\n[openclaw:agent=main]\n"));
        assert!(text.contains(&"a".repeat(50)));
        assert!(text.ends_with("[briefing truncated to 200 characters]"));
        // Too small for anything but the marker: the marker stays.
        let (text, _) = bounded(&lines, 10);
        assert!(text.contains("[openclaw:agent=main]"));
    }
}
