//! The spare worktree on real git repositories made with the git CLI:
//! prepared off to the side of the main tree, taken by the next isolation
//! and brought to `HEAD` then, never taken with local changes, one
//! preparation at a time, and every failure leaving nothing half-made.

use session_intel_core::fs_safe::{FileLock, LockOptions};
use session_intel_core::worktree::{
    create_spawn_worktree, list_spawn_worktrees, prepare_spare_worktree, prune_spawn_worktrees,
    PruneOptions, DEFAULT_TIMEOUT, SPARE_PREFIX,
};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::util::git_repo::*;
use crate::util::scratch::spare_dirs;

fn deadline() -> Instant {
    Instant::now() + DEFAULT_TIMEOUT
}

/// A repository with two commits, a subfolder and an uncommitted change.
fn repo(tmp: &tempfile::TempDir) -> PathBuf {
    let base = tmp.path().canonicalize().unwrap();
    let repo = new_repo(&base, "shop");
    write(&repo, "src/cart.rs", "fn cart() {}\n");
    write(&repo, "src/old.rs", "old\n");
    write(&repo, "README.md", "shop\n");
    git_in(&repo, &["add", "."]);
    commit(&repo, "Start", 60);
    write(&repo, "README.md", "shop, the shop\n");
    git_in(&repo, &["add", "."]);
    commit(&repo, "Name it", 50);
    write(&repo, "src/cart.rs", "fn cart() { total() }\n");
    repo
}

fn head(dir: &Path) -> String {
    git_in(dir, &["rev-parse", "HEAD"]).trim().to_owned()
}

/// The worktree roots git lists, the main tree's first.
fn worktree_list(repo: &Path) -> Vec<String> {
    git_in(repo, &["worktree", "list", "--porcelain"])
        .lines()
        .filter_map(|l| l.strip_prefix("worktree ").map(str::to_owned))
        .collect()
}

fn branches(repo: &Path) -> String {
    git_in(repo, &["branch", "--list", "--format=%(refname:short)"])
}

/// Everything a failed preparation must leave as it was.
fn snapshot(repo: &Path) -> Vec<String> {
    let listing = |dir: PathBuf| -> String {
        let mut names: Vec<String> = fs::read_dir(&dir)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        format!("{}: {names:?}", dir.display())
    };
    vec![
        listing(repo.join(".claude")),
        listing(repo.join(".git/worktrees")),
        branches(repo),
        fs::read_to_string(repo.join(".git/info/exclude")).unwrap_or_default(),
        git_in(repo, &["status", "--porcelain"]),
    ]
}

#[test]
fn a_spare_is_taken_by_the_next_isolation_and_the_main_tree_stays_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    let status = git_in(&repo, &["status", "--porcelain"]);
    let spare = prepare_spare_worktree(&repo.join("src"), deadline())
        .unwrap()
        .unwrap();
    assert_eq!(spare.action, "made");
    assert_eq!(spare.commit, head(&repo));
    assert!(spare.path.starts_with(
        &*repo
            .join(".claude/worktrees")
            .join(SPARE_PREFIX)
            .to_string_lossy()
    ));
    assert_eq!(
        git_in(Path::new(&spare.path), &["status", "--porcelain"]),
        ""
    );
    assert_eq!(git_in(&repo, &["status", "--porcelain"]), status);
    // No spawn's: not listed, not pruned.
    let claude = repo.join(".git/no-claude");
    assert!(list_spawn_worktrees(&repo, &claude, deadline())
        .unwrap()
        .is_empty());

    let wt = create_spawn_worktree(&repo.join("src"), "spawn-a", "a", deadline()).unwrap();
    assert!(wt.from_spare);
    let path = repo.join(".claude/worktrees/spawn-a");
    assert_eq!(wt.worktree_path, path.to_string_lossy());
    assert_eq!(wt.cwd, path.join("src").to_string_lossy());
    assert_eq!(wt.base_commit, head(&repo));
    assert_eq!(
        git_in(&path, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
        "worktree-spawn-a"
    );
    assert_eq!(
        fs::read_to_string(path.join("src/cart.rs")).unwrap(),
        "fn cart() {}\n"
    );
    assert_eq!(git_in(&path, &["status", "--porcelain"]), "");
    assert!(spare_dirs(&repo).is_empty(), "the spare was moved");
    assert!(!Path::new(&spare.path).exists());
    assert_eq!(git_in(&repo, &["status", "--porcelain"]), status);
    let listed = list_spawn_worktrees(&repo, &claude, deadline()).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].path, wt.worktree_path);
    assert_eq!(listed[0].nonce.as_deref(), Some("a"));
    assert_eq!(listed[0].commits_ahead, 0);
    assert!(!listed[0].dirty);
}

#[test]
fn a_spare_older_than_head_is_brought_forward_when_taken() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    prepare_spare_worktree(&repo, deadline()).unwrap().unwrap();
    write(&repo, "src/new.rs", "new\n");
    write(&repo, "README.md", "shop, renamed\n");
    git_in(&repo, &["rm", "-q", "src/old.rs"]);
    git_in(&repo, &["add", "src/new.rs", "README.md"]);
    commit(&repo, "Move on", 10);
    let wt = create_spawn_worktree(&repo, "spawn-b", "b", deadline()).unwrap();
    assert!(wt.from_spare);
    let path = Path::new(&wt.worktree_path);
    assert_eq!(wt.base_commit, head(&repo));
    assert_eq!(head(path), head(&repo));
    assert_eq!(
        fs::read_to_string(path.join("README.md")).unwrap(),
        "shop, renamed\n"
    );
    assert!(path.join("src/new.rs").is_file());
    assert!(!path.join("src/old.rs").exists());
    assert_eq!(git_in(path, &["status", "--porcelain"]), "");
}

#[test]
fn a_preparation_brings_an_older_spare_forward_and_leaves_a_current_one() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    let first = prepare_spare_worktree(&repo, deadline()).unwrap().unwrap();
    let again = prepare_spare_worktree(&repo, deadline()).unwrap().unwrap();
    assert_eq!((again.action, &again.path), ("current", &first.path));
    write(&repo, "src/new.rs", "new\n");
    git_in(&repo, &["add", "src/new.rs"]);
    commit(&repo, "Move on", 10);
    let forward = prepare_spare_worktree(&repo, deadline()).unwrap().unwrap();
    assert_eq!(forward.action, "brought forward");
    assert_eq!(forward.path, first.path);
    assert_eq!(forward.commit, head(&repo));
    assert_eq!(head(Path::new(&forward.path)), head(&repo));
    assert!(Path::new(&forward.path).join("src/new.rs").is_file());
    assert_eq!(spare_dirs(&repo).len(), 1);
}

#[test]
fn a_spare_with_local_changes_is_never_taken_and_is_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    let spare = prepare_spare_worktree(&repo, deadline()).unwrap().unwrap();
    write(Path::new(&spare.path), "stray.txt", "someone's work\n");
    let wt = create_spawn_worktree(&repo, "spawn-c", "c", deadline()).unwrap();
    assert!(!wt.from_spare);
    assert!(!Path::new(&wt.worktree_path).join("stray.txt").exists());
    assert!(Path::new(&spare.path).join("stray.txt").is_file());
    let next = prepare_spare_worktree(&repo, deadline()).unwrap().unwrap();
    assert_eq!(next.action, "made");
    assert_ne!(next.path, spare.path);
    assert!(!Path::new(&spare.path).exists());
    assert_eq!(spare_dirs(&repo), vec![PathBuf::from(&next.path)]);
}

#[test]
fn a_failed_take_falls_back_to_a_full_checkout_leaving_nothing_half_made() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    let spare = prepare_spare_worktree(&repo, deadline()).unwrap().unwrap();
    // The spare's own index is locked: its checkout onto the spawn's
    // branch fails after it was moved.
    let admin = git_in(Path::new(&spare.path), &["rev-parse", "--absolute-git-dir"]);
    write(Path::new(admin.trim()), "index.lock", "");
    let wt = create_spawn_worktree(&repo, "spawn-d", "d", deadline()).unwrap();
    assert!(!wt.from_spare);
    let path = repo.join(".claude/worktrees/spawn-d");
    assert_eq!(
        worktree_list(&repo),
        vec![
            repo.to_string_lossy().into_owned(),
            path.to_string_lossy().into_owned()
        ]
    );
    assert_eq!(branches(&repo), "main\nworktree-spawn-d\n");
    assert!(spare_dirs(&repo).is_empty());
    assert_eq!(
        fs::read_dir(repo.join(".git/worktrees")).unwrap().count(),
        1,
        "one git folder, the spawn's"
    );
    assert_eq!(git_in(&path, &["status", "--porcelain"]), "");
    assert_eq!(head(&path), head(&repo));
}

#[test]
fn one_preparation_runs_at_a_time() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    let before = snapshot(&repo);
    {
        let _held =
            FileLock::acquire(&repo.join(".git/worktrees-spare"), LockOptions::default()).unwrap();
        assert_eq!(prepare_spare_worktree(&repo, deadline()).unwrap(), None);
        assert_eq!(snapshot(&repo), before);
    }
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| prepare_spare_worktree(&repo, deadline()).unwrap());
        let b = s.spawn(|| prepare_spare_worktree(&repo, deadline()).unwrap());
        (a.join().unwrap(), b.join().unwrap())
    });
    let made: Vec<_> = [a, b].into_iter().flatten().collect();
    assert!(!made.is_empty());
    assert!(made.iter().all(|s| s.path == made[0].path));
    assert_eq!(spare_dirs(&repo), vec![PathBuf::from(&made[0].path)]);
    assert!(!repo.join(".git/worktrees-spare.lock").exists());
}

#[test]
fn a_failed_preparation_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    // Checking the files out runs a required filter that fails.
    write(&repo, ".gitattributes", "*.rs filter=boom\n");
    git_in(&repo, &["add", ".gitattributes"]);
    commit(&repo, "Filter", 5);
    git_in(&repo, &["config", "filter.boom.smudge", "false"]);
    git_in(&repo, &["config", "filter.boom.required", "true"]);
    let before = snapshot(&repo);
    let e = prepare_spare_worktree(&repo, deadline()).unwrap_err();
    assert!(
        e.message.contains("git reset --hard failed"),
        "{}",
        e.message
    );
    assert_eq!(snapshot(&repo), before);
    assert!(!repo.join(".claude").exists());
    assert_eq!(worktree_list(&repo).len(), 1);
}

#[test]
fn pruning_removes_an_abandoned_spare_and_keeps_a_ready_one() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    let ready = prepare_spare_worktree(&repo, deadline()).unwrap().unwrap();
    // What a preparation that died before it was ready leaves.
    let dead = repo
        .join(".claude/worktrees")
        .join(format!("{SPARE_PREFIX}dead"));
    git_in(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "--detach",
            &dead.to_string_lossy(),
            "HEAD",
        ],
    );
    let options = PruneOptions {
        claude_config_dir: Some(repo.join(".git/no-claude")),
        ..PruneOptions::default()
    };
    let pruned = prune_spawn_worktrees(&repo, &options, deadline()).unwrap();
    assert!(pruned.is_empty(), "spares are no spawn's: {pruned:?}");
    assert_eq!(spare_dirs(&repo), vec![PathBuf::from(&ready.path)]);
    assert_eq!(worktree_list(&repo).len(), 2);
    let status = git_in(&repo, &["status", "--porcelain"]);
    assert!(!status.contains(".claude"), "{status}");
}
