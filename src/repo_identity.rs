//! Repository identity across paths and machines: `normalizeRemoteUrl`,
//! `repositoryIdentity`, `sameRepository`, `localRepositories`.

use crate::error::{run_sync, CoreTask};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core::claude_code::{DiscoveryCache, PersistentCache};
use session_intel_core::repo_identity as ri;
use std::path::PathBuf;

/// What a repository is, wherever it sits.
#[napi(object)]
pub struct RepositoryIdentity {
    /// The folder asked about (the repository's top level when inside one).
    pub path: String,
    /// The normalized URL of its `origin` remote (else its first remote); null
    /// when it has none that names a remote.
    pub remote: Either<String, Null>,
    /// The hash of its root commit (the oldest parentless commit reachable
    /// from HEAD); null outside a repository and before its first commit.
    pub root_commit: Either<String, Null>,
}

/// `Some` as the value, `None` as JavaScript's `null`.
pub(crate) fn nullable(value: Option<String>) -> Either<String, Null> {
    value.map_or(Either::B(Null), Either::A)
}

/// An identity as it comes in: one from `repositoryIdentity`, or one received
/// from another machine. Every field may be left out.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct RepositoryIdentityInput {
    /// The folder asked about (the repository's top level when inside one).
    /// Left out: none (a path is only ever a hint).
    pub path: Option<String>,
    /// The normalized URL of its `origin` remote (else its first remote); null
    /// when it has none that names a remote.
    /// Left out: null. A URL as git spells it is normalized first.
    pub remote: Option<Either<String, Null>>,
    /// The hash of its root commit (the oldest parentless commit reachable
    /// from HEAD); null outside a repository and before its first commit.
    /// Left out: null.
    pub root_commit: Option<Either<String, Null>>,
}

impl From<ri::RepositoryIdentity> for RepositoryIdentity {
    fn from(i: ri::RepositoryIdentity) -> Self {
        RepositoryIdentity {
            path: i.path,
            remote: nullable(i.remote),
            root_commit: nullable(i.root_commit),
        }
    }
}

/// A string given, not `null`.
fn given(value: Either<String, Null>) -> Option<String> {
    match value {
        Either::A(s) => Some(s),
        Either::B(_) => None,
    }
}

/// The core identity of an identity given (an empty path when left out).
pub(crate) fn identity_of(i: RepositoryIdentityInput) -> ri::RepositoryIdentity {
    ri::RepositoryIdentity {
        path: i.path.unwrap_or_default(),
        remote: i.remote.and_then(given),
        root_commit: i.root_commit.and_then(given),
    }
}

/// One spelling for every way of writing one remote: `github.com/owner/repo`
/// for `git@github.com:owner/repo.git`, `ssh://git@github.com:22/owner/repo`,
/// `https://user@github.com/owner/repo.git`… (scheme, user, port, `.git` and
/// trailing `/` dropped, host lower-cased); null for a local path, a
/// `file://` URL or anything else that is not a remote URL. See
/// docs/api/identity.md.
#[napi(catch_unwind)]
pub fn normalize_remote_url(env: Env, url: String) -> Result<Either<String, Null>> {
    run_sync(&env, || Ok(nullable(ri::normalize_remote_url(&url))))
}

/// The identity of the repository at (or containing) `repoPath`: its
/// normalized remote and root commit. The root commit is found once per
/// repository and kept in discovery's persistent cache folder while HEAD
/// moves forward: a warm call starts no git process.
#[napi(catch_unwind, ts_return_type = "Promise<RepositoryIdentity>")]
pub fn repository_identity(
    repo_path: String,
) -> AsyncTask<CoreTask<ri::RepositoryIdentity, RepositoryIdentity>> {
    AsyncTask::new(CoreTask::new(
        move || {
            let index = PersistentCache::Default.dir();
            Ok(DiscoveryCache::global().identities().identity(
                &PathBuf::from(&repo_path),
                index.as_deref(),
                true,
            ))
        },
        RepositoryIdentity::from,
    ))
}

/// Whether two identities name one repository: equal remotes when both have
/// one, else equal root commits (two identities with neither: false).
#[napi(catch_unwind)]
pub fn same_repository(
    env: Env,
    a: RepositoryIdentityInput,
    b: RepositoryIdentityInput,
) -> Result<bool> {
    run_sync(&env, || {
        Ok(ri::same_repository(&identity_of(a), &identity_of(b)))
    })
}
