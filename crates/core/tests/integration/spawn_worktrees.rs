//! Spawn worktrees on real git repositories made with the git CLI: made in
//! Claude Code's layout, every fault leaving nothing behind, finished,
//! listed and pruned.

use session_intel_core::worktree::{
    create_spawn_worktree, finish_spawn_worktree, list_spawn_worktrees, prune_spawn_worktrees,
    PruneOptions, SpawnWorktree, DEFAULT_TIMEOUT,
};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use crate::util::git_repo::*;

fn deadline() -> Instant {
    Instant::now() + DEFAULT_TIMEOUT
}

/// A repository with one commit, a subfolder and an uncommitted change.
fn repo(tmp: &tempfile::TempDir) -> PathBuf {
    let base = tmp.path().canonicalize().unwrap();
    let repo = new_repo(&base, "shop");
    write(&repo, "src/cart.rs", "fn cart() {}\n");
    write(&repo, "README.md", "shop\n");
    git_in(&repo, &["add", "."]);
    commit(&repo, "Start", 60);
    write(&repo, "src/cart.rs", "fn cart() { total() }\n");
    repo
}

/// Everything a failed creation must leave as it was: the `.claude`
/// folder's listing, the branches, `.git/worktrees`, `info/exclude` and the
/// main tree's status.
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
        format!("{}: {names:?} file={}", dir.display(), dir.is_file())
    };
    vec![
        listing(repo.join(".claude")),
        listing(repo.join(".claude/worktrees")),
        listing(repo.join(".git/worktrees")),
        git_in(repo, &["branch", "--list", "--format=%(refname)"]),
        fs::read_to_string(repo.join(".git/info/exclude")).unwrap_or_default(),
        git_in(repo, &["status", "--porcelain"]),
    ]
}

/// Makes the worktree's spawn marker older than the start grace, so that
/// pruning does not take it for a spawn still starting.
fn age(wt: &str) {
    let text = fs::read_to_string(Path::new(wt).join(".git")).unwrap();
    let admin = PathBuf::from(text.trim().strip_prefix("gitdir:").unwrap().trim());
    set_mtime(
        &admin.join("OPENCLAW_SPAWN"),
        SystemTime::now() - Duration::from_secs(3600),
    );
}

#[test]
fn a_worktree_is_made_in_claude_codes_layout_and_keeps_the_subfolder() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    let status_before = git_in(&repo, &["status", "--porcelain"]);
    let head = git_in(&repo, &["rev-parse", "HEAD"]).trim().to_owned();
    let wt = create_spawn_worktree(&repo.join("src"), "spawn-n1", "n1", deadline()).unwrap();
    let path = repo.join(".claude/worktrees/spawn-n1");
    assert_eq!(wt.worktree_path, path.to_string_lossy());
    assert_eq!(wt.branch, "worktree-spawn-n1");
    assert_eq!(wt.base_commit, head);
    assert_eq!(wt.repo_path, repo.to_string_lossy());
    assert_eq!(wt.subfolder, "src");
    assert_eq!(wt.cwd, path.join("src").to_string_lossy());
    assert_eq!(
        fs::read_to_string(path.join("src/cart.rs")).unwrap(),
        "fn cart() {}\n",
        "the main tree's uncommitted change is not in the worktree"
    );
    assert_eq!(
        git_in(&path, &["branch", "--show-current"]).trim(),
        "worktree-spawn-n1"
    );
    assert_eq!(
        git_in(&repo, &["status", "--porcelain"]),
        status_before,
        "the main tree's status does not change"
    );
    assert!(fs::read_to_string(repo.join(".git/info/exclude"))
        .unwrap()
        .contains("**/.claude/worktrees/"));
    assert_eq!(
        fs::read_to_string(repo.join(".git/worktrees/spawn-n1/CLAUDE_BASE"))
            .unwrap()
            .trim(),
        head
    );
    // Names are unique: the same name asked again gets the next free one,
    // and the exclude line is written once.
    let again = create_spawn_worktree(&repo, "spawn-n1", "n2", deadline()).unwrap();
    assert_eq!(again.branch, "worktree-spawn-n1-2");
    assert_eq!(again.subfolder, "");
    let exclude = fs::read_to_string(repo.join(".git/info/exclude")).unwrap();
    assert_eq!(exclude.matches(".claude/worktrees/").count(), 1);
    // From inside a worktree, the next one is still made in the main tree.
    let third = create_spawn_worktree(&path.join("src"), "spawn-n3", "n3", deadline()).unwrap();
    assert_eq!(third.repo_path, repo.to_string_lossy());
    assert_eq!(third.subfolder, "src");
}

#[test]
fn claude_codes_own_exclude_block_is_used_as_it_is() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    let block = "# claude-code-runtime\n**/.claude/scheduled_tasks.lock\n**/.claude/worktrees/\n";
    write(&repo, ".git/info/exclude", block);
    create_spawn_worktree(&repo, "spawn-a", "a", deadline()).unwrap();
    assert_eq!(
        fs::read_to_string(repo.join(".git/info/exclude")).unwrap(),
        block
    );
    assert_eq!(
        git_in(&repo, &["status", "--porcelain"]),
        " M src/cart.rs\n"
    );
}

/// Runs a creation that must fail, and checks it left everything as it was.
fn fails_leaving_nothing(repo: &Path, name: &str, until: Instant, why: &str) -> String {
    let before = snapshot(repo);
    let err = create_spawn_worktree(repo, name, "n", until).unwrap_err();
    assert_eq!(snapshot(repo), before, "{why}: something was left behind");
    err.to_string()
}

#[test]
fn a_locked_index_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    write(&repo, ".git/index.lock", "");
    let msg = fails_leaving_nothing(&repo, "spawn-a", deadline(), "locked index");
    assert!(msg.contains("index.lock"), "{msg}");
}

#[test]
fn a_branch_name_taken_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    // `worktree-spawn-a/x` makes `worktree-spawn-a` impossible to create
    // although no branch of that name exists.
    git_in(&repo, &["branch", "worktree-spawn-a/x"]);
    let msg = fails_leaving_nothing(&repo, "spawn-a", deadline(), "branch taken");
    assert!(msg.contains("git worktree add failed"), "{msg}");
}

#[test]
fn an_unwritable_claude_folder_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    // A file where the folder should be: nothing can be made in it (unlike
    // a mode, this holds for root too).
    write(&repo, ".claude", "not a folder\n");
    git_in(&repo, &["add", ".claude"]);
    commit(&repo, "A .claude file", 30);
    let msg = fails_leaving_nothing(&repo, "spawn-a", deadline(), "unwritable .claude");
    assert!(msg.contains(".claude"), "{msg}");
}

#[cfg(unix)]
#[test]
fn a_symlinked_claude_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, repo.join(".claude")).unwrap();
    let msg = fails_leaving_nothing(&repo, "spawn-a", deadline(), "symlink");
    assert!(msg.contains("symbolic link"), "{msg}");
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[cfg(unix)]
#[test]
fn a_failing_git_worktree_add_leaves_nothing_behind() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    // git makes the worktree, its branch and its entry, then its
    // post-checkout hook fails, and so does `git worktree add`.
    let hook = repo.join(".git/hooks/post-checkout");
    write(&repo, ".git/hooks/post-checkout", "#!/bin/sh\nexit 3\n");
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    let msg = fails_leaving_nothing(&repo, "spawn-a", deadline(), "failing add");
    assert!(msg.contains("git worktree add failed"), "{msg}");
    assert!(!repo.join(".claude").exists());
}

#[test]
fn running_out_of_time_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    let msg = fails_leaving_nothing(&repo, "spawn-a", Instant::now(), "deadline");
    assert!(msg.contains("in time"), "{msg}");
}

#[test]
fn a_folder_outside_git_or_without_a_commit_cannot_be_isolated() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    fs::create_dir_all(&plain).unwrap();
    let err = create_spawn_worktree(&plain, "spawn-a", "n", deadline()).unwrap_err();
    assert!(err.to_string().contains("not in a git repository"), "{err}");
    let empty = new_repo(tmp.path(), "empty");
    let err = create_spawn_worktree(&empty, "spawn-a", "n", deadline()).unwrap_err();
    assert!(err.to_string().contains("no commit"), "{err}");
    assert!(!empty.join(".claude").exists());
}

#[test]
fn finishing_removes_a_worktree_that_holds_nothing_and_keeps_any_other() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    let make = |name: &str| create_spawn_worktree(&repo, name, name, deadline()).unwrap();
    let empty = make("spawn-empty");
    let done = finish_spawn_worktree(Path::new(&empty.worktree_path), deadline()).unwrap();
    assert!(done.removed);
    assert!(!Path::new(&empty.worktree_path).exists());
    assert!(!repo.join(".git/worktrees/spawn-empty").exists());
    assert_eq!(
        git_in(&repo, &["branch", "--list", "worktree-spawn-empty"]),
        ""
    );
    // Finishing again reports it gone.
    let again = finish_spawn_worktree(Path::new(&empty.worktree_path), deadline()).unwrap();
    assert!(again.removed);

    let committed = make("spawn-commit");
    let wt = Path::new(&committed.worktree_path);
    write(wt, "src/tax.rs", "fn tax() {}\n");
    git_in(wt, &["add", "."]);
    commit(wt, "Add tax", 1);
    let kept = finish_spawn_worktree(wt, deadline()).unwrap();
    assert_eq!(
        (kept.removed, kept.commits_ahead, kept.dirty, kept.merged),
        (false, 1, false, false)
    );
    assert_eq!(kept.branch, "worktree-spawn-commit");
    assert!(wt.exists());

    let dirty = make("spawn-dirty");
    let wt = Path::new(&dirty.worktree_path);
    write(wt, "new-file.txt", "work\n");
    let kept = finish_spawn_worktree(wt, deadline()).unwrap();
    assert_eq!((kept.removed, kept.dirty), (false, true));
    assert!(wt.join("new-file.txt").exists());
}

#[test]
fn pruning_removes_merged_and_clean_worktrees_and_the_rest_only_when_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    let claude = tmp.path().join("claude");
    let make = |name: &str| {
        let wt = create_spawn_worktree(&repo, name, name, deadline()).unwrap();
        age(&wt.worktree_path);
        wt
    };
    let clean = make("spawn-clean");
    let merged = make("spawn-merged");
    let m = Path::new(&merged.worktree_path);
    write(m, "merged.txt", "merged\n");
    git_in(m, &["add", "."]);
    commit(m, "Merged work", 1);
    git_in(
        &repo,
        &["merge", "-q", "--ff-only", "worktree-spawn-merged"],
    );
    let unmerged = make("spawn-unmerged");
    let u = Path::new(&unmerged.worktree_path);
    write(u, "unmerged.txt", "unmerged\n");
    git_in(u, &["add", "."]);
    commit(u, "Unmerged work", 1);
    let dirty = make("spawn-dirty");
    write(Path::new(&dirty.worktree_path), "src/cart.rs", "changed\n");
    let young = create_spawn_worktree(&repo, "spawn-young", "young", deadline()).unwrap();
    // Claude Code's own worktree (`claude --worktree`) is not a spawn's.
    git_in(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "worktree-mine",
            ".claude/worktrees/mine",
        ],
    );

    let listed = list_spawn_worktrees(&repo, &claude, deadline()).unwrap();
    let by = |name: &str| -> SpawnWorktree {
        listed
            .iter()
            .find(|w| w.path.ends_with(name))
            .cloned()
            .unwrap_or_else(|| panic!("{name} not listed"))
    };
    assert_eq!(listed.len(), 5, "{listed:#?}");
    assert_eq!(
        (by("spawn-merged").commits_ahead, by("spawn-merged").merged),
        (1, true)
    );
    assert_eq!(
        (
            by("spawn-unmerged").commits_ahead,
            by("spawn-unmerged").merged
        ),
        (1, false)
    );
    assert!(by("spawn-dirty").dirty);
    assert!(by("spawn-young").in_use && !by("spawn-clean").in_use);
    assert_eq!(by("spawn-clean").nonce.as_deref(), Some("spawn-clean"));

    let opts = PruneOptions {
        claude_config_dir: Some(claude.clone()),
        ..PruneOptions::default()
    };
    let pruned = prune_spawn_worktrees(&repo, &opts, deadline()).unwrap();
    let removed: Vec<&str> = pruned
        .iter()
        .filter(|w| w.removed)
        .map(|w| w.path.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(removed, ["spawn-clean", "spawn-merged"]);
    for wt in [&clean, &merged] {
        assert!(!Path::new(&wt.worktree_path).exists());
        assert_eq!(git_in(&repo, &["branch", "--list", &wt.branch]), "");
    }
    for wt in [&unmerged, &dirty, &young] {
        assert!(Path::new(&wt.worktree_path).exists());
    }
    assert!(repo.join(".claude/worktrees/mine").exists());

    // Forced, only the one named goes, changes and all.
    let forced = prune_spawn_worktrees(
        &repo,
        &PruneOptions {
            force: true,
            paths: vec![dirty.worktree_path.clone()],
            ..opts
        },
        deadline(),
    )
    .unwrap();
    assert_eq!(forced.len(), 1);
    assert!(forced[0].removed);
    assert!(!Path::new(&dirty.worktree_path).exists());
    assert!(Path::new(&unmerged.worktree_path).exists());
    assert_eq!(
        git_in(
            &repo,
            &[
                "branch",
                "--list",
                "--format=%(refname:short)",
                "worktree-spawn-unmerged"
            ]
        )
        .trim(),
        "worktree-spawn-unmerged"
    );
}

#[test]
fn worktrees_made_at_the_same_instant_are_all_made() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(&tmp);
    // Unserialized, git's own `worktree add` run at once fails now and then
    // ("failed to read .git/worktrees/<name>/commondir"): eight at once, two
    // asking for each name.
    let made: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let repo = &repo;
                let name = format!("spawn-{}", i % 4);
                s.spawn(move || create_spawn_worktree(repo, &name, "n", deadline()))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut branches: Vec<&str> = Vec::new();
    for wt in &made {
        let wt = wt.as_ref().unwrap();
        assert!(Path::new(&wt.worktree_path).join("src/cart.rs").is_file());
        branches.push(&wt.branch);
    }
    branches.sort();
    branches.dedup();
    assert_eq!(
        branches.len(),
        8,
        "each has a name of its own: {branches:?}"
    );
    let exclude = fs::read_to_string(repo.join(".git/info/exclude")).unwrap();
    assert_eq!(exclude.matches(".claude/worktrees/").count(), 1);
    assert_eq!(
        git_in(&repo, &["status", "--porcelain"]),
        " M src/cart.rs\n"
    );
}
