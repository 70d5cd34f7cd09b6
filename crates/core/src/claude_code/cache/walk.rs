//! What one discovery read: each project folder's transcripts as listed
//! through a [`Round`], and the [`Walk`] a result is built from and kept
//! with.

use super::dirs::{Listed, Round, WrittenFolder};
use super::meta_files::SessionMeta;
use super::scans::FileScan;
use crate::claude_code::layout::session_files::session_id_of;
use crate::claude_code::layout::session_meta::INDEX_FILE;
use crate::fast_map::FastMap;
use rayon::prelude::*;
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The files of one project folder.
#[derive(Default)]
pub(crate) struct FolderListing {
    /// `(session id, path)` of main transcripts.
    pub(crate) sessions: Vec<(String, PathBuf)>,
    /// Nested subagent transcripts by parent session id.
    pub(crate) nested: HashMap<String, Vec<PathBuf>>,
    /// Flat `agent-*.jsonl` files (pre-2.1 layout), parent read from the file.
    pub(crate) flat_agents: Vec<PathBuf>,
    /// The folders read, to stat their files through.
    pub(crate) folders: Vec<Listed>,
    /// Folders looked for that could not be read.
    pub(crate) absent: Vec<PathBuf>,
    /// Its `sessions-index.json`, when it has one.
    pub(crate) index: Option<PathBuf>,
    /// A transcript is not a regular file (a symbolic link, say): what
    /// happens to what it names is not reported in its folder.
    pub(crate) not_regular: bool,
}

impl FolderListing {
    /// Every transcript file of the folder.
    pub(crate) fn files(&self) -> impl Iterator<Item = &PathBuf> {
        self.sessions
            .iter()
            .map(|(_, p)| p)
            .chain(&self.flat_agents)
            .chain(self.nested.values().flatten())
    }

    /// Every file of the folder that is read: its transcripts and its
    /// index, those of each folder next to each other.
    pub(crate) fn files_read(&self) -> impl Iterator<Item = &PathBuf> {
        self.sessions
            .iter()
            .map(|(_, p)| p)
            .chain(&self.index)
            .chain(&self.flat_agents)
            .chain(self.nested.values().flatten())
    }
}

fn is_agent_file(name: &OsStr) -> bool {
    let name = name.as_encoded_bytes();
    name.starts_with(b"agent-") && name.ends_with(b".jsonl")
}

/// Lists the project folder `dir` and its sessions' subagent folders
/// through `round`.
pub(crate) fn list_folder(dir: &Path, round: &Round) -> FolderListing {
    let mut out = FolderListing::default();
    let Some(listed) = round.list(dir, None) else {
        out.absent.push(dir.to_owned());
        return out;
    };
    let mut session_dirs = Vec::new();
    for item in listed.items.iter() {
        let Some(name) = item.name.to_str() else {
            continue;
        };
        if let Some(id) = session_id_of(name) {
            out.sessions.push((id.to_owned(), dir.join(name)));
            out.not_regular |= !item.is_file;
        } else if is_agent_file(&item.name) {
            out.flat_agents.push(dir.join(name));
            out.not_regular |= !item.is_file;
        } else if item.is_file && name == INDEX_FILE {
            out.index = Some(dir.join(name));
        } else if item.is_dir {
            session_dirs.push(name);
        }
    }
    let nested: Vec<(String, AgentFiles)> = session_dirs
        .into_par_iter()
        .map(|name| {
            let mut found = AgentFiles::default();
            let subagents = dir.join(name).join("subagents");
            found.collect(&subagents, &listed, round, 0);
            (name.to_owned(), found)
        })
        .collect();
    out.folders.push(listed);
    for (name, found) in nested {
        out.folders.extend(found.folders);
        out.absent.extend(found.absent);
        out.not_regular |= found.not_regular;
        if !found.files.is_empty() {
            out.nested.insert(name, found.files);
        }
    }
    out.sessions.sort();
    out
}

/// The subagent transcripts of a session folder, with the folders read to
/// find them and those that could not be.
#[derive(Default)]
struct AgentFiles {
    files: Vec<PathBuf>,
    folders: Vec<Listed>,
    absent: Vec<PathBuf>,
    /// One of `files` is not a regular file.
    not_regular: bool,
}

impl AgentFiles {
    /// Adds the `agent-*.jsonl` below `dir` (subagent groups and workflows
    /// nest a little), each folder's files together.
    fn collect(&mut self, dir: &Path, parent: &Listed, round: &Round, depth: usize) {
        let Some(listed) = round.list(dir, Some(parent)) else {
            self.absent.push(dir.to_owned());
            return;
        };
        let items = Arc::clone(&listed.items);
        for item in items.iter() {
            if !(item.is_dir && depth < 4) && is_agent_file(&item.name) {
                self.files.push(dir.join(&item.name));
                self.not_regular |= !item.is_file;
            }
        }
        for item in items.iter().filter(|i| i.is_dir && depth < 4) {
            self.collect(&dir.join(&item.name), &listed, round, depth + 1);
        }
        self.folders.push(listed);
    }
}

/// What a result was built from besides its [`Inputs`](super::result_memo::Inputs): the repository's
/// folders as listed, the scans of their transcripts (and of those found
/// elsewhere) by path, and the session metadata files read.
pub(crate) struct Walk {
    /// The repository's project folders, as listed.
    pub(crate) listings: Vec<FolderListing>,
    /// The scans of their transcripts and of those found elsewhere, by path.
    pub(crate) scans: FastMap<OsString, FileScan>,
    /// The session metadata files read.
    pub(crate) meta: SessionMeta,
}

impl Walk {
    /// Whether a metadata file read for this walk may be among the files
    /// written to in `written`.
    pub(crate) fn meta_written_in(&self, written: &[WrittenFolder]) -> bool {
        let index_folders: Vec<&Path> = self
            .listings
            .iter()
            .filter_map(|l| l.index.as_deref()?.parent())
            .collect();
        self.meta.written_in(written, &index_folders)
    }

    /// Whether both hold the very same scans of the same files, and the
    /// same versions of the same metadata files.
    pub(crate) fn same_scans(&self, other: &Walk) -> bool {
        self.meta.same_as(&other.meta)
            && self.scans.len() == other.scans.len()
            && self.scans.iter().all(|(path, scan)| {
                other
                    .scans
                    .get(path)
                    .is_some_and(|theirs| theirs.same_as(scan))
            })
    }
}
