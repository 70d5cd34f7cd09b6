//! [`Identities`]: the identities of the repositories this process looked
//! at, and the index of every repository folder the process or an earlier one saw.
//!
//! The index is one JSON file, `repositories.json`, in discovery's
//! persistent cache folder: for each repository folder (its top level),
//! its remote, its root commit, the HEAD commit the root was found from
//! and when it was last seen. It is what keeps a repository's sessions
//! after its folder is moved or renamed (Claude Code keys its project
//! folders by absolute path): the old folder stays in the index, under
//! the same identity as the new one. Written under its lock file and
//! replaced atomically ([`update_json`]); a damaged file is kept aside and
//! started afresh. At most [`MAX_FOLDERS`] folders, the least recently
//! seen dropped first.
//!
//! A root commit is found once per repository ([`root_commit`]) and kept
//! while HEAD is the commit it was found from or a descendant of it (a
//! commit made since): a warm call starts no process.

use super::identity::{same_repository, RepositoryIdentity};
use super::remote_url::normalize_remote_url;
use super::root_commit::root_commit;
use crate::claude_code::cache::settled::had_settled;
use crate::fs_safe::json_file::{read_json, update_json};
use crate::platform::FileStat;
use crate::project_status::repo_cache::with_repository;
use crate::repo_path::RepoPath;
use git2::{Oid, Repository};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

/// The index file's name in the persistent cache folder.
pub const INDEX_FILE: &str = "repositories.json";
/// Most folders the index keeps.
pub const MAX_FOLDERS: usize = 2000;

/// One folder's identity as known, with what it was found from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Known {
    /// The normalized remote, if any.
    pub remote: Option<String>,
    /// The root commit; `None` when not looked for yet (`Some(None)`: none).
    pub root_commit: Option<Option<String>>,
    /// The HEAD commit the root commit was found from.
    pub head: Option<String>,
}

impl Known {
    fn from_json(v: &Value) -> Known {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        Known {
            remote: s("remote"),
            root_commit: v.get("rootCommit").map(|r| r.as_str().map(str::to_owned)),
            head: s("head"),
        }
    }

    fn identity(&self, path: &str) -> RepositoryIdentity {
        RepositoryIdentity {
            path: path.to_owned(),
            remote: self.remote.clone(),
            root_commit: self.root_commit.clone().flatten(),
        }
    }
}

/// The index as last read: its folders and the file's modification time.
#[derive(Debug, Default)]
struct Loaded {
    file: PathBuf,
    mtime: Option<SystemTime>,
    folders: Vec<(String, Known)>,
}

/// The git files a repository's identity is read from, and their stat data
/// as they were just before it was read: the `HEAD` of its git dir, the
/// `config` and `packed-refs` of its common dir (a linked worktree's are
/// the main repository's) and the loose ref `HEAD` names. While every one
/// has the stat data it had (absent ones still absent) and they had all
/// settled when they were read ([`had_settled`]), the identity read from
/// them still holds, and [`Identities::moved_away`] uses it without
/// reading git's files again.
#[derive(Debug, Clone, PartialEq, Eq)]
struct GitSources {
    /// Each file, with its stat data (none: it was absent).
    files: Vec<(PathBuf, Option<FileStat>)>,
    /// Every file present had settled before it was read.
    settled: bool,
}

impl GitSources {
    /// The sources of `repo`, stat'ed now; `observed` is a time taken
    /// before any of them was read.
    fn of(repo: &Repository, observed: SystemTime) -> GitSources {
        let common = repo.commondir();
        let mut paths = vec![
            repo.path().join("HEAD"),
            common.join("config"),
            common.join("packed-refs"),
        ];
        let named = repo
            .find_reference("HEAD")
            .ok()
            .and_then(|h| h.symbolic_target().ok().flatten().map(str::to_owned));
        paths.extend(named.map(|r| common.join(r)));
        let files: Vec<(PathBuf, Option<FileStat>)> = paths
            .into_iter()
            .map(|p| {
                let stat = stat_of(&p);
                (p, stat)
            })
            .collect();
        let settled = files.iter().all(|(_, stat)| {
            stat.is_none_or(|st| had_settled(st.ctime_ns.max(st.mtime_ns), observed))
        });
        GitSources { files, settled }
    }

    /// Whether what was read from them still holds: they had settled and
    /// none changed since.
    fn vouch(&self) -> bool {
        self.settled && self.files.iter().all(|(p, stat)| stat_of(p) == *stat)
    }
}

/// The stat data of the file at `path`; none when it cannot be stat'ed.
fn stat_of(path: &Path) -> Option<FileStat> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    FileStat::of(path, &meta).ok()
}

/// What [`Identities::moved_away`] found for a folder: its identity and
/// the git files it was read from.
#[derive(Debug)]
struct MovedLook {
    /// The identity read.
    identity: RepositoryIdentity,
    /// The files it was read from.
    sources: GitSources,
}

/// Identities of repositories, kept in memory and in the index file.
#[derive(Debug, Default)]
pub struct Identities {
    /// By repository top level.
    known: Mutex<HashMap<PathBuf, Known>>,
    /// The index file as last read.
    index: Mutex<Loaded>,
    /// The last look of [`Identities::moved_away`], by folder asked about.
    moved: Mutex<HashMap<PathBuf, MovedLook>>,
}

/// What libgit2 says of a repository without walking its history.
struct Probe {
    top: PathBuf,
    remote: Option<String>,
    head: Option<Oid>,
}

fn probe(repo: &Repository) -> Probe {
    let top = repo.workdir().unwrap_or_else(|| repo.path());
    let top = RepoPath::resolve(&top.to_string_lossy())
        .as_path()
        .to_path_buf();
    let url_of = |name: &str| {
        repo.find_remote(name)
            .ok()
            .and_then(|r| r.url().ok().map(str::to_owned))
    };
    let remote = url_of("origin")
        .or_else(|| {
            let names = repo.remotes().ok()?;
            names.iter().flatten().flatten().find_map(url_of)
        })
        .and_then(|url| normalize_remote_url(&url));
    let head = repo.head().ok().and_then(|h| h.target());
    Probe { top, remote, head }
}

impl Identities {
    /// Empty.
    pub fn new() -> Self {
        Identities::default()
    }

    /// The identity of the repository at or above `path`; with `want_root`
    /// false its root commit is looked for only when it has no remote (what
    /// [`same_repository`] needs of it). Remembered in the index in
    /// `index_dir` (discovery's persistent cache folder) when given.
    pub fn identity(
        &self,
        path: &Path,
        index_dir: Option<&Path>,
        want_root: bool,
    ) -> RepositoryIdentity {
        self.identity_read(path, index_dir, want_root, None).0
    }

    /// [`Identities::identity`], with the git files it was read from when
    /// `observed` (a time taken before) is given; none outside a repository.
    fn identity_read(
        &self,
        path: &Path,
        index_dir: Option<&Path>,
        want_root: bool,
        observed: Option<SystemTime>,
    ) -> (RepositoryIdentity, Option<GitSources>) {
        let asked = RepoPath::of(path);
        let found = with_repository(&asked, |repo| {
            // Stat'ed before they are read: a change while they are read
            // leaves stat data that no longer vouch.
            let sources = observed.map(|at| GitSources::of(repo, at));
            let p = probe(repo);
            let need_root = want_root || p.remote.is_none();
            let known = self.root_known(repo, &p, index_dir, need_root);
            (p, known, sources)
        });
        let Some((p, known, sources)) = found else {
            let identity = RepositoryIdentity {
                path: asked.to_string_lossy().into_owned(),
                ..RepositoryIdentity::default()
            };
            return (identity, None);
        };
        let top = p.top.to_string_lossy().into_owned();
        self.known
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(p.top.clone(), known.clone());
        if let Some(dir) = index_dir {
            self.remember(dir, &top, &known);
        }
        (known.identity(&top), sources)
    }

    /// What is known of the repository `p`, its root commit found when
    /// `need_root` and not known for its HEAD.
    fn root_known(
        &self,
        repo: &Repository,
        p: &Probe,
        index_dir: Option<&Path>,
        need_root: bool,
    ) -> Known {
        let head = p.head.map(|h| h.to_string());
        let top = p.top.to_string_lossy();
        let before = self
            .known
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&p.top)
            .cloned()
            .or_else(|| self.index_entry(index_dir?, &top));
        let mut known = Known {
            remote: p.remote.clone(),
            root_commit: None,
            head: head.clone(),
        };
        if let Some(before) = before.filter(|b| b.root_commit.is_some()) {
            let still = match (&before.head, p.head) {
                (Some(old), Some(new)) => {
                    *old == new.to_string()
                        || Oid::from_str(old)
                            .is_ok_and(|old| repo.graph_descendant_of(new, old).unwrap_or(false))
                }
                (None, None) => true,
                _ => false,
            };
            if still {
                known.root_commit = before.root_commit;
                return known;
            }
        }
        if need_root {
            known.root_commit = Some(root_commit(repo, &p.top));
        }
        known
    }

    /// Writes `known` for `top` into the index unless it says so already.
    fn remember(&self, dir: &Path, top: &str, known: &Known) {
        let unchanged = |was: &Known| {
            was.remote == known.remote
                && was.head == known.head
                && (was.root_commit == known.root_commit || known.root_commit.is_none())
        };
        if self
            .index_entry(dir, top)
            .is_some_and(|was| unchanged(&was))
        {
            return;
        }
        let file = dir.join(INDEX_FILE);
        let now = chrono::Utc::now().timestamp_millis();
        let written = update_json(&file, |doc| {
            let folders = crate::fs_safe::json_file::object_at(doc, "folders");
            let entry = folders.get(top);
            if entry.is_some_and(|e| unchanged(&Known::from_json(e))) {
                return (false, ());
            }
            let mut value = Map::new();
            value.insert("remote".into(), json!(known.remote));
            let root = known
                .root_commit
                .clone()
                .or_else(|| entry.map(Known::from_json).and_then(|k| k.root_commit));
            if let Some(root) = root {
                value.insert("rootCommit".into(), json!(root));
            }
            value.insert("head".into(), json!(known.head));
            value.insert("seenAt".into(), json!(now));
            folders.insert(top.to_owned(), Value::Object(value));
            if folders.len() > MAX_FOLDERS {
                let mut by_age: Vec<(i64, String)> = folders
                    .iter()
                    .map(|(k, v)| {
                        (
                            v.get("seenAt").and_then(Value::as_i64).unwrap_or(0),
                            k.clone(),
                        )
                    })
                    .collect();
                by_age.sort();
                for (_, k) in by_age.iter().take(folders.len() - MAX_FOLDERS) {
                    folders.remove(k);
                }
            }
            (true, ())
        });
        // The index is a cache: a folder that cannot be written leaves
        // moved folders unfound, never a call failed.
        let _ = written;
    }

    /// Every folder of the index in `dir`, with its identity as known.
    pub fn folders(&self, dir: &Path) -> Vec<(String, Known)> {
        self.with_index(dir, |folders| folders.to_vec())
    }

    /// What the index in `dir` knows of the folder `top`.
    fn index_entry(&self, dir: &Path, top: &str) -> Option<Known> {
        self.with_index(dir, |folders| {
            folders
                .iter()
                .find(|(f, _)| f == top)
                .map(|(_, k)| k.clone())
        })
    }

    /// `f` on the folders of the index in `dir`, read again when the file
    /// changed since it was last read.
    fn with_index<R>(&self, dir: &Path, f: impl FnOnce(&[(String, Known)]) -> R) -> R {
        let file = dir.join(INDEX_FILE);
        let mtime = std::fs::metadata(&file).and_then(|m| m.modified()).ok();
        let mut loaded = self.index.lock().unwrap_or_else(|e| e.into_inner());
        if loaded.file != file || loaded.mtime != mtime || mtime.is_none() {
            let doc = read_json(&file);
            let folders = doc
                .get("folders")
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), Known::from_json(v)))
                        .collect()
                })
                .unwrap_or_default();
            *loaded = Loaded {
                file,
                mtime,
                folders,
            };
        }
        f(&loaded.folders)
    }

    /// The folders the repository at `repo` was seen at before it was moved
    /// or renamed: folders of the index in `index_dir` that held a
    /// repository of the same identity and no longer exist. The repository
    /// is remembered in the index at `repo` on the way. Its identity is
    /// read again only when a git file it is read from changed (see
    /// [`GitSources`]); the index and the folders' existence are looked at
    /// on every call.
    pub fn moved_away(&self, repo: &Path, index_dir: &Path) -> Vec<PathBuf> {
        let kept = self
            .moved
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(repo)
            .filter(|look| look.sources.vouch())
            .map(|look| look.identity.clone());
        let identity = match kept {
            Some(identity) => identity,
            None => {
                let (identity, sources) =
                    self.identity_read(repo, Some(index_dir), false, Some(SystemTime::now()));
                let mut moved = self.moved.lock().unwrap_or_else(|e| e.into_inner());
                match sources {
                    Some(sources) => {
                        let look = MovedLook {
                            identity: identity.clone(),
                            sources,
                        };
                        moved.insert(repo.to_path_buf(), look);
                    }
                    None => {
                        moved.remove(repo);
                    }
                }
                identity
            }
        };
        if identity.remote.is_none() && identity.root_commit.is_none() {
            return Vec::new();
        }
        self.remembered(index_dir, &identity, false)
    }

    /// The folders of the index in `dir` that held the repository `identity`
    /// (by what the index knows of them) and exist (`exist`) or no longer
    /// do (`!exist`: where it was before a move or rename).
    pub fn remembered(
        &self,
        dir: &Path,
        identity: &RepositoryIdentity,
        exist: bool,
    ) -> Vec<PathBuf> {
        let same: Vec<PathBuf> = self.with_index(dir, |folders| {
            folders
                .iter()
                .filter(|(folder, _)| exist || *folder != identity.path)
                .filter(|(folder, known)| same_repository(&known.identity(folder), identity))
                .map(|(folder, _)| PathBuf::from(folder))
                .collect()
        });
        same.into_iter().filter(|f| f.exists() == exist).collect()
    }
}
