//! Spawn outcomes read back from the spawn records, Claude Code transcripts
//! written as Claude Code 2.1 writes them, and real git repositories made
//! with the git CLI.

use serde_json::json;
use session_intel_core::claude_code::layout::paths::full_slug;
use session_intel_core::claude_code::records::spawn_record::{SpawnLog, SpawnRecord};
use session_intel_core::claude_code::ScanCache;
use session_intel_core::spawn_outcome::{spawn_outcomes, CostBasis, SpawnOutcomeQuery};
use session_intel_core::spawns::SpawnPhase;
use session_intel_core::worktree::{create_spawn_worktree, DEFAULT_TIMEOUT};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::util::git_repo::*;
use crate::util::scratch::{shop_repo, Scratch};

const ID: &str = "bbbbbbbb-1111-2222-3333-444444444444";
const EARLIER: &str = "cccccccc-1111-2222-3333-444444444444";

struct World {
    _scratch: Scratch,
    repo: PathBuf,
    claude: PathBuf,
    state: PathBuf,
}

fn iso(ago: Duration) -> String {
    let t = chrono::Utc::now() - chrono::Duration::from_std(ago).unwrap();
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl World {
    fn new() -> World {
        let scratch = Scratch::new();
        World {
            repo: shop_repo(&scratch.base, 600, &[]),
            claude: scratch.claude.clone(),
            state: scratch.state.clone(),
            _scratch: scratch,
        }
    }

    fn record(&self, r: SpawnRecord) {
        SpawnLog::new(&self.state).update("main", &r).unwrap();
    }

    fn query(&self, q: SpawnOutcomeQuery) -> Vec<session_intel_core::spawn_outcome::SpawnOutcome> {
        let q = SpawnOutcomeQuery {
            state_dir: Some(self.state.clone()),
            claude_config_dir: Some(self.claude.clone()),
            ..q
        };
        spawn_outcomes(&q, &ScanCache::new()).unwrap()
    }

    /// A transcript of session `id` run in `cwd`, of the given lines.
    fn transcript(&self, cwd: &Path, id: &str, lines: &[serde_json::Value]) -> PathBuf {
        let dir = self
            .claude
            .join("projects")
            .join(full_slug(&cwd.to_string_lossy()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{id}.jsonl"));
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        fs::write(&path, text).unwrap();
        path
    }
}

fn prompt(id: &str, cwd: &Path, text: &str, n: u32) -> serde_json::Value {
    json!({"type": "user", "sessionId": id, "cwd": cwd, "timestamp": "2026-12-06T01:00:00.000Z",
        "uuid": format!("00000000-0000-0000-0000-0000000000{n:02}"), "promptSource": "sdk",
        "message": {"role": "user", "content": text}})
}

fn response(id: &str, text: &str, n: u32, at: &str) -> serde_json::Value {
    json!({"type": "assistant", "sessionId": id, "timestamp": at,
        "uuid": format!("00000000-0000-0000-0000-0000000001{n:02}"), "requestId": format!("req{n}"),
        "message": {"id": format!("msg{n}"), "role": "assistant", "model": "claude-opus-5-5",
          "stop_reason": "end_turn", "content": [{"type": "text", "text": text}],
          "usage": {"input_tokens": 3, "output_tokens": 4}}})
}

fn cost_state(id: &str, cost: f64, input: u64, output: u64) -> serde_json::Value {
    json!({"type": "cost-state", "sessionId": id, "totalCostUSD": cost,
        "modelUsage": {"claude-opus-5-5": {"inputTokens": input, "outputTokens": output,
          "cacheReadInputTokens": 0, "cacheCreationInputTokens": 0, "costUSD": cost}},
        "hasUnknownModelCost": false})
}

#[test]
fn an_isolated_spawns_outcome_has_its_commits_files_final_message_and_cost() {
    let w = World::new();
    let base = git_in(&w.repo, &["rev-parse", "HEAD"]).trim().to_owned();
    let deadline = Instant::now() + DEFAULT_TIMEOUT;
    let wt = create_spawn_worktree(&w.repo, "spawn-n1", "n1", deadline).unwrap();
    let root = Path::new(&wt.worktree_path);
    write(root, "src/tax.rs", "fn tax() {}\n");
    git_in(root, &["add", "."]);
    commit(root, "Add tax", 1);
    write(root, "notes.txt", "left over\n");
    w.record(SpawnRecord {
        nonce: "n1".into(),
        task: Some("Add tax".into()),
        cwd: Some(w.repo.to_string_lossy().into_owned()),
        repo_path: Some(w.repo.to_string_lossy().into_owned()),
        requester_session_key: Some("agent:main:main".into()),
        child_session_key: Some("agent:claude:acp:1".into()),
        started_at: Some(iso(Duration::from_secs(30))),
        base_commit: Some(base.clone()),
        worktree_path: Some(wt.worktree_path.clone()),
        worktree_branch: Some(wt.branch.clone()),
        ..SpawnRecord::default()
    });
    let ended = iso(Duration::from_secs(10));
    w.transcript(
        root,
        ID,
        &[
            prompt(
                ID,
                root,
                "Add tax\n\n---\n[openclaw:agent=main,spawn=n1]",
                1,
            ),
            response(ID, "All done: tax added.", 1, &ended),
            cost_state(ID, 0.0125, 11, 22),
        ],
    );
    let out = w.query(SpawnOutcomeQuery {
        nonce: Some("n1".into()),
        ..Default::default()
    });
    assert_eq!(out.len(), 1);
    let o = &out[0];
    assert_eq!(o.state, SpawnPhase::Ended, "turn ended, no process");
    assert_eq!(o.session_id.as_deref(), Some(ID), "found by its nonce");
    assert_eq!(o.final_message.as_deref(), Some("All done: tax added."));
    assert_eq!(
        o.commits
            .iter()
            .map(|c| c.subject.as_str())
            .collect::<Vec<_>>(),
        ["Add tax"]
    );
    assert_eq!(o.files_changed, ["notes.txt", "src/tax.rs"]);
    assert_eq!((o.input_tokens, o.output_tokens), (11, 22));
    assert_eq!(o.cost_usd, Some(0.0125));
    assert_eq!(o.cost_basis, CostBasis::Cli);
    assert!(!o.session_totals);
    assert_eq!(o.ended_at.as_deref(), Some(&*ended));
    let d = o.duration_ms.unwrap();
    assert!((19_000..=21_000).contains(&d), "{d}");
    let worktree = o.worktree.as_ref().unwrap();
    assert_eq!(
        (worktree.commits_ahead, worktree.dirty, worktree.removed),
        (1, true, false)
    );
    // The main tree does not have the spawn's commit.
    assert_eq!(git_in(&w.repo, &["rev-parse", "HEAD"]).trim(), base);
    // Found the same by repository, by session and by child key.
    for q in [
        SpawnOutcomeQuery {
            repo_path: Some(w.repo.join("src").to_string_lossy().into_owned()),
            ..Default::default()
        },
        SpawnOutcomeQuery {
            session_id: Some(ID.into()),
            ..Default::default()
        },
        SpawnOutcomeQuery {
            child_session_key: Some("agent:claude:acp:1".into()),
            agent_id: Some("main".into()),
            ..Default::default()
        },
    ] {
        assert_eq!(w.query(q).len(), 1);
    }
    assert!(w
        .query(SpawnOutcomeQuery {
            session_id: Some(EARLIER.into()),
            ..Default::default()
        })
        .is_empty());
}

#[test]
fn a_resumed_spawn_is_billed_for_what_came_after_its_prompt() {
    let w = World::new();
    w.record(SpawnRecord {
        nonce: "n2".into(),
        cwd: Some(w.repo.to_string_lossy().into_owned()),
        repo_path: Some(w.repo.to_string_lossy().into_owned()),
        claude_session_id: Some(EARLIER.into()),
        resumed: Some(true),
        started_at: Some(iso(Duration::from_secs(20))),
        outcome: Some("ok".into()),
        ended_at: Some(iso(Duration::from_secs(5))),
        base_commit: Some(git_in(&w.repo, &["rev-parse", "HEAD"]).trim().to_owned()),
        ..SpawnRecord::default()
    });
    let at = iso(Duration::from_secs(8));
    w.transcript(
        &w.repo,
        EARLIER,
        &[
            prompt(EARLIER, &w.repo, "Rename the cart", 1),
            response(EARLIER, "Renamed.", 1, &at),
            cost_state(EARLIER, 0.01, 5, 10),
            prompt(
                EARLIER,
                &w.repo,
                "Add tax\n\n---\n[openclaw:agent=main,spawn=n2]",
                2,
            ),
            response(EARLIER, "Tax added.", 2, &at),
            cost_state(EARLIER, 0.03, 12, 30),
        ],
    );
    let o = &w.query(SpawnOutcomeQuery::default())[0];
    assert_eq!(o.state, SpawnPhase::Ended);
    assert_eq!(o.final_message.as_deref(), Some("Tax added."));
    assert_eq!((o.input_tokens, o.output_tokens), (7, 20));
    assert!((o.cost_usd.unwrap() - 0.02).abs() < 1e-9);
    assert!(!o.session_totals);
    assert!(o.commits.is_empty() && o.files_changed.is_empty());
}

#[test]
fn states_from_start_to_failure_newest_first() {
    let w = World::new();
    let repo = w.repo.to_string_lossy().into_owned();
    let spawn = |nonce: &str, ago: u64| SpawnRecord {
        nonce: nonce.into(),
        cwd: Some(repo.clone()),
        repo_path: Some(repo.clone()),
        started_at: Some(iso(Duration::from_secs(ago))),
        ..SpawnRecord::default()
    };
    w.record(spawn("young", 1));
    w.record(SpawnRecord {
        outcome: Some("error".into()),
        ..spawn("broken", 100)
    });
    w.record(spawn("never", 3600));
    let at_work = spawn("working", 50);
    w.record(at_work);
    w.transcript(
        &w.repo,
        ID,
        &[prompt(
            ID,
            &w.repo,
            "Refactor\n\n---\n[openclaw:agent=main,spawn=working]",
            1,
        )],
    );
    let out = w.query(SpawnOutcomeQuery::default());
    let states: Vec<(&str, SpawnPhase)> = out.iter().map(|o| (o.nonce.as_str(), o.state)).collect();
    assert_eq!(
        states,
        [
            ("young", SpawnPhase::Starting),
            ("working", SpawnPhase::Running),
            ("broken", SpawnPhase::Failed),
            ("never", SpawnPhase::Failed),
        ]
    );
    assert_eq!(out[1].final_message, None);
    let limited = w.query(SpawnOutcomeQuery {
        limit: Some(1),
        ..Default::default()
    });
    assert_eq!(limited.len(), 1);
}

/// A response of `model` with every usage counter, written in two lines
/// (one per content block) as Claude Code writes it.
fn billed_response(id: &str, model: &str, n: u32, at: &str) -> Vec<serde_json::Value> {
    let usage = json!({"input_tokens": 1200, "output_tokens": 800,
        "cache_creation_input_tokens": 20000, "cache_read_input_tokens": 50000});
    let line = |text: &str, output: u64| {
        let mut u = usage.clone();
        u["output_tokens"] = output.into();
        json!({"type": "assistant", "sessionId": id, "timestamp": at,
            "uuid": format!("00000000-0000-0000-0000-0000000002{n:02}{output:04}"), "requestId": format!("req{n}"),
            "message": {"id": format!("msg{n}"), "role": "assistant", "model": model,
              "stop_reason": "end_turn", "content": [{"type": "text", "text": text}], "usage": u}})
    };
    vec![line("Working on it.", 1), line("Done.", 800)]
}

#[test]
fn without_the_clis_accounting_the_cost_is_estimated_at_the_models_list_prices() {
    let w = World::new();
    let at = iso(Duration::from_secs(5));
    for (nonce, id, model) in [
        ("p1", ID, "claude-sonnet-4-5-20250929"),
        ("p2", EARLIER, "claude-experimental-9"),
    ] {
        w.record(SpawnRecord {
            nonce: nonce.into(),
            cwd: Some(w.repo.to_string_lossy().into_owned()),
            repo_path: Some(w.repo.to_string_lossy().into_owned()),
            claude_session_id: Some(id.into()),
            started_at: Some(iso(Duration::from_secs(20))),
            outcome: Some("ok".into()),
            ended_at: Some(at.clone()),
            ..SpawnRecord::default()
        });
        // No `cost-state`: the ACP adapter's sessions have none.
        let task = format!("Add tax\n\n---\n[openclaw:agent=main,spawn={nonce}]");
        let mut lines = vec![prompt(id, &w.repo, &task, 1)];
        lines.extend(billed_response(id, model, 1, &at));
        w.transcript(&w.repo, id, &lines);
    }
    let by = |nonce: &str| {
        w.query(SpawnOutcomeQuery {
            nonce: Some(nonce.into()),
            ..Default::default()
        })
        .remove(0)
    };
    let priced = by("p1");
    assert_eq!(
        (
            priced.input_tokens,
            priced.output_tokens,
            priced.cache_creation_tokens,
            priced.cache_read_tokens
        ),
        (1200, 800, 20000, 50000),
        "one count per response"
    );
    // Sonnet 4.5: $3 input, $15 output, $3.75 cache writes, $0.30 cache
    // reads per million tokens.
    let want = (1200.0 * 3.0 + 800.0 * 15.0 + 20000.0 * 3.75 + 50000.0 * 0.30) / 1e6;
    assert!(
        (priced.cost_usd.unwrap() - want).abs() < 1e-12,
        "{:?} vs {want}",
        priced.cost_usd
    );
    assert_eq!(priced.cost_basis, CostBasis::Prices);
    let unknown = by("p2");
    assert_eq!(unknown.output_tokens, 800);
    assert_eq!(
        (unknown.cost_usd, unknown.cost_basis),
        (None, CostBasis::Unpriced)
    );
}
