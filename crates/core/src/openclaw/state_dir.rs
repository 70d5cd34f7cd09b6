//! Where OpenClaw keeps its state, and how it names agents (docs/formats.md,
//! "OpenClaw's state dir").

use crate::platform::home_dir;
use std::path::{Path, PathBuf};

fn env(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

fn expand_tilde(path: &str, home: &Path) -> PathBuf {
    match path.strip_prefix("~") {
        Some(rest) => home.join(rest.trim_start_matches('/')),
        None => PathBuf::from(path),
    }
}

/// OpenClaw's home: `$OPENCLAW_HOME`, else `$HOME`.
pub fn openclaw_home() -> PathBuf {
    env("OPENCLAW_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(home_dir)
}

/// The state dir, as OpenClaw resolves it: the option; `$OPENCLAW_STATE_DIR`
/// (or clawdbot's `$CLAWDBOT_STATE_DIR`); a `--profile` (`$OPENCLAW_PROFILE`)
/// selects `~/.openclaw-<profile>`; otherwise `~/.openclaw` if it exists,
/// else a legacy `~/.clawdbot` if that exists, else `~/.openclaw`.
pub fn resolve_state_dir(option: Option<&Path>) -> PathBuf {
    if let Some(dir) = option {
        return dir.to_path_buf();
    }
    let home = openclaw_home();
    if let Some(dir) = env("OPENCLAW_STATE_DIR").or_else(|| env("CLAWDBOT_STATE_DIR")) {
        return expand_tilde(&dir, &home);
    }
    if let Some(profile) = env("OPENCLAW_PROFILE").filter(|p| !p.eq_ignore_ascii_case("default")) {
        return home.join(format!(".openclaw-{profile}"));
    }
    let current = home.join(".openclaw");
    if current.is_dir() {
        return current;
    }
    let legacy = home.join(".clawdbot");
    if legacy.is_dir() {
        return legacy;
    }
    current
}

/// The agent OpenClaw runs when none is named, and the one an empty or
/// unusable agent id normalises to.
pub const DEFAULT_AGENT_ID: &str = "main";

/// OpenClaw's `normalizeAgentId`: a plain id is lower-cased; anything else
/// is slugified to `[a-z0-9_-]` (at most 64 characters); empty is `main`.
pub fn normalize_agent_id(raw: &str) -> String {
    let trimmed = raw.trim();
    let plain = trimmed.len() <= 64
        && trimmed
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && trimmed
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        return trimmed.to_ascii_lowercase();
    }
    let mut slug = String::new();
    for c in trimmed.to_lowercase().chars() {
        let c = if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            c
        } else {
            '-'
        };
        if !(c == '-' && slug.ends_with('-')) {
            slug.push(c);
        }
    }
    let slug: String = slug.trim_matches('-').chars().take(64).collect();
    if slug.is_empty() {
        DEFAULT_AGENT_ID.into()
    } else {
        slug
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_ids_are_normalised_as_openclaw_does() {
        assert_eq!(normalize_agent_id(" Main "), "main");
        assert_eq!(normalize_agent_id("ops_1-x"), "ops_1-x");
        assert_eq!(normalize_agent_id("../etc/passwd"), "etc-passwd");
        assert_eq!(normalize_agent_id("My Agent!"), "my-agent");
        assert_eq!(normalize_agent_id(""), "main");
        assert_eq!(normalize_agent_id("///"), "main");
        assert_eq!(normalize_agent_id(&"a".repeat(80)).len(), 64);
    }
}
