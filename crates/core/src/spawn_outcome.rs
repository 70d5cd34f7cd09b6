//! What each Claude Code spawn did (`spawnOutcomes`): read back from the
//! spawn records, the spawn's Claude Code transcript, Claude Code's
//! liveness records and git, so that it is known after OpenClaw has
//! forgotten the spawn and after a gateway restart.
//!
//! Its state is the one the busy rule uses ([`InFlightSpawn::phase`]),
//! unless the host recorded its end. Tokens and cost are what the API
//! billed for the spawn: the CLI's own accounting (`cost-state`) of the
//! session, less what it held before the spawn's prompt when the spawn
//! resumed an earlier session. Where the CLI wrote no accounting (a spawn
//! run through the ACP adapter), the tokens are the transcript's responses
//! and the cost is estimated from them at the model's list prices
//! ([`crate::claude_code::fold::prices`]). Commits and changed files are git's, since
//! the spawn's base commit, in its worktree when it was isolated, else in
//! the repository it ran in (where they may include work of others).

use crate::claude_code::fold::prices::estimate_cost;
use crate::claude_code::fold::transcript::{parse_uuid, TranscriptFacts};
use crate::claude_code::fold::usage::Usage;
use crate::claude_code::layout::paths::claude_config_dir;
use crate::claude_code::layout::session_files::find_transcript;
use crate::claude_code::liveness::running_sessions;
use crate::claude_code::records::spawn_record::{SpawnLog, SpawnRecord};
use crate::claude_code::ScanCache;
use crate::error::Result;
use crate::openclaw::state_dir::resolve_state_dir;
use crate::preflight::busy::{lies_in, turn_ended_since};
use crate::preflight::find_spawned_session;
use crate::repo_path::resolve_lexically;
use crate::spawns::{InFlightSpawn, SessionSignals, SpawnPhase, SPAWN_POLICY};
use crate::text::truncate_utf16;
use crate::worktree::git::git;
use crate::worktree::{inspect_worktree, SpawnWorktree, DEFAULT_TIMEOUT};
use serde_json::Value;
use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// Longest final message kept, in UTF-16 units.
pub const FINAL_MESSAGE_UNITS: usize = 4000;
/// How much of a transcript's end is read for its final message.
const TAIL_BYTES: u64 = 1024 * 1024;
/// Outcomes returned unless the query says otherwise.
pub const DEFAULT_LIMIT: usize = 20;
/// Commits listed per spawn, newest first.
const COMMITS_SHOWN: usize = 100;
/// Changed files listed per spawn.
const FILES_SHOWN: usize = 500;

/// Which spawns to read back; every field narrows the choice.
#[derive(Debug, Clone, Default)]
pub struct SpawnOutcomeQuery {
    /// Only spawns of this requesting agent (default: every agent's).
    pub agent_id: Option<String>,
    /// OpenClaw's state root (default: OpenClaw's own resolution).
    pub state_dir: Option<PathBuf>,
    /// Claude Code's config root (default `$CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub claude_config_dir: Option<PathBuf>,
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
    pub limit: Option<usize>,
}

/// A commit a spawn made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnCommit {
    /// Its full id.
    pub hash: String,
    /// Its subject line.
    pub subject: String,
}

/// Where a spawn's cost comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CostBasis {
    /// The CLI's own accounting (its `cost-state` record).
    Cli,
    /// Estimated from the billed tokens at the model's list prices: the
    /// CLI wrote no accounting.
    Prices,
    /// Not known: a model the CLI or the price table has no price for, or
    /// tokens of several models without the CLI's accounting.
    Unpriced,
    /// No transcript with a response was found.
    None,
}

impl CostBasis {
    /// Its name in the API: `cli`, `prices`, `unpriced`, `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            CostBasis::Cli => "cli",
            CostBasis::Prices => "prices",
            CostBasis::Unpriced => "unpriced",
            CostBasis::None => "none",
        }
    }
}

/// What one spawn did.
#[derive(Debug, Clone, PartialEq)]
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
    pub state: SpawnPhase,
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
    pub input_tokens: u64,
    /// Output tokens billed for the spawn.
    pub output_tokens: u64,
    /// Input tokens read from the cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to the cache.
    pub cache_creation_tokens: u64,
    /// What the spawn cost in US dollars: by the CLI's own accounting, else
    /// estimated at the model's list prices (the cost basis says which).
    pub cost_usd: Option<f64>,
    /// Where the cost comes from, or why there is none.
    pub cost_basis: CostBasis,
    /// The tokens and cost are the whole session's: the spawn resumed a
    /// session whose accounting before its prompt was not found.
    pub session_totals: bool,
    /// When it was let through (ISO-8601).
    pub started_at: Option<String>,
    /// When it ended: as the host reported, else its transcript's last line.
    pub ended_at: Option<String>,
    /// From start to end, in milliseconds.
    pub duration_ms: Option<u64>,
    /// Its worktree, when it was isolated, with what it holds now.
    pub worktree: Option<SpawnWorktree>,
}

fn parse_time(iso: &str) -> Option<SystemTime> {
    chrono::DateTime::parse_from_rfc3339(iso)
        .ok()
        .map(|t| SystemTime::from(t.with_timezone(&chrono::Utc)))
}

/// The spawns the query names, newest first, each read back.
pub fn spawn_outcomes(q: &SpawnOutcomeQuery, cache: &ScanCache) -> Result<Vec<SpawnOutcome>> {
    let log = SpawnLog::new(resolve_state_dir(q.state_dir.as_deref()));
    let claude_dir = claude_config_dir(q.claude_config_dir.as_deref());
    let mut records: Vec<(String, SpawnRecord)> = match &q.agent_id {
        Some(agent) => log
            .list(agent)?
            .into_iter()
            .map(|r| (agent.clone(), r))
            .collect(),
        None => log.list_all(),
    };
    let repo = q.repo_path.as_deref().map(resolve_lexically);
    let same = |want: &Option<String>, have: &Option<String>| {
        want.as_ref().is_none_or(|w| have.as_ref() == Some(w))
    };
    records.retain(|(_, r)| {
        q.nonce.as_ref().is_none_or(|n| *n == r.nonce)
            && same(&q.child_session_key, &r.child_session_key)
            && same(&q.requester_session_key, &r.requester_session_key)
            && repo.as_ref().is_none_or(|repo| {
                // Into that folder or below it, or into the repository
                // that folder is in.
                [&r.repo_path, &r.cwd, &r.worktree_path]
                    .iter()
                    .any(|p| p.as_deref().is_some_and(|p| lies_in(p, repo)))
                    || r.repo_path
                        .as_deref()
                        .is_some_and(|p| repo.starts_with(resolve_lexically(p)))
            })
    });
    records.sort_by(|a, b| b.1.started_at.cmp(&a.1.started_at));
    let live = running_sessions(&claude_dir);
    let limit = q.limit.unwrap_or(DEFAULT_LIMIT);
    let mut out = Vec::new();
    for (agent, r) in records {
        if out.len() >= limit {
            break;
        }
        if let Some(want) = &q.session_id {
            // A record naming another session is not it; one that names
            // none may be, once its session is found.
            if r.claude_session_id.as_ref().is_some_and(|id| id != want) {
                continue;
            }
        }
        let o = read_back(&agent, &r, &claude_dir, &live, cache);
        if q.session_id.is_none() || o.session_id == q.session_id {
            out.push(o);
        }
    }
    Ok(out)
}

/// One spawn read back from its record, transcript, liveness and git.
fn read_back(
    agent: &str,
    r: &SpawnRecord,
    claude_dir: &Path,
    live: &[crate::claude_code::LiveSession],
    cache: &ScanCache,
) -> SpawnOutcome {
    let deadline = Instant::now() + DEFAULT_TIMEOUT;
    let started = r.started_at.as_deref().and_then(parse_time);
    // Where its transcript is: its worktree's project folder, or its cwd's.
    let run_dir = r
        .worktree_path
        .clone()
        .or_else(|| r.cwd.clone())
        .or_else(|| r.repo_path.clone());
    let session_id = r.claude_session_id.clone().or_else(|| {
        let dir = run_dir.as_deref()?;
        let since = started.map(|t| t - SPAWN_POLICY.lookup_slack);
        find_spawned_session(claude_dir, dir, &r.nonce, since)
    });
    let transcript = session_id.as_deref().and_then(|id| {
        let dir = run_dir.as_deref()?;
        find_transcript(claude_dir, Path::new(dir), id)
    });
    let facts = transcript.as_deref().map(|p| cache.scan(p).facts);
    let is_live = session_id
        .as_deref()
        .is_some_and(|id| live.iter().any(|l| l.session_id == id));
    let written_recently = transcript
        .as_deref()
        .and_then(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .is_some_and(|t| {
            SystemTime::now().duration_since(t).unwrap_or_default() < Duration::from_secs(10)
        });
    let turn_ended = transcript
        .as_deref()
        .is_some_and(|p| turn_ended_since(cache, p, started));
    let state = match r.outcome.as_deref() {
        Some("ok") if is_live => SpawnPhase::Waiting,
        Some("ok") => SpawnPhase::Ended,
        Some(_) => SpawnPhase::Failed,
        None => InFlightSpawn {
            repo_path: r.repo_path.clone(),
            cwd: r.cwd.clone().unwrap_or_default(),
            claude_session_id: session_id.clone(),
            child_session_key: r.child_session_key.clone(),
            started_at: started,
            started: transcript.is_some() || r.child_session_key.is_some(),
            nonce: Some(r.nonce.clone()),
            // Its state is read from its session: a persistent spawn's
            // session may be at work on a later task.
            run_ended: false,
        }
        .phase(
            SystemTime::now(),
            &SPAWN_POLICY,
            SessionSignals {
                live: is_live,
                written_recently,
                turn_ended,
            },
        ),
    };
    let ended_at = r.ended_at.clone().or_else(|| {
        matches!(
            state,
            SpawnPhase::Waiting | SpawnPhase::Ended | SpawnPhase::Failed
        )
        .then(|| facts.as_ref().and_then(|f| f.last_activity.clone()))
        .flatten()
    });
    let duration_ms = match (started, ended_at.as_deref().and_then(parse_time)) {
        (Some(a), Some(b)) => Some(b.duration_since(a).unwrap_or_default().as_millis() as u64),
        _ => None,
    };
    let (usage, (cost_usd, cost_basis), session_totals) = match (&facts, transcript.as_deref()) {
        (Some(f), Some(p)) => billed(f, p, &r.nonce, r.resumed == Some(true)),
        _ => (Usage::default(), (None, CostBasis::None), false),
    };
    let worktree = r.worktree_path.as_deref().map(|p| {
        inspect_worktree(Path::new(p), deadline).unwrap_or_else(|_| SpawnWorktree {
            path: p.to_owned(),
            ..SpawnWorktree::default()
        })
    });
    // Git: in the worktree while it exists (a removed one held nothing),
    // else in the repository it ran in.
    let git_dir = match &worktree {
        Some(w) if w.removed => None,
        Some(w) => Some(w.path.clone()),
        None => r.repo_path.clone().or_else(|| r.cwd.clone()),
    };
    let (files_changed, commits) = match (git_dir, r.base_commit.as_deref()) {
        (Some(dir), Some(base)) => changes(Path::new(&dir), base, deadline),
        _ => (Vec::new(), Vec::new()),
    };
    SpawnOutcome {
        nonce: r.nonce.clone(),
        agent_id: agent.to_owned(),
        task: r.task.clone(),
        label: r.label.clone(),
        cwd: r.cwd.clone(),
        repo_path: r.repo_path.clone(),
        state,
        session_id,
        child_session_key: r.child_session_key.clone(),
        requester_session_key: r.requester_session_key.clone(),
        final_message: transcript.as_deref().and_then(final_message),
        turn_ended: facts.as_ref().is_some_and(|f| f.turn_ended == Some(true)),
        files_changed,
        commits,
        base_commit: r.base_commit.clone(),
        input_tokens: usage.input,
        output_tokens: usage.output,
        cache_read_tokens: usage.cache_read,
        cache_creation_tokens: usage.cache_creation,
        cost_usd,
        cost_basis,
        session_totals,
        started_at: r.started_at.clone(),
        ended_at,
        duration_ms,
        worktree,
    }
}

/// A cost and where it comes from.
type Cost = (Option<f64>, CostBasis);

/// What the API billed for the spawn: the session's accounting, less what
/// it held right before the spawn's prompt when the spawn `resumed` it;
/// without the CLI's accounting, the transcript's responses, priced at the
/// list prices of the one model they are of. The third value says the
/// session's totals were taken for a resumed spawn (no accounting before
/// its prompt found).
fn billed(f: &TranscriptFacts, path: &Path, nonce: &str, resumed: bool) -> (Usage, Cost, bool) {
    let (total, cost) = match &f.cost_state {
        Some(c) => (c.usage, c.cost_usd.filter(|_| !c.unknown_model_cost)),
        None => {
            let total = f.usage.totals();
            return (total, estimated(&f.models, total), resumed);
        }
    };
    let basis = if cost.is_some() {
        CostBasis::Cli
    } else {
        CostBasis::Unpriced
    };
    if !resumed {
        return (total, (cost, basis), false);
    }
    let mark = last_response_before_prompt(path, nonce)
        .and_then(|uuid| f.cost_marks.iter().find(|m| m.after == uuid));
    match mark {
        Some(m) => {
            let own = cost.zip(m.cost_usd).map(|(c, b)| (c - b).max(0.0));
            let basis = if own.is_some() {
                basis
            } else {
                CostBasis::Unpriced
            };
            (total.minus(m.usage), (own, basis), false)
        }
        None => (total, (cost, basis), true),
    }
}

/// The cost of `usage` of the transcript's `models` at list prices: known
/// when they are of one model the price table names.
fn estimated(models: &[String], usage: Usage) -> Cost {
    match models {
        [] => (None, CostBasis::None),
        [model] => match estimate_cost(model, usage) {
            Some(cost) => (Some(cost), CostBasis::Prices),
            None => (None, CostBasis::Unpriced),
        },
        _ => (None, CostBasis::Unpriced),
    }
}

/// The uuid of the last main-chain response before the prompt that
/// carries `spawn=<nonce>` in the transcript at `path`.
fn last_response_before_prompt(path: &Path, nonce: &str) -> Option<u128> {
    let file = std::fs::File::open(path).ok()?;
    let needles = [format!("spawn={nonce}]"), format!("spawn={nonce},")];
    let mut last = None;
    for line in std::io::BufReader::new(file).split(b'\n') {
        let line = line.ok()?;
        if needles
            .iter()
            .any(|n| memchr::memmem::find(&line, n.as_bytes()).is_some())
        {
            return last;
        }
        if memchr::memmem::find(&line, b"\"assistant\"").is_none() {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        if v["type"] == "assistant" && v["isSidechain"] != true {
            last = v["uuid"].as_str().and_then(parse_uuid).or(last);
        }
    }
    None
}

/// The text of the last main-chain assistant response in the transcript
/// at `path` (its text blocks, which Claude Code writes one a line),
/// cut to [`FINAL_MESSAGE_UNITS`].
pub fn final_message(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let from = len.saturating_sub(TAIL_BYTES);
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).ok()?;
    let mut lines: Vec<&[u8]> = tail.split(|&b| b == b'\n').collect();
    if from > 0 && !lines.is_empty() {
        lines.remove(0); // cut mid-line
    }
    let mut message_id: Option<String> = None;
    let mut texts: Vec<String> = Vec::new();
    for line in lines.iter().rev() {
        if line.is_empty() || memchr::memmem::find(line, b"\"assistant\"").is_none() {
            if message_id.is_some() && memchr::memmem::find(line, b"\"user\"").is_some() {
                break;
            }
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if v["type"] != "assistant" || v["isSidechain"] == true {
            continue;
        }
        let id = v["message"]["id"].as_str().unwrap_or("").to_owned();
        if message_id.as_ref().is_some_and(|m| *m != id) {
            break;
        }
        let text: Vec<&str> = v["message"]["content"]
            .as_array()
            .map(|blocks| {
                blocks
                    .iter()
                    .filter(|b| b["type"] == "text")
                    .filter_map(|b| b["text"].as_str())
                    .collect()
            })
            .unwrap_or_default();
        if text.is_empty() && message_id.is_none() {
            continue;
        }
        message_id.get_or_insert(id);
        texts.extend(text.into_iter().rev().map(str::to_owned));
    }
    if texts.is_empty() {
        return None;
    }
    texts.reverse();
    let full = texts.join("\n");
    let cut = truncate_utf16(&full, FINAL_MESSAGE_UNITS);
    Some(if cut.len() < full.len() {
        format!("{cut}…")
    } else {
        full
    })
}

/// Files changed and commits made in the work tree at `dir` since `base`.
fn changes(dir: &Path, base: &str, deadline: Instant) -> (Vec<String>, Vec<SpawnCommit>) {
    let run = |args: &[&str]| {
        git(dir, args, deadline)
            .ok()
            .filter(|o| o.ok)
            .map(|o| o.stdout)
            .unwrap_or_default()
    };
    let range = format!("{base}..HEAD");
    let shown = format!("-{COMMITS_SHOWN}");
    let commits = run(&["log", &shown, "--format=%H%x1f%s", &range])
        .lines()
        .filter_map(|l| l.split_once('\u{1f}'))
        .map(|(hash, subject)| SpawnCommit {
            hash: hash.to_owned(),
            subject: subject.to_owned(),
        })
        .collect();
    let mut files: Vec<String> = run(&["diff", "--name-only", base])
        .lines()
        .chain(run(&["ls-files", "--others", "--exclude-standard", "--full-name"]).lines())
        .map(str::to_owned)
        .collect();
    files.sort();
    files.dedup();
    files.truncate(FILES_SHOWN);
    (files, commits)
}
