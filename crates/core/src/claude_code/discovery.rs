//! Every Claude Code session of a repository, with what state it is in
//! (`discoverSessions` and `parseJsonlHeader`).
//!
//! Sources: the OpenClaw registries (sessions OpenClaw spawned, with cost and
//! task history) and Claude Code's own project folders for the repository and
//! its worktrees. Files are scanned in parallel, largest first, through the
//! incremental [`DiscoveryCache`]; subagent transcripts are folded into their
//! parent session and never listed as sessions of their own.

use super::cache::dirs::{Listed, Round, Vouched};
use super::cache::meta_files::{Overlay, SessionMeta};
use super::cache::result_memo::{Inputs, Written};
use super::cache::walk::{list_folder, FolderListing, Walk};
use super::cache::{DiscoveryCache, FileScan};
use super::fold::context_window::ContextWindows;
use super::fold::transcript::TranscriptFacts;
use super::fold::usage::Usage;
use super::layout::paths::{
    claude_config_dir, cwd_within, launch_dirs, project_dirs_in, ProjectDir,
};
use super::layout::session_files::find_transcript;
use super::layout::session_meta::{default_desktop_dir, INDEX_FILE};
use super::records::registry::{Registry, RegistryRow};
use super::records::spawn_record::SpawnLog;
use super::session::{DiscoverOptions, DiscoveredSession, JsonlHeader, SessionSource, TokenTotals};
use crate::error::{Error, ErrorCode, Result};
use crate::fast_map::{FastMap, FastSet};
use crate::openclaw::state_dir::resolve_state_dir;
use crate::platform::{self, FileStat};
use crate::repo_path::RepoPath;
use chrono::{DateTime, Utc};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

/// Reads one transcript's header facts (`parseJsonlHeader`).
pub fn parse_jsonl_header(path: &Path, cache: &DiscoveryCache) -> Result<JsonlHeader> {
    let scan = cache.scans().scan(path);
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

/// The project folders that may hold sessions started in `launch_dirs` or
/// below them, from one listing of `projects` taken through `round`: while
/// the change monitor reports no entry created, removed or renamed in
/// `projects`, the kept listing is used and nothing is read (a folder
/// created there since, a new subfolder's say, changes the listing, so the
/// folders, so the [`Inputs`] a kept result was built from).
fn repo_folders(
    projects: &Path,
    launch_dirs: &[PathBuf],
    round: &Round,
    cache: &DiscoveryCache,
) -> Vec<ProjectDir> {
    let Some(listed) = round.list(projects, None) else {
        return Vec::new();
    };
    cache.results().folders(&listed.items, launch_dirs, || {
        let names = listed
            .items
            .iter()
            // A symbolic link is followed, as Claude Code would.
            .filter(|item| item.is_dir || (!item.is_file && projects.join(&item.name).is_dir()))
            .filter_map(|item| item.name.to_str());
        project_dirs_in(projects, names, launch_dirs)
    })
}

fn to_utc(t: SystemTime) -> DateTime<Utc> {
    DateTime::<Utc>::from(t)
}

fn parse_iso(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|d| d.with_timezone(&Utc))
}

/// Discovers every session of the repository at `repo`, most
/// relevant first (running, then most recently modified).
///
/// The result is shared: a repeat call that finds nothing changed returns
/// the very one it returned before (see [`ResultMemo`](super::result_memo)).
pub fn discover_sessions(
    repo: &RepoPath,
    options: &DiscoverOptions,
    cache: &DiscoveryCache,
) -> Arc<Vec<DiscoveredSession>> {
    discover_sessions_as(repo, options, cache, |sessions| sessions)
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
    repo: &RepoPath,
    options: &DiscoverOptions,
    cache: &DiscoveryCache,
    render: impl FnOnce(Vec<DiscoveredSession>) -> T,
) -> Arc<T> {
    let claude_dir = claude_config_dir(options.claude_config_dir.as_deref());
    let projects = claude_dir.join("projects");
    let state_root = resolve_state_dir(options.registry_root.as_deref());
    let persistent = options.persistent_cache.dir();

    let mut registry_rows: Vec<RegistryRow> = Registry::new(&state_root)
        .list_all()
        .into_iter()
        .filter(|row| repo.is(&row.repo_path))
        .collect();
    // Spawns the plugin recorded, for the sessions the registries do not
    // list: OpenClaw's own record of them is gone soon after they end.
    let spawned = SpawnLog::new(&state_root).registry_rows(|r| repo.is(r));
    for row in spawned.learned {
        let id = &row.entry.session_id;
        if !registry_rows.iter().any(|r| &r.entry.session_id == id) {
            registry_rows.push(row);
        }
    }
    let round = cache.dirs().round(
        !options.stat_every_file && !crate::switches::turned_off("OPENCLAW_SESSION_INTEL_WATCH"),
    );
    let mut launch_dirs = launch_dirs(repo);
    if let Some(dir) = &persistent {
        launch_dirs.extend(cache.identities().moved_away(repo, dir));
    }
    let mut inputs = Inputs {
        dirs: repo_folders(&projects, &launch_dirs, &round, cache),
        launch_dirs,
        repo: repo.clone(),
        registry_rows,
        spawned_by_nonce: spawned.by_nonce,
        elsewhere: HashMap::new(),
        running_session_ids: options.running_session_ids.clone(),
        live_session_ids: super::liveness::running_session_ids(&claude_dir),
        repo_busy: options.repo_busy,
        context_windows: options.context_windows.clone(),
        desktop_dir: options
            .claude_desktop_dir
            .clone()
            .or_else(default_desktop_dir),
    };
    // Nothing reported in any folder a kept result came from: it stands,
    // and no folder is read and no file stat'ed.
    if let Some(made) = cache.results().unchanged(&inputs, &round) {
        if persistent.is_some() {
            cache.scans().persist(&claude_dir, 0, false);
        }
        return made;
    }
    // Only files were written to in some of them (a line appended): only
    // those folders' files are stat'ed again. A metadata file written to
    // (an index, a Desktop session's) is read again with everything else.
    if let Some(written) = cache.results().take_written(&inputs, &round) {
        if !written.walk.meta_written_in(&written.folders) {
            let persist_under = persistent.is_some().then_some(claude_dir.as_path());
            return update_written(inputs, written, cache, persist_under, render);
        }
    }
    // A fresh process loads its persistent cache while the folders are
    // listed: neither needs the other, and both wait on the file system.
    let attach = || {
        if let Some(dir) = &persistent {
            cache.scans().attach(&claude_dir, dir);
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

    let (scans, indexes) = scan_all(&listings, &inputs.elsewhere, &round, cache);
    let meta = SessionMeta::read(
        indexes,
        inputs.desktop_dir.as_deref(),
        &round,
        cache.meta_files(),
    );
    let walk = Walk {
        scans,
        listings,
        meta,
    };
    let mut forgot = false;
    for dir in &inputs.dirs {
        forgot |= cache
            .scans()
            .forget_missing(&dir.path, &|p| walk.scans.contains_key(p));
    }
    if persistent.is_some() {
        let read: u64 = walk.scans.values().map(|s| s.read_bytes).sum();
        cache.scans().persist(&claude_dir, read, forgot);
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
                walk.listings
                    .iter()
                    .flat_map(|l| &l.folders)
                    .chain(&walk.meta.folders),
                walk.listings
                    .iter()
                    .flat_map(|l| &l.absent)
                    .chain(&walk.meta.absent),
            )
        })
        .flatten()
        .map(Arc::new);
    if let Some(made) = cache.results().get(&inputs, &walk, vouched.clone()) {
        return made;
    }
    build_and_keep(inputs, walk, vouched, cache, render)
}

/// Builds the sessions of `inputs` from `walk`, makes them into what the
/// caller keeps, and keeps that in the result memo.
fn build_and_keep<T: Send + Sync + 'static>(
    inputs: Inputs,
    walk: Walk,
    vouched: Option<Arc<Vouched>>,
    cache: &DiscoveryCache,
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
    cache: &DiscoveryCache,
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
        cache.scans().persist(config_dir, read, false);
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

/// A file and its stat (`None` when it could not be stat'ed).
type Stated = (PathBuf, Option<FileStat>);

/// Stats every file of the listings and `elsewhere` at once, and scans
/// the transcripts that changed since their last scan; also returns the
/// folders' indexes with their stats.
fn scan_all(
    listings: &[FolderListing],
    elsewhere: &HashMap<String, PathBuf>,
    round: &Round,
    cache: &DiscoveryCache,
) -> (FastMap<OsString, FileScan>, Vec<Stated>) {
    // Keyed by the path's bytes: hashing a `Path` walks its components.
    let folders: FastMap<&OsStr, &Listed> = listings
        .iter()
        .flat_map(|l| &l.folders)
        .map(|f| (f.dir.as_os_str(), f))
        .collect();
    let mut seen_files: FastSet<&OsStr> = FastSet::default();
    let files: Vec<&PathBuf> = listings
        .iter()
        .flat_map(FolderListing::files_read)
        .chain(elsewhere.values())
        .filter(|p| seen_files.insert(p.as_os_str()))
        .collect();
    let mut stated = stat_by_folder(&files, |dir, names| match folders.get(dir.as_os_str()) {
        Some(listed) => round.stat(listed, names),
        None => platform::stat_each_in(dir, names),
    });
    let mut indexes = Vec::new();
    if listings.iter().any(|l| l.index.is_some()) {
        stated.retain(|(path, stat)| {
            let index = path.file_name().is_some_and(|n| n == INDEX_FILE);
            if index {
                indexes.push(((*path).clone(), *stat));
            }
            !index
        });
    }
    let scans = scan_stated(stated, cache)
        .into_iter()
        .map(|(path, scan)| (path.as_os_str().to_owned(), scan))
        .collect();
    (scans, indexes)
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
    cache: &DiscoveryCache,
) -> Vec<(&'a PathBuf, FileScan)> {
    let unchanged = cache.scans().unchanged(&stated);
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
    scans.extend(
        changed
            .iter()
            .map(|(p, _)| *p)
            .zip(cache.scans().scan_many(&files)),
    );
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
fn build_sessions(inputs: &Inputs, walk: &Walk, cache: &DiscoveryCache) -> Vec<DiscoveredSession> {
    let Walk {
        listings,
        scans,
        meta,
    } = walk;
    let overlay = meta.overlay();
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
            if dir.needs_cwd_check && !cwd_matches(scans.get(path.as_os_str()), &inputs.launch_dirs)
            {
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

    // Main transcripts by session id: where a fork finds what its parent's
    // accounting was when it was forked.
    let parents: FastMap<&str, &Arc<TranscriptFacts>> = native
        .iter()
        .map(|(id, path, _)| (id.as_str(), path))
        .chain(
            inputs
                .elsewhere
                .iter()
                .map(|(id, path)| (id.as_str(), path)),
        )
        .filter_map(|(id, path)| Some((id, &scans.get(path.as_os_str())?.facts)))
        .collect();
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
        let known = Known {
            summaries: &summary_titles,
            parents: &parents,
            windows: &inputs.context_windows,
            overlay: &overlay,
        };
        SessionRow::new(id, main, main_scan, &sub_scans, &known, cache)
    };
    // Not a conversation of its own, as Claude Code's `/resume` sees it: a
    // side question's log (its first lines are sidechain lines), or marked
    // so in an index. Listed only when OpenClaw's registry names it.
    let hidden = |id: &str, path: &PathBuf| {
        overlay.hidden.contains(id)
            || scans
                .get(path.as_os_str())
                .is_some_and(|s| s.facts.opens_on_sidechain == Some(true))
    };

    // A session found only in the folders that a spawn of the plugin
    // started, by the nonce in its first prompt, when the spawn's record
    // never learned its id.
    let spawned = |path: &PathBuf| {
        let nonce = scans.get(path.as_os_str())?.facts.spawn_nonce.as_deref()?;
        inputs
            .spawned_by_nonce
            .iter()
            .find(|(n, _)| n == nonce)
            .map(|(_, row)| row)
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
                .filter(|(id, path, _)| !registered.contains(id.as_str()) && !hidden(id, path))
                .map(|(id, path, subs)| (id.as_str(), Some(path), subs.as_slice(), spawned(path))),
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
            // What OpenClaw recorded, as the reference reports it.
            s.total_cost_usd = Some(row.entry.total_cost_usd);
            s.total_turns = Some(row.entry.total_turns);
            s.last_task = row.entry.task_history.last().map(|t| t.task.clone());
            s.label = row.entry.label.clone();
            s.is_running = inputs.repo_busy || running.contains(id);
            s
        })
        .collect();
    out.par_sort_by(|a, b| {
        a.archived
            .cmp(&b.archived)
            .then(b.is_running.cmp(&a.is_running))
            .then(b.last_modified.cmp(&a.last_modified))
            .then(a.session_id.cmp(&b.session_id))
    });
    out
}

/// Whether a transcript's `cwd` is one of the repository's launch
/// directories or lies below one.
fn cwd_matches(scan: Option<&FileScan>, launch_dirs: &[PathBuf]) -> bool {
    scan.and_then(|s| s.facts.cwd.as_deref())
        .is_some_and(|cwd| cwd_within(cwd, launch_dirs))
}

/// What the sessions of one call share, to build each of them.
struct Known<'a> {
    /// Titles from summary records, keyed by the leaf they name.
    summaries: &'a HashMap<u128, &'a str>,
    /// Main transcripts' facts by session id.
    parents: &'a FastMap<&'a str, &'a Arc<TranscriptFacts>>,
    /// Context windows of models, the caller's over the built-in table.
    windows: &'a ContextWindows,
    /// Titles, archived flags and hidden sessions from indexes and Claude Desktop.
    overlay: &'a Overlay<'a>,
}

/// The transcript-derived part of a session row.
struct SessionRow {
    id: String,
    path: Option<String>,
    size: u64,
    modified: Option<DateTime<Utc>>,
    facts: Arc<TranscriptFacts>,
    tokens: TokenTotals,
    /// What the CLI itself says the session cost, when it says.
    cost_usd: Option<f64>,
    title: String,
    subagents: u32,
    models: Vec<String>,
    archived: bool,
    context_window: Option<u64>,
}

/// What the API billed under a session's id, as the CLI itself accounted
/// it in the transcript's last `cost-state` (every call, compaction calls
/// and subagents included): for a fork, what it billed beyond what it
/// inherited from its parent (the parent's accounting right after the last
/// response the fork copied). `None` when the transcript has no such
/// accounting, or for a fork whose parent's is not found.
fn billed(
    facts: &TranscriptFacts,
    parents: &FastMap<&str, &Arc<TranscriptFacts>>,
) -> Option<(Usage, Option<f64>)> {
    let state = facts.cost_state.as_ref()?;
    // A figure that leaves out a model the CLI could not price is no total.
    let cost = state.cost_usd.filter(|_| !state.unknown_model_cost);
    let Some(fork) = &facts.forked_from else {
        return Some((state.usage, cost));
    };
    let parent = parents.get(fork.parent.as_str())?;
    let at_fork = parent
        .cost_marks
        .iter()
        .find(|mark| mark.after == fork.at)?;
    let own_cost = match (cost, at_fork.cost_usd) {
        // Rounded to a billionth of a cent: the difference of two sums of
        // floating-point prices carries noise below that.
        (Some(total), Some(inherited)) => {
            Some(((total - inherited).max(0.0) * 1e11).round() / 1e11)
        }
        _ => None,
    };
    Some((state.usage.minus(at_fork.usage), own_cost))
}

/// The models of a session's transcripts (its main one first, then its
/// subagents'), each once, in order of first use.
fn session_models(main: &TranscriptFacts, subs: &[&FileScan]) -> Vec<String> {
    if subs.iter().all(|s| s.facts.models.is_empty()) {
        return main.models.clone();
    }
    let mut used: Vec<(Option<&str>, &str)> = std::iter::once(main)
        .chain(subs.iter().map(|s| &*s.facts))
        .flat_map(|f| {
            let when = f.models_first_used.iter().map(Option::as_deref);
            when.chain(std::iter::repeat(None))
                .zip(f.models.iter().map(String::as_str))
        })
        .collect();
    // Stable: a model whose first use has no time keeps its file's order,
    // after those with one.
    used.sort_by(|a, b| match (a.0, b.0) {
        (Some(x), Some(y)) => x.cmp(y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    let mut models: Vec<String> = Vec::new();
    for (_, model) in used {
        if !models.iter().any(|m| m == model) {
            models.push(model.to_owned());
        }
    }
    models
}

impl SessionRow {
    fn new(
        id: &str,
        main: Option<&PathBuf>,
        main_scan: Option<&FileScan>,
        subs: &[&FileScan],
        known: &Known<'_>,
        cache: &DiscoveryCache,
    ) -> Self {
        let readable = main_scan.filter(|s| s.error.is_none());
        let facts = readable.map(|s| s.facts.clone()).unwrap_or_default();
        let billed = billed(&facts, known.parents);
        let t = match (&billed, main) {
            (Some((usage, _)), _) => *usage,
            (None, Some(path)) => {
                let parts: Vec<&Arc<TranscriptFacts>> = std::iter::once(&facts)
                    .chain(subs.iter().map(|s| &s.facts))
                    .collect();
                cache.scans().session_usage(path, &parts)
            }
            (None, None) => facts.usage.totals(),
        };
        let summary = facts
            .leaves
            .iter()
            .find_map(|leaf| known.summaries.get(leaf).copied());
        // Claude Desktop's name, else Claude Code's order: custom title,
        // generated title, summary, first prompt.
        let desktop = known.overlay.desktop.get(id).copied().unwrap_or_default();
        let title = desktop
            .title
            .map(str::to_owned)
            .or_else(|| facts.custom_title.clone())
            .or_else(|| facts.ai_title.clone())
            .or_else(|| summary.map(str::to_owned))
            .or_else(|| known.overlay.summaries.get(id).map(|s| (*s).to_owned()))
            .or_else(|| facts.first_prompt.clone())
            .unwrap_or_else(|| id.chars().take(8).collect());
        SessionRow {
            id: id.to_owned(),
            path: main.map(|p| p.to_string_lossy().into_owned()),
            size: readable.map_or(0, |s| s.size),
            modified: readable.map(|s| to_utc(s.modified)),
            tokens: TokenTotals {
                input: t.input,
                output: t.output,
                cache_read: t.cache_read,
                cache_creation: t.cache_creation,
            },
            cost_usd: billed.and_then(|(_, cost)| cost),
            title,
            subagents: subs.len() as u32,
            models: session_models(&facts, subs),
            context_window: facts.context_model.as_deref().map(|m| known.windows.of(m)),
            facts,
            archived: desktop.archived,
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
            slim_savings_bytes: f.slim_savings.bytes,
            slim_savings_tokens: f.slim_savings.tokens(),
            total_cost_usd: self.cost_usd,
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
            context_window: self.context_window,
            models: self.models,
            subagent_count: self.subagents,
            prompt_count: f.prompt_count,
            response_count: f.response_count,
            entrypoint: f.entrypoint.clone(),
            version: f.version.clone(),
            last_user_message: f.last_prompt.clone(),
            transcript_path: self.path,
            files_touched: f.files_touched.clone(),
            archived: self.archived,
        }
    }
}
