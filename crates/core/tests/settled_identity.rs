//! Discovery's look for the folders a repository was moved away from reads
//! the repository's identity from its git files once, and again exactly
//! when one of them changed: while their stat data are what they were and
//! had settled when they were read, no call reads them. Alone in its test
//! binary because it counts the process's read calls (`/proc/self/io`),
//! which other tests running beside it would add to.
#![cfg(target_os = "linux")]

#[path = "integration/util/git_repo.rs"]
#[allow(dead_code)]
mod git_repo;

#[path = "integration/util/proc_io.rs"]
mod proc_io;

use git_repo::{commit, new_repo, set_origin};
use proc_io::read_calls;
use session_intel_core::repo_identity::Identities;
use std::fs;
use std::path::PathBuf;
use std::time::Duration;

#[test]
fn an_unchanged_repository_is_never_read_twice_and_a_changed_one_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    let index = base.join("cache");
    // Two folders the index saw, since moved away: one of the shop, one of the blog.
    let mut gone = Vec::new();
    for (name, url) in [
        ("old-shop", "git@github.com:acme/shop.git"),
        ("old-blog", "https://github.com/acme/blog"),
    ] {
        let old = new_repo(&base, name);
        set_origin(&old, url);
        commit(&old, name, 100);
        Identities::new().identity(&old, Some(&index), true);
        fs::remove_dir_all(&old).unwrap();
        gone.push(old);
    }
    let repo = new_repo(&base, "shop");
    set_origin(&repo, "https://github.com/acme/shop.git");
    commit(&repo, "first", 50);
    // Its git files settle before the first look.
    std::thread::sleep(Duration::from_millis(2100));
    let ids = Identities::new();
    let shop: Vec<PathBuf> = vec![gone[0].clone()];
    assert_eq!(ids.moved_away(&repo, &index), shop);
    // What reading the counter itself costs.
    let idle = {
        let before = read_calls();
        read_calls() - before
    };
    let before = read_calls();
    for _ in 0..20 {
        assert_eq!(ids.moved_away(&repo, &index), shop);
    }
    assert_eq!(
        read_calls() - before,
        idle,
        "twenty looks at an unchanged repository read nothing"
    );

    // The remote changes: the next look reads it, whenever it comes.
    set_origin(&repo, "git@github.com:acme/blog.git");
    let before = read_calls();
    assert_eq!(ids.moved_away(&repo, &index), vec![gone[1].clone()]);
    assert!(read_calls() - before > idle, "the changed config was read");
}
