//! One host's page of the sessions of a repository named by identity
//! (`hostSessionsPage`): what a paired node answers the gateway. The
//! sessions of every local folder of the repository (see
//! [`local_repositories`]), each once, newest first, each with the folder
//! it was found in and whether a Claude Code process runs it now (the
//! liveness records the busy guard reads). Bounded by a count and by the
//! bytes of its JSON; an opaque cursor names where the next page starts.

use super::cache::DiscoveryCache;
use super::discovery::discover_sessions;
use super::local_repos::{local_repositories, LocalRepositories, LocalSearch};
use super::session::{DiscoverOptions, DiscoveredSession};
use crate::error::{Error, ErrorCode, Result};
use crate::repo_identity::RepositoryIdentity;
use crate::repo_path::RepoPath;
use std::collections::HashSet;
use std::path::PathBuf;

/// The format version of a page.
pub const PAGE_VERSION: u32 = 1;
/// Sessions on a page when the request does not say.
pub const DEFAULT_LIMIT: u32 = 50;
/// Most sessions on a page.
pub const MAX_LIMIT: u32 = 200;
/// Bytes of JSON a page stays within when the request does not say (1 MiB).
pub const DEFAULT_MAX_BYTES: usize = 1 << 20;
/// The least `maxBytes` honoured (16 KiB): one session always fits.
pub const MIN_MAX_BYTES: usize = 16 << 10;
/// The most `maxBytes` honoured (16 MiB, under OpenClaw's 25 MiB frame).
pub const MAX_MAX_BYTES: usize = 16 << 20;
/// Bytes of a page's JSON besides its sessions and folders.
const PAGE_OVERHEAD: usize = 128;

/// What a host page asks for.
#[derive(Debug, Clone, Default)]
pub struct HostSessionsRequest {
    /// The repository, by identity.
    pub identity: RepositoryIdentity,
    /// A folder that may hold it on this host, looked at first.
    pub path_hint: Option<PathBuf>,
    /// Sessions on the page: 1 to [`MAX_LIMIT`] (a number out of range is
    /// brought into it); default [`DEFAULT_LIMIT`].
    pub limit: Option<f64>,
    /// Where the page starts: a previous page's `next_cursor`.
    pub cursor: Option<String>,
    /// Bytes of JSON the page stays within, [`MIN_MAX_BYTES`] to
    /// [`MAX_MAX_BYTES`]; default [`DEFAULT_MAX_BYTES`].
    pub max_bytes: Option<f64>,
}

/// A session as a host page lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct HostSession {
    /// The session, as discovery found it (its `repo_path` the local folder).
    pub session: DiscoveredSession,
    /// The local folder of the repository it was found for.
    pub project_path: String,
    /// A Claude Code process runs it now.
    pub running: bool,
}

/// One page of a host's sessions of a repository.
#[derive(Debug, Clone, PartialEq)]
pub struct HostSessionsPage {
    /// The page's format version (1).
    pub v: u32,
    /// The local folders whose sessions the page lists.
    pub repositories: Vec<String>,
    /// The sessions, newest first (ties by session id).
    pub sessions: Vec<HostSession>,
    /// Where the next page starts; none on the last page.
    pub next_cursor: Option<String>,
    /// Sessions were left out by the limit or the byte bound (the next page
    /// holds them).
    pub truncated: bool,
}

/// A position in the order of a page: after this session.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cursor {
    millis: i64,
    session_id: String,
}

impl Cursor {
    fn of(s: &DiscoveredSession) -> Cursor {
        Cursor {
            millis: s.last_modified.timestamp_millis(),
            session_id: s.session_id.clone(),
        }
    }

    /// Opaque: the hex of `1:<millis>:<session id>`.
    fn encode(&self) -> String {
        format!("1:{}:{}", self.millis, self.session_id)
            .bytes()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    fn decode(text: &str) -> Result<Cursor> {
        let bad = || {
            Error::new(ErrorCode::InvalidArgument, "cursor is not one a page gave").with_hint(
                "pass the nextCursor of the previous page, or leave cursor out for the first",
            )
        };
        if !text.len().is_multiple_of(2) || text.len() > 512 {
            return Err(bad());
        }
        let bytes: Option<Vec<u8>> = (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
            .collect();
        let plain = String::from_utf8(bytes.ok_or_else(bad)?).map_err(|_| bad())?;
        let mut parts = plain.splitn(3, ':');
        match (parts.next(), parts.next(), parts.next()) {
            (Some("1"), Some(millis), Some(id)) => Ok(Cursor {
                millis: millis.parse().map_err(|_| bad())?,
                session_id: id.to_owned(),
            }),
            _ => Err(bad()),
        }
    }

    /// Whether `s` comes after this position (newest first, ties by id).
    fn before(&self, s: &DiscoveredSession) -> bool {
        let m = s.last_modified.timestamp_millis();
        m < self.millis || (m == self.millis && s.session_id > self.session_id)
    }
}

/// What is left of a page's bounds: items and bytes of JSON.
#[derive(Debug, Clone)]
pub struct PageBudget {
    /// Items the page may still take.
    items: usize,
    /// Bytes the page stays within.
    max_bytes: usize,
    /// Bytes taken so far (the page's frame and folders included).
    used: usize,
    /// Nothing taken yet: the first item always fits.
    empty: bool,
}

impl PageBudget {
    /// The bounds `request` asks for, on a page naming `repositories`.
    pub fn of(request: &HostSessionsRequest, repositories: &[String]) -> PageBudget {
        PageBudget {
            items: bounded(request.limit, DEFAULT_LIMIT as usize, 1, MAX_LIMIT as usize),
            max_bytes: bounded(
                request.max_bytes,
                DEFAULT_MAX_BYTES,
                MIN_MAX_BYTES,
                MAX_MAX_BYTES,
            ),
            used: PAGE_OVERHEAD + repositories.iter().map(|r| r.len() + 3).sum::<usize>(),
            empty: true,
        }
    }

    /// Items the page may hold at most from now on.
    pub fn items(&self) -> usize {
        self.items
    }

    /// Takes an item of `bytes` of JSON when it fits, and says whether it did.
    pub fn take(&mut self, bytes: usize) -> bool {
        let bytes = bytes + 1; // its comma
        if self.items == 0 || (!self.empty && self.used + bytes > self.max_bytes) {
            return false;
        }
        self.items -= 1;
        self.used += bytes;
        self.empty = false;
        true
    }
}

/// A number the request gave, as a whole number within `min..=max`.
fn bounded(value: Option<f64>, default: usize, min: usize, max: usize) -> usize {
    match value.filter(|v| v.is_finite()) {
        Some(v) => (v.max(0.0).floor() as usize).clamp(min, max),
        None => default,
    }
}

/// The sessions of the repository on this host, as one page. `size_of`
/// gives the bytes of a session's JSON as the caller writes it. Fails
/// only on a cursor that no page gave (`E_INVALID_ARGUMENT`).
pub fn host_sessions_page(
    request: &HostSessionsRequest,
    options: &DiscoverOptions,
    cache: &DiscoveryCache,
    size_of: impl Fn(&HostSession) -> usize,
) -> Result<HostSessionsPage> {
    let after = request.cursor.as_deref().map(Cursor::decode).transpose()?;
    let (repositories, mut sessions) = host_sessions(request, options, cache);
    // By the millisecond, as the cursor names a position.
    let millis = |s: &HostSession| s.session.last_modified.timestamp_millis();
    sessions.sort_by(|a, b| {
        millis(b)
            .cmp(&millis(a))
            .then_with(|| a.session.session_id.cmp(&b.session.session_id))
    });
    let mut budget = PageBudget::of(request, &repositories);
    let mut page = Vec::new();
    let mut rest = sessions
        .into_iter()
        .filter(|s| after.as_ref().is_none_or(|c| c.before(&s.session)))
        .peekable();
    while let Some(next) = rest.peek() {
        if !budget.take(size_of(next)) {
            break;
        }
        page.extend(rest.next());
    }
    let truncated = rest.peek().is_some();
    Ok(HostSessionsPage {
        v: PAGE_VERSION,
        repositories,
        next_cursor: truncated
            .then(|| {
                page.last()
                    .map(|s: &HostSession| Cursor::of(&s.session).encode())
            })
            .flatten(),
        sessions: page,
        truncated,
    })
}

/// The folders of the request's repository on this host, looked up in the
/// identity index of `options`' persistent cache folder (and remembered
/// there).
pub fn host_folders(
    request: &HostSessionsRequest,
    options: &DiscoverOptions,
    cache: &DiscoveryCache,
) -> LocalRepositories {
    let search = LocalSearch {
        claude_config_dir: options.claude_config_dir.clone(),
        path_hint: request.path_hint.clone(),
        index_dir: options.persistent_cache.dir(),
    };
    local_repositories(&request.identity, &search, cache)
}

/// Every session of the repository on this host, each once (from the
/// first folder that lists it), and the folders they came from.
pub fn host_sessions(
    request: &HostSessionsRequest,
    options: &DiscoverOptions,
    cache: &DiscoveryCache,
) -> (Vec<String>, Vec<HostSession>) {
    let local = host_folders(request, options, cache);
    // A repository moved away from every folder still found: its sessions
    // are listed under the folders it was last seen at.
    let folders = if local.folders.is_empty() {
        local.moved_away
    } else {
        local.folders
    };
    let mut seen = HashSet::new();
    let mut sessions = Vec::new();
    for folder in &folders {
        let project_path = folder.to_string_lossy().into_owned();
        for s in discover_sessions(&RepoPath::of(folder), options, cache).iter() {
            if seen.insert(s.session_id.clone()) {
                sessions.push(HostSession {
                    running: s.is_running,
                    session: s.clone(),
                    project_path: project_path.clone(),
                });
            }
        }
    }
    let repositories = folders
        .iter()
        .map(|f| f.to_string_lossy().into_owned())
        .collect();
    (repositories, sessions)
}
