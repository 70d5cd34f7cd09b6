//! The inotify watches of project status, in a process of their own: these
//! tests use more work trees than the status cache keeps, which would evict
//! those of tests running beside them.
#![cfg(target_os = "linux")]

use session_intel_core::project_status::folder_watched;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

#[allow(dead_code)]
#[path = "integration/util/git_repo.rs"]
mod git_repo;
use git_repo::*;

/// Whether this process holds a kernel watch on the folder at `dir` (the
/// watches of every inotify descriptor are listed in its fdinfo).
fn kernel_watches(dir: &Path) -> bool {
    let ino = format!(" ino:{:x} ", fs::metadata(dir).unwrap().ino());
    fs::read_dir("/proc/self/fdinfo").unwrap().any(|fd| {
        fs::read_to_string(fd.unwrap().path())
            .unwrap_or_default()
            .lines()
            .any(|l| l.starts_with("inotify wd:") && l.contains(&ino))
    })
}

/// The watches of a work tree go back to the budget when it is evicted from
/// the status cache (least recently used first, past 16 work trees), and a
/// folder's when it no longer holds tracked files.
#[test]
fn watches_are_given_back_with_their_folders_and_their_work_trees() {
    let base = tempfile::tempdir().unwrap();
    let dir = new_repo(base.path(), "given-back");
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for file in ["top.txt", "kept/a.txt", "emptied/b.txt"] {
        write(&dir, file, file);
        set_mtime(&dir.join(file), past);
    }
    git_in(&dir, &["add", "."]);
    commit(&dir, "base", 100);
    // Watched as far as the status cache and the kernel both know.
    let watched = |folder: &str| {
        let ours = folder_watched(&dir.join(folder));
        assert_eq!(ours, kernel_watches(&dir.join(folder)), "{folder}");
        ours
    };
    status_lines(&dir);
    assert!(!watched("kept"), "a first status watches nothing");
    status_lines(&dir);
    assert!(watched("") && watched("kept") && watched("emptied"));

    // Untracked from now on, the file (and so its folder) still there.
    git_in(&dir, &["rm", "-q", "--cached", "emptied/b.txt"]);
    assert_eq!(status_lines(&dir), ["D  emptied/b.txt", "?? emptied/"]);
    assert!(watched("") && watched("kept"));
    assert!(!watched("emptied"), "no tracked files left in it");

    // Sixteen other work trees, each used after this one.
    for n in 0..16 {
        let other = new_repo(base.path(), &format!("other-{n}"));
        write(&other, "f.txt", "f");
        git_in(&other, &["add", "."]);
        status_lines(&other);
    }
    assert!(!watched("") && !watched("kept"), "evicted, so not watched");
    // Back in use, it is read afresh and watched again from its second status.
    write(&dir, "kept/a.txt", "changed");
    for _ in 0..2 {
        let lines = ["D  emptied/b.txt", " M kept/a.txt", "?? emptied/"];
        assert_eq!(status_lines(&dir), lines);
    }
    assert!(watched("kept"));
}
