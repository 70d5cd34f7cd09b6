//! The OpenClaw registry of Claude Code sessions, `claude-code-sessions.json`.
//!
//! One file per agent at `<stateRoot>/agents/<agentId>/claude-code-sessions.json`
//! mapping `repoPath[::label]` to the session OpenClaw resumes there. The JSON
//! shape is the reference's (ISO strings, `triggeredBy`, 2-space indentation,
//! no trailing newline). Unlike the reference, every change is made under
//! `claude-code-sessions.json.lock` on a fresh read and written atomically, so
//! concurrent writers in several processes lose nothing, and fields this code
//! does not know are kept.

use crate::error::{Error, ErrorCode, Result};
use crate::fs_safe::json_file::{json_number, object_at, read_json, update_json};
use serde_json::{Map, Value};
use std::fs;
use std::path::PathBuf;

/// File name of a registry inside an agent's directory.
pub const REGISTRY_FILE: &str = "claude-code-sessions.json";

/// One task OpenClaw ran in a session.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskHistoryEntry {
    /// When the task was recorded (ISO-8601 string); `""` when the file has
    /// none.
    pub at: String,
    /// The task text as `saveSession` was given it.
    pub task: String,
    /// What the run cost in USD, as the caller reported it (0 when unknown).
    pub cost_usd: f64,
}

/// Who triggered the spawn that created a session.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TriggeredBy {
    /// The chat user who asked for it; absent when the caller did not say.
    pub user_id: Option<String>,
    /// The chat channel it came from; absent when the caller did not say.
    pub channel: Option<String>,
}

/// A registry entry, read leniently from whatever is on disk.
#[derive(Debug, Clone, PartialEq)]
pub struct RegistryEntry {
    /// The Claude Code session OpenClaw resumes under this key.
    pub session_id: String,
    /// When the entry was first saved (ISO-8601 string; `""` when missing).
    pub created_at: String,
    /// When the session was last saved or resumed (ISO-8601 string; `""` when
    /// missing).
    pub last_resumed_at: String,
    /// Cost in USD summed over the runs recorded (0 when missing).
    pub total_cost_usd: f64,
    /// Turns summed over the runs recorded (0 when missing).
    pub total_turns: f64,
    /// Who started the session; absent in entries written without it.
    pub triggered_by: Option<TriggeredBy>,
    /// The tasks run in the session, oldest first.
    pub task_history: Vec<TaskHistoryEntry>,
    /// The label of a labelled session (its key is `repoPath::label`); absent
    /// otherwise.
    pub label: Option<String>,
}

/// A registry entry with the agent and repository it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct RegistryRow {
    /// The agent whose registry holds the entry.
    pub agent_id: String,
    /// The repository part of the entry's key (before any `::label`).
    pub repo_path: String,
    /// The entry itself.
    pub entry: RegistryEntry,
}

/// What `saveSession` records besides the session id.
#[derive(Debug, Clone, Default)]
pub struct SaveMeta {
    /// The chat user who asked for the run (`triggeredBy.userId` of a new entry).
    pub user_id: Option<String>,
    /// The chat channel it came from (`triggeredBy.channel` of a new entry).
    pub channel: Option<String>,
    /// The task run: appended to `taskHistory` unless absent or empty.
    pub task: Option<String>,
    /// What the run cost in USD: added to `totalCostUsd` and recorded with the
    /// task. Absent or not finite: 0.
    pub cost_usd: Option<f64>,
    /// Saves under `repoPath::label` instead of `repoPath`.
    pub label: Option<String>,
}

/// The key of a session: the repository path, with `::label` for labelled
/// sessions (an empty label counts as none, as in the reference).
pub fn registry_key(repo_path: &str, label: Option<&str>) -> String {
    match label.filter(|l| !l.is_empty()) {
        Some(label) => format!("{repo_path}::{label}"),
        None => repo_path.to_owned(),
    }
}

/// Checks that an agent id names one directory (no separators, no `..`).
pub fn validate_agent_id(agent_id: &str) -> Result<()> {
    let ok = !agent_id.is_empty()
        && agent_id.len() <= 128
        && !agent_id.starts_with('.')
        && agent_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(())
    } else {
        Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("invalid agent id {agent_id:?}"),
        )
        .with_hint("agent ids use letters, digits, '.', '_' and '-' and do not start with '.'"))
    }
}

/// The registries of every agent under one OpenClaw state root.
#[derive(Debug, Clone)]
pub struct Registry {
    root: PathBuf,
}

impl Registry {
    /// Registries under `root` (the directory that holds `agents/`).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Registry { root: root.into() }
    }

    /// Path of one agent's registry file.
    pub fn path(&self, agent_id: &str) -> Result<PathBuf> {
        validate_agent_id(agent_id)?;
        Ok(self.root.join("agents").join(agent_id).join(REGISTRY_FILE))
    }

    /// Every entry of one agent, in file order (`listSessions`).
    pub fn list(&self, agent_id: &str) -> Result<Vec<(String, RegistryEntry)>> {
        let doc = read_json(&self.path(agent_id)?);
        Ok(sessions_of(&doc)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| RegistryEntry::from_value(v).map(|e| (k.clone(), e)))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Every entry of every agent (`listAllSessions`); unreadable parts are skipped.
    pub fn list_all(&self) -> Vec<RegistryRow> {
        let Ok(dirs) = fs::read_dir(self.root.join("agents")) else {
            return Vec::new();
        };
        let mut agents: Vec<String> = dirs
            .flatten()
            .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .collect();
        agents.sort();
        let mut rows = Vec::new();
        for agent_id in agents {
            for (key, entry) in self.list(&agent_id).unwrap_or_default() {
                let repo_path = key.split("::").next().unwrap_or(&key).to_owned();
                rows.push(RegistryRow {
                    agent_id: agent_id.clone(),
                    repo_path,
                    entry,
                });
            }
        }
        rows
    }

    /// The entry under `key`, if any.
    pub fn get(&self, agent_id: &str, key: &str) -> Result<Option<RegistryEntry>> {
        let doc = read_json(&self.path(agent_id)?);
        Ok(sessions_of(&doc)
            .and_then(|m| m.get(key))
            .and_then(RegistryEntry::from_value))
    }

    /// Records a session (`saveSession`): a resumed session gets its resume
    /// time, cost and task appended; any other id replaces the entry.
    pub fn save(
        &self,
        agent_id: &str,
        repo_path: &str,
        session_id: &str,
        meta: &SaveMeta,
        now: &str,
    ) -> Result<()> {
        let key = registry_key(repo_path, meta.label.as_deref());
        self.modify(agent_id, |sessions| {
            let cost = meta.cost_usd.filter(|c| c.is_finite());
            let task_record = meta.task.as_deref().filter(|t| !t.is_empty()).map(|task| {
                let mut t = Map::new();
                t.insert("at".into(), now.into());
                t.insert("task".into(), task.into());
                t.insert("costUsd".into(), json_number(cost.unwrap_or(0.0)));
                Value::Object(t)
            });
            let same = sessions
                .get(&key)
                .and_then(|e| e.get("sessionId"))
                .and_then(Value::as_str)
                == Some(session_id);
            if same {
                let entry = sessions.get_mut(&key).and_then(Value::as_object_mut);
                let Some(entry) = entry else {
                    return (false, ());
                };
                entry.insert("lastResumedAt".into(), now.into());
                if let Some(c) = cost.filter(|c| *c != 0.0) {
                    add_number(entry, "totalCostUsd", c);
                }
                if let Some(record) = task_record {
                    match entry.get_mut("taskHistory").and_then(Value::as_array_mut) {
                        Some(history) => history.push(record),
                        None => {
                            entry.insert("taskHistory".into(), Value::Array(vec![record]));
                        }
                    }
                }
            } else {
                let mut entry = Map::new();
                entry.insert("sessionId".into(), session_id.into());
                entry.insert("createdAt".into(), now.into());
                entry.insert("lastResumedAt".into(), now.into());
                entry.insert("totalCostUsd".into(), json_number(cost.unwrap_or(0.0)));
                entry.insert("totalTurns".into(), 0.into());
                let mut by = Map::new();
                if let Some(u) = &meta.user_id {
                    by.insert("userId".into(), u.as_str().into());
                }
                if let Some(c) = &meta.channel {
                    by.insert("channel".into(), c.as_str().into());
                }
                entry.insert("triggeredBy".into(), Value::Object(by));
                entry.insert(
                    "taskHistory".into(),
                    Value::Array(task_record.into_iter().collect()),
                );
                if let Some(label) = &meta.label {
                    entry.insert("label".into(), label.as_str().into());
                }
                sessions.insert(key.clone(), Value::Object(entry));
            }
            (true, ())
        })
    }

    /// Adds turns and cost to an entry (`updateSessionStats`); a missing
    /// entry is left alone.
    pub fn update_stats(
        &self,
        agent_id: &str,
        key: &str,
        turns: Option<f64>,
        cost_usd: Option<f64>,
    ) -> Result<()> {
        self.modify(agent_id, |sessions| {
            let Some(entry) = sessions.get_mut(key).and_then(Value::as_object_mut) else {
                return (false, ());
            };
            if let Some(t) = turns.filter(|t| *t != 0.0 && t.is_finite()) {
                add_number(entry, "totalTurns", t);
            }
            if let Some(c) = cost_usd.filter(|c| *c != 0.0 && c.is_finite()) {
                add_number(entry, "totalCostUsd", c);
            }
            (true, ())
        })
    }

    /// Removes an entry (`deleteSession`); `false` when there was none.
    pub fn delete(&self, agent_id: &str, key: &str) -> Result<bool> {
        self.modify(agent_id, |sessions| {
            let removed = sessions.shift_remove(key).is_some();
            (removed, removed)
        })
    }

    /// Read-modify-write of `sessions` under the registry's lock.
    /// `change` returns whether it changed anything and its result.
    fn modify<R>(
        &self,
        agent_id: &str,
        change: impl FnOnce(&mut Map<String, Value>) -> (bool, R),
    ) -> Result<R> {
        update_json(&self.path(agent_id)?, |doc| {
            change(object_at(doc, "sessions"))
        })
    }
}

fn sessions_of(doc: &Value) -> Option<&Map<String, Value>> {
    doc.get("sessions").and_then(Value::as_object)
}

fn add_number(entry: &mut Map<String, Value>, key: &str, delta: f64) {
    let current = entry.get(key).and_then(Value::as_f64).unwrap_or(0.0);
    entry.insert(key.into(), json_number(current + delta));
}

impl RegistryEntry {
    /// Reads an entry; `None` when it has no string `sessionId`.
    pub fn from_value(v: &Value) -> Option<RegistryEntry> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        let n = |k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        Some(RegistryEntry {
            session_id: s("sessionId")?,
            created_at: s("createdAt").unwrap_or_default(),
            last_resumed_at: s("lastResumedAt").unwrap_or_default(),
            total_cost_usd: n("totalCostUsd"),
            total_turns: n("totalTurns"),
            triggered_by: v
                .get("triggeredBy")
                .and_then(Value::as_object)
                .map(|t| TriggeredBy {
                    user_id: t.get("userId").and_then(Value::as_str).map(str::to_owned),
                    channel: t.get("channel").and_then(Value::as_str).map(str::to_owned),
                }),
            task_history: v
                .get("taskHistory")
                .and_then(Value::as_array)
                .map(|h| {
                    h.iter()
                        .map(|t| TaskHistoryEntry {
                            at: t
                                .get("at")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_owned(),
                            task: t
                                .get("task")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_owned(),
                            cost_usd: t.get("costUsd").and_then(Value::as_f64).unwrap_or(0.0),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            label: s("label"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-02-20T10:00:00.000Z";
    const LATER: &str = "2026-02-20T11:00:00.000Z";

    #[test]
    fn save_update_delete_follow_the_reference_rules() {
        let dir = tempfile::tempdir().unwrap();
        let reg = Registry::new(dir.path());
        let meta = SaveMeta {
            task: Some("fix X".into()),
            cost_usd: Some(0.42),
            ..SaveMeta::default()
        };
        reg.save("main", "/home/u/repo", "s1", &meta, NOW).unwrap();
        let text = fs::read_to_string(reg.path("main").unwrap()).unwrap();
        assert_eq!(
            text,
            "{\n  \"sessions\": {\n    \"/home/u/repo\": {\n      \"sessionId\": \"s1\",\n      \"createdAt\": \"2026-02-20T10:00:00.000Z\",\n      \"lastResumedAt\": \"2026-02-20T10:00:00.000Z\",\n      \"totalCostUsd\": 0.42,\n      \"totalTurns\": 0,\n      \"triggeredBy\": {},\n      \"taskHistory\": [\n        {\n          \"at\": \"2026-02-20T10:00:00.000Z\",\n          \"task\": \"fix X\",\n          \"costUsd\": 0.42\n        }\n      ]\n    }\n  }\n}"
        );
        // Resuming the same id appends; turns unchanged.
        reg.save(
            "main",
            "/home/u/repo",
            "s1",
            &SaveMeta {
                task: Some("more".into()),
                cost_usd: Some(1.0),
                ..SaveMeta::default()
            },
            LATER,
        )
        .unwrap();
        reg.update_stats("main", "/home/u/repo", Some(3.0), Some(0.5))
            .unwrap();
        let e = reg.get("main", "/home/u/repo").unwrap().unwrap();
        assert_eq!(e.last_resumed_at, LATER);
        assert_eq!(e.total_turns, 3.0);
        assert!((e.total_cost_usd - 1.92).abs() < 1e-9);
        assert_eq!(e.task_history.len(), 2);
        // Another id replaces the entry.
        reg.save("main", "/home/u/repo", "s2", &SaveMeta::default(), LATER)
            .unwrap();
        assert_eq!(
            reg.get("main", "/home/u/repo")
                .unwrap()
                .unwrap()
                .total_turns,
            0.0
        );
        assert!(reg.delete("main", "/home/u/repo").unwrap());
        assert!(!reg.delete("main", "/home/u/repo").unwrap());
    }

    #[test]
    fn unknown_fields_and_key_order_survive_and_labels_make_keys() {
        let dir = tempfile::tempdir().unwrap();
        let reg = Registry::new(dir.path());
        let path = reg.path("ops").unwrap();
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, r#"{"version":7,"sessions":{"/r::dash":{"zeta":1,"sessionId":"a","totalTurns":1,"extra":{"k":[1]}}}}"#).unwrap();
        reg.update_stats("ops", &registry_key("/r", Some("dash")), Some(1.0), None)
            .unwrap();
        let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["version"], 7);
        let entry = v["sessions"]["/r::dash"].as_object().unwrap();
        assert_eq!(
            entry.keys().collect::<Vec<_>>(),
            ["zeta", "sessionId", "totalTurns", "extra"]
        );
        assert_eq!(entry["totalTurns"], 2);
        let rows = reg.list_all();
        assert_eq!(rows[0].repo_path, "/r");
        assert_eq!(rows[0].agent_id, "ops");
        assert_eq!(registry_key("/r", Some("")), "/r");
    }

    #[test]
    fn corrupt_registries_are_kept_aside_not_lost() {
        let dir = tempfile::tempdir().unwrap();
        let reg = Registry::new(dir.path());
        let path = reg.path("main").unwrap();
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, "{not json").unwrap();
        assert!(reg.list("main").unwrap().is_empty());
        reg.save("main", "/r", "s", &SaveMeta::default(), NOW)
            .unwrap();
        let copies = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains(".corrupt-"))
            .count();
        assert_eq!(copies, 1);
    }

    #[test]
    fn agent_ids_cannot_escape_the_agents_directory() {
        for bad in ["", "..", "../x", "a/b", ".hidden", "a\\b"] {
            assert_eq!(
                validate_agent_id(bad).unwrap_err().code,
                ErrorCode::InvalidArgument
            );
        }
        validate_agent_id("main").unwrap();
        validate_agent_id("ops_1.x-2").unwrap();
    }
}
