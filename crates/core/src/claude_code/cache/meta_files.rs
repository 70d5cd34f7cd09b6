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
//! Each file is parsed once per version (identity, size, times) and kept
//! ([`MetaFiles`]); the folders are read through the same [`Round`] as the
//! project folders, so that the change monitor watches them too.

use super::dirs::{Listed, Round, WrittenFolder};
use crate::fast_map::{FastMap, FastSet};
use crate::platform::FileStat;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The name of an older CLI's index of a project folder's sessions.
pub const INDEX_FILE: &str = "sessions-index.json";

/// Metadata files larger than this are not read (a real one is a few
/// kilobytes; an index of thousands of sessions about a megabyte).
const MAX_META_FILE_BYTES: u64 = 16 << 20;

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
struct IndexEntry {
    session_id: String,
    /// Its summary, when not blank.
    summary: Option<String>,
    /// Marked `isSidechain: true`.
    sidechain: bool,
}

/// One Claude Desktop session file.
#[derive(Debug, PartialEq)]
struct DesktopEntry {
    /// The Claude Code session it ran (`cliSessionId`).
    session_id: String,
    /// Its `title`, when not blank.
    title: Option<String>,
    /// `isArchived: true`.
    archived: bool,
}

/// What one metadata file holds.
#[derive(Debug, PartialEq)]
enum MetaFile {
    Index(Vec<IndexEntry>),
    /// `None`: not a Desktop session file (no `cliSessionId`, not JSON).
    Desktop(Option<DesktopEntry>),
}

/// Parsed metadata files by path, each with the stat of the version parsed.
#[derive(Debug, Default)]
pub struct MetaFiles {
    kept: Mutex<FastMap<PathBuf, (FileStat, Arc<MetaFile>)>>,
}

impl MetaFiles {
    /// What the file at `path` holds, in the version `stat` describes:
    /// parsed again only when it is not the version kept.
    fn get(&self, path: &Path, stat: FileStat, desktop: bool) -> Arc<MetaFile> {
        if let Some((kept_stat, file)) = self.lock().get(path) {
            if *kept_stat == stat {
                return Arc::clone(file);
            }
        }
        let json = (stat.len <= MAX_META_FILE_BYTES)
            .then(|| fs::read(path).ok())
            .flatten()
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok());
        let file = Arc::new(match desktop {
            true => MetaFile::Desktop(json.as_ref().and_then(desktop_entry)),
            false => MetaFile::Index(json.as_ref().map(index_entries).unwrap_or_default()),
        });
        self.lock()
            .insert(path.to_owned(), (stat, Arc::clone(&file)));
        file
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FastMap<PathBuf, (FileStat, Arc<MetaFile>)>> {
        // Every update is a single insert: a panic elsewhere while the lock
        // was held cannot have left it half-changed.
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A string member, trimmed, when it is not blank.
fn text_of(value: &serde_json::Value, key: &str) -> Option<String> {
    let text = value.get(key)?.as_str()?.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

fn index_entries(json: &serde_json::Value) -> Vec<IndexEntry> {
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

fn desktop_entry(json: &serde_json::Value) -> Option<DesktopEntry> {
    Some(DesktopEntry {
        session_id: text_of(json, "cliSessionId")?,
        title: text_of(json, "title"),
        archived: json.get("isArchived") == Some(&serde_json::Value::Bool(true)),
    })
}

/// Whether `name` is a Claude Desktop session file (`local_*.json`).
fn is_desktop_file(name: &OsStr) -> bool {
    let name = name.as_encoded_bytes();
    name.starts_with(b"local_") && name.ends_with(b".json")
}

/// The metadata of a repository's sessions, as read in one discovery.
#[derive(Debug, Default)]
pub struct SessionMeta {
    /// The files read, in a fixed order, with what each held.
    files: Vec<(PathBuf, Arc<MetaFile>)>,
    /// The Desktop folders read, for the change monitor to vouch for.
    pub folders: Vec<Listed>,
    /// The Desktop folder, when it was looked for and could not be read.
    pub absent: Vec<PathBuf>,
}

impl SessionMeta {
    /// Reads the project folders' indexes (`indexes`: each path with the
    /// stat taken with its folder's transcripts) and the Desktop session
    /// files below `desktop_dir`.
    pub fn read(
        indexes: Vec<(PathBuf, Option<FileStat>)>,
        desktop_dir: Option<&Path>,
        round: &Round,
        kept: &MetaFiles,
    ) -> SessionMeta {
        let mut meta = SessionMeta::default();
        for (path, stat) in indexes {
            if let Some(stat) = stat {
                let file = kept.get(&path, stat, false);
                meta.files.push((path, file));
            }
        }
        if let Some(dir) = desktop_dir {
            meta.read_desktop(dir, round, kept);
        }
        meta
    }

    /// Reads `<dir>/<account>/<workspace>/local_*.json`.
    fn read_desktop(&mut self, dir: &Path, round: &Round, kept: &MetaFiles) {
        let Some(top) = round.list(dir, None) else {
            self.absent.push(dir.to_owned());
            return;
        };
        // Two levels of folders below the top one: accounts, workspaces.
        let mut folders = vec![top];
        let mut level = 0..1;
        for _ in 0..2 {
            let mut below = Vec::new();
            for parent in &folders[level.clone()] {
                for item in parent.items.iter().filter(|i| i.is_dir) {
                    below.extend(round.list(&parent.dir.join(&item.name), Some(parent)));
                }
            }
            level = folders.len()..folders.len() + below.len();
            folders.extend(below);
        }
        let start = level.start;
        let mut files: Vec<(PathBuf, Arc<MetaFile>)> = Vec::new();
        for workspace in &folders[start..] {
            let names: Vec<&OsStr> = workspace
                .items
                .iter()
                .filter(|i| i.is_file && is_desktop_file(&i.name))
                .map(|i| i.name.as_os_str())
                .collect();
            for (name, stat) in names.iter().zip(round.stat(workspace, &names)) {
                if let Some(stat) = stat {
                    let path = workspace.dir.join(name);
                    let file = kept.get(&path, stat, true);
                    files.push((path, file));
                }
            }
        }
        files.sort_by(|a, b| a.0.cmp(&b.0));
        self.files.extend(files);
        self.folders = folders;
    }

    /// Whether both read the very same versions of the same files.
    pub fn same_as(&self, other: &SessionMeta) -> bool {
        self.files.len() == other.files.len()
            && self
                .files
                .iter()
                .zip(&other.files)
                .all(|(a, b)| a.0 == b.0 && Arc::ptr_eq(&a.1, &b.1))
    }

    /// Whether a file read here may be among those written to in
    /// `written` (files of a Desktop folder, or an index).
    pub fn written_in(&self, written: &[WrittenFolder], index_folders: &[&Path]) -> bool {
        let index = OsStr::new(INDEX_FILE);
        written.iter().any(|w| {
            self.folders.iter().any(|f| f.dir == w.dir)
                || (index_folders.contains(&w.dir.as_path())
                    && w.names
                        .as_ref()
                        .is_none_or(|n| n.iter().any(|n| n == index)))
        })
    }

    /// What the files say, by session id.
    pub fn overlay(&self) -> Overlay<'_> {
        let mut overlay = Overlay::default();
        for (_, file) in &self.files {
            match &**file {
                MetaFile::Index(entries) => {
                    for e in entries {
                        if e.sidechain {
                            overlay.hidden.insert(&e.session_id);
                        } else if let Some(summary) = &e.summary {
                            overlay.summaries.entry(&e.session_id).or_insert(summary);
                        }
                    }
                }
                MetaFile::Desktop(Some(e)) => {
                    let slot = overlay.desktop.entry(&e.session_id).or_default();
                    slot.archived |= e.archived;
                    if slot.title.is_none() {
                        slot.title = e.title.as_deref();
                    }
                }
                MetaFile::Desktop(None) => {}
            }
        }
        overlay
    }
}

/// What Claude Desktop says of one session.
#[derive(Debug, Default, Clone, Copy)]
pub struct Desktop<'a> {
    /// The title it shows.
    pub title: Option<&'a str>,
    /// Archived in it.
    pub archived: bool,
}

/// The metadata files' word on sessions, by session id.
#[derive(Debug, Default)]
pub struct Overlay<'a> {
    /// Summaries from indexes.
    pub summaries: FastMap<&'a str, &'a str>,
    /// Sessions an index marks as sidechains: not listed.
    pub hidden: FastSet<&'a str>,
    /// Claude Desktop's titles and archived flags.
    pub desktop: FastMap<&'a str, Desktop<'a>>,
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
