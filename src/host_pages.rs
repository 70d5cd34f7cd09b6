//! What one host answers about a repository named by identity, and the
//! briefing lines made of other hosts' answers: `localRepositories`,
//! `hostSessionsPage` (and its JSON), `hostProjectStatus`,
//! `remoteWorkBriefing`; and a node's page read as tool rows on the gateway,
//! `hostPageRowsJson`.

use crate::claude_code::{DiscoverOptions, DiscoveredSession};
use crate::error::{run_sync, CoreTask};
use crate::project_status::ProjectStatus;
use crate::repo_identity::{identity_of, nullable, RepositoryIdentityInput};
use chrono::{DateTime, Utc};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core::claude_code::host_page::{self as hp, HostSession};
use session_intel_core::claude_code::local_repos::{local_repositories as find_local, LocalSearch};
use session_intel_core::claude_code::{self as cc, DiscoveryCache, PersistentCache};
use session_intel_core::host_rows;
use session_intel_core::host_status;
use session_intel_core::preflight::remote_work as rw;
use session_intel_core::project_status as ps;
use session_intel_core::selection::Candidate;
use std::path::PathBuf;

/// Options of `localRepositories` (all optional).
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct LocalRepositoriesOptions {
    /// Claude Code's config root. Default: `$CLAUDE_CONFIG_DIR`, else
    /// `~/.claude`.
    pub claude_config_dir: Option<String>,
    /// A folder that may hold the repository, looked at first.
    pub path_hint: Option<String>,
}

/// The folders on this host that hold the repository `identity` names: the
/// path hint first when it matches, then the working folders of Claude
/// Code's project folders (`<config>/projects/*`, the `cwd` of their newest
/// session) and folders the identity index remembers for it, each by its
/// top level. Every folder looked at is remembered in the index.
#[napi(catch_unwind, ts_return_type = "Promise<Array<string>>")]
pub fn local_repositories(
    identity: RepositoryIdentityInput,
    options: Option<LocalRepositoriesOptions>,
) -> AsyncTask<CoreTask<Vec<PathBuf>, Vec<String>>> {
    let options = options.unwrap_or_default();
    let identity = identity_of(identity);
    let search = LocalSearch {
        claude_config_dir: options.claude_config_dir.map(PathBuf::from),
        path_hint: options.path_hint.map(PathBuf::from),
        index_dir: PersistentCache::Default.dir(),
    };
    AsyncTask::new(CoreTask::new(
        move || Ok(find_local(&identity, &search, DiscoveryCache::global()).folders),
        |folders| {
            folders
                .into_iter()
                .map(|f| f.to_string_lossy().into_owned())
                .collect()
        },
    ))
}

/// What a host page asks for: the node command
/// `sessionintel.sessions.list.v1`'s parameters.
#[napi(object, object_to_js = false)]
pub struct HostSessionsRequest {
    /// The repository, by identity.
    pub identity: RepositoryIdentityInput,
    /// A folder that may hold it on this host, looked at first.
    pub path_hint: Option<String>,
    /// Sessions on the page: 1 to 200 (a number out of range is brought
    /// into it); default 50.
    pub limit: Option<f64>,
    /// Where the page starts: a previous page's `nextCursor`.
    pub cursor: Option<String>,
    /// Claude Code's config root. Default: `$CLAUDE_CONFIG_DIR`, else
    /// `~/.claude`.
    pub claude_config_dir: Option<String>,
    /// Bytes of JSON the page stays within, 16 KiB to 16 MiB; default 1 MiB.
    pub max_bytes: Option<f64>,
}

/// The core request and the discovery options of a request.
fn request_of(r: HostSessionsRequest) -> (hp::HostSessionsRequest, cc::DiscoverOptions) {
    let options = DiscoverOptions {
        claude_config_dir: r.claude_config_dir,
        ..DiscoverOptions::default()
    };
    let request = hp::HostSessionsRequest {
        identity: identity_of(r.identity),
        path_hint: r.path_hint.map(PathBuf::from),
        limit: r.limit,
        cursor: r.cursor,
        max_bytes: r.max_bytes,
    };
    (request, options.into())
}

/// What a host page adds to each `DiscoveredSession` it lists.
#[napi(object, object_from_js = false)]
pub struct HostSessionFields {
    /// The local folder of the repository it was found for.
    pub project_path: String,
    /// A Claude Code process runs it now.
    pub running: bool,
}

/// One page of a host's sessions of a repository: what the node command
/// `sessionintel.sessions.list.v1` answers.
#[napi(object, object_from_js = false)]
pub struct HostSessionsPage {
    /// The page's format version (1).
    pub v: u32,
    /// The local folders whose sessions the page lists.
    pub repositories: Vec<String>,
    /// The sessions, newest first (ties by session id).
    #[napi(ts_type = "Array<DiscoveredSession & HostSessionFields>")]
    pub sessions: Vec<serde_json::Value>,
    /// Where the next page starts; none on the last page.
    pub next_cursor: Either<String, Null>,
    /// Sessions were left out by the limit or the byte bound (the next page
    /// holds them).
    pub truncated: bool,
}

/// A session's JSON as a page writes it (times in milliseconds).
fn session_json(s: &HostSession) -> serde_json::Value {
    let mut value = serde_json::to_value(DiscoveredSession::from(&s.session)).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.insert("projectPath".into(), s.project_path.clone().into());
        map.insert("running".into(), s.running.into());
    }
    value
}

/// The page's JSON.
fn page_json(page: &hp::HostSessionsPage) -> serde_json::Value {
    serde_json::json!({
        "v": page.v,
        "repositories": page.repositories,
        "sessions": page.sessions.iter().map(session_json).collect::<Vec<_>>(),
        "nextCursor": page.next_cursor,
        "truncated": page.truncated,
    })
}

impl From<hp::HostSessionsPage> for HostSessionsPage {
    fn from(page: hp::HostSessionsPage) -> Self {
        HostSessionsPage {
            v: page.v,
            sessions: page.sessions.iter().map(session_json).collect(),
            repositories: page.repositories,
            next_cursor: nullable(page.next_cursor),
            truncated: page.truncated,
        }
    }
}

/// The page of a request.
fn page_of(request: HostSessionsRequest) -> session_intel_core::Result<hp::HostSessionsPage> {
    let (request, options) = request_of(request);
    let size_of = |s: &HostSession| {
        serde_json::to_vec(&session_json(s))
            .unwrap_or_default()
            .len()
    };
    hp::host_sessions_page(&request, &options, DiscoveryCache::global(), size_of)
}

/// One host's page of the sessions of the repository `request.identity`
/// names: the sessions of every local folder of it (see
/// `localRepositories`), each once, newest first, each with `projectPath`
/// and `running` (a Claude Code process runs it now, by the liveness
/// records the busy guard reads). At most `limit` sessions and `maxBytes`
/// of JSON; `nextCursor` names the next page. The package's
/// `hostSessionsPage` gives `Date`s as `discoverSessions` does; this
/// binding function gives milliseconds. Rejects with `E_INVALID_ARGUMENT`
/// for a cursor no page gave.
#[napi(catch_unwind, ts_return_type = "Promise<HostSessionsPage>")]
pub fn host_sessions_page(
    request: HostSessionsRequest,
) -> AsyncTask<CoreTask<hp::HostSessionsPage, HostSessionsPage>> {
    AsyncTask::new(CoreTask::new(
        move || page_of(request),
        HostSessionsPage::from,
    ))
}

/// `hostSessionsPage` as JSON text (times in milliseconds), written on the
/// worker thread: what the node command answers, as it is.
#[napi(catch_unwind, ts_return_type = "Promise<string>")]
pub fn host_sessions_page_json(
    request: HostSessionsRequest,
) -> AsyncTask<CoreTask<String, String>> {
    AsyncTask::new(CoreTask::new(
        move || page_of(request).map(|page| page_json(&page).to_string()),
        |json| json,
    ))
}

/// The statuses of a repository's local folders on one host.
#[napi(object, object_from_js = false)]
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

impl From<host_status::HostProjectStatus> for HostProjectStatus {
    fn from(h: host_status::HostProjectStatus) -> Self {
        HostProjectStatus {
            v: h.v,
            repositories: h.repositories,
            statuses: h.statuses.into_iter().map(ProjectStatus::from).collect(),
            truncated: h.truncated,
        }
    }
}

/// Bytes of a status's JSON, as the sessions it names make most of it.
fn status_bytes(status: &ps::ProjectStatus) -> usize {
    let s = &status.sessions;
    let sessions: usize = s
        .active
        .iter()
        .chain(&s.recent)
        .chain(&s.own_recent)
        .map(|s| {
            serde_json::to_vec(&DiscoveredSession::from(s))
                .unwrap_or_default()
                .len()
        })
        .sum();
    sessions + format!("{:?}{:?}{:?}", status.git, status.github, status.docs).len()
}

/// The briefing's facts of the repository `request.identity` names on this
/// host: the `ProjectStatus` of each of its local folders (`limit`,
/// `maxBytes` and `pathHint` as for `hostSessionsPage`; no cursor). What
/// the node command `sessionintel.status.v1` answers.
#[napi(catch_unwind, ts_return_type = "Promise<HostProjectStatus>")]
pub fn host_project_status(
    request: HostSessionsRequest,
) -> AsyncTask<CoreTask<host_status::HostProjectStatus, HostProjectStatus>> {
    let (request, discover) = request_of(request);
    let options = ps::ProjectStatusOptions {
        discover,
        ..ps::ProjectStatusOptions::default()
    };
    AsyncTask::new(CoreTask::new(
        move || {
            Ok(host_status::host_project_status(
                &request,
                &options,
                DiscoveryCache::global(),
                status_bytes,
            ))
        },
        HostProjectStatus::from,
    ))
}

/// A session on another host, as `remoteWorkBriefing` reads it: a
/// `hostSessionsPage` session, or one built from OpenClaw's session catalog.
/// Only `sessionId` is required.
#[napi(object, object_to_js = false)]
pub struct HostSessionInput {
    /// Claude Code's session id.
    pub session_id: String,
    /// Custom title, else generated title, else summary title, else first
    /// prompt. Left out: the last task, else the first message.
    pub title: Option<String>,
    /// Git branch the session is on. Left out: not named.
    pub branch: Option<String>,
    /// First real prompt. Left out: none.
    pub first_message: Option<String>,
    /// The last task of the registry's task history. Left out: none.
    pub last_task: Option<String>,
    /// The last real prompt. Left out: none.
    pub last_user_message: Option<String>,
    /// Files the session's tool calls named. Left out: none.
    pub files_touched: Option<Vec<String>>,
    /// When the session last changed: milliseconds since the epoch, an ISO
    /// string or a `Date`. Left out: the epoch (never recent).
    #[napi(ts_type = "number | string | Date")]
    pub last_modified: Option<Either<f64, String>>,
    /// A Claude Code process runs it now on its host. Left out: `isRunning`,
    /// else false.
    pub running: Option<bool>,
    /// As `running`, under discovery's name.
    pub is_running: Option<bool>,
    /// The folder it belongs to on its host. Left out: not named.
    pub project_path: Option<String>,
}

/// One host's sessions of the repository, as the gateway received them.
#[napi(object, object_to_js = false)]
pub struct RemoteHostWork {
    /// The host's display name.
    pub host: String,
    /// The host's id (`node:<id>`).
    pub host_id: String,
    /// Its sessions.
    pub sessions: Vec<HostSessionInput>,
    /// The sessions came from OpenClaw's own session catalog (the node does
    /// not run this plugin): no liveness, fewer facts. Left out: false.
    pub fallback: Option<bool>,
}

/// Options of `remoteWorkBriefing` (all optional).
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct RemoteWorkOptions {
    /// Sessions named at most. Default 5.
    pub max_lines: Option<f64>,
    /// The time, in milliseconds since the epoch. Default: now.
    pub now: Option<f64>,
}

/// A time given as milliseconds or an ISO string (a `Date` arrives as its
/// milliseconds: the package turns it into them).
fn time_of(value: Option<Either<f64, String>>) -> DateTime<Utc> {
    let parsed = match value {
        Some(Either::A(ms)) if ms.is_finite() => DateTime::from_timestamp_millis(ms as i64),
        Some(Either::B(text)) => DateTime::parse_from_rfc3339(&text)
            .ok()
            .map(|d| d.with_timezone(&Utc)),
        _ => None,
    };
    parsed.unwrap_or_default()
}

fn remote_session(s: HostSessionInput) -> rw::RemoteSession {
    rw::RemoteSession {
        running: s.running.or(s.is_running).unwrap_or_default(),
        project_path: s.project_path,
        candidate: Candidate {
            session_id: s.session_id,
            branch: s.branch.unwrap_or_default(),
            first_message: s.first_message.unwrap_or_default(),
            last_task: s.last_task,
            last_user_message: s.last_user_message,
            title: s.title,
            files_touched: s.files_touched.unwrap_or_default(),
            last_modified: time_of(s.last_modified),
            ..Candidate::default()
        },
    }
}

/// The lines of a briefing section naming Claude Code work on the same
/// repository on other machines: sessions running there now first, then
/// recent ones (the last seven days) relevant to `task` by selection's
/// offline relevance, at most `maxLines` sessions under a heading; null
/// when nothing is worth saying. `hosts` are host pages with a display
/// name. Pure: no file is read.
#[napi(catch_unwind)]
pub fn remote_work_briefing(
    env: Env,
    task: String,
    hosts: Vec<RemoteHostWork>,
    options: Option<RemoteWorkOptions>,
) -> Result<Either<String, Null>> {
    let options = options.unwrap_or_default();
    run_sync(&env, || {
        let hosts: Vec<rw::RemoteHostWork> = hosts
            .into_iter()
            .map(|h| rw::RemoteHostWork {
                host: h.host,
                host_id: h.host_id,
                fallback: h.fallback.unwrap_or_default(),
                sessions: h.sessions.into_iter().map(remote_session).collect(),
            })
            .collect();
        let max_lines = session_intel_core::optional_whole_number("maxLines", options.max_lines)?
            .map_or(rw::DEFAULT_MAX_LINES, |n| n as usize);
        let now = options
            .now
            .filter(|n| n.is_finite())
            .map_or_else(|| Utc::now().timestamp_millis(), |n| n as i64);
        Ok(nullable(rw::remote_work_briefing(
            &task, &hosts, max_lines, now,
        )))
    })
}

/// The host a node's page came from, as each of its rows names it.
#[napi(object, object_to_js = false)]
pub struct RowHostInput {
    /// `node:<nodeId>`.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// The page was made of OpenClaw's session catalog. Left out: false.
    pub fallback: Option<bool>,
}

/// Options of `hostPageRowsJson` (all optional).
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct HostPageRowsOptions {
    /// Include sessions OpenClaw did not spawn (default true).
    pub include_native: Option<bool>,
}

/// A paired node's page (its JSON text, as `hostSessionsPageJson` writes
/// it) read on a worker thread into `claude_code_sessions` rows: JSON text
/// of `{ v, repositories, sessionCount, nextCursor, truncated, rows }`,
/// each row a `sessionListToolPayload` session with `projectPath` and
/// `host`, in the page's order. An error answer (`{ v, error }`) comes back
/// as it is. Rejects with `E_PARSE` when the text is not a page.
#[napi(catch_unwind, ts_return_type = "Promise<string>")]
pub fn host_page_rows_json(
    page_json: String,
    host: RowHostInput,
    options: Option<HostPageRowsOptions>,
) -> AsyncTask<CoreTask<String, String>> {
    let include_native = options
        .unwrap_or_default()
        .include_native
        .unwrap_or(session_intel_core::mcp::DEFAULT_INCLUDE_NATIVE);
    let host = host_rows::RowHost {
        id: host.id,
        name: host.name,
        fallback: host.fallback.unwrap_or_default(),
    };
    AsyncTask::new(CoreTask::new(
        move || host_rows::host_page_rows_json(&page_json, &host, include_native),
        |json| json,
    ))
}
