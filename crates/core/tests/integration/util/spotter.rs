//! What the discovery tests share: the spotter fixture (a real Claude Code
//! project folder with a session and its subagents) copied into a
//! temporary config dir, and ways to compare and grow what is found there.

use session_intel_core::claude_code::cache::scan_store::cache_file;
use session_intel_core::claude_code::{
    discover_sessions, DiscoverOptions, DiscoveredSession, DiscoveryCache, PersistentCache,
};
use session_intel_core::repo_path::RepoPath;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

pub const REPO: &str = "/home/USER/projects/spotter-worktrees/spotter-4te";
pub const SLUG: &str = "-home-USER-projects-spotter-worktrees-spotter-4te";
pub const MAIN: &str = "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl";

pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

pub struct Setup {
    _tmp: tempfile::TempDir,
    pub config: PathBuf,
    pub cache_dir: PathBuf,
}

impl Setup {
    pub fn new() -> Setup {
        let tmp = tempfile::tempdir().unwrap();
        let config = tmp.path().join("claude");
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/shared/claude-code/projects")
            .join(SLUG);
        copy_dir(&fixture, &config.join("projects").join(SLUG));
        fs::create_dir_all(tmp.path().join("state")).unwrap();
        let cache_dir = tmp.path().join("cache");
        Setup {
            config,
            cache_dir,
            _tmp: tmp,
        }
    }

    pub fn main_file(&self) -> PathBuf {
        self.config.join("projects").join(SLUG).join(MAIN)
    }

    pub fn cache_file(&self) -> PathBuf {
        cache_file(&self.cache_dir, &self.config)
    }

    pub fn options(&self, cache: PersistentCache) -> DiscoverOptions {
        DiscoverOptions {
            claude_config_dir: Some(self.config.clone()),
            registry_root: Some(self.config.parent().unwrap().join("state")),
            persistent_cache: cache,
            ..DiscoverOptions::default()
        }
    }

    /// A fresh process with the persistent cache.
    pub fn cached(&self) -> Arc<Vec<DiscoveredSession>> {
        let options = self.options(PersistentCache::In(self.cache_dir.clone()));
        discover_sessions(&RepoPath::resolve(REPO), &options, &DiscoveryCache::new())
    }

    /// A fresh process without one.
    pub fn uncached(&self) -> Arc<Vec<DiscoveredSession>> {
        discover_sessions(
            &RepoPath::resolve(REPO),
            &self.options(PersistentCache::Off),
            &DiscoveryCache::new(),
        )
    }
}

/// What discovery reports, comparably (Debug of every field).
pub fn shown(sessions: &[DiscoveredSession]) -> String {
    format!("{sessions:#?}")
}

pub fn set_mtime(path: &Path, at: SystemTime) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(at)
        .unwrap();
}

/// Appends to `path` a copy of its first response with usage, under a new
/// message id and with more output tokens.
pub fn append_response(path: &Path) {
    append_response_as(path, "appended");
}

/// [`append_response`] with message ids marked by `marker` (one marker per
/// file: a response appended twice with one id counts once).
pub fn append_response_as(path: &Path, marker: &str) {
    let line = fs::read_to_string(path)
        .unwrap()
        .lines()
        .find(|l| l.contains("\"usage\"") && l.contains("\"output_tokens\""))
        .unwrap()
        .replace("\"output_tokens\":", "\"output_tokens\":1")
        .replace("\"id\":\"msg_", &format!("\"id\":\"msg_{marker}"));
    fs::OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(format!("{line}\n").as_bytes())
        .unwrap();
}
