//! Which files in a project folder are sessions, and where a session's
//! transcript is: `<session id>.jsonl` in the project folders of the
//! directory it was started in.

use super::paths::project_dirs_for_repo;
use std::fs;
use std::path::{Path, PathBuf};

/// Whether a file name is `<uuid>.jsonl`, the only names Claude Code lists.
pub fn session_id_of(name: &str) -> Option<&str> {
    let id = name.strip_suffix(".jsonl")?;
    let b = id.as_bytes();
    let ok = b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        });
    ok.then_some(id)
}

/// Checks a session id before it is used in a path.
pub fn is_safe_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The transcript of `session_id` in the project folders of `dir` (its own,
/// its real path's, its worktrees'): where `claude --resume` run in `dir`
/// looks for it.
pub fn find_transcript_in(claude_dir: &Path, dir: &Path, session_id: &str) -> Option<PathBuf> {
    if !is_safe_session_id(session_id) {
        return None;
    }
    let file = format!("{session_id}.jsonl");
    project_dirs_for_repo(&claude_dir.join("projects"), dir)
        .iter()
        .map(|d| d.path.join(&file))
        .find(|p| p.is_file())
}

/// Finds the transcript of `session_id` for `repo`: the repository's own
/// project folders first, then every project folder (sessions resumed from
/// elsewhere live where they started).
pub fn find_transcript(claude_dir: &Path, repo: &Path, session_id: &str) -> Option<PathBuf> {
    if let Some(hit) = find_transcript_in(claude_dir, repo, session_id) {
        return Some(hit);
    }
    if !is_safe_session_id(session_id) {
        return None;
    }
    let file = format!("{session_id}.jsonl");
    fs::read_dir(claude_dir.join("projects"))
        .ok()?
        .flatten()
        .map(|e| e.path().join(&file))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_uuid_names_are_sessions() {
        assert_eq!(
            session_id_of("ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"),
            Some("ae4a77f8-aedd-4bc1-888f-c94edc91af04")
        );
        assert_eq!(session_id_of("agent-aac57f5.jsonl"), None);
        assert_eq!(
            session_id_of("ae4a77f8-aedd-4bc1-888f-c94edc91af04.json"),
            None
        );
        assert!(is_safe_session_id("ae4a77f8-aedd"));
        assert!(!is_safe_session_id("../etc/passwd"));
        assert!(!is_safe_session_id(".."));
    }
}
