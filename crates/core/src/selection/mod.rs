//! Resume or start fresh (`selectSession`): the reference's decision order
//! and five-factor score, with relevance from one batched model call (the
//! host's, or the Anthropic API) and an offline fallback that never fails.

pub mod anthropic;
pub mod candidate;
pub mod config;
pub mod relevance;
pub mod scoring;

pub use candidate::{Candidate, Relevance};
pub use config::{
    SelectionConfig, DEFAULT_RELEVANCE_ENABLED, DEFAULT_RELEVANCE_MAX_TOKENS,
    DEFAULT_RELEVANCE_MODEL, DEFAULT_RELEVANCE_TIMEOUT_MS, DEFAULT_RESUME_THRESHOLD,
};

use crate::claude_code::layout::session_files::find_transcript;
use crate::claude_code::records::registry::{registry_key, Registry};
use crate::error::Result;
use crate::repo_path::RepoPath;
use chrono::{DateTime, Utc};
use relevance::{assess_task_relevance, RelevanceSource};
use scoring::{score_session, SessionScore};
use std::path::Path;

/// What to do.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSelection {
    /// `resume` the session, start `fresh`, or `queue` behind a session running
    /// in the repository.
    pub action: &'static str,
    /// The session to resume; absent unless `action` is `resume`.
    pub session_id: Option<String>,
    /// Why, in the reference's words.
    pub reason: String,
    /// Every candidate's score, best first; absent when no scoring was done (a
    /// label, a running session, no own sessions).
    pub scores: Option<Vec<SessionScore>>,
}

/// Everything `selectSession` decides from.
#[derive(Debug, Clone)]
pub struct SelectionRequest {
    /// The new task.
    pub task: String,
    /// The repository path (labelled sessions are looked up under it).
    pub repo_path: String,
    /// The agent asking; only its own sessions are candidates.
    pub agent_id: String,
    /// The repository's current branch.
    pub current_branch: String,
    /// Sessions running in the repository now.
    pub active_count: usize,
    /// The briefing's recent sessions (newest first).
    pub recent: Vec<Candidate>,
    /// Look up the session of this label directly, without scoring.
    pub label: Option<String>,
    /// The agent's budget in USD, for the budget share of a session.
    pub max_budget_usd: Option<f64>,
    /// The selection settings.
    pub config: SelectionConfig,
}

/// `resolveSession`: the labelled (or default) session OpenClaw resumes in
/// `repo_path`, if its transcript still exists. A missing transcript does not
/// delete the entry.
pub fn resolve_session(
    registry: &Registry,
    claude_dir: &Path,
    agent_id: &str,
    repo_path: &str,
    label: Option<&str>,
) -> Result<Option<String>> {
    let key = registry_key(repo_path, label);
    let repo = RepoPath::resolve(repo_path);
    Ok(registry
        .get(agent_id, &key)?
        .filter(|e| find_transcript(claude_dir, &repo, &e.session_id).is_some())
        .map(|e| e.session_id))
}

/// Decides between resuming, starting fresh and queueing, in the
/// reference's order: a label is looked up directly; a running session
/// queues; without the agent's own recent sessions it is fresh; otherwise
/// every own session is scored (one relevance call for all) and the best
/// resumes when it reaches the threshold.
pub async fn select_session(
    req: &SelectionRequest,
    registry: &Registry,
    claude_dir: &Path,
    source: Option<&dyn RelevanceSource>,
    now: DateTime<Utc>,
) -> Result<SessionSelection> {
    if let Some(label) = req.label.as_deref().filter(|l| !l.is_empty()) {
        return Ok(
            match resolve_session(
                registry,
                claude_dir,
                &req.agent_id,
                &req.repo_path,
                Some(label),
            )? {
                Some(id) => SessionSelection {
                    action: "resume",
                    session_id: Some(id),
                    reason: format!("Labeled session \"{label}\""),
                    scores: None,
                },
                None => SessionSelection {
                    action: "fresh",
                    session_id: None,
                    reason: format!("New labeled session \"{label}\""),
                    scores: None,
                },
            },
        );
    }
    if req.active_count > 0 {
        return Ok(SessionSelection {
            action: "queue",
            session_id: None,
            reason: "Active session running on this repo".into(),
            scores: None,
        });
    }
    let own: Vec<Candidate> = req
        .recent
        .iter()
        .filter(|c| c.agent_id.as_deref() == Some(req.agent_id.as_str()))
        .cloned()
        .collect();
    if own.is_empty() {
        return Ok(SessionSelection {
            action: "fresh",
            session_id: None,
            reason: "No previous sessions found".into(),
            scores: None,
        });
    }
    let relevances = assess_task_relevance(&req.task, &own, &req.config, source).await;
    let threshold = req.config.resume_threshold;
    let mut scores: Vec<SessionScore> = own
        .iter()
        .zip(&relevances)
        .map(|(c, r)| {
            score_session(
                c,
                &req.current_branch,
                r,
                req.max_budget_usd,
                threshold,
                now,
            )
        })
        .collect();
    scores.sort_by(|a, b| b.score.total_cmp(&a.score));
    let best = &scores[0];
    Ok(if best.score >= threshold {
        SessionSelection {
            action: "resume",
            session_id: Some(best.session_id.clone()),
            reason: best.reason.clone(),
            scores: Some(scores),
        }
    } else {
        SessionSelection {
            action: "fresh",
            session_id: None,
            reason: best.reason.clone(),
            scores: Some(scores),
        }
    })
}
