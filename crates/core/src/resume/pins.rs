//! Which Claude Code session a conversation resumes with an agent, and the
//! guards that decide whether it may (docs/api/resume.md; the guards follow
//! what other agent hosts, multica, Open Design and OpenClaw, learned).
//!
//! Storage: one JSON file per agent, `<stateDir>/agents/<agentId>/claude-code-resume.json`
//! (`{"pins": {conversationId: pin}, "epochs": {conversationId: n}}`), and one
//! list of retired session ids for every agent,
//! `<stateDir>/claude-code-retired-sessions.json`. Both are changed under
//! their lock files with atomic replaces, keep unknown fields, mode 0600.

use crate::claude_code::layout::session_files::find_transcript_in;
use crate::claude_code::records::registry::validate_agent_id;
use crate::error::{Error, ErrorCode, Result};
use crate::fs_safe::json_file::{json_number, object_at, read_json, update_json};
use crate::platform;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// A session to remember for a conversation and agent.
#[derive(Debug, Clone, Default)]
pub struct PinRequest {
    /// The host's conversation (chat thread); not empty.
    pub conversation_id: String,
    /// The agent running Claude Code for it.
    pub agent_id: String,
    /// The session to resume next time; empty pins nothing.
    pub session_id: String,
    /// The directory Claude Code ran in.
    pub work_dir: String,
    /// The host's id of the Claude Code runtime it ran.
    pub runtime_id: String,
    /// The conversation's history epoch the session was built on.
    pub history_epoch: u64,
    /// The model it ran with; `None`: any model may resume it.
    pub model: Option<String>,
}

/// What became of a pin request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinOutcome {
    /// Whether the pin was written.
    pub pinned: bool,
    /// `pinned`, `empty_session_id` (a good pin is never overwritten by
    /// nothing), `retired`, or `no_transcript` (the session has not persisted a
    /// turn yet, so `--resume` could not find it).
    pub reason: &'static str,
}

/// The facts of the turn about to run.
#[derive(Debug, Clone)]
pub struct DecisionRequest {
    /// The host's conversation (chat thread); not empty.
    pub conversation_id: String,
    /// The agent about to run Claude Code.
    pub agent_id: String,
    /// The directory it will run in (must be the pinned one on disk).
    pub work_dir: String,
    /// The runtime it will run (must equal the pinned one).
    pub runtime_id: String,
    /// The conversation's history epoch now.
    pub history_epoch: u64,
    /// The model it will run with (must equal a pinned model).
    pub model: Option<String>,
    /// Start fresh whatever the pin says.
    pub force_fresh: bool,
    /// The CLI can `--resume` at all.
    pub supports_resume: bool,
    /// The conversation has an assistant turn to continue.
    pub has_prior_assistant_turn: bool,
}

impl Default for DecisionRequest {
    /// No identities yet, and the optional facts as a caller that does not
    /// say means them: not forced fresh, the CLI can resume, and there is
    /// an assistant turn to continue.
    fn default() -> Self {
        DecisionRequest {
            conversation_id: String::new(),
            agent_id: String::new(),
            work_dir: String::new(),
            runtime_id: String::new(),
            history_epoch: 0,
            model: None,
            force_fresh: false,
            supports_resume: true,
            has_prior_assistant_turn: true,
        }
    }
}

/// Resume or not, as one decision: `--resume <id>` and skipping the
/// transcript always go together, so a caller cannot send neither.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeDecision {
    /// Whether this turn resumes the pinned session.
    pub resume: bool,
    /// The session to resume; absent when not resuming.
    pub session_id: Option<String>,
    /// `resume`, or the failed guard: `no_capability`, `force_fresh`,
    /// `no_prior_turn`, `no_pin`, `agent_switched`, `retired`, `epoch_changed`,
    /// `workdir_changed`, `runtime_changed`, `model_changed`,
    /// `transcript_gone`.
    pub reason: &'static str,
    /// `["--resume", sessionId]` when resuming, else `[]`: pass as is.
    pub cli_args: Vec<String>,
    /// Send only the new prompt (the session holds the rest). Always equal to
    /// `resume`.
    pub skip_transcript: bool,
}

impl ResumeDecision {
    fn fresh(reason: &'static str) -> Self {
        ResumeDecision {
            resume: false,
            session_id: None,
            reason,
            cli_args: Vec::new(),
            skip_transcript: false,
        }
    }

    fn resume(session_id: String) -> Self {
        ResumeDecision {
            resume: true,
            cli_args: vec!["--resume".into(), session_id.clone()],
            session_id: Some(session_id),
            reason: "resume",
            skip_transcript: true,
        }
    }
}

/// Pins, epochs and retired ids under one OpenClaw state dir.
#[derive(Debug, Clone)]
pub struct PinStore {
    state_dir: PathBuf,
    claude_dir: PathBuf,
}

fn require(value: &str, what: &str) -> Result<()> {
    if value.is_empty() {
        return Err(
            Error::new(ErrorCode::InvalidArgument, format!("{what} is empty"))
                .with_hint(format!("pass a non-empty {what}")),
        );
    }
    Ok(())
}

/// Whether two paths are the same directory on disk (inode, not spelling).
fn same_dir(a: &str, b: &str) -> bool {
    let (a, b) = (Path::new(a), Path::new(b));
    a.is_dir() && matches!((platform::path_id(a), platform::path_id(b)), (Ok(x), Ok(y)) if x == y)
}

impl PinStore {
    /// A store under `state_dir`, checking transcripts under `claude_dir`.
    pub fn new(state_dir: impl Into<PathBuf>, claude_dir: impl Into<PathBuf>) -> Self {
        PinStore {
            state_dir: state_dir.into(),
            claude_dir: claude_dir.into(),
        }
    }

    fn agent_file(&self, agent_id: &str) -> Result<PathBuf> {
        validate_agent_id(agent_id)?;
        Ok(self
            .state_dir
            .join("agents")
            .join(agent_id)
            .join("claude-code-resume.json"))
    }

    fn retired_file(&self) -> PathBuf {
        self.state_dir.join("claude-code-retired-sessions.json")
    }

    /// Whether `session_id` was retired.
    pub fn is_retired(&self, session_id: &str) -> bool {
        read_json(&self.retired_file())["retired"]
            .get(session_id)
            .is_some()
    }

    fn transcript_exists(&self, work_dir: &str, session_id: &str) -> bool {
        find_transcript_in(&self.claude_dir, Path::new(work_dir), session_id).is_some()
    }

    /// Records the session a conversation and agent should resume.
    pub fn pin(&self, req: &PinRequest, now: &str) -> Result<PinOutcome> {
        require(&req.conversation_id, "conversationId")?;
        let file = self.agent_file(&req.agent_id)?;
        let outcome = |pinned, reason| Ok(PinOutcome { pinned, reason });
        if req.session_id.is_empty() {
            return outcome(false, "empty_session_id");
        }
        if self.is_retired(&req.session_id) {
            return outcome(false, "retired");
        }
        if !self.transcript_exists(&req.work_dir, &req.session_id) {
            return outcome(false, "no_transcript");
        }
        update_json(&file, |doc| {
            let pins = object_at(doc, "pins");
            let mut pin = pins
                .get(&req.conversation_id)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            pin.insert("sessionId".into(), req.session_id.as_str().into());
            pin.insert("workDir".into(), req.work_dir.as_str().into());
            pin.insert("runtimeId".into(), req.runtime_id.as_str().into());
            pin.insert("historyEpoch".into(), json_number(req.history_epoch as f64));
            match &req.model {
                Some(m) => pin.insert("model".into(), m.as_str().into()),
                None => pin.remove("model"),
            };
            pin.insert("pinnedAt".into(), now.into());
            pins.insert(req.conversation_id.clone(), Value::Object(pin));
            (true, ())
        })?;
        outcome(true, "pinned")
    }

    /// The stored pin of a conversation and agent.
    fn pin_of(&self, conversation_id: &str, agent_id: &str) -> Result<Option<Map<String, Value>>> {
        let doc = read_json(&self.agent_file(agent_id)?);
        Ok(doc["pins"]
            .get(conversation_id)
            .and_then(Value::as_object)
            .cloned())
    }

    /// Whether another agent holds a pin for this conversation.
    fn pinned_by_other_agent(&self, conversation_id: &str, agent_id: &str) -> bool {
        let Ok(agents) = std::fs::read_dir(self.state_dir.join("agents")) else {
            return false;
        };
        agents.flatten().any(|a| {
            a.file_name() != agent_id
                && read_json(&a.path().join("claude-code-resume.json"))["pins"]
                    .get(conversation_id)
                    .is_some()
        })
    }

    /// Decides whether this turn resumes, from the stored pins and the
    /// filesystem only. Guards run cheapest first.
    pub fn decide(&self, req: &DecisionRequest) -> Result<ResumeDecision> {
        require(&req.conversation_id, "conversationId")?;
        validate_agent_id(&req.agent_id)?;
        if !req.supports_resume {
            return Ok(ResumeDecision::fresh("no_capability"));
        }
        if req.force_fresh {
            return Ok(ResumeDecision::fresh("force_fresh"));
        }
        if !req.has_prior_assistant_turn {
            return Ok(ResumeDecision::fresh("no_prior_turn"));
        }
        let Some(pin) = self.pin_of(&req.conversation_id, &req.agent_id)? else {
            let reason = if self.pinned_by_other_agent(&req.conversation_id, &req.agent_id) {
                "agent_switched"
            } else {
                "no_pin"
            };
            return Ok(ResumeDecision::fresh(reason));
        };
        let text = |k: &str| pin.get(k).and_then(Value::as_str).unwrap_or_default();
        let session_id = text("sessionId").to_owned();
        if session_id.is_empty() {
            return Ok(ResumeDecision::fresh("no_pin"));
        }
        if self.is_retired(&session_id) {
            return Ok(ResumeDecision::fresh("retired"));
        }
        // The live epoch is the caller's or the stored one, whichever is
        // newer: a bump through this store invalidates even a stale caller.
        let live = req
            .history_epoch
            .max(self.epoch(&req.conversation_id, &req.agent_id)?);
        if pin.get("historyEpoch").and_then(Value::as_f64) != Some(live as f64) {
            return Ok(ResumeDecision::fresh("epoch_changed"));
        }
        if !same_dir(text("workDir"), &req.work_dir) {
            return Ok(ResumeDecision::fresh("workdir_changed"));
        }
        if text("runtimeId") != req.runtime_id {
            return Ok(ResumeDecision::fresh("runtime_changed"));
        }
        let pinned_model = pin.get("model").and_then(Value::as_str);
        if let (Some(pinned), Some(now)) = (pinned_model, req.model.as_deref()) {
            if pinned != now {
                return Ok(ResumeDecision::fresh("model_changed"));
            }
        }
        if !self.transcript_exists(&req.work_dir, &session_id) {
            return Ok(ResumeDecision::fresh("transcript_gone"));
        }
        Ok(ResumeDecision::resume(session_id))
    }

    /// Bumps a conversation's history epoch for an agent (after an edit,
    /// truncation or retry of its history) and returns the new epoch.
    pub fn bump_epoch(&self, conversation_id: &str, agent_id: &str) -> Result<u64> {
        require(conversation_id, "conversationId")?;
        update_json(&self.agent_file(agent_id)?, |doc| {
            let epochs = object_at(doc, "epochs");
            let next = epochs
                .get(conversation_id)
                .and_then(Value::as_u64)
                .unwrap_or(0)
                + 1;
            epochs.insert(conversation_id.into(), next.into());
            (true, next)
        })
    }

    /// The current history epoch (0 when never bumped).
    pub fn epoch(&self, conversation_id: &str, agent_id: &str) -> Result<u64> {
        let doc = read_json(&self.agent_file(agent_id)?);
        Ok(doc["epochs"][conversation_id].as_u64().unwrap_or(0))
    }

    /// Clears the pin only if it still holds `expected_session_id`, so a slow
    /// failing run cannot clear a newer healthy pointer.
    pub fn clear(
        &self,
        conversation_id: &str,
        agent_id: &str,
        expected_session_id: &str,
    ) -> Result<bool> {
        require(conversation_id, "conversationId")?;
        update_json(&self.agent_file(agent_id)?, |doc| {
            let pins = object_at(doc, "pins");
            let holds = pins
                .get(conversation_id)
                .and_then(|p| p["sessionId"].as_str())
                == Some(expected_session_id);
            if holds {
                pins.shift_remove(conversation_id);
            }
            (holds, holds)
        })
    }

    /// Makes `session_id` unusable for every later decision of every agent.
    pub fn retire(&self, session_id: &str, reason: &str, now: &str) -> Result<()> {
        require(session_id, "sessionId")?;
        update_json(&self.retired_file(), |doc| {
            let mut record = Map::new();
            record.insert("reason".into(), reason.into());
            record.insert("at".into(), now.into());
            object_at(doc, "retired").insert(session_id.into(), Value::Object(record));
            (true, ())
        })
    }
}
