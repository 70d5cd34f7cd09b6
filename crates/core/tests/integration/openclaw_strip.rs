//! The strip transform on generated transcripts with every structure the
//! real format has, and on the real moltbot fixture.

use serde_json::{json, Value};
use session_intel_core::openclaw::strip::{
    resolve_settings, strip_tools, truncate_text, StripStats, TurnReport,
};
use session_intel_core::ErrorCode;
use std::collections::HashSet;

/// A transcript: header, a model change, `turns` turns of user → assistant
/// (thinking + tool call) → tool result → assistant text, with a compaction,
/// a label, a branch summary, a leaf record, a bashExecution and an unknown
/// record pointing into the early turns.
fn transcript(version: Option<u64>, turns: usize) -> String {
    let mut header = json!({"type": "session", "id": "sess-1", "timestamp": "2026-01-31T08:00:00.000Z", "cwd": "/w"});
    if let Some(v) = version {
        header["version"] = json!(v);
    }
    let mut lines = vec![header.to_string()];
    let mut parent = Value::Null;
    let mut push = |lines: &mut Vec<String>, mut v: Value| -> String {
        let id = format!("e{:04}", lines.len());
        v["id"] = json!(id);
        v["parentId"] = parent.clone();
        v["timestamp"] = json!("2026-01-31T08:00:01.000Z");
        parent = json!(id);
        lines.push(v.to_string());
        id
    };
    push(
        &mut lines,
        json!({"type": "model_change", "provider": "openai", "modelId": "gpt-5"}),
    );
    let mut first_assistant = String::new();
    for t in 0..turns {
        push(
            &mut lines,
            json!({"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": format!("task {t}")}], "timestamp": 1}}),
        );
        let call = format!("call_{t}|fc_{t}");
        let a = push(
            &mut lines,
            json!({"type": "message", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "let me look", "thinkingSignature": "sig"},
            {"type": "toolCall", "id": call, "name": "exec", "arguments": {"command": format!("cat file{t}\n{}", "x".repeat(300)), "cwd": "/w"}}
        ], "stopReason": "toolUse", "timestamp": 2}}),
        );
        if t == 0 {
            first_assistant = a.clone();
        }
        push(
            &mut lines,
            json!({"type": "message", "message": {"role": "toolResult", "toolCallId": call, "toolName": "exec", "content": [{"type": "text", "text": "line\n".repeat(50)}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}], "isError": false, "timestamp": 3}}),
        );
        push(
            &mut lines,
            json!({"type": "message", "message": {"role": "assistant", "content": [{"type": "text", "text": format!("done {t}")}], "stopReason": "stop", "timestamp": 4}}),
        );
        if t == 1 {
            push(
                &mut lines,
                json!({"type": "compaction", "summary": "s", "firstKeptEntryId": first_assistant, "tokensBefore": 10}),
            );
            push(
                &mut lines,
                json!({"type": "label", "targetId": first_assistant, "label": "checkpoint"}),
            );
            push(
                &mut lines,
                json!({"type": "branch_summary", "fromId": first_assistant, "summary": "b"}),
            );
            push(
                &mut lines,
                json!({"type": "message", "message": {"role": "bashExecution", "command": "ls", "output": "a", "exitCode": 0, "cancelled": false, "truncated": false, "timestamp": 5}}),
            );
            push(
                &mut lines,
                json!({"type": "custom", "customType": "model-snapshot", "data": {"x": 1}}),
            );
            push(
                &mut lines,
                json!({"type": "future-record", "whatever": [1, 2]}),
            );
        }
    }
    // The leaf record OpenClaw writes: the current leaf, explicitly.
    let last = format!("e{:04}", lines.len() - 1);
    push(
        &mut lines,
        json!({"type": "leaf", "targetId": last, "appendParentId": last}),
    );
    lines.join("\n") + "\n"
}

/// What a strip produced, rendered.
struct Stripped {
    bytes: Vec<u8>,
    stats: StripStats,
    turns: Vec<TurnReport>,
}

/// Plans and renders a strip; the plan's size is the rendered size.
fn strip(input: &[u8], keep: u32, pct: u32) -> Stripped {
    let out = strip_tools(input, keep, pct).unwrap();
    let bytes = out.render(input);
    assert_eq!(out.size_after, bytes.len() as u64, "planned size");
    assert_eq!(out.changes_anything(), bytes != input);
    Stripped {
        bytes,
        stats: out.stats,
        turns: out.turns,
    }
}

fn parse(text: &[u8]) -> Vec<Value> {
    std::str::from_utf8(text)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The invariants every edit keeps.
fn assert_valid(before: &[u8], after: &[u8]) {
    let b = parse(before);
    let a = parse(after);
    assert_eq!(a[0], b[0], "header unchanged");
    assert_eq!(
        before.split(|&c| c == b'\n').next(),
        after.split(|&c| c == b'\n').next(),
        "header bytes unchanged"
    );
    let ids: HashSet<&str> = a.iter().filter_map(|v| v["id"].as_str()).collect();
    for v in &a[1..] {
        for field in [
            "parentId",
            "firstKeptEntryId",
            "fromId",
            "targetId",
            "appendParentId",
        ] {
            if let Some(r) = v[field].as_str() {
                assert!(ids.contains(r), "{field} {r} dangles in {v}");
            }
        }
    }
    let calls: HashSet<String> = a
        .iter()
        .flat_map(|v| {
            v["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(|b| b["type"] == "toolCall")
        .map(|b| b["id"].as_str().unwrap().to_owned())
        .collect();
    let results: HashSet<String> = a
        .iter()
        .filter(|v| v["message"]["role"] == "toolResult")
        .map(|v| v["message"]["toolCallId"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        calls, results,
        "every call has its result and every result its call"
    );
    assert!(
        a.iter().any(|v| v["message"]["role"] == "assistant"),
        "never zero assistant messages"
    );
    // Every line of the output that is not a changed entry is byte-identical to one of the input.
    let input: HashSet<&[u8]> = before.split(|&c| c == b'\n').collect();
    let untouched = after
        .split(|&c| c == b'\n')
        .filter(|l| input.contains(l))
        .count();
    assert!(untouched > 0);
}

#[test]
fn extreme_removes_every_tool_call_and_keeps_the_tree_whole() {
    for version in [None, Some(2), Some(3)] {
        let before = transcript(version, 6);
        let out = strip(before.as_bytes(), 0, 0);
        assert_valid(before.as_bytes(), &out.bytes);
        let s = &out.stats;
        assert_eq!(
            (
                s.tool_calls_original,
                s.tool_calls_removed,
                s.turns_with_tools_removed
            ),
            (6, 6, 6)
        );
        let after = parse(&out.bytes);
        assert!(!after.iter().any(|v| v["message"]["role"] == "toolResult"));
        assert!(!after.iter().any(|v| v["message"]["content"]
            .as_array()
            .is_some_and(|c| c.iter().any(|b| b["type"] == "thinking"))));
        for kind in [
            "compaction",
            "label",
            "branch_summary",
            "custom",
            "future-record",
            "leaf",
        ] {
            assert!(after.iter().any(|v| v["type"] == kind), "{kind} kept");
        }
        assert!(after
            .iter()
            .any(|v| v["message"]["role"] == "bashExecution"));
        // Idempotent: the same settings again change nothing.
        assert_eq!(strip(&out.bytes, 0, 0).bytes, out.bytes);
    }
}

#[test]
fn default_preset_zones_remove_truncate_and_preserve() {
    let before = transcript(Some(3), 30);
    let (keep, pct) = resolve_settings(None, None, None, &[]).unwrap();
    let out = strip(before.as_bytes(), keep, pct);
    assert_valid(before.as_bytes(), &out.bytes);
    let s = &out.stats;
    assert_eq!(
        (
            s.turns_with_tools_removed,
            s.turns_with_tools_truncated,
            s.turns_with_tools_preserved
        ),
        (10, 10, 10)
    );
    assert_eq!(
        (
            s.tool_calls_removed,
            s.tool_calls_truncated,
            s.tool_calls_preserved
        ),
        (10, 10, 10)
    );
    let zones: Vec<&str> = out
        .turns
        .iter()
        .filter(|t| t.tool_calls > 0)
        .map(|t| t.zone)
        .collect();
    assert_eq!(
        zones,
        [
            vec!["removed"; 10],
            vec!["truncated"; 10],
            vec!["preserved"; 10]
        ]
        .concat()
    );
    let after = parse(&out.bytes);
    let calls: Vec<&Value> = after
        .iter()
        .flat_map(|v| v["message"]["content"].as_array().into_iter().flatten())
        .filter(|b| b["type"] == "toolCall")
        .collect();
    assert_eq!(calls.len(), 20);
    for (i, c) in calls.iter().enumerate() {
        assert!(c["arguments"].is_object(), "arguments stay an object");
        let command = c["arguments"]["command"].as_str().unwrap();
        if i < 10 {
            assert!(
                command.chars().count() <= 120
                    && command.ends_with("...")
                    && command.lines().count() <= 2,
                "{command}"
            );
        } else {
            assert!(command.chars().count() > 300, "preserved zone untouched");
        }
    }
    let results: Vec<&Value> = after
        .iter()
        .filter(|v| v["message"]["role"] == "toolResult")
        .collect();
    assert_eq!(
        results[0]["message"]["content"][1],
        json!({"type": "text", "text": "[image removed]"})
    );
    assert!(results[0]["message"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .ends_with(" [truncated]"));
    assert_eq!(results[19]["message"]["content"][1]["type"], "image");
    assert_eq!(strip(&out.bytes, keep, pct).bytes, out.bytes, "idempotent");
}

#[test]
fn never_leaves_zero_assistant_messages() {
    let lines = [
        json!({"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"}),
        json!({"type": "message", "id": "u1", "parentId": null, "timestamp": "t", "message": {"role": "user", "content": "go"}}),
        json!({"type": "message", "id": "a1", "parentId": "u1", "timestamp": "t", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "x", "arguments": {}}]}}),
        json!({"type": "message", "id": "r1", "parentId": "a1", "timestamp": "t", "message": {"role": "toolResult", "toolCallId": "c1", "content": []}}),
    ];
    let before = lines
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    let out = strip(before.as_bytes(), 0, 0);
    let after = parse(&out.bytes);
    assert_eq!(after.len(), 3);
    assert_eq!(
        after[2]["message"]["content"][0]["text"],
        "[tool calls removed]"
    );
    assert_valid(before.as_bytes(), &out.bytes);
}

/// OpenClaw's leaf is the last entry of the file. Deleting the leaf would
/// hand it to an entry off the path (here a second root written before
/// it), so the edit keeps the leaf, as a note, and the path stays.
#[test]
fn deleting_the_leaf_never_moves_the_branch_openclaw_continues_from() {
    let lines = [
        json!({"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"}),
        json!({"type": "message", "id": "u1", "parentId": null, "timestamp": "t", "message": {"role": "user", "content": "go"}}),
        json!({"type": "message", "id": "x", "parentId": null, "timestamp": "t", "message": {"role": "assistant", "content": [{"type": "text", "text": "another root"}]}}),
        json!({"type": "message", "id": "a1", "parentId": "u1", "timestamp": "t", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "x", "arguments": {}}]}}),
    ];
    let before = lines
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    let out = strip(before.as_bytes(), 0, 0);
    let after = parse(&out.bytes);
    assert_eq!(after.len(), 4, "nothing deleted");
    assert_eq!(after[2], lines[2]);
    assert_eq!(after[3]["id"], "a1");
    assert_eq!(
        after[3]["message"]["content"],
        json!([{"type": "text", "text": "[tool calls removed]"}])
    );
    assert_valid(before.as_bytes(), &out.bytes);
    assert_eq!(strip(&out.bytes, 0, 0).bytes, out.bytes, "idempotent");
}

#[test]
fn the_real_fixture_with_compactions() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/shared/openclaw/moltbot-2026-01-31/f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1.jsonl");
    let before = std::fs::read(path).unwrap();
    let out = strip(&before, 0, 0);
    assert_valid(&before, &out.bytes);
    assert_eq!(out.stats.tool_calls_removed, 11);
    assert!(out.bytes.len() < before.len() / 2);
    let kept = strip(&before, 20, 50);
    assert_eq!(kept.stats.tool_calls_removed, 0);
    // Nothing to remove or truncate beyond the default: byte-identical.
    let preserved = strip(&before, 100, 0);
    assert_eq!(preserved.bytes, before);
}

#[test]
fn presets_and_truncation() {
    assert_eq!(
        resolve_settings(Some("aggressive"), None, None, &[]).unwrap(),
        (10, 50)
    );
    assert_eq!(
        resolve_settings(Some("extreme"), None, None, &[]).unwrap(),
        (0, 0)
    );
    assert_eq!(
        resolve_settings(Some("default"), Some(5), None, &[]).unwrap(),
        (5, 50)
    );
    let err = resolve_settings(Some("nope"), None, None, &[]).unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownPreset);
    assert!(err.hint.unwrap().contains("default, aggressive, extreme"));
    assert_eq!(
        resolve_settings(None, None, Some(101), &[])
            .unwrap_err()
            .code,
        ErrorCode::InvalidArgument
    );
    assert_eq!(truncate_text("short", "..."), None);
    let cut = truncate_text(&"y".repeat(500), "...").unwrap();
    assert_eq!(cut.chars().count(), 120);
    assert_eq!(truncate_text(&cut, "..."), None, "idempotent");
    assert_eq!(truncate_text("a\nb\nc", "...").unwrap(), "a\nb...");
    assert!(
        strip_tools(b"{\"type\":\"message\"}\n", 0, 0)
            .unwrap_err()
            .code
            == ErrorCode::Parse
    );
}

#[test]
fn removal_deletes_tool_only_messages_unparsed_but_never_a_line_it_cannot_read() {
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-31T08:00:00.000Z","cwd":"/w"}"#;
    let msg = |id: &str, parent: &str, body: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-31T08:00:01.000Z","message":{body}}}"#
        )
    };
    let lines = [
        header.to_string(),
        msg(
            "u1",
            "null",
            r#"{"role":"user","content":"go","timestamp":1}"#,
        )
        .replace("\"null\"", "null"),
        // Tool calls and thinking only: deleted whole.
        msg(
            "a1",
            "u1",
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"toolCall","id":"c1","name":"exec","arguments":{"command":"ls"}}],"timestamp":2}"#,
        ),
        msg(
            "r1",
            "a1",
            r#"{"role":"toolResult","toolCallId":"c1","toolName":"exec","content":[{"type":"text","text":"x"}],"isError":false,"timestamp":3}"#,
        ),
        // Text and a call: the call goes, the text stays.
        msg(
            "a2",
            "r1",
            r#"{"role":"assistant","content":[{"type":"text","text":"checking"},{"type":"toolUse","id":"c2","name":"exec","arguments":{}}],"timestamp":4}"#,
        ),
        msg(
            "r2",
            "a2",
            r#"{"role":"toolResult","toolUseId":"c2","toolName":"exec","content":[{"type":"text","text":"y"}],"isError":false,"timestamp":5}"#,
        ),
        msg(
            "u2",
            "r2",
            r#"{"role":"user","content":"next","timestamp":5}"#,
        ),
        // Tool calls only, but not valid JSON (a bad escape): left as it is,
        // and so is its result.
        msg(
            "a3",
            "u2",
            r#"{"role":"assistant","content":[{"type":"toolCall","id":"c3","name":"exec","arguments":{"command":"\q"}}],"timestamp":6}"#,
        ),
        msg(
            "r3",
            "a3",
            r#"{"role":"toolResult","toolCallId":"c3","toolName":"exec","content":[{"type":"text","text":"z"}],"isError":false,"timestamp":7}"#,
        ),
        // String content is not a list of calls.
        msg(
            "a4",
            "r3",
            r#"{"role":"assistant","content":"all done","timestamp":8}"#,
        ),
    ];
    let before = lines.join("\n") + "\n";
    let out = strip(before.as_bytes(), 0, 0);
    let after = String::from_utf8(out.bytes.clone()).unwrap();
    let kept: Vec<&str> = after.lines().collect();
    assert!(!after.contains(r#""id":"a1""#) && !after.contains(r#""id":"r1""#));
    assert!(!after.contains(r#""id":"r2""#));
    assert!(
        kept.contains(&lines[7].as_str()) && kept.contains(&lines[8].as_str()),
        "unreadable line and its result untouched"
    );
    assert!(kept.contains(&lines[9].as_str()));
    let a2: Value =
        serde_json::from_str(kept.iter().find(|l| l.contains(r#""id":"a2""#)).unwrap()).unwrap();
    assert_eq!(
        a2["message"]["content"],
        json!([{"type": "text", "text": "checking"}])
    );
    assert_eq!(a2["parentId"], "u1", "re-linked past the deleted a1 and r1");
    assert_eq!(out.stats.tool_calls_removed, 2);
}

/// A line serde cannot parse (a lone surrogate escape, which
/// `JSON.stringify` writes and `JSON.parse` reads) cannot have its
/// `parentId` rewritten, so the entry it hangs on is kept (and with a tool
/// result, its call).
#[test]
fn an_unreadable_line_keeps_the_entry_it_hangs_on() {
    let lines = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}"#,
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"t","message":{"role":"user","content":"go"}}"#,
        r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"x","arguments":{}}]}}"#,
        r#"{"type":"message","id":"r1","parentId":"a1","timestamp":"t","message":{"role":"toolResult","toolCallId":"c1","content":[]}}"#,
        r#"{"type":"message","id":"a2","parentId":"r1","timestamp":"t","message":{"role":"assistant","content":"a lone \ud800 surrogate"}}"#,
    ];
    let before = lines.join("\n");
    let out = strip(before.as_bytes(), 0, 0);
    assert_eq!(String::from_utf8(out.bytes).unwrap(), before);
}
