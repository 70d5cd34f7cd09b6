//! OpenClaw's two session stores behind one door: the JSONL files of
//! OpenClaw up to 2026.7 and the per-agent SQLite database of 2026.8 and
//! later. The store is detected per agent; each owns its locking,
//! concurrency check, backup and restore, and both apply the same
//! transform ([`super::strip`]) to the same form of entries
//! ([`super::events::Events`]).

pub mod jsonl;
pub mod sqlite;

use super::edit::{
    CloneOutcome, CloneRequest, EditOutcome, EditRequest, ExportOutcome, RestoreOutcome,
};
use super::events::Events;
use super::state_dir::normalize_agent_id;
use super::transcripts::{resolve_in, StoreKind, TranscriptSummary};
use crate::error::{Error, ErrorCode, Result};
use crate::fs_safe::LockOptions;
use jsonl::JsonlStore;
use sqlite::SqliteStore;
use std::fs;
use std::path::Path;

/// An agent's transcripts, in whichever store holds them.
#[derive(Debug, Clone)]
pub enum AgentStore {
    /// JSONL files (OpenClaw up to 2026.7).
    Jsonl(JsonlStore),
    /// The agent's SQLite database (OpenClaw 2026.8 and later).
    Sqlite(SqliteStore),
}

/// `<state>/agents/<agent>/agent/openclaw-agent.sqlite`.
pub fn sqlite_path(state_dir: &Path, agent_id: &str) -> std::path::PathBuf {
    state_dir
        .join("agents")
        .join(agent_id)
        .join("agent")
        .join("openclaw-agent.sqlite")
}

impl AgentStore {
    /// The store of `agent` (normalised as OpenClaw does) under
    /// `state_dir`: its SQLite database when there is one, else its
    /// `sessions/` folder. `E_AGENT_NOT_FOUND` (naming the agents there
    /// are) when it has neither.
    pub fn open(state_dir: &Path, agent: &str) -> Result<AgentStore> {
        let agent_id = normalize_agent_id(agent);
        let db = sqlite_path(state_dir, &agent_id);
        if db.is_file() {
            return Ok(AgentStore::Sqlite(SqliteStore::new(
                &agent_id, state_dir, db,
            )));
        }
        let dir = state_dir.join("agents").join(&agent_id).join("sessions");
        if dir.is_dir() {
            return Ok(AgentStore::Jsonl(JsonlStore { agent_id, dir }));
        }
        let mut agents: Vec<String> = fs::read_dir(state_dir.join("agents"))
            .map(|rd| {
                rd.flatten()
                    .filter(|e| {
                        let p = e.path();
                        p.join("sessions").is_dir()
                            || p.join("agent").join("openclaw-agent.sqlite").is_file()
                    })
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        agents.sort();
        let hint = if agents.is_empty() {
            format!(
                "no agents with sessions under {}; pass --state-dir or set OPENCLAW_STATE_DIR",
                state_dir.display()
            )
        } else {
            format!("available agents: {}", agents.join(", "))
        };
        Err(Error::new(
            ErrorCode::AgentNotFound,
            format!(
                "agent {agent_id} has no sessions in {}",
                state_dir.display()
            ),
        )
        .with_hint(hint))
    }

    /// The normalised agent id.
    pub fn agent_id(&self) -> &str {
        match self {
            AgentStore::Jsonl(s) => &s.agent_id,
            AgentStore::Sqlite(s) => &s.agent_id,
        }
    }

    /// Which store this is.
    pub fn kind(&self) -> StoreKind {
        match self {
            AgentStore::Jsonl(_) => StoreKind::Jsonl,
            AgentStore::Sqlite(_) => StoreKind::Sqlite,
        }
    }

    /// Every session of the agent, most recent activity first.
    pub fn list(&self) -> Result<Vec<TranscriptSummary>> {
        let mut all = match self {
            AgentStore::Jsonl(s) => s.list()?,
            AgentStore::Sqlite(s) => s.list()?,
        };
        all.sort_by(|a, b| {
            b.modified
                .cmp(&a.modified)
                .then_with(|| a.session_id.cmp(&b.session_id))
        });
        Ok(all)
    }

    /// The session an id, key or unique prefix means (none: the most
    /// recent).
    pub fn resolve(&self, partial: Option<&str>) -> Result<TranscriptSummary> {
        resolve_in(self.list()?, self.agent_id(), partial)
    }

    /// A session's entries as JSONL.
    pub fn read(&self, t: &TranscriptSummary) -> Result<Events> {
        match self {
            AgentStore::Jsonl(s) => s.read(t),
            AgentStore::Sqlite(s) => s.read(t),
        }
    }

    /// Strips old tool calls from a session in place.
    pub fn edit(&self, req: &EditRequest) -> Result<EditOutcome> {
        let target = self.resolve(req.session.as_deref())?;
        match self {
            AgentStore::Jsonl(s) => s.edit(target, req),
            AgentStore::Sqlite(s) => s.edit(target, req),
        }
    }

    /// Restores a session from its newest backup.
    pub fn restore(
        &self,
        session: Option<&str>,
        lock: LockOptions,
        keep: usize,
    ) -> Result<RestoreOutcome> {
        let target = self.resolve(session)?;
        match self {
            AgentStore::Jsonl(s) => s.restore(target, lock, keep),
            AgentStore::Sqlite(s) => s.restore(target, keep),
        }
    }

    /// Copies a session under a new id.
    pub fn clone_session(&self, req: &CloneRequest) -> Result<CloneOutcome> {
        let source = self.resolve(req.session.as_deref())?;
        match self {
            AgentStore::Jsonl(s) => s.clone_session(source, req),
            AgentStore::Sqlite(s) => s.clone_session(source, req),
        }
    }

    /// A session as pi JSONL, written to `output` or returned.
    pub fn export(&self, session: Option<&str>, output: Option<&Path>) -> Result<ExportOutcome> {
        let target = self.resolve(session)?;
        match self {
            AgentStore::Jsonl(s) => {
                jsonl::export_events(&target.session_id, &s.read(&target)?, output)
            }
            AgentStore::Sqlite(s) => s.export(target, output),
        }
    }
}
