//! Every git field of the briefing must equal what the git CLI prints for the
//! same repository. Each case builds a real repository with `git` in a
//! temporary directory, then compares field by field.

use session_intel_core::claude_code::DiscoveryCache;
use session_intel_core::project_status::git::read_git_state;
use session_intel_core::project_status::short_status::short_status_libgit2;
use session_intel_core::project_status::{gather_project_status, ProjectStatusOptions};
use std::fs;
use std::path::Path;
use std::process::Command;

use crate::util::git_repo::*;

const NOW_OFFSETS: [i64; 5] = [
    200 * 86400 + 7 * 3600,
    40 * 86400,
    5 * 86400 + 3600,
    3 * 3600 + 600,
    1000,
];

/// Compares every git field with the CLI's output for the work tree `dir`,
/// and checks that libgit2's own status walk (the fallback) agrees too.
fn assert_matches_git(dir: &Path) {
    assert_fast_matches_git(dir, true);
}

/// As [`assert_matches_git`]; `check_fallback: false` skips libgit2's walk
/// for states it is known to get wrong.
fn assert_fast_matches_git(dir: &Path, check_fallback: bool) {
    let repo = git2::Repository::discover(dir).unwrap();
    let ours = read_git_state(&repo, chrono::Utc::now().timestamp());
    let branch = git_in(dir, &["branch", "--show-current"]);
    assert_eq!(
        ours.current_branch,
        branch.trim_end_matches('\n'),
        "branch in {}",
        dir.display()
    );
    let head = git_in(dir, &["log", "-1", "--format=%h%x00%s"]);
    let head = head.trim_end_matches('\n');
    let (sha, subject) = head.split_once('\0').unwrap_or(("", ""));
    assert_eq!(ours.head_commit_sha, sha, "head sha");
    assert_eq!(ours.head_commit_message, subject, "head subject");
    let status: Vec<String> = git_in(dir, &["status", "--short"])
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        ours.status.lines,
        status,
        "git status --short in {}",
        dir.display()
    );
    // The fast path and libgit2's own status walk agree too.
    assert!(
        !check_fallback || short_status_libgit2(&repo).unwrap().lines == status,
        "libgit2 walk in {}: {:?}",
        dir.display(),
        short_status_libgit2(&repo).unwrap().lines
    );
    let stashes = git_in(dir, &["stash", "list"]).lines().count() as u32;
    assert_eq!(ours.stash_count, stashes, "stash count");
    let log: Vec<(String, String, String, String)> =
        git_in(dir, &["log", "-10", "--format=%h%x00%s%x00%an%x00%ar"])
            .lines()
            .map(|l| {
                let p: Vec<&str> = l.split('\0').collect();
                (p[0].into(), p[1].into(), p[2].into(), p[3].into())
            })
            .collect();
    let mine: Vec<(String, String, String, String)> = ours
        .recent_commits
        .iter()
        .map(|c| {
            (
                c.sha.clone(),
                c.message.clone(),
                c.author.clone(),
                c.date.clone(),
            )
        })
        .collect();
    assert_eq!(mine, log, "recent commits");
}

#[test]
fn ordinary_histories_branches_and_subjects() {
    let base = tempfile::tempdir().unwrap();
    let dir = new_repo(base.path(), "repo");
    write(&dir, "a.txt", "a\n");
    git_in(&dir, &["add", "."]);
    let subjects = [
        "init",
        "feat: pipes | in | subject",
        "caf\u{e9} na\u{ef}ve \u{1F680}",
        "multi\nline subject\n\nbody text",
        "x",
    ];
    for (subject, ago) in subjects.iter().zip(NOW_OFFSETS) {
        commit(&dir, subject, ago);
    }
    for i in 0..8 {
        commit(&dir, &format!("filler {i}"), 60 * (10 - i));
    }
    assert_matches_git(&dir);
    git_in(&dir, &["checkout", "-q", "-b", "feature/deep/slashes"]);
    assert_matches_git(&dir);
    let head = git_in(&dir, &["rev-parse", "HEAD~2"]);
    git_in(&dir, &["checkout", "-q", head.trim()]);
    assert_matches_git(&dir); // detached: branch ""
}

#[test]
fn unborn_head_and_empty_repository() {
    let base = tempfile::tempdir().unwrap();
    let dir = new_repo(base.path(), "empty");
    assert_matches_git(&dir);
    write(&dir, "new.txt", "x");
    git_in(&dir, &["add", "new.txt"]);
    write(&dir, "untracked.txt", "y");
    assert_matches_git(&dir);
}

#[cfg(unix)] // symlinks, exec bits, or the Unix fast path
#[test]
fn working_tree_changes_of_every_kind() {
    let base = tempfile::tempdir().unwrap();
    let dir = new_repo(base.path(), "changes");
    for f in [
        "keep.txt",
        "rename-me.txt",
        "delete-staged.txt",
        "delete-wt.txt",
        "both.txt",
        "exec.sh",
        "sp ace.txt",
        "caf\u{e9}.txt",
    ] {
        write(&dir, f, &format!("{f}\n{}\n", "line ".repeat(20)));
    }
    write(&dir, ".gitignore", "*.log\nbuild/\n");
    write(&dir, "link-target.txt", "t\n");
    std::os::unix::fs::symlink("link-target.txt", dir.join("link")).unwrap();
    git_in(&dir, &["add", "."]);
    commit(&dir, "base", 5000);

    git_in(&dir, &["mv", "rename-me.txt", "renamed.txt"]);
    git_in(&dir, &["rm", "-q", "delete-staged.txt"]);
    fs::remove_file(dir.join("delete-wt.txt")).unwrap();
    write(&dir, "both.txt", "staged change\n");
    git_in(&dir, &["add", "both.txt"]);
    write(&dir, "both.txt", "and then unstaged\n");
    write(&dir, "keep.txt", "modified\n");
    write(&dir, "sp ace.txt", "modified\n");
    write(&dir, "caf\u{e9}.txt", "modified\n");
    let exec = dir.join("exec.sh");
    let mut perms = fs::metadata(&exec).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&exec, perms).unwrap();
    fs::remove_file(dir.join("link")).unwrap();
    std::os::unix::fs::symlink("keep.txt", dir.join("link")).unwrap();
    write(
        &dir,
        "copy-of-keep.txt",
        &fs::read_to_string(dir.join("renamed.txt")).unwrap(),
    );
    git_in(&dir, &["add", "copy-of-keep.txt"]);
    write(&dir, "new-dir/a.txt", "a");
    write(&dir, "new-dir/nested/b.txt", "b");
    write(&dir, "debug.log", "ignored");
    write(&dir, "build/out.bin", "ignored");
    write(&dir, "top-untracked.txt", "u");
    assert_matches_git(&dir);
}

#[test]
fn racy_clean_crlf_and_attributes() {
    let base = tempfile::tempdir().unwrap();
    let dir = new_repo(base.path(), "racy");
    write(&dir, ".gitattributes", "*.txt text eol=lf\n*.bin binary\n");
    write(&dir, "crlf.txt", "one\r\ntwo\r\n");
    write(&dir, "racy.txt", "aaaa\n");
    git_in(&dir, &["add", "."]);
    commit(&dir, "base", 3000);
    // Same size, same second as the index: only a content check can tell.
    write(&dir, "racy.txt", "bbbb\n");
    assert_matches_git(&dir);
    write(&dir, "crlf.txt", "one\ntwo\n");
    assert_matches_git(&dir);
}

#[cfg(unix)] // exec bits
#[test]
fn core_file_mode_off_leaves_executable_bits_alone_as_git_does() {
    use session_intel_core::project_status::tracked_folders_stated;
    use std::os::unix::fs::PermissionsExt;
    let base = tempfile::tempdir().unwrap();
    let dir = new_repo(base.path(), "filemode");
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for (file, text) in [
        ("tool.sh", "tool"),
        ("run.sh", "run"),
        ("docs/notes.txt", "notes"),
    ] {
        write(&dir, file, text);
        // Older than the index: clean by stat data alone, not racily clean.
        set_mtime(&dir.join(file), past);
    }
    fs::set_permissions(dir.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    git_in(&dir, &["add", "."]);
    commit(&dir, "base", 3000);
    git_in(&dir, &["config", "core.fileMode", "false"]);
    // The index's modes flipped, its stat data left as the files' own: only
    // the executable bits differ (and the flip is staged).
    git_in(&dir, &["update-index", "--chmod=-x", "run.sh"]);
    git_in(&dir, &["update-index", "--chmod=+x", "tool.sh"]);
    // Twice: the second status is the one that watches.
    for _ in 0..2 {
        assert_eq!(git_status_lines(&dir), ["M  run.sh", "M  tool.sh"]);
        assert_matches_git(&dir);
    }
    write(&dir, "docs/notes.txt", "notes, changed");
    set_mtime(&dir.join("docs/notes.txt"), past);
    assert_matches_git(&dir);
    assert_matches_git(&dir);
    // Turned back on, with the index and the folder as they were: the same
    // files are modified again (ours is read first, before git's own status
    // could rewrite the index).
    let stated = tracked_folders_stated(&dir.join(""));
    git_in(&dir, &["config", "core.fileMode", "true"]);
    assert_matches_git(&dir);
    assert!(
        tracked_folders_stated(&dir.join("")) > stated,
        "the fast path answered, its findings taken afresh"
    );
    assert_eq!(
        git_status_lines(&dir),
        [" M docs/notes.txt", "MM run.sh", "MM tool.sh"]
    );
}

#[test]
fn stashes_worktrees_submodules_and_bare_repositories() {
    let base = tempfile::tempdir().unwrap();
    let dir = new_repo(base.path(), "main");
    write(&dir, "f.txt", "0\n");
    git_in(&dir, &["add", "."]);
    commit(&dir, "base", 4000);
    for i in 0..50 {
        write(&dir, "f.txt", &format!("{i}\n"));
        git_in(&dir, &["stash", "-q"]);
    }
    assert_matches_git(&dir);

    let wt = base.path().join("linked");
    git_in(
        &dir,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "wt/branch",
            wt.to_str().unwrap(),
        ],
    );
    write(&wt, "wt-only.txt", "w");
    assert_matches_git(&wt);

    let sub = new_repo(base.path(), "sub");
    write(&sub, "s.txt", "s\n");
    git_in(&sub, &["add", "."]);
    commit(&sub, "sub base", 3500);
    git_in(
        &dir,
        &[
            "submodule",
            "add",
            "-q",
            sub.to_str().unwrap(),
            "modules/sub",
        ],
    );
    commit(&dir, "add submodule", 3000);
    assert_matches_git(&dir);
    write(&dir, "modules/sub/s.txt", "changed\n");
    assert_matches_git(&dir); // modified content: " m"
    git_in(&dir.join("modules/sub"), &["checkout", "-q", "--", "s.txt"]);
    write(&dir, "modules/sub/new.txt", "n");
    assert_matches_git(&dir); // untracked content: " ?"
    git_in(&dir.join("modules/sub"), &["add", "."]);
    commit(&dir.join("modules/sub"), "sub moves on", 100);
    assert_matches_git(&dir); // new commits: " M"

    let bare = base.path().join("bare.git");
    Command::new("git")
        .args([
            "clone",
            "-q",
            "--bare",
            dir.to_str().unwrap(),
            bare.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_matches_git(&bare);
}

#[test]
fn briefing_paths_non_repositories_and_missing_paths() {
    let base = tempfile::tempdir().unwrap();
    let dir = new_repo(base.path(), "brief");
    write(&dir, "src/deep/x.rs", "x");
    write(&dir, "CLAUDE.md", "c");
    write(&dir, ".specs/b.md", "b");
    write(&dir, ".specs/a.md", "a");
    write(&dir, ".specs/notes.txt", "n");
    git_in(&dir, &["add", "."]);
    commit(&dir, "base", 100);
    let cache = DiscoveryCache::new();
    let mut options = ProjectStatusOptions::default();
    options.discover.claude_config_dir = Some(base.path().join("no-claude"));
    options.discover.registry_root = Some(base.path().join("no-state"));
    let inside = gather_project_status(
        dir.join("src/deep").to_str().unwrap(),
        None,
        &options,
        &cache,
    )
    .unwrap();
    assert_eq!(inside.repo.path, dir.to_str().unwrap());
    assert_eq!(inside.repo.name, "brief");
    assert!(inside.repo.is_git_repo);
    assert_eq!(inside.git.current_branch, "main");
    assert!(
        inside.docs.has_claude_md
            && inside.docs.has_specs
            && !inside.docs.has_readme
            && !inside.docs.has_todo
    );
    assert_eq!(inside.docs.spec_files, ["a.md", "b.md"]);

    let plain = base.path().join("plain");
    fs::create_dir_all(&plain).unwrap();
    let status = gather_project_status(plain.to_str().unwrap(), None, &options, &cache).unwrap();
    assert!(!status.repo.is_git_repo);
    assert_eq!(status.git.current_branch, "");
    assert!(status.git.status.lines.is_empty() && status.git.recent_commits.is_empty());

    let err = gather_project_status(
        base.path().join("missing").to_str().unwrap(),
        None,
        &options,
        &cache,
    )
    .unwrap_err();
    assert_eq!(err.code, session_intel_core::ErrorCode::RepoNotFound);
}

#[cfg(unix)] // symlinks, exec bits, or the Unix fast path
#[test]
fn ignore_rules_and_untracked_folders() {
    let base = tempfile::tempdir().unwrap();
    let dir = new_repo(base.path(), "ignores");
    write(
        &dir,
        ".gitignore",
        "*.log\n/dist/\nvendor/**/*.bin\n!keep.log\n",
    );
    write(&dir, "docs/.gitignore", "draft*\n");
    write(&dir, "tracked/ignored-but-tracked.log", "t");
    write(&dir, "src/lib.rs", "x");
    git_in(
        &dir,
        &["add", ".gitignore", "docs/.gitignore", "src/lib.rs"],
    );
    git_in(&dir, &["add", "-f", "tracked/ignored-but-tracked.log"]);
    commit(&dir, "base", 1000);
    write(&dir, "debug.log", "ignored");
    write(&dir, "keep.log", "negated, so shown");
    write(&dir, "dist/app.js", "ignored folder");
    write(&dir, "vendor/a/b/blob.bin", "ignored by a ** rule");
    write(
        &dir,
        "vendor/a/b/readme.txt",
        "shown: vendor/ holds no tracked file",
    );
    write(&dir, "docs/draft-1.md", "ignored by a nested .gitignore");
    write(&dir, "docs/final.md", "shown");
    write(
        &dir,
        "only-ignored/x.log",
        "a folder holding only ignored files is not shown",
    );
    fs::create_dir_all(dir.join("empty-folder")).unwrap();
    write(
        &dir,
        "tracked/new-sibling.txt",
        "shown as a file: its folder has a tracked file",
    );
    write(&dir, "src/excluded.tmp", "excluded by info/exclude");
    fs::write(dir.join(".git/info/exclude"), "*.tmp\n").unwrap();
    write(&dir, "src/local.secret", "excluded by core.excludesFile");
    write(&dir, "../global-excludes", "*.secret\n");
    git_in(
        &dir,
        &[
            "config",
            "core.excludesFile",
            base.path()
                .join("ignores/../global-excludes")
                .to_str()
                .unwrap(),
        ],
    );
    std::os::unix::fs::symlink("src", dir.join("link-to-dir")).unwrap();
    assert_matches_git(&dir);
    // git lists an untracked, still empty nested repository; libgit2's own
    // walk leaves it out, so only the fast path is held to git here.
    let nested = dir.join("nested-repo");
    fs::create_dir_all(&nested).unwrap();
    git_in(&nested, &["init", "-q"]);
    assert_fast_matches_git(&dir, false);
}

#[test]
fn abbreviation_grows_with_the_object_count_as_gits_does() {
    let base = tempfile::tempdir().unwrap();
    let dir = new_repo(base.path(), "many-objects");
    // 17 000 blobs in one pack: past 2^14 objects git abbreviates to 8 digits.
    let mut stream = String::from("commit refs/heads/main\nauthor A <a@b> 1700000000 +0000\ncommitter A <a@b> 1700000000 +0000\ndata 4\nbulk\n");
    for i in 0..17_000 {
        let body = format!("blob {i}\n");
        stream.push_str(&format!(
            "M 100644 inline f/{i}.txt\ndata {}\n{body}\n",
            body.len()
        ));
    }
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(&dir)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), stream.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success());
    git_in(&dir, &["reset", "-q", "--hard", "main"]);
    let repo = git2::Repository::discover(&dir).unwrap();
    let ours = read_git_state(&repo, chrono::Utc::now().timestamp());
    let theirs = git_in(&dir, &["log", "-1", "--format=%h"]);
    assert_eq!(ours.head_commit_sha, theirs.trim());
    assert!(ours.head_commit_sha.len() >= 8, "{}", ours.head_commit_sha);
}

/// Sets the mtime of every directory and ignore file of the work tree (and
/// `info/exclude`) a minute back, as if nothing had changed for a while:
/// only then may a status reuse its untracked listing.
#[cfg(unix)]
fn settle(dir: &Path) {
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        fs::File::open(&d).unwrap().set_modified(past).unwrap();
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_name() == ".git" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else if e.file_name() == ".gitignore" {
                fs::File::open(&p).unwrap().set_modified(past).unwrap();
            }
        }
    }
    for exclude in [".git/info/exclude", ".git/global-ignore"] {
        let exclude = dir.join(exclude);
        if exclude.exists() {
            fs::File::open(&exclude)
                .unwrap()
                .set_modified(past)
                .unwrap();
        }
    }
}

/// One change made to a work tree between two statuses.
#[cfg(unix)]
type Change = fn(&Path);

/// `git status --short` of `dir`, without git refreshing the index (that
/// alone would defeat reuse).
#[cfg(unix)]
fn git_status_lines(dir: &Path) -> Vec<String> {
    git_in(dir, &["--no-optional-locks", "status", "--short"])
        .lines()
        .map(str::to_owned)
        .collect()
}

#[cfg(unix)] // symlinks, exec bits, or the Unix fast path
#[test]
fn repeated_statuses_reuse_what_did_not_change_and_see_every_change() {
    use session_intel_core::project_status::untracked_listings;
    let base = tempfile::tempdir().unwrap();
    let dir = new_repo(base.path(), "repeated");
    write(&dir, ".gitignore", "build/\n*.log\n");
    write(&dir, "src/a.rs", "a");
    write(&dir, "src/deep/b.rs", "b");
    git_in(&dir, &["add", "."]);
    commit(&dir, "base", 1000);
    write(&dir, "notes.txt", "untracked");
    write(&dir, "build/out.o", "ignored");
    write(&dir, "scratch/idea.md", "untracked folder");
    write(
        &dir,
        "logs-only/x.log",
        "a folder of ignored files is not shown",
    );
    let steps: [(&str, Change); 16] = [
        ("nothing", |_| {}),
        ("a new file in a tracked folder", |d| {
            write(d, "src/deep/new.rs", "n")
        }),
        ("a file in an ignored folder", |d| {
            write(d, "build/more.o", "i")
        }),
        ("an edit in place of a tracked file", |d| {
            write(d, "src/a.rs", "changed")
        }),
        ("a .gitignore edited in place", |d| {
            write(d, ".gitignore", "build/\n*.log\n*.txt\n")
        }),
        ("info/exclude", |d| {
            fs::write(d.join(".git/info/exclude"), "scratch/\n").unwrap()
        }),
        ("the untracked folder emptied", |d| {
            fs::remove_file(d.join("scratch/idea.md")).unwrap()
        }),
        ("a deep file in a folder of ignored files", |d| {
            write(d, "logs-only/sub/dir/real.md", "shown")
        }),
        ("a new nested folder", |d| write(d, "src/deep/er/c.rs", "c")),
        ("a staged file", |d| {
            git_in(d, &["add", "src/deep/new.rs"]).truncate(0)
        }),
        ("a commit", |d| commit(d, "next", 10)),
        // The index's cached trees then hold a tree that is not HEAD's.
        ("a soft reset", |d| {
            git_in(d, &["reset", "-q", "--soft", "HEAD~1"]).truncate(0)
        }),
        ("a file staged and the index written as a tree", |d| {
            write(d, "src/staged.rs", "s");
            git_in(d, &["add", "src/staged.rs"]).truncate(0);
            git_in(d, &["write-tree"]).truncate(0);
        }),
        ("core.excludesFile set", |d| {
            fs::write(d.join(".git/global-ignore"), "notes.txt\n").unwrap();
            git_in(d, &["config", "core.excludesFile", ".git/global-ignore"]).truncate(0);
        }),
        ("the excludes file edited", |d| {
            fs::write(d.join(".git/global-ignore"), "src/deep/er/\n").unwrap()
        }),
        ("a removed tracked file", |d| {
            fs::remove_file(d.join("src/deep/b.rs")).unwrap()
        }),
    ];
    for (what, change) in steps {
        change(&dir);
        // Straight after the change (nothing reusable yet), then settled
        // (a listing is kept), then again (the kept listing is reused).
        for round in ["fresh", "settled", "reused"] {
            if round == "settled" {
                settle(&dir);
            }
            let ours = status_lines(&dir);
            assert_eq!(ours, git_status_lines(&dir), "after {what} ({round})");
        }
    }
    // Reuse is real: a settled, unchanged tree is listed once, then not again.
    settle(&dir);
    let root = dir.join("");
    let _ = status_lines(&dir);
    let listed = untracked_listings(&root);
    assert_eq!(status_lines(&dir), status_lines(&dir));
    assert_eq!(untracked_listings(&root), listed, "no new walk");
    // Even a change whose folder mtime is set back is seen (the change time moves).
    write(&dir, "hidden.md", "h");
    settle(&dir);
    assert!(status_lines(&dir).contains(&"?? hidden.md".to_string()));
    assert_eq!(untracked_listings(&root), listed + 1);
}

/// inotify watches tracked folders from the second status on: a later
/// status stats only the folders something was reported in, and still sees
/// every change: an edit in place of the same size with an older mtime,
/// and a folder whose path now names another folder (its watch followed
/// the old one away).
#[cfg(target_os = "linux")]
#[test]
fn repeated_statuses_stat_only_the_folders_inotify_reported_changes_in() {
    use session_intel_core::project_status::tracked_folders_stated;
    let base = tempfile::tempdir().unwrap();
    let dir = new_repo(base.path(), "watched");
    let files = [
        "top.txt",
        "src/a.rs",
        "src/deep/b.rs",
        "src/deep/c.rs",
        "docs/x.md",
    ];
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for file in files {
        write(&dir, file, "same");
        // Older than the index: clean by stat data alone, not racily clean.
        set_mtime(&dir.join(file), past);
    }
    git_in(&dir, &["add", "."]);
    commit(&dir, "base", 100);
    let root = dir.join("");
    let check = |what: &str| assert_eq!(status_lines(&dir), git_status_lines(&dir), "{what}");
    check("first status: nothing watched");
    check("second: every folder watched, then stat'ed");
    let stated = tracked_folders_stated(&root);
    check("third: nothing reported");
    assert_eq!(
        tracked_folders_stated(&root),
        stated,
        "no folder stat'ed again"
    );

    // (An mtime set back to the same instant would leave the change to
    // the ctime, which git compares to the second only.)
    let b = dir.join("src/deep/b.rs");
    fs::write(&b, "diff").unwrap();
    set_mtime(&b, past - std::time::Duration::from_secs(10));
    check("an edit in place of the same size, mtime set back");
    assert_eq!(
        tracked_folders_stated(&root),
        stated + 1,
        "only the edited file's folder stat'ed"
    );

    fs::rename(dir.join("src"), dir.join("src-old")).unwrap();
    write(&dir, "src/a.rs", "same");
    write(&dir, "src/deep/b.rs", "diff");
    write(&dir, "src/deep/c.rs", "other");
    check("a folder above replaced");
    check("and again");
}

/// A linked worktree keeps its index in the main repository, so moving a
/// folder above the worktree away and putting a copy back changes neither
/// the index nor any watched folder: the root's identity does.
#[cfg(target_os = "linux")]
#[test]
fn a_watched_work_tree_put_back_as_a_copy_is_stat_ed_afresh() {
    let base = tempfile::tempdir().unwrap();
    let main = new_repo(base.path(), "main");
    write(&main, "src/a.rs", "same");
    write(&main, "top.txt", "same");
    git_in(&main, &["add", "."]);
    commit(&main, "base", 100);
    let outer = base.path().join("outer");
    let wt = outer.join("wt");
    git_in(&main, &["worktree", "add", "-q", wt.to_str().unwrap()]);
    // Files older than the worktree's index: clean by stat data alone.
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for file in ["src/a.rs", "top.txt"] {
        set_mtime(&wt.join(file), past);
    }
    git_in(&wt, &["update-index", "-q", "--refresh"]);
    let check = |what: &str| assert_eq!(status_lines(&wt), git_status_lines(&wt), "{what}");
    for round in ["first", "second (watched)", "third (reused)"] {
        check(round);
    }
    fs::rename(&outer, base.path().join("outer-old")).unwrap();
    let copied = Command::new("cp")
        .args(["-a", "outer-old", "outer"])
        .current_dir(base.path())
        .status()
        .unwrap();
    assert!(copied.success());
    write(&wt, "src/a.rs", "changed, longer");
    check("the copy put back, a file changed in it");
}

#[test]
fn a_repository_created_again_at_the_same_path_is_read_afresh() {
    let base = tempfile::tempdir().unwrap();
    let mut options = ProjectStatusOptions::default();
    options.discover.claude_config_dir = Some(base.path().join("no-claude"));
    options.discover.registry_root = Some(base.path().join("no-state"));
    let head = |dir: &Path| {
        let brief = gather_project_status(
            dir.to_str().unwrap(),
            None,
            &options,
            &DiscoveryCache::new(),
        );
        let git = brief.unwrap().git;
        (
            git.head_commit_message,
            git.recent_commits.len(),
            git.status.lines,
            git.head_commit_sha,
        )
    };
    for (life, commits) in [("first life", 3), ("second life", 1)] {
        let dir = base.path().join("again");
        let _ = fs::remove_dir_all(&dir);
        let dir = new_repo(base.path(), "again");
        write(&dir, "a.txt", life);
        if commits == 3 {
            git_in(&dir, &["config", "core.abbrev", "12"]);
        }
        git_in(&dir, &["add", "."]);
        for n in 0..commits {
            commit(&dir, &format!("{life} {n}"), 100 - n);
        }
        write(&dir, &format!("{}.new", life.replace(' ', "-")), "u");
        let (message, count, status, sha) = head(&dir);
        let git_sha = git_in(&dir, &["log", "-1", "--format=%h"]);
        assert_eq!(
            sha,
            git_sha.trim_end(),
            "abbreviation as configured in {life}"
        );
        assert_eq!(message, format!("{life} {}", commits - 1));
        assert_eq!(count, commits as usize);
        assert_eq!(status, [format!("?? {}.new", life.replace(' ', "-"))]);
    }
}
