//! The record of every Claude Code spawn the plugin's pre-flight let
//! through, `claude-code-spawns.json`.
//!
//! One file per requesting agent at
//! `<stateRoot>/agents/<agentId>/claude-code-spawns.json`, holding
//! `{"spawns": {"<nonce>": {…}}}`: the spawn's nonce (the `spawn=` pair of
//! the origin marker its first message carries) maps to what is known of
//! it. OpenClaw forgets which Claude Code session a finished spawn made
//! about a minute after it ends; this record keeps it, so that discovery
//! still lists that session as OpenClaw's, with its task and label. Every
//! change is a fresh read under the file's lock and an atomic replace
//! (see [`crate::fs_safe::json_file`]); fields this code does not know are
//! kept.

use super::registry::{validate_agent_id, RegistryEntry, RegistryRow, TaskHistoryEntry};
use crate::error::{Error, ErrorCode, Result};
use crate::fs_safe::json_file::{object_at, read_json, update_json};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fs;
use std::path::PathBuf;

/// File name of the spawn record inside an agent's directory.
pub const SPAWN_RECORD_FILE: &str = "claude-code-spawns.json";

/// At most this many spawns are kept per agent; the oldest go first.
pub const MAX_SPAWNS_PER_AGENT: usize = 2000;

/// What is known of one spawn. Every field but the nonce may be absent
/// while the spawn is young (the Claude session id is learned after it
/// started) or when the host never said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpawnRecord {
    /// The spawn's nonce, unique per spawn (`PreflightResult.nonce`, the
    /// `spawn=` marker pair).
    pub nonce: String,
    /// The Claude Code session id (the transcript's file name), once known.
    pub claude_session_id: Option<String>,
    /// OpenClaw's key of the ACP child session (`agent:claude:acp:<uuid>`).
    pub child_session_key: Option<String>,
    /// The session key of the agent that called `sessions_spawn`.
    pub requester_session_key: Option<String>,
    /// The agent that called `sessions_spawn` (the file's agent).
    pub agent_id: Option<String>,
    /// The task as the model gave it (without the briefing).
    pub task: Option<String>,
    /// The spawn's `label`.
    pub label: Option<String>,
    /// The `cwd` Claude Code was started in.
    pub cwd: Option<String>,
    /// The repository root of `cwd` (the work tree root, else `cwd`).
    pub repo_path: Option<String>,
    /// `"run"` or `"session"`, as the spawn asked.
    pub mode: Option<String>,
    /// The spawn resumed this session (its `resumeSessionId`).
    pub resumed: Option<bool>,
    /// What the pre-flight decided (`"brief"`, `"resume"`, `"pass"`), or
    /// `"failed"` or `"overrun"` when it did not finish and the spawn went
    /// ahead with its origin marker only.
    pub decision: Option<String>,
    /// When the spawn was let through (ISO-8601).
    pub started_at: Option<String>,
    /// When the host reported it ended (ISO-8601).
    pub ended_at: Option<String>,
    /// How it ended: the host's outcome (`"ok"`, `"error"`, `"timeout"`,
    /// `"killed"`), or `"rejected"` when the host refused the spawn.
    pub outcome: Option<String>,
    /// The full id of the repository's `HEAD` commit when the spawn was let
    /// through (`PreflightResult.baseCommit`): its commits are those after it.
    pub base_commit: Option<String>,
    /// The git worktree the spawn was isolated into (its root).
    pub worktree_path: Option<String>,
    /// That worktree's branch.
    pub worktree_branch: Option<String>,
    /// That worktree was removed when the spawn finished (it held nothing).
    pub worktree_removed: Option<bool>,
    /// The spawn's last known state (`starting`, `running`, `waiting`,
    /// `ended`, `failed`), as the host last saw it.
    pub final_state: Option<String>,
}

/// The JSON key of each optional string field, with its accessor.
type StrField = (&'static str, fn(&SpawnRecord) -> &Option<String>);
const STRING_FIELDS: [StrField; 17] = [
    ("claudeSessionId", |r| &r.claude_session_id),
    ("childSessionKey", |r| &r.child_session_key),
    ("requesterSessionKey", |r| &r.requester_session_key),
    ("agentId", |r| &r.agent_id),
    ("task", |r| &r.task),
    ("label", |r| &r.label),
    ("cwd", |r| &r.cwd),
    ("repoPath", |r| &r.repo_path),
    ("mode", |r| &r.mode),
    ("decision", |r| &r.decision),
    ("startedAt", |r| &r.started_at),
    ("endedAt", |r| &r.ended_at),
    ("outcome", |r| &r.outcome),
    ("baseCommit", |r| &r.base_commit),
    ("worktreePath", |r| &r.worktree_path),
    ("worktreeBranch", |r| &r.worktree_branch),
    ("finalState", |r| &r.final_state),
];

impl SpawnRecord {
    /// Reads a record stored under `nonce`, leniently.
    pub fn from_value(nonce: &str, v: &Value) -> SpawnRecord {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        SpawnRecord {
            nonce: nonce.to_owned(),
            claude_session_id: s("claudeSessionId"),
            child_session_key: s("childSessionKey"),
            requester_session_key: s("requesterSessionKey"),
            agent_id: s("agentId"),
            task: s("task"),
            label: s("label"),
            cwd: s("cwd"),
            repo_path: s("repoPath"),
            mode: s("mode"),
            resumed: v.get("resumed").and_then(Value::as_bool),
            decision: s("decision"),
            started_at: s("startedAt"),
            ended_at: s("endedAt"),
            outcome: s("outcome"),
            base_commit: s("baseCommit"),
            worktree_path: s("worktreePath"),
            worktree_branch: s("worktreeBranch"),
            worktree_removed: v.get("worktreeRemoved").and_then(Value::as_bool),
            final_state: s("finalState"),
        }
    }

    /// Writes every field this record has into `entry`, keeping the rest.
    fn merge_into(&self, entry: &mut Map<String, Value>) {
        for (key, get) in STRING_FIELDS {
            if let Some(v) = get(self) {
                entry.insert(key.into(), v.as_str().into());
            }
        }
        if let Some(b) = self.resumed {
            entry.insert("resumed".into(), b.into());
        }
        if let Some(b) = self.worktree_removed {
            entry.insert("worktreeRemoved".into(), b.into());
        }
    }
}

/// The spawn records of every agent under one OpenClaw state root.
#[derive(Debug, Clone)]
pub struct SpawnLog {
    root: PathBuf,
}

impl SpawnLog {
    /// Records under `root` (the directory that holds `agents/`).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        SpawnLog { root: root.into() }
    }

    /// Path of one agent's record file.
    pub fn path(&self, agent_id: &str) -> Result<PathBuf> {
        validate_agent_id(agent_id)?;
        Ok(self
            .root
            .join("agents")
            .join(agent_id)
            .join(SPAWN_RECORD_FILE))
    }

    /// Adds or completes the record of `record.nonce` for `agent_id`: the
    /// fields `record` has replace those on disk, the others stay. Returns
    /// the record as stored afterwards.
    pub fn update(&self, agent_id: &str, record: &SpawnRecord) -> Result<SpawnRecord> {
        if record.nonce.is_empty() || record.nonce.len() > 128 {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "a spawn record needs a nonce of 1 to 128 characters",
            )
            .with_hint("pass the nonce the pre-flight returned"));
        }
        update_json(&self.path(agent_id)?, |doc| {
            let spawns = object_at(doc, "spawns");
            let entry = match spawns.get_mut(&record.nonce) {
                Some(Value::Object(m)) => m,
                _ => {
                    spawns.insert(record.nonce.clone(), Value::Object(Map::new()));
                    spawns
                        .get_mut(&record.nonce)
                        .and_then(Value::as_object_mut)
                        .expect("just inserted")
                }
            };
            record.merge_into(entry);
            let stored = SpawnRecord::from_value(&record.nonce, &Value::Object(entry.clone()));
            trim_oldest(spawns);
            (true, stored)
        })
    }

    /// Every record of one agent, in file order (oldest first).
    pub fn list(&self, agent_id: &str) -> Result<Vec<SpawnRecord>> {
        let doc = read_json(&self.path(agent_id)?);
        Ok(doc
            .get("spawns")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| SpawnRecord::from_value(k, v))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Every record of every agent, each with its agent id; unreadable
    /// parts are skipped.
    pub fn list_all(&self) -> Vec<(String, SpawnRecord)> {
        let Ok(dirs) = fs::read_dir(self.root.join("agents")) else {
            return Vec::new();
        };
        let mut agents: Vec<String> = dirs
            .flatten()
            .filter(|e| e.path().join(SPAWN_RECORD_FILE).is_file())
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .collect();
        agents.sort();
        agents
            .into_iter()
            .flat_map(|agent| {
                self.list(&agent)
                    .unwrap_or_default()
                    .into_iter()
                    .map(move |r| (agent.clone(), r))
            })
            .collect()
    }

    /// The sessions these records attribute to OpenClaw, as registry rows,
    /// for the repositories `keep` accepts: by Claude session id (one row
    /// per agent and session, its spawns' tasks in order) and, for spawns
    /// whose session was never learned, by nonce (the session is the one
    /// whose first prompt carries `spawn=<nonce>`; its row's session id is
    /// empty).
    pub fn registry_rows(&self, keep: impl Fn(&str) -> bool) -> SpawnRows {
        let mut rows = SpawnRows::default();
        let mut index: HashMap<(String, String), usize> = HashMap::new();
        for (agent_id, r) in self.list_all() {
            let Some(repo) = r.repo_path.as_ref().or(r.cwd.as_ref()) else {
                continue;
            };
            if !keep(repo) {
                continue;
            }
            let at = r.started_at.clone().unwrap_or_default();
            let task = r
                .task
                .clone()
                .filter(|t| !t.is_empty())
                .map(|task| TaskHistoryEntry {
                    at: at.clone(),
                    task,
                    cost_usd: 0.0,
                });
            let label = r.label.clone().filter(|l| !l.is_empty());
            let row = |session_id: String| RegistryRow {
                agent_id: agent_id.clone(),
                repo_path: repo.clone(),
                entry: RegistryEntry {
                    session_id,
                    created_at: at.clone(),
                    last_resumed_at: at.clone(),
                    total_cost_usd: 0.0,
                    total_turns: 0.0,
                    triggered_by: None,
                    task_history: task.clone().into_iter().collect(),
                    label: label.clone(),
                },
            };
            let Some(id) = &r.claude_session_id else {
                rows.by_nonce.push((r.nonce.clone(), row(String::new())));
                continue;
            };
            match index.get(&(agent_id.clone(), id.clone())) {
                Some(&i) => {
                    let e = &mut rows.learned[i].entry;
                    e.last_resumed_at = at;
                    e.task_history.extend(task);
                    if label.is_some() {
                        e.label = label;
                    }
                }
                None => {
                    index.insert((agent_id.clone(), id.clone()), rows.learned.len());
                    rows.learned.push(row(id.clone()));
                }
            }
        }
        rows
    }
}

/// What the spawn records say of a repository's sessions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpawnRows {
    /// Rows of the sessions whose Claude session id the records know.
    pub learned: Vec<RegistryRow>,
    /// Rows of spawns whose session id was never learned, by the spawn's
    /// nonce (the session whose first prompt's origin marker carries it).
    pub by_nonce: Vec<(String, RegistryRow)>,
}

/// Drops the oldest spawns (by start time) past [`MAX_SPAWNS_PER_AGENT`].
fn trim_oldest(spawns: &mut Map<String, Value>) {
    if spawns.len() <= MAX_SPAWNS_PER_AGENT {
        return;
    }
    let mut by_age: Vec<(String, String)> = spawns
        .iter()
        .map(|(k, v)| {
            let at = v.get("startedAt").and_then(Value::as_str).unwrap_or("");
            (at.to_owned(), k.clone())
        })
        .collect();
    by_age.sort();
    let excess = spawns.len() - MAX_SPAWNS_PER_AGENT;
    for (_, key) in by_age.into_iter().take(excess) {
        spawns.shift_remove(&key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(nonce: &str) -> SpawnRecord {
        SpawnRecord {
            nonce: nonce.into(),
            ..SpawnRecord::default()
        }
    }

    #[test]
    fn updates_complete_a_record_and_keep_unknown_fields() {
        let dir = tempfile::tempdir().unwrap();
        let log = SpawnLog::new(dir.path());
        log.update(
            "main",
            &SpawnRecord {
                task: Some("Fix the cart".into()),
                cwd: Some("/r/sub".into()),
                repo_path: Some("/r".into()),
                started_at: Some("2026-11-27T08:00:00.000Z".into()),
                ..record("n1")
            },
        )
        .unwrap();
        let path = log.path("main").unwrap();
        let mut v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        v["spawns"]["n1"]["future"] = 7.into();
        fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
        let stored = log
            .update(
                "main",
                &SpawnRecord {
                    claude_session_id: Some("11111111-2222-3333-4444-555555555555".into()),
                    outcome: Some("ok".into()),
                    base_commit: Some("0123abcd".into()),
                    worktree_path: Some("/r/.claude/worktrees/spawn-n1".into()),
                    worktree_branch: Some("worktree-spawn-n1".into()),
                    worktree_removed: Some(false),
                    final_state: Some("ended".into()),
                    ..record("n1")
                },
            )
            .unwrap();
        assert_eq!(stored.task.as_deref(), Some("Fix the cart"));
        assert_eq!(stored.outcome.as_deref(), Some("ok"));
        assert_eq!(stored.base_commit.as_deref(), Some("0123abcd"));
        assert_eq!(stored.worktree_branch.as_deref(), Some("worktree-spawn-n1"));
        assert_eq!(stored.worktree_removed, Some(false));
        assert_eq!(stored.final_state.as_deref(), Some("ended"));
        let again = log
            .update(
                "main",
                &SpawnRecord {
                    worktree_removed: Some(true),
                    ..record("n1")
                },
            )
            .unwrap();
        assert_eq!(again.worktree_removed, Some(true));
        assert_eq!(again.worktree_path, stored.worktree_path);
        let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["spawns"]["n1"]["future"], 7);
        assert_eq!(log.list_all().len(), 1);
        assert!(log.update("main", &record("")).is_err());
        assert!(log.update("../x", &record("n")).is_err());
    }

    #[test]
    fn rows_group_spawns_of_one_session_and_keep_unknown_ids_by_nonce() {
        let dir = tempfile::tempdir().unwrap();
        let log = SpawnLog::new(dir.path());
        let id = "11111111-2222-3333-4444-555555555555";
        for (nonce, task, at) in [
            ("a", "first task", "2026-11-27T08:00:00.000Z"),
            ("b", "second task", "2026-11-27T09:00:00.000Z"),
        ] {
            log.update(
                "main",
                &SpawnRecord {
                    claude_session_id: Some(id.into()),
                    task: Some(task.into()),
                    repo_path: Some("/r".into()),
                    label: Some("cart".into()),
                    started_at: Some(at.into()),
                    ..record(nonce)
                },
            )
            .unwrap();
        }
        log.update(
            "main",
            &SpawnRecord {
                repo_path: Some("/r".into()),
                ..record("no-id-yet")
            },
        )
        .unwrap();
        let SpawnRows { learned, by_nonce } = log.registry_rows(|repo| repo == "/r");
        assert_eq!(learned.len(), 1);
        assert_eq!(by_nonce.len(), 1);
        assert_eq!(by_nonce[0].0, "no-id-yet");
        assert_eq!(by_nonce[0].1.entry.session_id, "");
        let rows = learned;
        let e = &rows[0].entry;
        assert_eq!(e.session_id, id);
        assert_eq!(e.created_at, "2026-11-27T08:00:00.000Z");
        assert_eq!(e.last_resumed_at, "2026-11-27T09:00:00.000Z");
        assert_eq!(e.task_history.len(), 2);
        assert_eq!(e.label.as_deref(), Some("cart"));
        assert_eq!(
            log.registry_rows(|repo| repo == "/other"),
            SpawnRows::default()
        );
    }
}
