//! What each Claude Code spawn did: `spawnOutcomes`.

use crate::error::CoreTask;
use crate::worktrees::SpawnWorktree;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core::claude_code::DiscoveryCache;
use session_intel_core::spawn_outcome as so;
use std::path::PathBuf;

/// Which spawns to read back; every field narrows the choice.
#[napi(object)]
#[derive(Default)]
pub struct SpawnOutcomeQuery {
    /// Only spawns of this requesting agent (default: every agent's).
    pub agent_id: Option<String>,
    /// OpenClaw's state root (default: OpenClaw's own resolution).
    pub state_dir: Option<String>,
    /// Claude Code's config root (default `$CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub claude_config_dir: Option<String>,
    /// Only spawns into this repository (or a folder of it).
    pub repo_path: Option<String>,
    /// Only spawns this requester session made.
    pub requester_session_key: Option<String>,
    /// Only the spawn of this Claude Code session.
    pub session_id: Option<String>,
    /// Only the spawn of this OpenClaw child session.
    pub child_session_key: Option<String>,
    /// Only the spawn with this nonce.
    pub nonce: Option<String>,
    /// At most this many, newest first (default 20).
    pub limit: Option<u32>,
}

/// A commit a spawn made.
#[napi(object, object_from_js = false)]
pub struct SpawnCommit {
    /// Its full id.
    pub hash: String,
    /// Its subject line.
    pub subject: String,
}

/// What one spawn did.
#[napi(object, object_from_js = false)]
pub struct SpawnOutcome {
    /// The spawn's nonce.
    pub nonce: String,
    /// The agent that made it.
    pub agent_id: String,
    /// The task as the model gave it.
    pub task: Option<String>,
    /// The spawn's `label`.
    pub label: Option<String>,
    /// The `cwd` it was asked to run in.
    pub cwd: Option<String>,
    /// The repository root of that `cwd`.
    pub repo_path: Option<String>,
    /// What it is doing or how it ended.
    #[napi(ts_type = "'starting' | 'running' | 'waiting' | 'ended' | 'failed'")]
    pub state: String,
    /// Its Claude Code session id, once known.
    pub session_id: Option<String>,
    /// OpenClaw's child session key, when recorded.
    pub child_session_key: Option<String>,
    /// The requester session that made it, when recorded.
    pub requester_session_key: Option<String>,
    /// The last assistant message of its transcript, cut to 4000 UTF-16
    /// units.
    pub final_message: Option<String>,
    /// Its turn has ended (its last message is a finished response).
    pub turn_ended: bool,
    /// Files changed since its base commit: committed, uncommitted and
    /// untracked, relative to the worktree or repository root.
    pub files_changed: Vec<String>,
    /// Commits made since its base commit, newest first.
    pub commits: Vec<SpawnCommit>,
    /// The commit `HEAD` was at when it was let through.
    pub base_commit: Option<String>,
    /// Uncached input tokens billed for the spawn.
    pub input_tokens: f64,
    /// Output tokens billed for the spawn.
    pub output_tokens: f64,
    /// Input tokens read from the cache.
    pub cache_read_tokens: f64,
    /// Input tokens written to the cache.
    pub cache_creation_tokens: f64,
    /// What the spawn cost in US dollars: by the CLI's own accounting, else
    /// estimated at the model's list prices (the cost basis says which).
    pub cost_usd: Option<f64>,
    /// Where the cost comes from, or why there is none.
    #[napi(ts_type = "'cli' | 'prices' | 'unpriced' | 'none'")]
    pub cost_basis: String,
    /// The tokens and cost are the whole session's: the spawn resumed a
    /// session whose accounting before its prompt was not found.
    pub session_totals: bool,
    /// When it was let through (ISO-8601).
    pub started_at: Option<String>,
    /// When it ended: as the host reported, else its transcript's last line.
    pub ended_at: Option<String>,
    /// From start to end, in milliseconds.
    pub duration_ms: Option<f64>,
    /// Its worktree, when it was isolated, with what it holds now.
    pub worktree: Option<SpawnWorktree>,
}

impl From<so::SpawnOutcome> for SpawnOutcome {
    fn from(o: so::SpawnOutcome) -> Self {
        SpawnOutcome {
            nonce: o.nonce,
            agent_id: o.agent_id,
            task: o.task,
            label: o.label,
            cwd: o.cwd,
            repo_path: o.repo_path,
            state: o.state.as_str().into(),
            session_id: o.session_id,
            child_session_key: o.child_session_key,
            requester_session_key: o.requester_session_key,
            final_message: o.final_message,
            turn_ended: o.turn_ended,
            files_changed: o.files_changed,
            commits: o
                .commits
                .into_iter()
                .map(|c| SpawnCommit {
                    hash: c.hash,
                    subject: c.subject,
                })
                .collect(),
            base_commit: o.base_commit,
            input_tokens: o.input_tokens as f64,
            output_tokens: o.output_tokens as f64,
            cache_read_tokens: o.cache_read_tokens as f64,
            cache_creation_tokens: o.cache_creation_tokens as f64,
            cost_usd: o.cost_usd,
            cost_basis: o.cost_basis.as_str().to_owned(),
            session_totals: o.session_totals,
            started_at: o.started_at,
            ended_at: o.ended_at,
            duration_ms: o.duration_ms.map(|d| d as f64),
            worktree: o.worktree.map(Into::into),
        }
    }
}

/// The spawns the query names, newest first, each read back from its
/// spawn record, its Claude Code transcript (final message, tokens and cost
/// billed for it), Claude Code's liveness records (its state) and git (its
/// commits and changed files since its base commit, in its worktree when
/// isolated): it works after OpenClaw has forgotten the spawn and after a
/// gateway restart. Runs off the JavaScript thread; rejects with
/// `E_INVALID_ARGUMENT` for a bad agent id.
#[napi(catch_unwind, ts_return_type = "Promise<Array<SpawnOutcome>>")]
pub fn spawn_outcomes(
    query: Option<SpawnOutcomeQuery>,
) -> AsyncTask<CoreTask<Vec<so::SpawnOutcome>, Vec<SpawnOutcome>>> {
    let q = query.unwrap_or_default();
    let q = so::SpawnOutcomeQuery {
        agent_id: q.agent_id,
        state_dir: q.state_dir.map(PathBuf::from),
        claude_config_dir: q.claude_config_dir.map(PathBuf::from),
        repo_path: q.repo_path,
        requester_session_key: q.requester_session_key,
        session_id: q.session_id,
        child_session_key: q.child_session_key,
        nonce: q.nonce,
        limit: q.limit.map(|n| n as usize),
    };
    AsyncTask::new(CoreTask::new(
        move || so::spawn_outcomes(&q, DiscoveryCache::global().scans()),
        |v| v.into_iter().map(Into::into).collect(),
    ))
}
