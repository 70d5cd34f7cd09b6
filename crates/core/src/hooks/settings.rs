//! The hook registry (docs/api/hooks.md): global `hook_settings`, per-agent overrides,
//! strict validation with JSON paths, and the field-by-field merge
//! per-agent > global > built-in defaults.

use crate::{Error, ErrorCode, Result};
use serde_json::{Map, Value};

/// How a hook talks to the OpenClaw agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookMode {
    /// Fire and forget: the hook wakes the agent and returns at once.
    Async,
    /// The hook waits for the agent's answer and hands it back to Claude Code.
    Bidirectional,
}

impl HookMode {
    /// The registry spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            HookMode::Async => "async",
            HookMode::Bidirectional => "bidirectional",
        }
    }
}

/// The resolved settings of one agent's hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookSettings {
    /// Terminal lines captured into a wake message (1–2000, default 120).
    pub pane_capture_lines: u32,
    /// Context percentage from which pressure is reported as `WARNING`
    /// (1–100, default 70).
    pub context_pressure_threshold: u32,
    /// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` for the agent's Claude Code (1–100).
    /// Absent: Claude Code's own auto-compact point.
    pub autocompact_pct: Option<u32>,
    /// `async` (default): the hook wakes the agent and returns at once;
    /// `bidirectional`: it waits for the agent's answer and hands it back to
    /// Claude Code.
    pub hook_mode: HookMode,
}

impl Default for HookSettings {
    fn default() -> Self {
        HookSettings {
            pane_capture_lines: 120,
            context_pressure_threshold: 70,
            autocompact_pct: None,
            hook_mode: HookMode::Async,
        }
    }
}

/// One problem of a registry: where (a JSON path such as
/// `$.agents[1].hook_settings.hook_mode`) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryProblem {
    /// JSON path, e.g. `$.agents[1].hook_settings.hook_mode`.
    pub path: String,
    /// What is wrong there, in a sentence.
    pub message: String,
}

const AGENT_KEYS: [&str; 4] = [
    "agent_id",
    "tmux_session_name",
    "system_prompt",
    "hook_settings",
];
const SETTING_KEYS: [&str; 4] = [
    "pane_capture_lines",
    "context_pressure_threshold",
    "autocompact_pct",
    "hook_mode",
];

/// Every problem of `registry`: unknown keys, wrong types, out-of-range
/// values, missing or duplicate agent ids. Empty when the registry is valid.
pub fn validate_hook_registry(registry: &Value) -> Vec<RegistryProblem> {
    let mut problems = Vec::new();
    let mut report =
        |path: String, message: String| problems.push(RegistryProblem { path, message });
    let Some(root) = registry.as_object() else {
        report("$".into(), "the registry must be a JSON object".into());
        return problems;
    };
    for key in root
        .keys()
        .filter(|k| !matches!(k.as_str(), "hook_settings" | "agents"))
    {
        report(
            format!("$.{key}"),
            "unknown key (known: hook_settings, agents)".into(),
        );
    }
    if let Some(settings) = root.get("hook_settings") {
        check_settings(settings, "$.hook_settings", &mut report);
    }
    let agents = match root.get("agents") {
        None => return problems,
        Some(Value::Array(agents)) => agents,
        Some(_) => {
            report("$.agents".into(), "must be an array".into());
            return problems;
        }
    };
    let mut seen: Vec<&str> = Vec::new();
    for (i, agent) in agents.iter().enumerate() {
        let at = format!("$.agents[{i}]");
        let Some(agent) = agent.as_object() else {
            report(at, "must be an object".into());
            continue;
        };
        for key in agent.keys().filter(|k| !AGENT_KEYS.contains(&k.as_str())) {
            report(
                format!("{at}.{key}"),
                format!("unknown key (known: {})", AGENT_KEYS.join(", ")),
            );
        }
        for key in ["agent_id", "tmux_session_name"] {
            match agent.get(key) {
                Some(Value::String(s)) if !s.trim().is_empty() => {}
                Some(_) => report(format!("{at}.{key}"), "must be a non-empty string".into()),
                None => report(format!("{at}.{key}"), "is required".into()),
            }
        }
        if let Some(id) = agent.get("agent_id").and_then(Value::as_str) {
            if seen.contains(&id) {
                report(
                    format!("{at}.agent_id"),
                    format!("duplicate agent id \"{id}\""),
                );
            }
            seen.push(id);
        }
        if agent.get("system_prompt").is_some_and(|p| !p.is_string()) {
            report(format!("{at}.system_prompt"), "must be a string".into());
        }
        if let Some(settings) = agent.get("hook_settings") {
            check_settings(settings, &format!("{at}.hook_settings"), &mut report);
        }
    }
    problems
}

fn check_settings(settings: &Value, at: &str, report: &mut impl FnMut(String, String)) {
    let Some(settings) = settings.as_object() else {
        report(at.into(), "must be an object".into());
        return;
    };
    for (key, value) in settings {
        let path = format!("{at}.{key}");
        let range = match key.as_str() {
            "pane_capture_lines" => 1..=2000,
            "context_pressure_threshold" | "autocompact_pct" => 1..=100,
            "hook_mode" => {
                if !matches!(value.as_str(), Some("async" | "bidirectional")) {
                    report(path, "must be \"async\" or \"bidirectional\"".into());
                }
                continue;
            }
            _ => {
                report(
                    path,
                    format!("unknown key (known: {})", SETTING_KEYS.join(", ")),
                );
                continue;
            }
        };
        match value.as_u64() {
            Some(n) if range.contains(&n) => {}
            Some(n) => report(
                path,
                format!("{n} is out of range {}–{}", range.start(), range.end()),
            ),
            None => report(
                path,
                format!(
                    "must be a whole number from {} to {}",
                    range.start(),
                    range.end()
                ),
            ),
        }
    }
}

/// The settings of `agent_id`: each field from the agent's `hook_settings`,
/// else the global ones, else the built-in default. Fails with
/// `E_INVALID_ARGUMENT` (listing the problems) on an invalid registry and
/// `E_AGENT_NOT_FOUND` when the agent is not in it.
pub fn resolve_hook_settings(registry: &Value, agent_id: &str) -> Result<HookSettings> {
    let problems = validate_hook_registry(registry);
    if !problems.is_empty() {
        let list: Vec<String> = problems
            .iter()
            .map(|p| format!("{}: {}", p.path, p.message))
            .collect();
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("invalid hook registry: {}", list.join("; ")),
        )
        .with_hint("fix the registry; validateHookRegistry lists every problem"));
    }
    let agents = registry
        .get("agents")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let agent = agents
        .iter()
        .find(|a| a.get("agent_id").and_then(Value::as_str) == Some(agent_id))
        .ok_or_else(|| {
            let known: Vec<&str> = agents
                .iter()
                .filter_map(|a| a.get("agent_id").and_then(Value::as_str))
                .collect();
            Error::new(
                ErrorCode::AgentNotFound,
                format!("agent \"{agent_id}\" is not in the hook registry"),
            )
            .with_hint(if known.is_empty() {
                "the registry lists no agents".to_string()
            } else {
                format!("registered agents: {}", known.join(", "))
            })
        })?;
    let empty = Map::new();
    let layers = [
        agent
            .get("hook_settings")
            .and_then(Value::as_object)
            .unwrap_or(&empty),
        registry
            .get("hook_settings")
            .and_then(Value::as_object)
            .unwrap_or(&empty),
    ];
    let field = |key: &str| layers.iter().find_map(|l| l.get(key));
    let number = |key: &str| field(key).and_then(Value::as_u64).map(|n| n as u32);
    let defaults = HookSettings::default();
    Ok(HookSettings {
        pane_capture_lines: number("pane_capture_lines").unwrap_or(defaults.pane_capture_lines),
        context_pressure_threshold: number("context_pressure_threshold")
            .unwrap_or(defaults.context_pressure_threshold),
        autocompact_pct: number("autocompact_pct").or(defaults.autocompact_pct),
        hook_mode: match field("hook_mode").and_then(Value::as_str) {
            Some("bidirectional") => HookMode::Bidirectional,
            Some(_) => HookMode::Async,
            None => defaults.hook_mode,
        },
    })
}
