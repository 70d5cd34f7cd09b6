//! Discovery over what the real Claude Code 2.1.328 wrote
//! (`fixtures/claude-code-2.1`): for every session, the usage the API billed
//! under its id, the CLI's own cost, the prompts as typed, every model, the
//! length of the conversation, how it was started.

use crate::util::spotter::copy_dir;
use serde_json::Value;
use session_intel_core::claude_code::fold::context_window::ContextWindows;
use session_intel_core::claude_code::{
    discover_sessions, DiscoverOptions, DiscoveredSession, DiscoveryCache, TokenTotals,
};
use session_intel_core::repo_path::RepoPath;
use std::fs;
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/claude-code-2.1")
}

fn manifest() -> Value {
    serde_json::from_str(&fs::read_to_string(fixture().join("manifest.json")).unwrap()).unwrap()
}

/// Every request the fake API answered, in order.
fn api_requests() -> Vec<Value> {
    fs::read_to_string(fixture().join("api-requests.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A compaction call: its response is never written to the transcript.
fn is_compaction(request: &Value) -> bool {
    request["prompt"]
        .as_str()
        .is_some_and(|p| p.starts_with("CRITICAL: Respond with TEXT ONLY"))
}

struct Config {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

fn config() -> Config {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("config");
    copy_dir(&fixture().join("projects"), &dir.join("projects"));
    fs::create_dir_all(tmp.path().join("state")).unwrap();
    Config { _tmp: tmp, dir }
}

impl Config {
    fn options(&self) -> DiscoverOptions {
        DiscoverOptions {
            claude_config_dir: Some(self.dir.clone()),
            registry_root: Some(self.dir.parent().unwrap().join("state")),
            ..DiscoverOptions::default()
        }
    }

    /// The session `id`, discovered from the folder it was started in.
    fn session(&self, cwd: &str, id: &str, options: &DiscoverOptions) -> DiscoveredSession {
        let sessions = discover_sessions(&RepoPath::resolve(cwd), options, &DiscoveryCache::new());
        sessions
            .iter()
            .find(|s| s.session_id == id)
            .unwrap_or_else(|| panic!("{id} not found for {cwd}"))
            .clone()
    }
}

fn tokens(v: &Value) -> TokenTotals {
    let n = |k: &str| v[k].as_u64().unwrap();
    TokenTotals {
        input: n("inputTokens"),
        output: n("outputTokens"),
        cache_read: n("cacheReadTokens"),
        cache_creation: n("cacheCreationTokens"),
    }
}

#[test]
fn every_session_reports_what_the_api_billed_the_clis_cost_and_its_own_prompts_and_models() {
    let config = config();
    let manifest = manifest();
    let requests = api_requests();
    let options = config.options();
    for (name, expected) in manifest["sessions"].as_object().unwrap() {
        let id = expected["sessionId"].as_str().unwrap();
        let cwd = expected["cwd"].as_str().unwrap();
        let s = config.session(cwd, id, &options);

        // What the API billed under the session's id: compaction calls and
        // subagents included, a fork's copied history not.
        assert_eq!(s.tokens, tokens(&expected["api"]), "{name}: tokens");

        // The CLI's own figure; a fork's own share of it.
        let runs = expected["runs"].as_array().unwrap();
        let cli_cost = runs.last().unwrap()["totalCostUsd"].as_f64().unwrap();
        let own_cost = cli_cost - expected["costAtFork"].as_f64().unwrap_or(0.0);
        let cost = s
            .total_cost_usd
            .unwrap_or_else(|| panic!("{name}: no cost"));
        assert!(
            (cost - own_cost).abs() < 1e-9,
            "{name}: cost {cost} vs {own_cost}"
        );

        // The prompts as typed: none the CLI made up, no local command.
        let typed: Vec<&str> = expected["inheritedPrompts"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(expected["prompts"].as_array().unwrap())
            .map(|p| p.as_str().unwrap())
            .filter(|p| !p.starts_with('/'))
            .collect();
        assert_eq!(s.first_message, typed[0], "{name}: first prompt");
        assert_eq!(
            s.last_user_message.as_deref(),
            typed.last().copied(),
            "{name}: last prompt"
        );
        assert_eq!(s.prompt_count, typed.len() as u64, "{name}: prompts");
        if name != "named" {
            assert_eq!(s.title, typed[0], "{name}: title");
        }

        // Every model, subagents' included, in order of first use.
        let mut models: Vec<&str> = Vec::new();
        for r in requests.iter().filter(|r| r["sessionId"] == id) {
            let model = r["model"].as_str().unwrap();
            if !models.contains(&model) {
                models.push(model);
            }
        }
        assert_eq!(s.models, models, "{name}: models");

        // The main conversation's responses: the fork's copied ones
        // included, compaction calls and subagents' not.
        let own_responses = requests
            .iter()
            .filter(|r| r["sessionId"] == id && r["agentId"].is_null() && !is_compaction(r))
            .count();
        let copied = if name == "fork" { 3 } else { 0 };
        assert_eq!(
            s.response_count,
            (own_responses + copied) as u64,
            "{name}: responses"
        );

        // How it was started, by which CLI, and the window of its model.
        assert_eq!(s.entrypoint.as_deref(), Some("sdk-cli"), "{name}");
        assert_eq!(s.version.as_deref(), Some("2.1.328"), "{name}");
        let window =
            runs.last().unwrap()["modelUsage"]["claude-opus-5-5"]["contextWindow"].as_u64();
        if name != "models" {
            assert_eq!(s.context_window, window, "{name}: context window");
        }
    }
}

/// The transcripts' own responses miss every compaction call: the CLI's
/// accounting is what makes the totals right.
#[test]
fn compaction_calls_count_only_through_the_clis_accounting() {
    let config = config();
    let manifest = manifest();
    for name in ["main", "autocompact"] {
        let expected = &manifest["sessions"][name];
        let id = expected["sessionId"].as_str().unwrap();
        let cwd = expected["cwd"].as_str().unwrap();
        let s = config.session(cwd, id, &config.options());
        assert!(s.compaction_count >= 1, "{name}");
        // Without the cost-state lines, only the responses are left.
        let file = config
            .dir
            .join("projects")
            .join(slug(cwd))
            .join(format!("{id}.jsonl"));
        let text = fs::read_to_string(&file).unwrap();
        let kept: String = text
            .lines()
            .filter(|l| !l.contains(r#""type":"cost-state""#))
            .map(|l| format!("{l}\n"))
            .collect();
        fs::write(&file, kept).unwrap();
        let without = config.session(cwd, id, &config.options());
        assert!(
            without.tokens.cache_read < s.tokens.cache_read,
            "{name}: {:?} vs {:?}",
            without.tokens,
            s.tokens
        );
        assert_eq!(without.total_cost_usd, None, "{name}: no figure, no cost");
    }
}

/// A fork whose parent's accounting is not found counts its own responses
/// only, never the ones it copied.
#[test]
fn a_fork_without_its_parent_counts_only_its_own_responses() {
    let config = config();
    let manifest = manifest();
    let fork = &manifest["sessions"]["fork"];
    let parent = manifest["sessions"]["main"]["sessionId"].as_str().unwrap();
    let cwd = fork["cwd"].as_str().unwrap();
    fs::remove_file(
        config
            .dir
            .join("projects")
            .join(slug(cwd))
            .join(format!("{parent}.jsonl")),
    )
    .unwrap();
    let s = config.session(cwd, fork["sessionId"].as_str().unwrap(), &config.options());
    // The fake API billed the fork one response and no compaction.
    assert_eq!(s.tokens, tokens(&fork["api"]));
    assert_eq!(s.total_cost_usd, None);
}

#[test]
fn a_callers_context_window_wins_over_the_table() {
    let config = config();
    let manifest = manifest();
    let named = &manifest["sessions"]["named"];
    let mut options = config.options();
    options.context_windows = ContextWindows {
        overrides: vec![("claude-opus-5-5".into(), 400_000)],
    };
    let s = config.session(
        named["cwd"].as_str().unwrap(),
        named["sessionId"].as_str().unwrap(),
        &options,
    );
    assert_eq!(s.context_window, Some(400_000));
}

/// Claude Code's folder name for a path (short paths only).
fn slug(path: &str) -> String {
    path.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}
