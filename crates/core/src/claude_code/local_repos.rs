//! The folders on this host that hold a repository named by identity
//! (`localRepositories`): a path hint first when it matches, then the
//! working folders of Claude Code's project folders (the `cwd` their newest
//! session records, read through the scan cache), then folders the identity
//! index remembers for it. Each folder found is remembered in the index.

use super::cache::DiscoveryCache;
use super::layout::paths::{claude_config_dir, project_slug};
use super::layout::session_files::session_id_of;
use crate::repo_identity::{same_repository, RepositoryIdentity};
use rayon::prelude::*;
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Where to look for a repository's folders.
#[derive(Debug, Clone, Default)]
pub struct LocalSearch {
    /// Claude Code's config root. Default: `$CLAUDE_CONFIG_DIR`, else
    /// `~/.claude`.
    pub claude_config_dir: Option<PathBuf>,
    /// A folder that may hold the repository, looked at first.
    pub path_hint: Option<PathBuf>,
    /// The identity index's folder (discovery's persistent cache folder);
    /// none: nothing remembered or looked up.
    pub index_dir: Option<PathBuf>,
}

/// The folders found for an identity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LocalRepositories {
    /// Existing repository folders (top levels) of the identity: the hint
    /// first when it matches, then by path.
    pub folders: Vec<PathBuf>,
    /// Folders the index remembers for the identity that no longer exist
    /// (it was moved or renamed from them): their sessions are the
    /// repository's too.
    pub moved_away: Vec<PathBuf>,
}

/// The newest session transcript of a project folder.
fn newest_session(folder: &Path) -> Option<PathBuf> {
    fs::read_dir(folder)
        .ok()?
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| session_id_of(n).is_some())
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max()
        .map(|(_, path)| path)
}

/// The working folders Claude Code's project folders under `claude_dir`
/// were started in, but for folders named after one of `known`; and the
/// bytes of transcripts read to learn them.
fn project_cwds(
    claude_dir: &Path,
    known: &HashSet<String>,
    cache: &DiscoveryCache,
) -> (Vec<PathBuf>, u64) {
    let Ok(entries) = fs::read_dir(claude_dir.join("projects")) else {
        return (Vec::new(), 0);
    };
    let folders: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| !e.file_name().to_str().is_some_and(|n| known.contains(n)))
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    let scans: Vec<(Option<PathBuf>, u64)> = folders
        .par_iter()
        .filter_map(|folder| {
            let scan = cache.scans().scan(&newest_session(folder)?);
            Some((
                scan.facts.cwd.as_deref().map(PathBuf::from),
                scan.read_bytes,
            ))
        })
        .collect();
    let read = scans.iter().map(|(_, bytes)| bytes).sum();
    (scans.into_iter().filter_map(|(cwd, _)| cwd).collect(), read)
}

/// The folders on this host holding the repository `identity`.
pub fn local_repositories(
    identity: &RepositoryIdentity,
    search: &LocalSearch,
    cache: &DiscoveryCache,
) -> LocalRepositories {
    let claude_dir = claude_config_dir(search.claude_config_dir.as_deref());
    let index = search.index_dir.as_deref();
    if let Some(dir) = index {
        cache.scans().attach(&claude_dir, dir);
    }
    let identities = cache.identities();
    let remembered = index
        .map(|d| identities.remembered(d, identity, true))
        .unwrap_or_default();
    let moved_away = index
        .map(|d| identities.remembered(d, identity, false))
        .unwrap_or_default();
    let known: HashSet<String> = search
        .path_hint
        .iter()
        .chain(&remembered)
        .map(|p| project_slug(&p.to_string_lossy()))
        .collect();
    let mut candidates: Vec<PathBuf> = search.path_hint.iter().cloned().collect();
    candidates.extend(remembered);
    let (cwds, read) = project_cwds(&claude_dir, &known, cache);
    candidates.extend(cwds);
    let mut seen = HashSet::new();
    candidates.retain(|c| c.is_dir() && seen.insert(c.clone()));
    let matched: Vec<(usize, PathBuf)> = candidates
        .par_iter()
        .enumerate()
        .filter_map(|(at, folder)| {
            let found = identities.identity(folder, index, identity.remote.is_none());
            same_repository(&found, identity).then(|| (at, PathBuf::from(found.path)))
        })
        .collect();
    let hint_matched =
        search.path_hint.is_some() && matched.first().is_some_and(|(at, _)| *at == 0);
    let mut folders: Vec<PathBuf> = Vec::new();
    for (_, folder) in &matched {
        if !folders.contains(folder) {
            folders.push(folder.clone());
        }
    }
    let first = usize::from(hint_matched).min(folders.len());
    folders[first..].sort();
    if index.is_some() {
        cache.scans().persist(&claude_dir, read, false);
    }
    LocalRepositories {
        folders,
        moved_away,
    }
}
