//! [`RepositoryIdentity`] and when two of them name one repository
//! ([`same_repository`]).

use super::remote_url::normalize_remote_url;

/// What a repository is, wherever it sits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepositoryIdentity {
    /// The folder asked about (the repository's top level when inside one).
    pub path: String,
    /// The normalized URL of its `origin` remote (else its first remote); null
    /// when it has none that names a remote.
    pub remote: Option<String>,
    /// The hash of its root commit (the oldest parentless commit reachable
    /// from HEAD); null outside a repository and before its first commit.
    pub root_commit: Option<String>,
}

/// `remote` as [`normalize_remote_url`] writes it: an identity received
/// from elsewhere may carry a raw URL or an already normalized one
/// (`github.com/owner/repo`, which is read as `https://` it).
fn canonical_remote(remote: &str) -> Option<String> {
    let remote = remote.trim();
    if remote.is_empty() {
        return None;
    }
    normalize_remote_url(remote).or_else(|| normalize_remote_url(&format!("https://{remote}")))
}

/// Whether two identities name one repository: their remotes are equal when
/// both have one; else their root commits are, when both have one. Two
/// identities with neither are never the same (a path says nothing).
pub fn same_repository(a: &RepositoryIdentity, b: &RepositoryIdentity) -> bool {
    let remote = |i: &RepositoryIdentity| i.remote.as_deref().and_then(canonical_remote);
    if let (Some(x), Some(y)) = (remote(a), remote(b)) {
        return x == y;
    }
    let root = |i: &RepositoryIdentity| {
        i.root_commit
            .as_deref()
            .map(|r| r.trim().to_ascii_lowercase())
            .filter(|r| !r.is_empty())
    };
    matches!((root(a), root(b)), (Some(x), Some(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(remote: Option<&str>, root: Option<&str>) -> RepositoryIdentity {
        RepositoryIdentity {
            path: String::new(),
            remote: remote.map(str::to_owned),
            root_commit: root.map(str::to_owned),
        }
    }

    #[test]
    fn remotes_decide_when_both_have_one_else_root_commits() {
        let ssh = id(Some("git@github.com:o/r.git"), Some("aa"));
        let https = id(Some("https://github.com/O/r"), Some("bb"));
        let plain = id(Some("github.com/o/r"), None);
        assert!(same_repository(&ssh, &https));
        assert!(same_repository(&ssh, &plain));
        assert!(!same_repository(
            &ssh,
            &id(Some("github.com/o/fork"), Some("aa"))
        ));
        assert!(same_repository(&ssh, &id(None, Some("AA"))));
        assert!(!same_repository(&ssh, &id(None, Some("cc"))));
        assert!(!same_repository(&id(None, None), &id(None, None)));
    }
}
