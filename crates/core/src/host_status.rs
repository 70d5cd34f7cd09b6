//! The briefing's facts of a repository named by identity on this host
//! (`hostProjectStatus`): the [`ProjectStatus`] of each of its local
//! folders, bounded as a host page of sessions is
//! ([`host_page`](crate::claude_code::host_page)).

use crate::claude_code::host_page::{host_folders, HostSessionsRequest, PageBudget, PAGE_VERSION};
use crate::claude_code::DiscoveryCache;
use crate::project_status::{gather_project_status, ProjectStatus, ProjectStatusOptions};

/// The statuses of a repository's local folders.
#[derive(Debug, Clone, PartialEq)]
pub struct HostProjectStatus {
    /// The format version (as a page of sessions).
    pub v: u32,
    /// The local folders of the repository, the hint first when it matched.
    pub repositories: Vec<String>,
    /// The status of each folder, in the order of `repositories`, as far as
    /// the limit and the byte bound allow.
    pub statuses: Vec<ProjectStatus>,
    /// Folders were left out by the limit or the byte bound.
    pub truncated: bool,
}

/// The status of each local folder of the request's repository (its
/// `limit`, `maxBytes` and `pathHint` as for a page of sessions; no
/// cursor). `size_of` gives the bytes of a status's JSON as the caller
/// writes it. A folder whose status cannot be read is left out.
pub fn host_project_status(
    request: &HostSessionsRequest,
    options: &ProjectStatusOptions,
    cache: &DiscoveryCache,
    size_of: impl Fn(&ProjectStatus) -> usize + Sync,
) -> HostProjectStatus {
    let repositories: Vec<String> = host_folders(request, &options.discover, cache)
        .folders
        .iter()
        .map(|f| f.to_string_lossy().into_owned())
        .collect();
    // A thread per folder, not rayon's pool: a status waits on threads of
    // its own that use the pool (discovery), which a pool worker blocked
    // here would starve.
    let mut budget = PageBudget::of(request, &repositories);
    let gathered: Vec<(ProjectStatus, usize)> = std::thread::scope(|scope| {
        let size_of = &size_of;
        let running: Vec<_> = repositories
            .iter()
            .take(budget.items())
            .map(|folder| {
                scope.spawn(move || {
                    let status = gather_project_status(folder, None, options, cache).ok()?;
                    let bytes = size_of(&status);
                    Some((status, bytes))
                })
            })
            .collect();
        running
            .into_iter()
            .filter_map(|t| t.join().ok().flatten())
            .collect()
    });
    let mut statuses = Vec::new();
    for (status, bytes) in gathered {
        if !budget.take(bytes) {
            break;
        }
        statuses.push(status);
    }
    HostProjectStatus {
        v: PAGE_VERSION,
        truncated: statuses.len() < repositories.len(),
        repositories,
        statuses,
    }
}
