//! Every Claude Code session of a repository, with what state it is in
//! (`discoverSessions` and `parseJsonlHeader`).
//!
//! Sources: the OpenClaw registries (sessions OpenClaw spawned, with cost and
//! task history) and Claude Code's own project folders for the repository and
//! its worktrees. Files are scanned in parallel, largest first, through the
//! incremental [`ScanCache`]; subagent transcripts are folded into their
//! parent session and never listed as sessions of their own.

use super::dir_cache::{Listed, Round, Vouched};
use super::paths::{claude_config_dir, project_dirs_for_repo, resolve_lexically};
use super::registry::{Registry, RegistryRow};
use super::result_memo::{Inputs, Written};
use super::scan_cache::{FileScan, ScanCache};
use super::scan_store::PersistentCache;
use super::spawn_record::SpawnLog;
use super::transcript::TranscriptFacts;
use crate::error::{Error, ErrorCode, Result};
use crate::openclaw::state_dir::resolve_state_dir;
use crate::platform::{self, FileStat};
use crate::{FastMap, FastSet};
use chrono::{DateTime, Utc};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

/// Where a discovered session is known from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionSource {
    /// Listed in an OpenClaw registry.
    Openclaw,
    /// Found only in Claude Code's own folders.
    NativeOnly,
}

/// Options of [`discover_sessions`]; everything is optional.
#[derive(Debug, Clone, Default)]
pub struct DiscoverOptions {
    /// Claude Code's config root (default `$CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub claude_config_dir: Option<PathBuf>,
    /// OpenClaw's state root holding the registries (default: the state dir
    /// as OpenClaw resolves it, see [`resolve_state_dir`]).
    pub registry_root: Option<PathBuf>,
    /// Sessions the host knows to be running now (in addition to those a
    /// Claude Code process runs by its liveness record, see
    /// [`liveness`](super::liveness)).
    pub running_session_ids: Vec<String>,
    /// The host is running Claude Code in this repository: every registry
    /// session of it counts as running (the reference's behaviour).
    pub repo_busy: bool,
    /// Where scans are kept between processes (off by default here; the
    /// Node binding turns it on).
    pub persistent_cache: PersistentCache,
    /// Stat every file on every call, never trusting the change monitor
    /// (also when `OPENCLAW_SESSION_INTEL_WATCH=off`).
    pub stat_every_file: bool,
}

/// Token totals of a session, deduplicated (main transcript and subagents).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenTotals {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_creation: u64,
}

/// One session of the repository.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscoveredSession {
    pub session_id: String,
    pub source: SessionSource,
    pub agent_id: Option<String>,
    pub repo_path: String,
    pub branch: String,
    pub first_message: String,
    pub last_modified: DateTime<Utc>,
    pub message_count: u64,
    pub file_size_bytes: u64,
    pub total_cost_usd: Option<f64>,
    pub total_turns: Option<f64>,
    pub last_task: Option<String>,
    pub label: Option<String>,
    pub slug: Option<String>,
    /// A Claude Code process runs the session now (see
    /// [`liveness`](super::liveness)), or the host said so.
    pub is_running: bool,
    pub origin_marker: Option<String>,
    pub tokens: TokenTotals,
    pub compaction_count: u32,
    pub budget_used_pct: Option<f64>,
    pub title: String,
    pub cwd: Option<String>,
    pub first_activity: Option<DateTime<Utc>>,
    pub last_activity: Option<DateTime<Utc>>,
    pub context_tokens: u64,
    pub models: Vec<String>,
    pub subagent_count: u32,
    pub last_user_message: Option<String>,
    pub transcript_path: Option<String>,
    /// Files the session's tool calls named, most recent last.
    pub files_touched: Vec<String>,
}

/// What the reference's `parseJsonlHeader` returns, computed correctly.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonlHeader {
    pub git_branch: Option<String>,
    pub first_user_message: Option<String>,
    pub slug: Option<String>,
    pub version: Option<String>,
    pub line_count: u64,
    pub origin_marker: Option<String>,
    pub total_input_tokens: u64,
    pub total_output_tokens: u64,
    pub compaction_count: u32,
}

/// Reads one transcript's header facts (`parseJsonlHeader`).
pub fn parse_jsonl_header(path: &Path, cache: &ScanCache) -> Result<JsonlHeader> {
    let scan = cache.scan(path);
    if let Some(err) = scan.error {
        return Err(Error::new(
            ErrorCode::SessionNotFound,
            format!("cannot read transcript {}: {err}", path.display()),
        )
        .with_hint("pass the path of an existing Claude Code .jsonl transcript"));
    }
    let f = &scan.facts;
    let totals = f.usage.totals();
    Ok(JsonlHeader {
        git_branch: f.git_branch.clone(),
        first_user_message: f.first_prompt.clone(),
        slug: f.slug.clone(),
        version: f.version.clone(),
        line_count: f.line_count,
        origin_marker: f.origin_marker.clone(),
        total_input_tokens: totals.input,
        total_output_tokens: totals.output,
        compaction_count: f.compactions,
    })
}

/// Whether a file name is `<uuid>.jsonl`, the only names Claude Code lists.
fn session_id_of(name: &str) -> Option<&str> {
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

/// A file found while listing, with its metadata if it could be read.
/// The files of one project folder.
#[derive(Default)]
struct FolderListing {
    /// `(session id, path)` of main transcripts.
    sessions: Vec<(String, PathBuf)>,
    /// Nested subagent transcripts by parent session id.
    nested: HashMap<String, Vec<PathBuf>>,
    /// Flat `agent-*.jsonl` files (pre-2.1 layout), parent read from the file.
    flat_agents: Vec<PathBuf>,
    /// The folders read, to stat their files through.
    folders: Vec<Listed>,
    /// Folders looked for that could not be read.
    absent: Vec<PathBuf>,
    /// A transcript is not a regular file (a symbolic link, say): what
    /// happens to what it names is not reported in its folder.
    not_regular: bool,
}

impl FolderListing {
    /// Every transcript file of the folder.
    fn files(&self) -> impl Iterator<Item = &PathBuf> {
        self.sessions
            .iter()
            .map(|(_, p)| p)
            .chain(&self.flat_agents)
            .chain(self.nested.values().flatten())
    }
}

fn is_agent_file(name: &OsStr) -> bool {
    let name = name.as_encoded_bytes();
    name.starts_with(b"agent-") && name.ends_with(b".jsonl")
}

fn list_folder(dir: &Path, round: &Round) -> FolderListing {
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

fn to_utc(t: SystemTime) -> DateTime<Utc> {
    DateTime::<Utc>::from(t)
}

fn parse_iso(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|d| d.with_timezone(&Utc))
}

/// Discovers every session of the repository at `repo_path`, most
/// relevant first (running, then most recently modified).
///
/// The result is shared: a repeat call that finds nothing changed returns
/// the very one it returned before (see [`ResultMemo`](super::result_memo)).
pub fn discover_sessions(
    repo_path: &str,
    options: &DiscoverOptions,
    cache: &ScanCache,
) -> Arc<Vec<DiscoveredSession>> {
    discover_sessions_as(repo_path, options, cache, |sessions| sessions)
}

/// [`discover_sessions`], with the sessions made by `render` into what the
/// caller keeps of them (the JSON text a binding hands over, say). A repeat
/// call that finds nothing changed returns what was made of the same
/// sessions before, without building or rendering them again.
///
/// What was made is kept by its type: every caller asking for a `T` must
/// make it the same way. A form of its own gets a type of its own (a
/// newtype around the text, say).
pub fn discover_sessions_as<T: Send + Sync + 'static>(
    repo_path: &str,
    options: &DiscoverOptions,
    cache: &ScanCache,
    render: impl FnOnce(Vec<DiscoveredSession>) -> T,
) -> Arc<T> {
    let repo = resolve_lexically(repo_path);
    let claude_dir = claude_config_dir(options.claude_config_dir.as_deref());
    let projects = claude_dir.join("projects");
    let state_root = resolve_state_dir(options.registry_root.as_deref());
    let persistent = options.persistent_cache.dir();

    let mut registry_rows: Vec<RegistryRow> = Registry::new(&state_root)
        .list_all()
        .into_iter()
        .filter(|row| resolve_lexically(&row.repo_path) == repo)
        .collect();
    // Spawns the plugin recorded, for the sessions the registries do not
    // list: OpenClaw's own record of them is gone soon after they end.
    let spawned = SpawnLog::new(&state_root).registry_rows(|r| resolve_lexically(r) == repo);
    for row in spawned {
        let id = &row.entry.session_id;
        if !registry_rows.iter().any(|r| &r.entry.session_id == id) {
            registry_rows.push(row);
        }
    }
    let mut inputs = Inputs {
        dirs: project_dirs_for_repo(&projects, &repo),
        repo,
        registry_rows,
        elsewhere: HashMap::new(),
        running_session_ids: options.running_session_ids.clone(),
        live_session_ids: super::liveness::running_session_ids(&claude_dir),
        repo_busy: options.repo_busy,
    };

    let round = cache
        .dirs()
        .round(!options.stat_every_file && !super::turned_off("OPENCLAW_SESSION_INTEL_WATCH"));
    // Nothing reported in any folder a kept result came from: it stands,
    // and no folder is read and no file stat'ed.
    if let Some(made) = cache.results().unchanged(&inputs, &round) {
        if persistent.is_some() {
            cache.persist(&claude_dir, 0, false);
        }
        return made;
    }
    // Only files were written to in some of them (a line appended): only
    // those folders' files are stat'ed again.
    if let Some(written) = cache.results().take_written(&inputs, &round) {
        let persist_under = persistent.is_some().then_some(claude_dir.as_path());
        return update_written(inputs, written, cache, persist_under, render);
    }
    // A fresh process loads its persistent cache while the folders are
    // listed: neither needs the other, and both wait on the file system.
    let attach = || {
        if let Some(dir) = &persistent {
            cache.attach(&claude_dir, dir);
        }
    };
    let list = || -> Vec<FolderListing> {
        inputs
            .dirs
            .iter()
            .map(|d| list_folder(&d.path, &round))
            .collect()
    };
    let ((), listings) = rayon::join(attach, list);

    // Registry sessions whose transcript is not in the repository's folders.
    let listed: FastSet<&str> = listings
        .iter()
        .flat_map(|l| l.sessions.iter().map(|(s, _)| s.as_str()))
        .collect();
    let mut all_rows_listed = true;
    for row in &inputs.registry_rows {
        let id = &row.entry.session_id;
        if !listed.contains(id.as_str()) {
            all_rows_listed = false;
            if let Some(path) = find_transcript(&claude_dir, &inputs.repo, id) {
                inputs.elsewhere.insert(id.clone(), path);
            }
        }
    }

    let walk = Walk {
        scans: scan_all(&listings, &inputs.elsewhere, &round, cache),
        listings,
    };
    let mut forgot = false;
    for dir in &inputs.dirs {
        forgot |= cache.forget_missing(&dir.path, &|p| walk.scans.contains_key(p));
    }
    if persistent.is_some() {
        let read: u64 = walk.scans.values().map(|s| s.read_bytes).sum();
        cache.persist(&claude_dir, read, forgot);
    }

    // The monitor can vouch for the result only when all of it came from
    // regular files in the repository's folders that could be read: a
    // transcript elsewhere, a symbolic link's target or a read that failed
    // for a passing reason (too many open files) changes nothing it
    // watches.
    let vouchable = all_rows_listed
        && walk.listings.iter().all(|l| !l.not_regular)
        && walk.scans.values().all(|s| s.error.is_none());
    let vouched = vouchable
        .then(|| {
            round.vouch(
                walk.listings.iter().flat_map(|l| &l.folders),
                walk.listings.iter().flat_map(|l| &l.absent),
            )
        })
        .flatten()
        .map(Arc::new);
    if let Some(made) = cache.results().get(&inputs, &walk, vouched.clone()) {
        return made;
    }
    build_and_keep(inputs, walk, vouched, cache, render)
}

/// What a result was built from besides its [`Inputs`]: the repository's
/// folders as listed, and the scans of their transcripts (and of those
/// found elsewhere) by path.
pub(crate) struct Walk {
    listings: Vec<FolderListing>,
    scans: FastMap<OsString, FileScan>,
}

impl Walk {
    /// Whether both hold the very same scans of the same files.
    pub(crate) fn same_scans(&self, other: &Walk) -> bool {
        self.scans.len() == other.scans.len()
            && self.scans.iter().all(|(path, scan)| {
                other
                    .scans
                    .get(path)
                    .is_some_and(|theirs| theirs.same_as(scan))
            })
    }
}

/// Builds the sessions of `inputs` from `walk`, makes them into what the
/// caller keeps, and keeps that in the result memo.
fn build_and_keep<T: Send + Sync + 'static>(
    inputs: Inputs,
    walk: Walk,
    vouched: Option<Arc<Vouched>>,
    cache: &ScanCache,
    render: impl FnOnce(Vec<DiscoveredSession>) -> T,
) -> Arc<T> {
    let made = Arc::new(render(build_sessions(&inputs, &walk, cache)));
    cache
        .results()
        .put(inputs, walk, vouched, Arc::clone(&made));
    made
}

/// Brings a kept result up to date when files were only written to in
/// some of its folders: stats the files of those folders again, scans the
/// ones that changed, and builds the sessions again only if one did.
fn update_written<T: Send + Sync + 'static>(
    inputs: Inputs,
    written: Written<T>,
    cache: &ScanCache,
    persist_under: Option<&Path>,
    render: impl FnOnce(Vec<DiscoveredSession>) -> T,
) -> Arc<T> {
    let Written {
        mut walk,
        folders,
        vouched,
        made,
    } = written;
    // The files of those folders the monitor saw written to (all of them
    // where it does not know which).
    let in_written = |path: &&PathBuf| {
        let (folder, name) = split_at_name(path);
        folders.iter().any(|w| {
            w.dir.as_os_str().as_encoded_bytes() == folder
                && w.names
                    .as_ref()
                    .is_none_or(|names| names.iter().any(|n| n.as_encoded_bytes() == name))
        })
    };
    let files: Vec<&PathBuf> = walk
        .listings
        .iter()
        .flat_map(FolderListing::files)
        .filter(in_written)
        .collect();
    let stated = stat_by_folder(&files, platform::stat_each_in);
    let mut changed = false;
    let mut read = 0;
    let mut readable = true;
    for (path, scan) in scan_stated(stated, cache) {
        read += scan.read_bytes;
        readable &= scan.error.is_none();
        if let Some(kept) = walk.scans.get_mut(path.as_os_str()) {
            changed |= !kept.same_as(&scan);
            *kept = scan;
        }
    }
    if let Some(config_dir) = persist_under {
        cache.persist(config_dir, read, false);
    }
    let vouched = readable.then(|| Arc::new(vouched));
    if changed {
        return build_and_keep(inputs, walk, vouched, cache, render);
    }
    cache
        .results()
        .put(inputs, walk, vouched, Arc::clone(&made));
    made
}

/// Stats every file of the listings and `elsewhere` at once, and scans
/// those that changed since their last scan.
fn scan_all(
    listings: &[FolderListing],
    elsewhere: &HashMap<String, PathBuf>,
    round: &Round,
    cache: &ScanCache,
) -> FastMap<OsString, FileScan> {
    // Keyed by the path's bytes: hashing a `Path` walks its components.
    let folders: FastMap<&OsStr, &Listed> = listings
        .iter()
        .flat_map(|l| &l.folders)
        .map(|f| (f.dir.as_os_str(), f))
        .collect();
    let mut seen_files: FastSet<&OsStr> = FastSet::default();
    let files: Vec<&PathBuf> = listings
        .iter()
        .flat_map(FolderListing::files)
        .chain(elsewhere.values())
        .filter(|p| seen_files.insert(p.as_os_str()))
        .collect();
    let stated = stat_by_folder(&files, |dir, names| match folders.get(dir.as_os_str()) {
        Some(listed) => round.stat(listed, names),
        None => platform::stat_each_in(dir, names),
    });
    scan_stated(stated, cache)
        .into_iter()
        .map(|(path, scan)| (path.as_os_str().to_owned(), scan))
        .collect()
}

/// The stats of `files`, taken by `stat_in` for each run of files of one
/// folder (handed the folder and the names of the run's files).
fn stat_by_folder<'a>(
    files: &[&'a PathBuf],
    stat_in: impl Fn(&Path, &[&OsStr]) -> Vec<Option<FileStat>> + Sync,
) -> Vec<(&'a PathBuf, Option<FileStat>)> {
    files
        .chunk_by(|a, b| folder_bytes(a) == folder_bytes(b))
        .collect::<Vec<_>>()
        .into_par_iter()
        .flat_map_iter(|same_dir| {
            let dir = same_dir[0].parent().unwrap_or(Path::new(""));
            let names: Vec<&OsStr> = same_dir.iter().filter_map(|p| p.file_name()).collect();
            same_dir.iter().copied().zip(stat_in(dir, &names))
        })
        .collect()
}

/// The scans of stated files: those whose stat data is unchanged since
/// their last scan are looked up at once, the rest are read, largest
/// first so that the long files start early.
fn scan_stated<'a>(
    stated: Vec<(&'a PathBuf, Option<FileStat>)>,
    cache: &ScanCache,
) -> Vec<(&'a PathBuf, FileScan)> {
    let unchanged = cache.unchanged(&stated);
    let mut scans = Vec::with_capacity(stated.len());
    let mut changed = Vec::new();
    for (file, kept) in stated.into_iter().zip(unchanged) {
        match kept {
            Some(scan) => scans.push((file.0, scan)),
            None => changed.push(file),
        }
    }
    changed.sort_by_key(|(_, s)| std::cmp::Reverse(s.map_or(0, |s| s.len)));
    let files: Vec<(&Path, Option<FileStat>)> = changed
        .iter()
        .map(|(p, stat)| (p.as_path(), *stat))
        .collect();
    scans.extend(changed.iter().map(|(p, _)| *p).zip(cache.scan_many(&files)));
    scans
}

/// The bytes of `path` before its last separator: its folder, for a path
/// made by joining a name to one (found without parsing its components).
fn folder_bytes(path: &Path) -> &[u8] {
    split_at_name(path).0
}

/// The bytes of `path` before its last separator and after it: its folder
/// and its name, for a path made by joining a name to a folder.
fn split_at_name(path: &Path) -> (&[u8], &[u8]) {
    let bytes = path.as_os_str().as_encoded_bytes();
    match bytes
        .iter()
        .rposition(|&b| std::path::is_separator(b as char))
    {
        Some(at) => (&bytes[..at], &bytes[at + 1..]),
        None => (&[], bytes),
    }
}

/// The sessions of `inputs`, from the scans of their files.
fn build_sessions(inputs: &Inputs, walk: &Walk, cache: &ScanCache) -> Vec<DiscoveredSession> {
    let Walk { listings, scans } = walk;
    let repo_str = inputs.repo.to_string_lossy();
    // Titles from summary records, keyed by the leaf they name.
    let mut summary_titles: HashMap<u128, &str> = HashMap::new();
    for scan in scans.values() {
        for (leaf, text) in &scan.facts.summaries {
            summary_titles.insert(*leaf, text);
        }
    }

    // Sessions found in the folders: id -> (main path, subagent paths).
    let mut native: Vec<(String, PathBuf, Vec<PathBuf>)> = Vec::new();
    let mut native_index: FastMap<&str, usize> = FastMap::default();
    let mut flat_by_parent: HashMap<String, Vec<PathBuf>> = HashMap::new();
    for (dir, listing) in inputs.dirs.iter().zip(listings) {
        for path in &listing.flat_agents {
            if let Some(parent) = scans
                .get(path.as_os_str())
                .and_then(|s| s.facts.session_id.clone())
            {
                flat_by_parent.entry(parent).or_default().push(path.clone());
            }
        }
        for (id, path) in &listing.sessions {
            if dir.needs_cwd_check && !cwd_matches(scans.get(path.as_os_str()), &dir.launch_dir) {
                continue;
            }
            if native_index.contains_key(id.as_str()) {
                continue;
            }
            native_index.insert(id, native.len());
            let subs = listing.nested.get(id).cloned().unwrap_or_default();
            native.push((id.clone(), path.clone(), subs));
        }
    }
    for (id, _, subs) in &mut native {
        if let Some(flat) = flat_by_parent.remove(id.as_str()) {
            subs.extend(flat);
        }
    }

    let running: HashSet<&str> = inputs
        .running_session_ids
        .iter()
        .chain(&inputs.live_session_ids)
        .map(String::as_str)
        .collect();
    let build = |id: &str, main: Option<&PathBuf>, subs: &[PathBuf]| -> SessionRow {
        let main_scan = main.and_then(|p| scans.get(p.as_os_str()));
        let sub_scans: Vec<&FileScan> = subs
            .iter()
            .filter_map(|p| scans.get(p.as_os_str()))
            .collect();
        SessionRow::new(id, main, main_scan, &sub_scans, &summary_titles, cache)
    };

    // Registry sessions first, in registry order, then those found only in
    // the folders; each built on its own (there may be thousands).
    let registered: HashSet<&str> = inputs
        .registry_rows
        .iter()
        .map(|row| row.entry.session_id.as_str())
        .collect();
    type Job<'a> = (
        &'a str,
        Option<&'a PathBuf>,
        &'a [PathBuf],
        Option<&'a RegistryRow>,
    );
    let jobs: Vec<Job> = inputs
        .registry_rows
        .iter()
        .map(|row| {
            let id = row.entry.session_id.as_str();
            match native_index.get(id).map(|&i| &native[i]) {
                Some((_, path, subs)) => (id, Some(path), subs.as_slice(), Some(row)),
                None => (id, inputs.elsewhere.get(id), &[][..], Some(row)),
            }
        })
        .chain(
            native
                .iter()
                .filter(|(id, ..)| !registered.contains(id.as_str()))
                .map(|(id, path, subs)| (id.as_str(), Some(path), subs.as_slice(), None)),
        )
        .collect();
    let mut out: Vec<DiscoveredSession> = jobs
        .into_par_iter()
        .map(|(id, main, subs, row)| {
            let base = build(id, main, subs);
            let Some(row) = row else {
                let last_modified = base.modified.unwrap_or(DateTime::<Utc>::UNIX_EPOCH);
                let mut s = base.into_session(&repo_str, SessionSource::NativeOnly, last_modified);
                s.is_running = running.contains(id);
                return s;
            };
            let resumed = parse_iso(&row.entry.last_resumed_at);
            let last_modified = match (resumed, base.modified) {
                (Some(r), Some(m)) => r.max(m),
                (Some(r), None) => r,
                (None, Some(m)) => m,
                (None, None) => DateTime::<Utc>::UNIX_EPOCH,
            };
            let mut s = base.into_session(&repo_str, SessionSource::Openclaw, last_modified);
            s.agent_id = Some(row.agent_id.clone());
            s.total_cost_usd = Some(row.entry.total_cost_usd);
            s.total_turns = Some(row.entry.total_turns);
            s.last_task = row.entry.task_history.last().map(|t| t.task.clone());
            s.label = row.entry.label.clone();
            s.is_running = inputs.repo_busy || running.contains(id);
            s
        })
        .collect();
    out.par_sort_by(|a, b| {
        b.is_running
            .cmp(&a.is_running)
            .then(b.last_modified.cmp(&a.last_modified))
            .then(a.session_id.cmp(&b.session_id))
    });
    out
}

fn cwd_matches(scan: Option<&FileScan>, launch_dir: &Path) -> bool {
    scan.and_then(|s| s.facts.cwd.as_deref())
        .is_some_and(|cwd| resolve_lexically(cwd) == launch_dir)
}

/// The transcript-derived part of a session row.
struct SessionRow {
    id: String,
    path: Option<String>,
    size: u64,
    modified: Option<DateTime<Utc>>,
    facts: Arc<TranscriptFacts>,
    tokens: TokenTotals,
    title: String,
    subagents: u32,
}

impl SessionRow {
    fn new(
        id: &str,
        main: Option<&PathBuf>,
        main_scan: Option<&FileScan>,
        subs: &[&FileScan],
        summaries: &HashMap<u128, &str>,
        cache: &ScanCache,
    ) -> Self {
        let readable = main_scan.filter(|s| s.error.is_none());
        let facts = readable.map(|s| s.facts.clone()).unwrap_or_default();
        let parts: Vec<&Arc<TranscriptFacts>> = std::iter::once(&facts)
            .chain(subs.iter().map(|s| &s.facts))
            .collect();
        let t = match main {
            Some(path) => cache.session_usage(path, &parts),
            None => facts.usage.totals(),
        };
        let summary = facts
            .leaves
            .iter()
            .find_map(|leaf| summaries.get(leaf).copied());
        let title = facts
            .custom_title
            .clone()
            .or_else(|| facts.ai_title.clone())
            .or_else(|| summary.map(str::to_owned))
            .or_else(|| facts.first_prompt.clone())
            .unwrap_or_else(|| id.chars().take(8).collect());
        SessionRow {
            id: id.to_owned(),
            path: main.map(|p| p.to_string_lossy().into_owned()),
            size: readable.map_or(0, |s| s.size),
            modified: readable.map(|s| to_utc(s.modified)),
            facts,
            tokens: TokenTotals {
                input: t.input,
                output: t.output,
                cache_read: t.cache_read,
                cache_creation: t.cache_creation,
            },
            title,
            subagents: subs.len() as u32,
        }
    }

    fn into_session(
        self,
        repo: &str,
        source: SessionSource,
        last_modified: DateTime<Utc>,
    ) -> DiscoveredSession {
        let f = &self.facts;
        DiscoveredSession {
            session_id: self.id,
            source,
            agent_id: None,
            repo_path: repo.to_owned(),
            branch: f.git_branch.clone().unwrap_or_else(|| "unknown".into()),
            first_message: f
                .first_prompt
                .clone()
                .unwrap_or_else(|| "(no message)".into()),
            last_modified,
            message_count: f.line_count,
            file_size_bytes: self.size,
            total_cost_usd: None,
            total_turns: None,
            last_task: None,
            label: None,
            slug: f.slug.clone(),
            is_running: false,
            origin_marker: f.origin_marker.clone(),
            tokens: self.tokens,
            compaction_count: f.compactions,
            budget_used_pct: None,
            title: self.title,
            cwd: f.cwd.clone(),
            first_activity: f.first_activity.as_deref().and_then(parse_iso),
            last_activity: f.last_activity.as_deref().and_then(parse_iso),
            context_tokens: f.context_tokens.unwrap_or(0),
            models: f.models.clone(),
            subagent_count: self.subagents,
            last_user_message: f.last_prompt.clone(),
            transcript_path: self.path,
            files_touched: f.files_touched.clone(),
        }
    }
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
