//! Sessions the real Claude Code 2.1.328 wrote (`fixtures/claude-code-2.1`),
//! placed as if started in folders of a test's own.

use session_intel_core::claude_code::layout::paths::project_slug;
use std::fs;
use std::path::{Path, PathBuf};

/// The fixture folder.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/claude-code-2.1")
}

/// Its manifest: the recording's root, repositories and sessions.
pub fn manifest() -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(fixtures().join("manifest.json")).unwrap()).unwrap()
}

/// The fixture session `name`'s transcript, its paths moved from the
/// recording's work folder to `work` and its id to `id`, written where
/// Claude Code puts a session started in its new cwd.
pub fn place(config: &Path, work: &Path, name: &str, id: &str) -> PathBuf {
    let manifest = manifest();
    let session = &manifest["sessions"][name];
    let old_work = format!("{}/work", manifest["root"].as_str().unwrap());
    let old_cwd = session["cwd"].as_str().unwrap();
    let old_id = session["sessionId"].as_str().unwrap();
    let cwd = old_cwd.replace(&old_work, work.to_str().unwrap());
    let text = fs::read_to_string(
        fixtures()
            .join("projects")
            .join(project_slug(old_cwd))
            .join(format!("{old_id}.jsonl")),
    )
    .unwrap()
    .replace(&old_work, work.to_str().unwrap())
    .replace(old_id, id);
    let dir = config.join("projects").join(project_slug(&cwd));
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{id}.jsonl"));
    fs::write(&file, text).unwrap();
    file
}
