//! The metadata files of Claude Code and Claude Desktop as discovery keeps
//! them ([`layout::session_meta`](crate::claude_code::layout::session_meta)
//! says what they hold): each parsed once per version (identity, size,
//! times) and kept ([`MetaFiles`]); their folders read through the same
//! [`Round`] as the project folders, so that the change monitor watches them
//! too.

use super::dirs::{Listed, Round, WrittenFolder};
use crate::claude_code::layout::session_meta::{
    desktop_entry, index_entries, is_desktop_file, DesktopEntry, IndexEntry, INDEX_FILE,
};
use crate::fast_map::{FastMap, FastSet};
use crate::platform::FileStat;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Metadata files larger than this are not read (a real one is a few
/// kilobytes; an index of thousands of sessions about a megabyte).
const MAX_META_FILE_BYTES: u64 = 16 << 20;

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
