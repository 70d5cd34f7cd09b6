//! Which `user` lines are prompts a person typed, and what they say.
//!
//! Claude Code writes many `user` lines that are not prompts: tool results,
//! slash-command expansions (`isMeta`), compaction summaries, command output
//! wrappers. These rules follow Claude Code's own first-prompt picker
//! (docs/formats.md, "Prompts").

use crate::json_scan::{as_str, field, Elements};

/// Text that is never a prompt when a user line starts with it.
const NOT_A_PROMPT: [&str; 8] = [
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<session-start-hook>",
    "[Request interrupted by user",
    "<ide_opened_file>",
    "<ide_selection>",
    // A background task's completion, fed back as a prompt.
    "<task-notification>",
];

/// The prompt text of a `user` line's `message.content` (the slice starting at
/// it, see [`crate::json_scan::Elements`]), or `None` when
/// the line is not a prompt (tool result, wrapper, command without arguments,
/// blank).
pub fn prompt_text(content: &[u8]) -> Option<String> {
    let text = match content.first()? {
        b'"' => {
            let end = crate::json_scan::value_len(content)?;
            as_str(&content[..end])?.into_owned()
        }
        b'[' => {
            let mut first_text = None;
            for block in Elements::new(content) {
                let kind = field(block, b"type").and_then(as_str);
                match kind.as_deref() {
                    Some("tool_result") => return None,
                    Some("text") if first_text.is_none() => {
                        first_text = field(block, b"text")
                            .and_then(as_str)
                            .map(|t| t.into_owned());
                    }
                    _ => {}
                }
            }
            first_text?
        }
        _ => return None,
    };
    render_prompt(text.trim())
}

/// Applies the wrapper rules to a trimmed prompt candidate.
fn render_prompt(text: &str) -> Option<String> {
    if text.is_empty() || NOT_A_PROMPT.iter().any(|p| text.starts_with(p)) {
        return None;
    }
    if let Some(name) = between(text, "<command-name>", "</command-name>") {
        let args = between(text, "<command-args>", "</command-args>").unwrap_or("");
        let args = args.trim();
        return (!args.is_empty()).then(|| format!("{} {args}", name.trim()));
    }
    if let Some(cmd) = between(text, "<bash-input>", "</bash-input>") {
        return Some(format!("! {}", cmd.trim()));
    }
    Some(text.to_owned())
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    Some(&text[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(json: &str) -> Option<String> {
        prompt_text(json.as_bytes())
    }

    #[test]
    fn plain_and_block_prompts() {
        assert_eq!(p(r#""  fix the bug \n""#).as_deref(), Some("fix the bug"));
        assert_eq!(
            p(r#"[{"type":"image","source":{}},{"type":"text","text":"look"}]"#).as_deref(),
            Some("look")
        );
        assert_eq!(
            p(r#"[{"tool_use_id":"x","type":"tool_result","content":"ok"}]"#),
            None
        );
        assert_eq!(p(r#""   ""#), None);
        assert_eq!(p("12"), None);
    }

    #[test]
    fn wrappers_and_commands() {
        assert_eq!(
            p(r#""<local-command-stdout>Compacted</local-command-stdout>""#),
            None
        );
        assert_eq!(p(r#""[Request interrupted by user for tool use]""#), None);
        assert_eq!(
            p(r#""<command-message>init</command-message>\n<command-name>/init</command-name>""#),
            None
        );
        assert_eq!(
            p(r#""<command-name>/review</command-name><command-args>PR 12</command-args>""#)
                .as_deref(),
            Some("/review PR 12")
        );
        assert_eq!(
            p(r#""<bash-input>ls -la</bash-input>""#).as_deref(),
            Some("! ls -la")
        );
    }
}
