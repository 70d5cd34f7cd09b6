//! The real Claude Code transcripts in fixtures/shared, folded twice: by the
//! fast scanner and by a plain `serde_json::Value` reading of the same rules.
//! Any shortcut the scanner takes must not change what it reports.

use serde_json::Value;
use session_intel_core::claude_code::fold::prompt::prompt_text;
use session_intel_core::claude_code::fold::transcript::TranscriptFacts;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/shared/claude-code/projects")
}

fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            jsonl_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
}

/// What the plain reading finds.
#[derive(Debug, Default, PartialEq)]
struct Oracle {
    line_count: u64,
    compactions: u32,
    input: u64,
    output: u64,
    cache_read: u64,
    cache_creation: u64,
    first_prompt: Option<String>,
    last_prompt: Option<String>,
    first_activity: Option<String>,
    last_activity: Option<String>,
    models: Vec<String>,
    git_branch: Option<String>,
    cwd: Option<String>,
}

fn oracle(bytes: &[u8]) -> Oracle {
    let mut o = Oracle::default();
    let mut groups: HashMap<String, [u64; 4]> = HashMap::new();
    let mut add_usage =
        |msg: &Value, request: Option<&str>, session: Option<&str>, o: &mut Oracle| {
            if let Some(m) = msg["model"].as_str().filter(|m| *m != "<synthetic>") {
                if !o.models.iter().any(|x| x == m) {
                    o.models.push(m.to_owned());
                }
            }
            let u = &msg["usage"];
            if !u.is_object() {
                return;
            }
            let n = |k: &str| u[k].as_u64().unwrap_or(0);
            let key = format!(
                "{}|{}",
                msg["id"].as_str().unwrap(),
                request.or(session).unwrap()
            );
            let g = groups.entry(key).or_insert([
                n("input_tokens"),
                0,
                n("cache_read_input_tokens"),
                n("cache_creation_input_tokens"),
            ]);
            g[1] = g[1].max(n("output_tokens"));
        };
    for raw in bytes.split(|&b| b == b'\n') {
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        o.line_count += 1;
        let Ok(line) = serde_json::from_slice::<Value>(raw) else {
            continue;
        };
        if let Some(ts) = line["timestamp"].as_str() {
            if o.first_activity.as_deref().is_none_or(|f| ts < f) {
                o.first_activity = Some(ts.to_owned());
            }
            if o.last_activity.as_deref().is_none_or(|l| ts > l) {
                o.last_activity = Some(ts.to_owned());
            }
        }
        let side = line["isSidechain"] == Value::Bool(true);
        if o.cwd.is_none() {
            o.cwd = line["cwd"]
                .as_str()
                .filter(|s| !s.is_empty())
                .map(str::to_owned);
        }
        if let Some(b) = line["gitBranch"]
            .as_str()
            .filter(|b| !b.is_empty() && !side)
        {
            o.git_branch = Some(b.to_owned());
        }
        let session = line["sessionId"].as_str();
        match line["type"].as_str() {
            Some("assistant") => add_usage(
                &line["message"],
                line["requestId"].as_str(),
                session,
                &mut o,
            ),
            Some("progress")
                if line["data"]["type"] == "agent_progress"
                    && line["data"]["message"]["type"] == "assistant" =>
            {
                let copy = &line["data"]["message"];
                add_usage(
                    &copy["message"],
                    copy["requestId"].as_str(),
                    session,
                    &mut o,
                );
            }
            Some("system") if line["subtype"] == "compact_boundary" && !side => o.compactions += 1,
            Some("user") if !side && line["isMeta"] != true && line["isCompactSummary"] != true => {
                let content = serde_json::to_vec(&line["message"]["content"]).unwrap();
                if let Some(text) = prompt_text(&content) {
                    let cut: String = text.chars().take(200).collect();
                    o.first_prompt.get_or_insert(cut.clone());
                    o.last_prompt = Some(cut);
                }
            }
            _ => {}
        }
    }
    for g in groups.values() {
        o.input += g[0];
        o.output += g[1];
        o.cache_read += g[2];
        o.cache_creation += g[3];
    }
    o
}

fn fast(bytes: &[u8]) -> Oracle {
    let mut f = TranscriptFacts::default();
    let used = f.feed(bytes);
    let f = f.with_partial_line(&bytes[used..]).into_owned();
    let t = f.usage.totals();
    Oracle {
        line_count: f.line_count,
        compactions: f.compactions,
        input: t.input,
        output: t.output,
        cache_read: t.cache_read,
        cache_creation: t.cache_creation,
        first_prompt: f.first_prompt,
        last_prompt: f.last_prompt,
        first_activity: f.first_activity,
        last_activity: f.last_activity,
        models: f.models,
        git_branch: f.git_branch,
        cwd: f.cwd,
    }
}

#[test]
fn every_fixture_reads_the_same_fast_and_slow() {
    let mut files = Vec::new();
    jsonl_files(&fixtures(), &mut files);
    assert!(
        files.len() >= 6,
        "fixtures not found at {}",
        fixtures().display()
    );
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        assert_eq!(fast(&bytes), oracle(&bytes), "{}", file.display());
        // Cut anywhere, then resumed: the same as reading it whole.
        for cut in [1, bytes.len() / 3, bytes.len() / 2, bytes.len() - 1] {
            let mut f = TranscriptFacts::default();
            let used = f.feed(&bytes[..cut]);
            let used = used + f.feed(&bytes[used..]);
            assert_eq!(
                used,
                bytes.len() - bytes.iter().rev().take_while(|&&b| b != b'\n').count()
            );
            let resumed = f.with_partial_line(&bytes[used..]).into_owned();
            assert_eq!(resumed.line_count, fast(&bytes).line_count);
            assert_eq!(resumed.usage.totals(), {
                let mut w = TranscriptFacts::default();
                w.feed(&bytes);
                w.usage.totals()
            });
        }
    }
}
