//! Hook helpers: context pressure on the real Claude Code fixtures and on
//! generated transcripts (tail windows, partial and synthetic last lines);
//! the hook registry's validation paths and field-by-field merge.

use serde_json::json;
use session_intel_core::claude_code::fold::transcript::TranscriptFacts;
use session_intel_core::hooks::pressure::{context_pressure, PressureLevel};
use session_intel_core::hooks::settings::{
    resolve_hook_settings, validate_hook_registry, HookMode, HookSettings,
};
use session_intel_core::ErrorCode;
use std::fs;
use std::path::{Path, PathBuf};

fn fixture_transcripts() -> Vec<PathBuf> {
    let root =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/shared/claude-code/projects");
    let mut files = Vec::new();
    for project in fs::read_dir(root).unwrap().flatten() {
        for f in fs::read_dir(project.path()).unwrap().flatten() {
            if f.path().extension().is_some_and(|e| e == "jsonl") {
                files.push(f.path());
            }
        }
    }
    files
}

fn assistant(id: &str, input: u64, cache_read: u64, extra: &str) -> String {
    format!(
        r#"{{"type":"assistant"{extra},"message":{{"id":"{id}","model":"claude-opus-4-6","role":"assistant","content":[{{"type":"text","text":"ok"}}],"usage":{{"input_tokens":{input},"cache_creation_input_tokens":0,"cache_read_input_tokens":{cache_read},"output_tokens":9}}}},"requestId":"r_{id}"}}"#
    )
}

#[test]
fn pressure_reads_the_tail_and_agrees_with_a_full_read_on_every_fixture() {
    let files = fixture_transcripts();
    assert!(files.len() >= 3);
    for file in files {
        let mut full = TranscriptFacts::default();
        let bytes = fs::read(&file).unwrap();
        let used = full.feed(&bytes);
        let expected = full
            .with_partial_line(&bytes[used..])
            .context_tokens
            .unwrap_or(0);
        let p = context_pressure(&file, None, None).unwrap();
        assert_eq!(p.tokens, expected, "{}", file.display());
        assert_eq!(p.percent as u64, (expected * 100 + 100_000) / 200_000);
        assert_eq!(
            p.line,
            format!("context: {}% [{}]", p.percent, p.level.as_str())
        );
    }
}

#[test]
fn pressure_grows_its_window_past_long_tails_and_skips_sidechains_and_synthetic_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let mut text = assistant("m1", 4_000, 140_000, "") + "\n";
    // 3 MB of lines without usage after the last response: several windows.
    let filler = format!(
        r#"{{"type":"user","message":{{"role":"user","content":"{}"}}}}"#,
        "x".repeat(4000)
    );
    for _ in 0..750 {
        text.push_str(&filler);
        text.push('\n');
    }
    text.push_str(&assistant("m2", 1, 1, r#","isSidechain":true"#));
    text.push('\n');
    text.push_str(r#"{"type":"assistant","message":{"id":"m3","model":"<synthetic>","content":[{"type":"text","text":"Prompt is too long"}],"usage":{"input_tokens":0,"output_tokens":0}}}"#);
    text.push('\n');
    fs::write(&path, &text).unwrap();
    let p = context_pressure(&path, None, None).unwrap();
    assert_eq!(
        (p.tokens, p.percent, p.level),
        (144_000, 72, PressureLevel::Warning)
    );
    assert_eq!(p.line, "context: 72% [WARNING]");

    // An unterminated last line (Claude Code mid-write) still counts.
    let mut partial = text.clone();
    partial.push_str(&assistant("m4", 90_000, 100_000, ""));
    fs::write(&path, &partial).unwrap();
    let p = context_pressure(&path, None, Some(80)).unwrap();
    assert_eq!((p.percent, p.level), (95, PressureLevel::Critical));
    let wide = context_pressure(&path, Some(1_000_000), Some(80)).unwrap();
    assert_eq!(
        (wide.percent, wide.level, wide.line.as_str()),
        (19, PressureLevel::Ok, "context: 19% [OK]")
    );
}

#[test]
fn pressure_edge_cases() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    fs::write(&empty, "").unwrap();
    let p = context_pressure(&empty, None, None).unwrap();
    assert_eq!((p.tokens, p.percent, p.level), (0, 0, PressureLevel::Ok));
    let over = dir.path().join("over.jsonl");
    fs::write(&over, assistant("m", 250_000, 0, "") + "\n").unwrap();
    assert_eq!(context_pressure(&over, None, None).unwrap().percent, 100);
    let missing = context_pressure(&dir.path().join("nope.jsonl"), None, None).unwrap_err();
    assert_eq!(missing.code, ErrorCode::SessionNotFound);
    assert_eq!(
        context_pressure(&empty, Some(0), None).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        context_pressure(&empty, None, Some(0)).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        context_pressure(&empty, None, Some(101)).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
}

fn registry() -> serde_json::Value {
    json!({
        "hook_settings": { "pane_capture_lines": 200, "context_pressure_threshold": 60 },
        "agents": [
            { "agent_id": "gideon", "tmux_session_name": "gideon-cc", "system_prompt": "Use /gsd:*",
              "hook_settings": { "pane_capture_lines": 80, "hook_mode": "bidirectional" } },
            { "agent_id": "warden", "tmux_session_name": "warden-cc", "hook_settings": { "autocompact_pct": 75 } },
            { "agent_id": "forge", "tmux_session_name": "forge-cc" }
        ]
    })
}

#[test]
fn settings_merge_field_by_field() {
    let r = registry();
    assert_eq!(
        resolve_hook_settings(&r, "gideon").unwrap(),
        HookSettings {
            pane_capture_lines: 80,
            context_pressure_threshold: 60,
            autocompact_pct: None,
            hook_mode: HookMode::Bidirectional
        }
    );
    assert_eq!(
        resolve_hook_settings(&r, "warden").unwrap(),
        HookSettings {
            pane_capture_lines: 200,
            context_pressure_threshold: 60,
            autocompact_pct: Some(75),
            hook_mode: HookMode::Async
        }
    );
    let bare = json!({ "agents": [{ "agent_id": "forge", "tmux_session_name": "f" }] });
    assert_eq!(
        resolve_hook_settings(&bare, "forge").unwrap(),
        HookSettings::default()
    );
    let missing = resolve_hook_settings(&r, "ghost").unwrap_err();
    assert_eq!(missing.code, ErrorCode::AgentNotFound);
    assert_eq!(
        missing.hint.as_deref(),
        Some("registered agents: gideon, warden, forge")
    );
}

#[test]
fn validation_reports_every_problem_with_its_path() {
    assert!(validate_hook_registry(&registry()).is_empty());
    let bad = json!({
        "hook_setings": {},
        "hook_settings": { "pane_capture_lines": 0, "hook_mode": "sync", "colour": "red" },
        "agents": [
            { "agent_id": "a", "tmux_session_name": "a", "hook_settings": { "context_pressure_threshold": 70.5, "autocompact_pct": 101 } },
            { "agent_id": "a", "tmux_session_name": "", "system_prompt": 3, "extra": true },
            "forge",
            { "tmux_session_name": "x", "hook_settings": [] }
        ]
    });
    let problems: Vec<(String, String)> = validate_hook_registry(&bad)
        .into_iter()
        .map(|p| (p.path, p.message))
        .collect();
    let paths: Vec<&str> = problems.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "$.hook_setings",
            "$.hook_settings.pane_capture_lines",
            "$.hook_settings.hook_mode",
            "$.hook_settings.colour",
            "$.agents[0].hook_settings.context_pressure_threshold",
            "$.agents[0].hook_settings.autocompact_pct",
            "$.agents[1].extra",
            "$.agents[1].tmux_session_name",
            "$.agents[1].agent_id",
            "$.agents[1].system_prompt",
            "$.agents[2]",
            "$.agents[3].agent_id",
            "$.agents[3].hook_settings",
        ]
    );
    assert_eq!(problems[1].1, "0 is out of range 1–2000");
    assert_eq!(problems[2].1, "must be \"async\" or \"bidirectional\"");
    assert_eq!(problems[4].1, "must be a whole number from 1 to 100");
    assert_eq!(problems[8].1, "duplicate agent id \"a\"");
    let err = resolve_hook_settings(&bad, "a").unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert!(err
        .message
        .contains("$.agents[0].hook_settings.autocompact_pct: 101 is out of range 1–100"));
    assert_eq!(validate_hook_registry(&json!([])).len(), 1);
    assert_eq!(
        validate_hook_registry(&json!({ "agents": {} }))[0].path,
        "$.agents"
    );
}

/// Screens as `tmux capture-pane -p` prints Claude Code 2.1's terminal.
mod screens {
    pub const IDLE: &str = "● Done. The webhook retries now back off exponentially.\n\n╭──────────────────────────────────────────────╮\n│ >                                            │\n╰──────────────────────────────────────────────╯\n  ? for shortcuts                 Context left until auto-compact: 38%\n\n\n";
    pub const WORKING: &str = "> fix the webhook retries\n\n● Read(lib/webhooks/retry.ex)\n  ⎿  Read 120 lines\n\n✻ Pondering… (42s · ↑ 1.8k tokens · esc to interrupt)\n\n╭──────────────────────────────────────────────╮\n│ >                                            │\n╰──────────────────────────────────────────────╯\n";
    pub const PERMISSION: &str = "● Bash(mix ecto.migrate)\n\n╭──────────────────────────────────────────────╮\n│ Bash command                                 │\n│   mix ecto.migrate                           │\n│ Do you want to proceed?                      │\n│ ❯ 1. Yes                                     │\n│   2. Yes, and don't ask again for mix        │\n│   3. No, and tell Claude what to do (esc)    │\n╰──────────────────────────────────────────────╯\n";
    pub const MENU: &str = "Resume Session\n\n❯ 1. fix the webhook retries (2 hours ago)\n  2. Refactor the cart session (1 day ago)\n  3. Write a migration (3 days ago)\n\n↑/↓ to navigate · Enter to select · Esc to cancel\n";
    pub const ERROR: &str = "> summarise the logs\n\n  ⎿  API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n╭──────────────────────────────────────────────╮\n│ >                                            │\n╰──────────────────────────────────────────────╯\n";
    pub const LIMIT: &str = "  ⎿  Claude usage limit reached. Your limit will reset at 3pm (Europe/Berlin).\n\n│ >                                            │\n";
}

#[test]
fn pane_states_of_captured_screens() {
    use session_intel_core::hooks::pane::{detect_pane_state, PaneState};
    assert_eq!(detect_pane_state(screens::IDLE), PaneState::Idle);
    assert_eq!(detect_pane_state(screens::WORKING), PaneState::Working);
    assert_eq!(
        detect_pane_state(screens::PERMISSION),
        PaneState::PermissionPrompt
    );
    assert_eq!(detect_pane_state(screens::MENU), PaneState::Menu);
    assert_eq!(detect_pane_state(screens::ERROR), PaneState::Error);
    assert_eq!(detect_pane_state(screens::LIMIT), PaneState::Error);
    assert_eq!(detect_pane_state(""), PaneState::Idle);
    // An old error scrolled far up is history, not the current state.
    let scrolled = format!(
        "{}{}{}",
        screens::ERROR,
        "● line\n".repeat(40),
        screens::IDLE
    );
    assert_eq!(detect_pane_state(&scrolled), PaneState::Idle);
    // A user prompt quoting an error while Claude works is still working.
    let quoted = "> why does it say API Error: 500?\n\n✻ Thinking… (3s · esc to interrupt)\n";
    assert_eq!(detect_pane_state(quoted), PaneState::Working);
}

#[test]
fn wake_message_sections() {
    use session_intel_core::hooks::pane::{build_wake_message, WakeMessage};
    let m = build_wake_message(&WakeMessage {
        agent_id: "gideon",
        tmux_session_name: "gideon-cc",
        trigger: "response_complete",
        pane_text: screens::PERMISSION,
        pane_capture_lines: Some(4),
        context_pressure: Some("context: 72% [WARNING]"),
        actions: None,
    });
    assert_eq!(
        m,
        "agent: gideon\ntmux: gideon-cc\ntrigger: response_complete\nstate: permission_prompt\n\n[PANE CONTENT]\n│ ❯ 1. Yes                                     │\n│   2. Yes, and don't ask again for mix        │\n│   3. No, and tell Claude what to do (esc)    │\n╰──────────────────────────────────────────────╯\n\n[CONTEXT PRESSURE]\ncontext: 72% [WARNING]\n\n[AVAILABLE ACTIONS]\n- allow once: send 1\n- allow for the session: send 2\n- deny: send Escape\n"
    );
    let actions = vec!["/gsd:next".to_string()];
    let m = build_wake_message(&WakeMessage {
        agent_id: "forge",
        tmux_session_name: "forge-cc",
        trigger: "session_start",
        pane_text: "",
        actions: Some(&actions),
        ..Default::default()
    });
    assert!(m.contains("state: idle\n\n[PANE CONTENT]\n(empty)\n\n[CONTEXT PRESSURE]\ncontext: unknown\n\n[AVAILABLE ACTIONS]\n- /gsd:next\n"));
}

/// The window is the session model's: a million tokens for today's models
/// (as the real CLI reports for `claude-opus-5-5`), 200,000 for older ones;
/// the caller's window wins.
#[test]
fn pressure_takes_the_window_of_the_sessions_model() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let line = assistant("m1", 4_000, 140_000, "");
    fs::write(
        &path,
        line.replace("claude-opus-4-6", "claude-opus-5-5") + "\n",
    )
    .unwrap();
    let p = context_pressure(&path, None, None).unwrap();
    assert_eq!(
        (p.tokens, p.window, p.percent, p.level),
        (144_000, 1_000_000, 14, PressureLevel::Ok)
    );
    assert_eq!(
        context_pressure(&path, Some(200_000), None)
            .unwrap()
            .percent,
        72
    );
    fs::write(&path, line.clone() + "\n").unwrap();
    let p = context_pressure(&path, None, None).unwrap();
    assert_eq!((p.window, p.percent), (200_000, 72));

    // What the real CLI wrote.
    let real = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../fixtures/claude-code-2.1/projects/-tmp-osi-claude-code-2-1-work-alpha/9b37d184-fdfd-4a93-980c-cb3cd84ac0b6.jsonl",
    );
    let p = context_pressure(&real, None, None).unwrap();
    assert_eq!(p.window, 1_000_000);
    assert!(p.tokens > 0);
    assert_eq!(p.percent, ((p.tokens * 100 + 500_000) / 1_000_000) as u32);
}
