//! The active path on every shape OpenClaw's tree rules tell apart, against
//! what OpenClaw's own tree scan built for it: the expected paths in
//! `fixtures/openclaw-tree-scenarios.json` were written by
//! `__test__/openclaw/support/tree-scenarios.mjs` running the real OpenClaw 2026.9.6
//! (2026.8.2 builds the same; `npm run test:openclaw` re-checks both).

use session_intel_core::openclaw::entry::EntryHead;
use session_intel_core::openclaw::tree::{active_path, TreeEntry};
use std::path::Path;

#[test]
fn the_active_path_is_the_one_openclaw_builds() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/openclaw-tree-scenarios.json");
    let fixture: serde_json::Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    let scenarios = fixture["scenarios"].as_object().unwrap();
    assert!(scenarios.len() >= 30);
    for (name, s) in scenarios {
        let lines: Vec<String> = s["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.to_string())
            .collect();
        let heads: Vec<EntryHead> = lines
            .iter()
            .map(|l| EntryHead::read(l.as_bytes()))
            .collect();
        let tree: Vec<TreeEntry> = heads.iter().map(EntryHead::tree).collect();
        let ids: Vec<&str> = active_path(&tree)
            .iter()
            .map(|&i| heads[i].id.as_deref().unwrap_or(""))
            .collect();
        let expected: Vec<&str> = s["path"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(ids, expected, "scenario {name}");
    }
}
