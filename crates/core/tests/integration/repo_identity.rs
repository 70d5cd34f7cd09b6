//! Repository identity on real git repositories (remotes, worktrees,
//! submodules, root commits), its cache and index, and discovery finding
//! the sessions of a repository whose folder was moved or renamed.

use crate::util::claude_fixture::place;
use crate::util::git_repo::{commit, git_in, new_repo, set_origin};
use session_intel_core::claude_code::{
    discover_sessions, DiscoverOptions, DiscoveryCache, PersistentCache,
};
use session_intel_core::repo_identity::{normalize_remote_url, same_repository, Identities};
use session_intel_core::repo_path::RepoPath;
use std::fs;
use std::path::{Path, PathBuf};

fn base() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    (tmp, base)
}

fn root_of(dir: &Path) -> String {
    git_in(dir, &["rev-list", "--max-parents=0", "HEAD"])
        .trim()
        .to_owned()
}

#[test]
fn real_world_remote_forms_meet_and_others_stay_apart() {
    let groups: &[(&str, &[&str])] = &[
        (
            "gitlab.com/group/sub/deeper/project",
            &[
                "git@gitlab.com:group/sub/deeper/project.git",
                "https://gitlab.com/group/sub/deeper/project.git",
                "https://oauth2:glpat-xyz@gitlab.com/Group/Sub/deeper/project",
                "ssh://git@gitlab.com/group/sub/deeper/project.git/",
            ],
        ),
        (
            "bitbucket.org/team/repo",
            &[
                "git@bitbucket.org:team/repo.git",
                "https://someone@bitbucket.org/team/repo.git",
                "ssh://git@bitbucket.org/team/repo",
            ],
        ),
        (
            "git.example.com/Platform/API",
            &[
                "ssh://git@git.example.com:2222/Platform/API.git",
                "https://git.example.com:8443/Platform/API",
                "git@GIT.example.com:Platform/API.git",
                "http://ci:secret@git.example.com/Platform/API.git",
            ],
        ),
        (
            "dev.azure.com/contoso/web/_git/site",
            &[
                "git@ssh.dev.azure.com:v3/contoso/web/site",
                "https://contoso@dev.azure.com/contoso/web/_git/site",
                "https://contoso.visualstudio.com/web/_git/site",
                "https://contoso.visualstudio.com/DefaultCollection/web/_git/site",
                "contoso@vs-ssh.visualstudio.com:v3/contoso/web/site",
            ],
        ),
        (
            "github.com/owner/repo",
            &[
                "git@github.com:owner/repo.git",
                "ssh://git@github.com:22/owner/repo",
                "https://user@github.com/owner/repo.git",
                "https://github.com/Owner/Repo/",
                "git://github.com/owner/repo",
            ],
        ),
    ];
    let mut seen = Vec::new();
    for (want, forms) in groups {
        for form in *forms {
            assert_eq!(normalize_remote_url(form).as_deref(), Some(*want), "{form}");
        }
        seen.push(*want);
    }
    seen.dedup();
    assert_eq!(
        seen.len(),
        groups.len(),
        "distinct repositories stay distinct"
    );
    // A self-hosted server keeps the case of its paths: they may differ.
    assert_ne!(
        normalize_remote_url("git@git.example.com:a/Repo"),
        normalize_remote_url("git@git.example.com:a/repo")
    );
}

#[test]
fn identity_reads_remotes_of_clones_worktrees_and_submodules() {
    let (_tmp, base) = base();
    let origin = new_repo(&base, "origin");
    fs::write(origin.join("a.txt"), "a").unwrap();
    git_in(&origin, &["add", "."]);
    commit(&origin, "first", 100);
    let root = root_of(&origin);
    // An ssh clone and an https clone of one remote, at different paths.
    let ssh = new_repo(&base, "ssh-clone");
    git_in(
        &ssh,
        &["remote", "add", "origin", "git@github.com:acme/widget.git"],
    );
    git_in(&ssh, &["fetch", "-q", origin.to_str().unwrap(), "main"]);
    git_in(&ssh, &["reset", "-q", "--hard", "FETCH_HEAD"]);
    let https = new_repo(&base, "https-clone");
    git_in(
        &https,
        &[
            "remote",
            "add",
            "upstream",
            "https://x@github.com/acme/widget",
        ],
    );
    let ids = Identities::new();
    let index = base.join("cache");
    fs::create_dir_all(ssh.join("sub/dir")).unwrap();
    let a = ids.identity(&ssh.join("sub/dir"), Some(&index), true);
    assert_eq!(
        a.path,
        ssh.to_str().unwrap(),
        "the top level of the folder asked about"
    );
    assert_eq!(a.remote.as_deref(), Some("github.com/acme/widget"));
    assert_eq!(a.root_commit.as_deref(), Some(root.as_str()));
    let b = ids.identity(&https, Some(&index), true);
    assert_eq!(
        b.remote.as_deref(),
        Some("github.com/acme/widget"),
        "its first remote"
    );
    assert_eq!(b.root_commit, None, "no commit yet");
    assert!(same_repository(&a, &b));
    // A linked worktree reads the common config.
    let wt = base.join("wt");
    git_in(
        &ssh,
        &["worktree", "add", "-q", wt.to_str().unwrap(), "-b", "side"],
    );
    let w = ids.identity(&wt, Some(&index), true);
    assert_eq!(
        (w.remote.as_deref(), w.root_commit.as_deref()),
        (Some("github.com/acme/widget"), Some(root.as_str()))
    );
    // A submodule is a repository of its own.
    git_in(
        &ssh,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            origin.to_str().unwrap(),
            "vendor/lib",
        ],
    );
    let s = ids.identity(&ssh.join("vendor/lib"), Some(&index), true);
    assert_eq!(s.path, ssh.join("vendor/lib").to_str().unwrap());
    assert_eq!(s.remote, None, "a local path is no remote");
    assert_eq!(s.root_commit.as_deref(), Some(root.as_str()));
    assert!(
        same_repository(&s, &a),
        "a remote on one side only: root commits decide"
    );
}

#[test]
fn a_root_commit_is_kept_in_the_index_while_head_moves_forward() {
    let (_tmp, base) = base();
    let repo = new_repo(&base, "r");
    commit(&repo, "first", 100);
    let index = base.join("cache");
    let top = repo.to_str().unwrap().to_owned();
    let found = Identities::new().identity(&repo, Some(&index), true);
    assert_eq!(found.root_commit.as_deref(), Some(root_of(&repo).as_str()));
    // What a fresh process reads comes from the index, not from git: a
    // planted root commit is what it answers.
    let file = index.join("repositories.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    let planted = "ab".repeat(20);
    doc["folders"][&top]["rootCommit"] = serde_json::json!(planted);
    fs::write(&file, serde_json::to_string(&doc).unwrap()).unwrap();
    let fresh = Identities::new();
    assert_eq!(
        fresh
            .identity(&repo, Some(&index), true)
            .root_commit
            .as_deref(),
        Some(planted.as_str())
    );
    // A commit on top: HEAD descends from the one it was found from.
    commit(&repo, "second", 50);
    assert_eq!(
        fresh
            .identity(&repo, Some(&index), true)
            .root_commit
            .as_deref(),
        Some(planted.as_str())
    );
    assert_eq!(
        Identities::new()
            .identity(&repo, Some(&index), true)
            .root_commit
            .as_deref(),
        Some(planted.as_str()),
        "the index followed HEAD"
    );
    // Another history under HEAD: found again.
    git_in(&repo, &["checkout", "-q", "--orphan", "other"]);
    commit(&repo, "unrelated", 10);
    let again = fresh.identity(&repo, Some(&index), true);
    assert_eq!(again.root_commit.as_deref(), Some(root_of(&repo).as_str()));
    assert_ne!(again.root_commit.as_deref(), Some(planted.as_str()));
}

fn options(base: &Path) -> DiscoverOptions {
    DiscoverOptions {
        claude_config_dir: Some(base.join("config")),
        registry_root: Some(base.join("state")),
        persistent_cache: PersistentCache::In(base.join("cache")),
        ..DiscoverOptions::default()
    }
}

fn discovered(cache: &DiscoveryCache, repo: &Path, base: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> =
        discover_sessions(&RepoPath::of(repo), &options(base), cache)
            .iter()
            .map(|s| (s.session_id.clone(), s.repo_path.clone()))
            .collect();
    out.sort();
    out
}

#[test]
fn a_moved_repository_keeps_its_sessions_and_takes_no_other_repositorys() {
    let (_tmp, base) = base();
    let work = base.join("work");
    let alpha = new_repo(&work, "alpha");
    git_in(
        &alpha,
        &["remote", "add", "origin", "git@github.com:acme/alpha.git"],
    );
    commit(&alpha, "first", 100);
    // Beta has no remote: its root commit names it.
    let beta = new_repo(&work, "beta");
    commit(&beta, "beta", 90);
    let config = base.join("config");
    let main = "11111111-1111-4111-8111-111111111111";
    let fork = "22222222-2222-4222-8222-222222222222";
    let other = "33333333-3333-4333-8333-333333333333";
    place(&config, &work, "main", main);
    place(&config, &work, "fork", fork);
    place(&config, &work, "watched", other);
    let cache = DiscoveryCache::new();
    let at = |dir: &Path| dir.to_str().unwrap().to_owned();
    assert_eq!(
        discovered(&cache, &alpha, &base),
        [(main.into(), at(&alpha)), (fork.into(), at(&alpha))]
            .iter()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
    );
    assert_eq!(
        discovered(&cache, &beta, &base),
        [(other.to_owned(), at(&beta))]
    );

    // Both folders move; each keeps its own sessions only.
    let renamed = work.join("alpha-renamed");
    fs::rename(&alpha, &renamed).unwrap();
    let beta_moved = base.join("elsewhere/beta");
    fs::create_dir_all(beta_moved.parent().unwrap()).unwrap();
    fs::rename(&beta, &beta_moved).unwrap();
    let mut want = vec![
        (main.to_owned(), at(&renamed)),
        (fork.to_owned(), at(&renamed)),
    ];
    want.sort();
    assert_eq!(
        discovered(&cache, &renamed, &base),
        want,
        "the sessions, with the new folder"
    );
    // A fresh process finds them as well (the index is on disk).
    assert_eq!(discovered(&DiscoveryCache::new(), &renamed, &base), want);
    assert_eq!(
        discovered(&cache, &beta_moved, &base),
        [(other.to_owned(), at(&beta_moved))]
    );

    // A folder moved before it was ever seen at its old path is not found.
    let gamma = new_repo(&work, "gamma");
    commit(&gamma, "gamma", 80);
    let gamma_session = "44444444-4444-4444-8444-444444444444";
    // The fixture's `alpha-feature` session, as if started in a folder
    // never looked at.
    place(&config, &work, "worktree", gamma_session);
    let gamma_moved = work.join("gamma-moved");
    fs::rename(&gamma, &gamma_moved).unwrap();
    assert_eq!(discovered(&cache, &gamma_moved, &base), []);
}

/// The folder `dir`, remembered in the index in `index`, then removed:
/// a folder the index holds that no longer exists.
fn seen_then_gone(dir: &Path, index: &Path) -> PathBuf {
    Identities::new().identity(dir, Some(index), true);
    fs::remove_dir_all(dir).unwrap();
    dir.to_path_buf()
}

#[test]
fn a_moved_look_is_read_again_as_soon_as_the_remote_or_head_changes() {
    let (_tmp, base) = base();
    let index = base.join("cache");
    let with_remote = |name: &str, url: &str| {
        let dir = new_repo(&base, name);
        set_origin(&dir, url);
        commit(&dir, name, 100);
        dir
    };
    let old_shop = seen_then_gone(
        &with_remote("old-shop", "git@github.com:acme/shop.git"),
        &index,
    );
    let old_blog = seen_then_gone(
        &with_remote("old-blog", "https://github.com/acme/blog"),
        &index,
    );
    let repo = with_remote("shop", "https://github.com/acme/shop.git");
    let ids = Identities::new();
    assert_eq!(ids.moved_away(&repo, &index), [old_shop]);
    // The remote changes right after the look, well within two seconds:
    // the next look reads it.
    set_origin(&repo, "git@github.com:acme/blog.git");
    assert_eq!(ids.moved_away(&repo, &index), [old_blog]);

    // Without a remote the root commit names a repository: HEAD moved to
    // another history is read at the next look too.
    let src = new_repo(&base, "src");
    commit(&src, "src", 90);
    let clone = base.join("old-clone");
    git_in(
        &base,
        &[
            "clone",
            "-q",
            src.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    git_in(&clone, &["remote", "remove", "origin"]);
    let old_clone = seen_then_gone(&clone, &index);
    let other = new_repo(&base, "other");
    commit(&other, "other", 80);
    assert_eq!(ids.moved_away(&other, &index), Vec::<PathBuf>::new());
    git_in(&other, &["fetch", "-q", src.to_str().unwrap(), "HEAD"]);
    git_in(&other, &["checkout", "-q", "-b", "from-src", "FETCH_HEAD"]);
    assert_eq!(ids.moved_away(&other, &index), [old_clone]);
}
