//! What Claude Code's files besides the transcripts say of sessions: the
//! `sessions-index.json` that older CLIs wrote into each project folder, and
//! the session metadata of Claude Desktop.
//!
//! - `<project folder>/sessions-index.json`: `entries[]` with `sessionId`,
//!   `summary` (the title Claude Code showed, after a custom or generated
//!   title) and `isSidechain` (`true`: not a conversation of its own, never
//!   listed).
//! - Claude Desktop: `<desktop dir>/<account>/<workspace>/local_*.json`, one
//!   file per Desktop session, with `cliSessionId` (the Claude Code session
//!   it ran), `title` (the name Desktop shows, which wins over every other
//!   title) and `isArchived`. The desktop dir is `~/Library/Application
//!   Support/Claude/claude-code-sessions` on macOS and
//!   `%APPDATA%\Claude\claude-code-sessions` on Windows
//!   ([`default_desktop_dir`]); Claude Desktop does not run elsewhere.
//!
//! What discovery keeps of them and how it reads their folders is
//! [`meta_files`](crate::claude_code::cache::meta_files).

use std::ffi::OsStr;
use std::path::PathBuf;

/// The name of an older CLI's index of a project folder's sessions.
pub const INDEX_FILE: &str = "sessions-index.json";

/// Claude Desktop's folder of session metadata on this platform, when it has
/// one: `~/Library/Application Support/Claude/claude-code-sessions` on
/// macOS, `%APPDATA%\Claude\claude-code-sessions` on Windows (else
/// `~\AppData\Roaming\Claude\claude-code-sessions`); `None` elsewhere.
pub fn default_desktop_dir() -> Option<PathBuf> {
    if cfg!(target_os = "macos") {
        let home = crate::platform::home_dir();
        return Some(home.join("Library/Application Support/Claude/claude-code-sessions"));
    }
    if cfg!(windows) {
        let roaming = std::env::var_os("APPDATA")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| crate::platform::home_dir().join("AppData").join("Roaming"));
        return Some(roaming.join("Claude").join("claude-code-sessions"));
    }
    None
}

/// One session as an index names it.
#[derive(Debug, PartialEq)]
pub(crate) struct IndexEntry {
    /// The session it names (`sessionId`).
    pub(crate) session_id: String,
    /// Its summary, when not blank.
    pub(crate) summary: Option<String>,
    /// Marked `isSidechain: true`.
    pub(crate) sidechain: bool,
}

/// One Claude Desktop session file.
#[derive(Debug, PartialEq)]
pub(crate) struct DesktopEntry {
    /// The Claude Code session it ran (`cliSessionId`).
    pub(crate) session_id: String,
    /// Its `title`, when not blank.
    pub(crate) title: Option<String>,
    /// `isArchived: true`.
    pub(crate) archived: bool,
}

/// A string member, trimmed, when it is not blank.
fn text_of(value: &serde_json::Value, key: &str) -> Option<String> {
    let text = value.get(key)?.as_str()?.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// The sessions an index lists (`entries[]` with a `sessionId`).
pub(crate) fn index_entries(json: &serde_json::Value) -> Vec<IndexEntry> {
    let Some(entries) = json.get("entries").and_then(|e| e.as_array()) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| {
            Some(IndexEntry {
                session_id: text_of(entry, "sessionId")?,
                summary: text_of(entry, "summary"),
                sidechain: entry.get("isSidechain") == Some(&serde_json::Value::Bool(true)),
            })
        })
        .collect()
}

/// The session a Desktop file names; `None` without a `cliSessionId`.
pub(crate) fn desktop_entry(json: &serde_json::Value) -> Option<DesktopEntry> {
    Some(DesktopEntry {
        session_id: text_of(json, "cliSessionId")?,
        title: text_of(json, "title"),
        archived: json.get("isArchived") == Some(&serde_json::Value::Bool(true)),
    })
}

/// Whether `name` is a Claude Desktop session file (`local_*.json`).
pub(crate) fn is_desktop_file(name: &OsStr) -> bool {
    let name = name.as_encoded_bytes();
    name.starts_with(b"local_") && name.ends_with(b".json")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_index_gives_summaries_and_hides_sidechains() {
        let entries = index_entries(&json!({
            "version": 1,
            "entries": [
                {"sessionId": "a", "summary": "  Fix the login  ", "isSidechain": false},
                {"sessionId": "b", "summary": "side", "isSidechain": true},
                {"sessionId": "c", "summary": "   "},
                {"summary": "no id"}
            ]
        }));
        assert_eq!(
            entries,
            vec![
                IndexEntry {
                    session_id: "a".into(),
                    summary: Some("Fix the login".into()),
                    sidechain: false
                },
                IndexEntry {
                    session_id: "b".into(),
                    summary: Some("side".into()),
                    sidechain: true
                },
                IndexEntry {
                    session_id: "c".into(),
                    summary: None,
                    sidechain: false
                },
            ]
        );
        assert!(index_entries(&json!([1, 2])).is_empty());
    }

    #[test]
    fn a_desktop_file_names_its_cli_session() {
        let e = desktop_entry(&json!({
            "sessionId": "local_1", "cliSessionId": "abc", "title": "Ship it",
            "isArchived": true, "cwd": "/x"
        }))
        .unwrap();
        assert_eq!(e.session_id, "abc");
        assert_eq!(e.title.as_deref(), Some("Ship it"));
        assert!(e.archived);
        assert!(desktop_entry(&json!({"sessionId": "local_2", "title": "t"})).is_none());
        assert!(is_desktop_file(OsStr::new("local_1.json")));
        assert!(!is_desktop_file(OsStr::new("local_1.json.tmp")));
    }
}
