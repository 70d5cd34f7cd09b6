//! Which project folders hold a repository's sessions, against what the
//! real Claude Code 2.1.328 wrote (`fixtures/claude-code-2.1`), and how a
//! kept result learns of a project folder created after it.

use crate::util::claude_fixture::{fixtures, manifest, place};
use session_intel_core::claude_code::layout::paths::project_slug;
use session_intel_core::claude_code::{discover_sessions, DiscoverOptions, DiscoveryCache};
use session_intel_core::repo_path::RepoPath;
use std::fs;
use std::path::Path;
use std::process::Command;

#[test]
fn every_folder_the_cli_wrote_is_named_by_project_slug_long_paths_included() {
    let manifest = manifest();
    let mut named: Vec<String> = manifest["sessions"]
        .as_object()
        .unwrap()
        .values()
        .map(|s| project_slug(s["cwd"].as_str().unwrap()))
        .collect();
    named.sort();
    named.dedup();
    let mut written: Vec<String> = fs::read_dir(fixtures().join("projects"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    written.sort();
    assert_eq!(named, written);
    let long = project_slug(manifest["repos"]["long"].as_str().unwrap());
    assert!(long.len() > 200 && written.contains(&long), "{long}");
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

fn ids(cache: &DiscoveryCache, repo: &Path, options: &DiscoverOptions) -> Vec<String> {
    let mut ids: Vec<String> =
        discover_sessions(&RepoPath::resolve(repo.to_str().unwrap()), options, cache)
            .iter()
            .map(|s| s.session_id.clone())
            .collect();
    ids.sort();
    ids
}

#[test]
fn a_subfolder_session_started_after_warm_calls_is_listed_by_the_next_one() {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    let work = base.join("work");
    let repo = work.join("alpha");
    fs::create_dir_all(repo.join("src")).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    fs::write(repo.join("README.md"), "# t\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "init"]);
    let config = base.join("config");
    let options = DiscoverOptions {
        claude_config_dir: Some(config.clone()),
        registry_root: Some(base.join("state")),
        ..DiscoverOptions::default()
    };
    let main = "11111111-1111-4111-8111-111111111111";
    let sub = "22222222-2222-4222-8222-222222222222";
    let other = "33333333-3333-4333-8333-333333333333";
    place(&config, &work, "main", main);
    let cache = DiscoveryCache::new();
    // Enough calls for every folder, `projects/` included, to be watched
    // and its listing kept.
    for _ in 0..4 {
        assert_eq!(ids(&cache, &repo, &options), [main]);
    }
    place(&config, &work, "subfolder", sub);
    assert_eq!(ids(&cache, &repo, &options), [main, sub]);
    for _ in 0..3 {
        ids(&cache, &repo, &options);
    }
    // A second one in the same (now known) folder.
    place(&config, &work, "subfolder", other);
    assert_eq!(ids(&cache, &repo, &options), [main, sub, other]);
}
