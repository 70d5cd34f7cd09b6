//! Isolation in the spawn pre-flight: a spawn into a busy git repository
//! runs in a worktree of its own, on real repositories made with the git
//! CLI; the busy guard decides where that cannot be done.

use session_intel_core::claude_code::{DiscoveryCache, PersistentCache};
use session_intel_core::preflight::{
    preflight_spawn, Decision, GuardMode, Isolation, PreflightOptions, PreflightOutcome,
    SpawnRequest,
};
use session_intel_core::spawns::InFlightSpawn;
use std::fs;
use std::path::{Path, PathBuf};

use crate::util::git_repo::*;
use crate::util::scratch::{shop_repo, spare_dirs, Scratch};

const BUSY: &str = "aaaaaaaa-1111-2222-3333-444444444444";
const NONCE: &str = "0123456789abcdef";

struct World {
    scratch: Scratch,
    repo: PathBuf,
    claude: PathBuf,
}

impl World {
    fn new() -> World {
        let scratch = Scratch::new();
        let repo = shop_repo(&scratch.base, 600, &[]);
        write(&repo, "src/cart.rs", "fn cart() { total() }\n");
        write(&repo, "notes.txt", "todo\n");
        World {
            repo,
            claude: scratch.claude.clone(),
            scratch,
        }
    }

    /// Options with a spawn of `session` (none: not learned yet) starting
    /// in the repository.
    fn busy(&self, session: Option<&str>) -> PreflightOptions {
        PreflightOptions {
            claude_config_dir: Some(self.claude.clone()),
            registry_root: Some(self.claude.join("no-state")),
            nonce: NONCE.into(),
            persistent_cache: PersistentCache::Off,
            in_flight: vec![InFlightSpawn {
                repo_path: Some(self.repo.to_string_lossy().into_owned()),
                cwd: self.repo.to_string_lossy().into_owned(),
                claude_session_id: session.map(str::to_owned),
                ..InFlightSpawn::default()
            }],
            ..PreflightOptions::default()
        }
    }

    fn run(&self, cwd: &Path, opts: &PreflightOptions) -> PreflightOutcome {
        let req = SpawnRequest {
            task: "Add tax to the cart".into(),
            cwd: Some(cwd.to_string_lossy().into_owned()),
            agent_id: "main".into(),
            ..SpawnRequest::default()
        };
        preflight_spawn(&req, opts, &DiscoveryCache::new()).unwrap()
    }
}

#[test]
fn a_spawn_into_a_busy_repository_runs_in_a_worktree_of_its_own() {
    let w = World::new();
    let status = git_in(&w.repo, &["status", "--porcelain"]);
    let head = git_in(&w.repo, &["rev-parse", "HEAD"]).trim().to_owned();
    let out = w.run(&w.repo.join("src"), &w.busy(Some(BUSY)));
    assert_eq!(out.decision, Decision::Brief, "{}", out.reason);
    assert_eq!(out.guard, None);
    let wt = w.repo.join(format!(".claude/worktrees/spawn-{NONCE}"));
    assert_eq!(out.cwd.as_deref(), Some(&*wt.join("src").to_string_lossy()));
    let iso = out.isolation.clone().unwrap();
    assert_eq!(iso.worktree.branch, format!("worktree-spawn-{NONCE}"));
    assert_eq!(iso.worktree.base_commit, head);
    assert_eq!(iso.worktree.subfolder, "src");
    assert_eq!(iso.busy_session_id.as_deref(), Some(BUSY));
    assert_eq!(out.base_commit.as_deref(), Some(&*head));
    assert_eq!(out.running.unwrap().session_id.as_deref(), Some(BUSY));
    assert!(wt.join("src/cart.rs").is_file());
    let briefing = out.briefing.unwrap();
    for said in [
        format!(
            "Isolated worktree: you work in {}",
            wt.join("src").display()
        ),
        format!("on its own branch worktree-spawn-{NONCE}"),
        format!("because session {BUSY} is editing the main working tree"),
        "uncommitted changes are not in your worktree: src/cart.rs, notes.txt".to_owned(),
        format!("Commit your work on branch worktree-spawn-{NONCE}"),
    ] {
        assert!(briefing.contains(&said), "{said:?} not in:\n{briefing}");
    }
    assert!(out.task.unwrap().contains(&briefing));
    assert_eq!(git_in(&w.repo, &["status", "--porcelain"]), status);
}

#[test]
fn a_spawn_starting_in_the_main_tree_sends_the_next_one_to_a_worktree() {
    let w = World::new();
    let out = w.run(&w.repo, &w.busy(None));
    let iso = out.isolation.unwrap();
    assert_eq!(iso.worktree.subfolder, "");
    assert_eq!(iso.busy_session_id, None);
    assert!(out
        .briefing
        .unwrap()
        .contains("because another spawn is starting in the main working tree"));
}

#[test]
fn isolation_off_leaves_the_busy_guard_and_always_isolates_an_idle_repository() {
    let w = World::new();
    let off = PreflightOptions {
        isolation: Isolation::Off,
        ..w.busy(Some(BUSY))
    };
    let out = w.run(&w.repo, &off);
    assert_eq!((out.decision, out.guard), (Decision::Block, Some("busy")));
    assert!(out.isolation.is_none() && !w.repo.join(".claude").exists());

    let idle = PreflightOptions {
        in_flight: vec![],
        ..w.busy(None)
    };
    let out = w.run(&w.repo, &idle);
    assert_eq!(out.decision, Decision::Brief);
    assert!(out.isolation.is_none() && out.cwd.is_none());
    let head = git_in(&w.repo, &["rev-parse", "HEAD"]).trim().to_owned();
    assert_eq!(
        out.base_commit.as_deref(),
        Some(&*head),
        "every spawn has its base"
    );

    let always = PreflightOptions {
        isolation: Isolation::Always,
        ..idle
    };
    let out = w.run(&w.repo, &always);
    assert!(out.isolation.unwrap().reason.contains("isolation: always"));
}

#[test]
fn a_spawn_at_work_in_a_worktree_leaves_the_main_tree_free() {
    let w = World::new();
    let isolated = w.run(&w.repo.join("src"), &w.busy(Some(BUSY)));
    let mut opts = w.busy(None);
    // The isolated spawn is the one in flight now, starting in its worktree.
    opts.in_flight[0].cwd = isolated.cwd.clone().unwrap();
    opts.nonce = "fedcba9876543210".into();
    let out = w.run(&w.repo, &opts);
    assert_eq!(out.decision, Decision::Brief, "{}", out.reason);
    assert!(
        out.isolation.is_none() && out.cwd.is_none(),
        "{:?}",
        out.isolation
    );
}

#[test]
fn a_busy_folder_outside_git_gets_the_busy_guard() {
    let w = World::new();
    let plain = w.scratch.base.join("plain");
    fs::create_dir_all(&plain).unwrap();
    let mut opts = w.busy(Some(BUSY));
    opts.in_flight[0].repo_path = Some(plain.to_string_lossy().into_owned());
    opts.in_flight[0].cwd = plain.to_string_lossy().into_owned();
    let out = w.run(&plain, &opts);
    assert_eq!((out.decision, out.guard), (Decision::Block, Some("busy")));
    assert!(
        out.reason.contains("not a git repository"),
        "{}",
        out.reason
    );
    assert!(!plain.join(".claude").exists());
}

#[test]
fn a_checkout_that_does_not_fit_the_budget_is_cut_and_undone_and_the_busy_guard_answers_within_it()
{
    let w = World::new();
    // A checkout that takes far longer than the budget: git runs the
    // repository's post-checkout hook at the end of `worktree add`.
    let hook = w.repo.join(".git/hooks/post-checkout");
    fs::create_dir_all(hook.parent().unwrap()).unwrap();
    fs::write(&hook, "#!/bin/sh\nsleep 30\n").unwrap();
    fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let budget = std::time::Duration::from_secs(6);
    let opts = PreflightOptions {
        budget: Some(budget),
        spare_worktree: false,
        ..w.busy(Some(BUSY))
    };
    let started = std::time::Instant::now();
    let out = w.run(&w.repo, &opts);
    let took = started.elapsed();
    assert!(
        took < budget,
        "answered after {took:?}, past its budget of {budget:?}"
    );
    assert_eq!((out.decision, out.guard), (Decision::Block, Some("busy")));
    assert!(
        out.reason
            .contains("It could not run in a git worktree of its own"),
        "{}",
        out.reason
    );
    // Nothing of the worktree is left: no folder, git folder or branch.
    assert_eq!(
        fs::read_dir(w.repo.join(".claude/worktrees"))
            .map(|d| d.count())
            .unwrap_or(0),
        0
    );
    assert!(
        !w.repo.join(".git/worktrees").exists()
            || fs::read_dir(w.repo.join(".git/worktrees")).unwrap().count() == 0
    );
    assert_eq!(
        git_in(&w.repo, &["branch", "--list", "--format=%(refname:short)"]).trim(),
        "main"
    );
    // The cut checkout's files go on their own thread.
    let leftover = || {
        fs::read_dir(w.repo.join(".git"))
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("osi-trash-"))
    };
    for _ in 0..300 {
        if !leftover() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(!leftover(), "the cut checkout's files are deleted");
}

#[test]
fn a_worktree_that_cannot_be_made_falls_back_to_the_busy_guard_with_the_reason() {
    let w = World::new();
    write(&w.repo, ".git/index.lock", "");
    let out = w.run(&w.repo, &w.busy(Some(BUSY)));
    assert_eq!((out.decision, out.guard), (Decision::Block, Some("busy")));
    assert!(
        out.reason
            .contains("It could not run in a git worktree of its own")
            && out.reason.contains("index.lock"),
        "{}",
        out.reason
    );
    assert!(!w.repo.join(".claude").exists());
    assert_eq!(
        git_in(&w.repo, &["branch", "--list", "--format=%(refname:short)"]).trim(),
        "main"
    );
    // Warned only: it runs in the main tree, the reason in its briefing.
    let warn = PreflightOptions {
        guards: session_intel_core::preflight::Guards {
            busy: GuardMode::Warn,
            ..Default::default()
        },
        ..w.busy(Some(BUSY))
    };
    let out = w.run(&w.repo, &warn);
    assert_eq!(out.decision, Decision::Brief);
    assert!(out.cwd.is_none());
    assert!(out.briefing.unwrap().contains("index.lock"));
}

/// The spare folders of the repository, and whether one is ready (its git
/// folder holds the ready file).
fn spares(repo: &Path) -> (usize, bool) {
    use session_intel_core::worktree::SPARE_READY_FILE;
    let found = spare_dirs(repo);
    let ready = found.iter().any(|s| {
        let text = fs::read_to_string(s.join(".git")).unwrap_or_default();
        let admin = text.trim().trim_start_matches("gitdir:").trim();
        !admin.is_empty() && Path::new(admin).join(SPARE_READY_FILE).is_file()
    });
    (found.len(), ready)
}

/// Waits (a minute at most) for a spare of the repository to be ready.
fn spare_ready(repo: &Path) -> bool {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::time::Instant::now() < until {
        if spares(repo).1 {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

#[test]
fn a_spawn_into_the_main_tree_prepares_a_spare_that_the_first_isolation_takes() {
    let w = World::new();
    let status = git_in(&w.repo, &["status", "--porcelain"]);
    let first = w.run(&w.repo, &idle_of(&w));
    assert!(
        first.isolation.is_none(),
        "an idle repository: the main tree"
    );
    assert!(spare_ready(&w.repo), "a spare was prepared");
    assert_eq!(git_in(&w.repo, &["status", "--porcelain"]), status);
    let next = PreflightOptions {
        nonce: "fedcba9876543210".into(),
        ..w.busy(Some(BUSY))
    };
    let iso = w.run(&w.repo, &next).isolation.unwrap();
    assert!(iso.worktree.from_spare, "the first isolation took it");
    // With isolation off, a spawn into the main tree prepares none.
    let w = World::new();
    let off = PreflightOptions {
        isolation: Isolation::Off,
        ..idle_of(&w)
    };
    w.run(&w.repo, &off);
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(spares(&w.repo), (0, false));
}

/// `w.busy` with nothing in flight: the repository is idle.
fn idle_of(w: &World) -> PreflightOptions {
    PreflightOptions {
        in_flight: Vec::new(),
        ..w.busy(None)
    }
}

#[test]
fn an_isolation_prepares_a_spare_in_the_background_that_the_next_one_takes() {
    let w = World::new();
    let status = git_in(&w.repo, &["status", "--porcelain"]);
    let first = w.run(&w.repo, &w.busy(Some(BUSY)));
    assert!(!first.isolation.unwrap().worktree.from_spare);
    assert!(spare_ready(&w.repo), "a spare was prepared");
    assert_eq!(git_in(&w.repo, &["status", "--porcelain"]), status);
    let next = PreflightOptions {
        nonce: "fedcba9876543210".into(),
        spare_worktree: false,
        ..w.busy(Some(BUSY))
    };
    let second = w.run(&w.repo, &next);
    let iso = second.isolation.unwrap();
    assert!(iso.worktree.from_spare);
    assert_eq!(
        iso.worktree.worktree_path,
        w.repo
            .join(".claude/worktrees/spawn-fedcba9876543210")
            .to_string_lossy()
    );
    // Without `spareWorktree`, none is prepared.
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(spares(&w.repo), (0, false));
}
