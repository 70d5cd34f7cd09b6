//! Pull requests and checks from the `gh` CLI, when it is installed.
//!
//! `gh` runs with its arguments as a list (never through a shell), in the
//! repository, and is killed when it does not answer in time. Anything that
//! goes wrong leaves the GitHub part out; it never fails the briefing.

use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A pull request.
#[derive(Debug, Clone, PartialEq)]
pub struct PullRequest {
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

/// A CI check.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// The check's name.
    pub name: String,
    /// Its state as `gh` reports it (`FAILURE` for every check listed here).
    pub status: String,
    /// Its conclusion or bucket when `gh` gives one; absent otherwise.
    pub conclusion: Option<String>,
}

/// What GitHub says about the repository's current branch.
#[derive(Debug, Clone, PartialEq)]
pub struct GithubState {
    /// Open pull requests of the repository (at most 5).
    pub open_prs: Vec<PullRequest>,
    /// Failing checks of the current branch's pull request.
    pub failing_checks: Vec<Check>,
    /// Pull requests updated in the last 24 hours, in any state.
    pub recent_pr_activity: Vec<PullRequest>,
}

/// Runs `gh args…` in `dir`, returning its stdout when it printed something
/// within `timeout`. A non-zero exit still counts: `gh pr checks` exits 1
/// exactly when a check failed, with the JSON on stdout.
pub fn run_gh(dir: &Path, args: &[&str], timeout: Duration) -> Option<String> {
    let mut child = Command::new("gh")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .env("GH_PROMPT_DISABLED", "1")
        .env("NO_COLOR", "1")
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        out
    });
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let out = reader.join().ok()?;
    let text = String::from_utf8_lossy(&out).trim().to_owned();
    (!text.is_empty()).then_some(text)
}

fn pull_requests(json: Option<String>) -> Vec<PullRequest> {
    let Some(Value::Array(items)) = json.and_then(|j| serde_json::from_str(&j).ok()) else {
        return Vec::new();
    };
    items
        .iter()
        .map(|p| PullRequest {
            number: p["number"].as_f64().unwrap_or(0.0),
            title: p["title"].as_str().unwrap_or_default().to_owned(),
            branch: p["headRefName"].as_str().unwrap_or_default().to_owned(),
            state: p["state"].as_str().unwrap_or_default().to_owned(),
            author: p["author"]["login"]
                .as_str()
                .or(p["author"].as_str())
                .map(str::to_owned),
            updated_at: p["updatedAt"].as_str().map(str::to_owned),
        })
        .collect()
}

fn failing_checks(json: Option<String>) -> Vec<Check> {
    let Some(Value::Array(items)) = json.and_then(|j| serde_json::from_str(&j).ok()) else {
        return Vec::new();
    };
    items
        .iter()
        .filter(|c| matches!(c["state"].as_str(), Some("FAILURE" | "failure")))
        .map(|c| Check {
            name: c["name"].as_str().unwrap_or_default().to_owned(),
            status: c["state"].as_str().unwrap_or_default().to_owned(),
            conclusion: c["conclusion"]
                .as_str()
                .or(c["bucket"].as_str())
                .map(str::to_owned),
        })
        .collect()
}

/// Asks `gh` (three calls, in parallel) about `dir`; `None` when `gh` is
/// missing, failing, slow, or there is nothing to report.
pub fn github_state(
    dir: &Path,
    timeout: Duration,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<GithubState> {
    const PR_FIELDS: &str = "number,title,headRefName,state,author,updatedAt";
    let (prs, checks, activity) = std::thread::scope(|s| {
        let prs = s.spawn(|| {
            run_gh(
                dir,
                &["pr", "list", "--json", PR_FIELDS, "--limit", "5"],
                timeout,
            )
        });
        let checks = s.spawn(|| run_gh(dir, &["pr", "checks", "--json", "name,state"], timeout));
        let activity = s.spawn(|| {
            run_gh(
                dir,
                &[
                    "pr", "list", "--state", "all", "--json", PR_FIELDS, "--limit", "20",
                ],
                timeout,
            )
        });
        (
            prs.join().ok().flatten(),
            checks.join().ok().flatten(),
            activity.join().ok().flatten(),
        )
    });
    let open_prs = pull_requests(prs);
    let failing_checks = failing_checks(checks);
    let day_ago = now - chrono::Duration::hours(24);
    let recent_pr_activity: Vec<PullRequest> = pull_requests(activity)
        .into_iter()
        .filter(|p| {
            p.updated_at
                .as_deref()
                .and_then(|u| chrono::DateTime::parse_from_rfc3339(u).ok())
                .is_some_and(|u| u >= day_ago)
        })
        .collect();
    (!open_prs.is_empty() || !failing_checks.is_empty() || !recent_pr_activity.is_empty())
        .then_some(GithubState {
            open_prs,
            failing_checks,
            recent_pr_activity,
        })
}
