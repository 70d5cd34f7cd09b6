//! One spelling for every way of writing one remote (`normalizeRemoteUrl`).
//!
//! `git@github.com:owner/repo.git`, `ssh://git@github.com:22/owner/repo`,
//! `https://user@GitHub.com/owner/repo.git/` and `git://github.com/owner/repo`
//! all become `github.com/owner/repo`:
//!
//! - the scheme, the user (and any password or token) and the port are
//!   dropped: they say how the repository is reached, not which one it is
//!   (an ssh port of a self-hosted server differs from its https port);
//! - the host is lower-cased; a query or fragment is dropped;
//! - one trailing `/`, then one `.git`, then any `/` left are dropped;
//! - on hosts whose paths are case-insensitive (GitHub, GitLab.com,
//!   Bitbucket, Azure DevOps) the path is lower-cased too;
//! - Azure DevOps' ssh form (`git@ssh.dev.azure.com:v3/org/project/repo`)
//!   and its older `org.visualstudio.com` host are written as its https
//!   form: `dev.azure.com/org/project/_git/repo`.
//!
//! A local path or a `file://` URL names a folder on one machine, not a
//! shared remote: it gives `None`, and identity falls back to the root
//! commit (see [`super::same_repository`]).

/// Hosts whose repository paths are case-insensitive.
const CASE_INSENSITIVE_HOSTS: [&str; 4] =
    ["github.com", "gitlab.com", "bitbucket.org", "dev.azure.com"];

/// The normalized form of the remote URL `url`, or `None` when it is not a
/// remote URL (a local path, a `file://` URL, an empty or malformed string).
pub fn normalize_remote_url(url: &str) -> Option<String> {
    let url = url.trim();
    if url.is_empty() || url.chars().any(char::is_whitespace) {
        return None;
    }
    let (host, path) = match url.split_once("://") {
        Some((scheme, rest)) => {
            let scheme = scheme.to_ascii_lowercase();
            if !matches!(
                scheme.as_str(),
                "ssh" | "git+ssh" | "ssh+git" | "git" | "http" | "https" | "ftp" | "ftps"
            ) {
                return None;
            }
            let rest = rest.split(['?', '#']).next().unwrap_or("");
            let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
            (strip_port(strip_user(authority))?, path)
        }
        None => scp_like(url)?,
    };
    let host = host.to_ascii_lowercase();
    let mut path = path.trim_start_matches('/');
    path = path.strip_suffix('/').unwrap_or(path);
    path = path.strip_suffix(".git").unwrap_or(path);
    let path = path.trim_end_matches('/');
    if host.is_empty() || path.is_empty() || path.split('/').any(|p| p.is_empty()) {
        return None;
    }
    let (host, path) = azure(&host, path).unwrap_or((host, path.to_owned()));
    let path = if CASE_INSENSITIVE_HOSTS.contains(&host.as_str()) {
        path.to_lowercase()
    } else {
        path
    };
    Some(format!("{host}/{path}"))
}

/// `[user@]host:path`, git's scp-like syntax, as host and path; `None` for
/// a local path (`/x`, `./x`, `~/x`, `C:\x`, `C:/x`, `x/y:z`).
fn scp_like(url: &str) -> Option<(&str, &str)> {
    let (authority, path) = url.split_once(':')?;
    // git reads `x/y:z` as a path: a slash before the first colon.
    if authority.contains(['/', '\\']) || authority.starts_with(['.', '~']) {
        return None;
    }
    let host = strip_user(authority);
    // A Windows drive letter (`C:\x`, `C:/x`).
    if host.len() == 1 && host.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let path = path
        .strip_prefix('~')
        .map_or(path, |p| p.trim_start_matches('/'));
    Some((valid_host(host)?, path))
}

/// The authority without its `user[:password]@`.
fn strip_user(authority: &str) -> &str {
    authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host)
}

/// The host without its `:port` (an IPv6 literal keeps its brackets).
fn strip_port(host: &str) -> Option<&str> {
    let host = if let Some(end) = host.strip_prefix('[').and_then(|_| host.find(']')) {
        &host[..=end]
    } else {
        host.split(':').next().unwrap_or(host)
    };
    valid_host(host)
}

/// `host` when it is a plausible host name or IP literal.
fn valid_host(host: &str) -> Option<&str> {
    let ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | '[' | ']' | ':'));
    ok.then_some(host)
}

/// Azure DevOps' other spellings of a repository, as its https form.
fn azure(host: &str, path: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = path.split('/').collect();
    let canonical = |org: &str, project: &str, repo: &str| {
        Some((
            "dev.azure.com".to_owned(),
            format!("{org}/{project}/_git/{repo}"),
        ))
    };
    match (host, parts.as_slice()) {
        ("ssh.dev.azure.com" | "vs-ssh.visualstudio.com", ["v3", org, project, repo]) => {
            canonical(org, project, repo)
        }
        (h, rest) if h.ends_with(".visualstudio.com") => {
            let org = h.strip_suffix(".visualstudio.com")?;
            let rest = match rest {
                ["DefaultCollection", rest @ ..] => rest,
                rest => rest,
            };
            match rest {
                [project, "_git", repo] => canonical(org, project, repo),
                // A repository named like its project.
                ["_git", repo] => canonical(org, repo, repo),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::normalize_remote_url as n;

    #[test]
    fn the_forms_of_one_remote_meet() {
        for url in [
            "git@github.com:owner/repo.git",
            "git@github.com:owner/repo",
            "ssh://git@github.com:22/owner/repo",
            "ssh://git@github.com/owner/repo.git",
            "git+ssh://git@github.com/owner/repo.git",
            "https://github.com/owner/repo.git",
            "https://user@github.com/owner/repo.git",
            "https://user:ghp_token@GitHub.com/Owner/Repo.git/",
            "http://github.com:80/owner/repo/",
            "https://github.com:443/owner/repo",
            "git://github.com/owner/repo.git",
            "  https://github.com/owner/repo?tab=readme#top  ",
        ] {
            assert_eq!(n(url).as_deref(), Some("github.com/owner/repo"), "{url}");
        }
    }

    #[test]
    fn local_paths_and_file_urls_are_no_remote() {
        for url in [
            "",
            "/srv/git/repo.git",
            "./repo",
            "../repo.git",
            "~/repo",
            "file:///srv/git/repo.git",
            "C:\\repos\\x",
            "C:/repos/x",
            "dir/sub:name",
            "https://github.com",
            "https:///owner/repo",
            "git@github.com:",
            "with space:x/y",
        ] {
            assert_eq!(n(url), None, "{url}");
        }
    }
}
