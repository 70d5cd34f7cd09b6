//! What a Claude Code terminal shows (from `tmux capture-pane` text), and the
//! wake message a hook sends the OpenClaw agent supervising it.

/// What the Claude Code pane is waiting for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaneState {
    /// A numbered choice (plan approval, `/resume` list, a question).
    Menu,
    /// The prompt box, waiting for input.
    Idle,
    /// Asking to allow a tool call.
    PermissionPrompt,
    /// Generating or running tools.
    Working,
    /// An API error, usage limit or oversized prompt on screen.
    Error,
}

impl PaneState {
    /// `"menu"`, `"idle"`, `"permission_prompt"`, `"working"`, `"error"`.
    pub fn as_str(self) -> &'static str {
        match self {
            PaneState::Menu => "menu",
            PaneState::Idle => "idle",
            PaneState::PermissionPrompt => "permission_prompt",
            PaneState::Working => "working",
            PaneState::Error => "error",
        }
    }

    /// What the agent can do in this state, when the caller gives no list.
    fn default_actions(self) -> &'static [&'static str] {
        match self {
            PaneState::Menu => &["choose: send the option's number", "cancel: send Escape"],
            PaneState::PermissionPrompt => &[
                "allow once: send 1",
                "allow for the session: send 2",
                "deny: send Escape",
            ],
            PaneState::Working => &[
                "wait: Claude Code is still working",
                "interrupt: send Escape",
            ],
            PaneState::Error => &[
                "retry: send the last prompt again",
                "/compact to shrink the context",
                "/clear to start over",
            ],
            PaneState::Idle => &[
                "send the next prompt",
                "/compact to shrink the context",
                "/clear to start over",
            ],
        }
    }
}

/// Only the screen's last lines decide the state: older ones are scrollback.
const SCREEN_LINES: usize = 25;

const PERMISSION: [&str; 4] = [
    "Do you want to proceed?",
    "Do you want to make this edit",
    "Do you want to create",
    "don't ask again",
];
const MENU: [&str; 3] = ["Enter to select", "Enter to confirm", "to navigate"];
const WORKING: [&str; 2] = ["esc to interrupt", "Esc to interrupt"];
const ERROR: [&str; 6] = [
    "API Error",
    "Prompt is too long",
    "usage limit reached",
    "Request timed out",
    "Credit balance is too low",
    "Invalid API key",
];

/// The state of a Claude Code pane from its captured text: a permission
/// question, then a menu, then a running turn, then an error, else idle.
pub fn detect_pane_state(pane_text: &str) -> PaneState {
    let lines: Vec<&str> = pane_text.lines().filter(|l| !l.trim().is_empty()).collect();
    let screen = &lines[lines.len().saturating_sub(SCREEN_LINES)..];
    let shows = |needles: &[&str]| screen.iter().any(|l| needles.iter().any(|n| l.contains(n)));
    let numbered_cursor = screen.iter().any(|l| {
        let t = l.trim_start_matches(['│', ' ']);
        t.strip_prefix('❯')
            .is_some_and(|rest| rest.trim_start().starts_with(|c: char| c.is_ascii_digit()))
    });
    if shows(&PERMISSION) {
        PaneState::PermissionPrompt
    } else if numbered_cursor || shows(&MENU) {
        PaneState::Menu
    } else if shows(&WORKING) {
        PaneState::Working
    } else if screen
        .iter()
        .rev()
        .take(8)
        .any(|l| ERROR.iter().any(|n| l.contains(n)))
    {
        PaneState::Error
    } else {
        PaneState::Idle
    }
}

/// What goes into a wake message.
#[derive(Debug, Clone, Default)]
pub struct WakeMessage<'a> {
    pub agent_id: &'a str,
    pub tmux_session_name: &'a str,
    /// Why the hook fired, e.g. `response_complete`, `session_start`.
    pub trigger: &'a str,
    pub pane_text: &'a str,
    /// Lines of the pane to include (the last ones); default 120.
    pub pane_capture_lines: Option<usize>,
    /// The `context: 72% [WARNING]` line, when known.
    pub context_pressure: Option<&'a str>,
    /// The actions to offer; default: those of the detected state.
    pub actions: Option<&'a [String]>,
}

/// The structured wake message: identity, trigger and state, then the
/// `[PANE CONTENT]`, `[CONTEXT PRESSURE]` and `[AVAILABLE ACTIONS]` sections.
pub fn build_wake_message(m: &WakeMessage<'_>) -> String {
    let state = detect_pane_state(m.pane_text);
    let lines: Vec<&str> = m.pane_text.trim_end().lines().map(str::trim_end).collect();
    let keep = m.pane_capture_lines.unwrap_or(120);
    let pane = lines[lines.len().saturating_sub(keep)..].join("\n");
    let actions: Vec<String> = match m.actions {
        Some(list) => list.to_vec(),
        None => state
            .default_actions()
            .iter()
            .map(|a| a.to_string())
            .collect(),
    };
    let mut out = format!(
        "agent: {}\ntmux: {}\ntrigger: {}\nstate: {}\n\n[PANE CONTENT]\n{}\n\n[CONTEXT PRESSURE]\n{}\n\n[AVAILABLE ACTIONS]\n",
        m.agent_id,
        m.tmux_session_name,
        m.trigger,
        state.as_str(),
        if pane.is_empty() { "(empty)" } else { &pane },
        m.context_pressure.unwrap_or("context: unknown"),
    );
    for action in &actions {
        out.push_str("- ");
        out.push_str(action);
        out.push('\n');
    }
    out
}
