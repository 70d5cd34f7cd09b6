//! A fresh process trusts a saved scan without reading its file exactly
//! when the file's stat data (ctime included) are what they were and had
//! settled when it was scanned. Alone in its test binary because it counts
//! the process's read calls (`/proc/self/io`), which other tests running
//! beside it would add to.
#![cfg(target_os = "linux")]

#[path = "integration/util/proc_io.rs"]
mod proc_io;

use proc_io::read_calls;
use session_intel_core::claude_code::cache::scan_store::{self, cache_file};
use session_intel_core::claude_code::{
    discover_sessions, DiscoverOptions, DiscoveredSession, DiscoveryCache, PersistentCache,
};
use session_intel_core::repo_path::RepoPath;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

const REPO: &str = "/home/USER/projects/spotter-worktrees/spotter-4te";
const SLUG: &str = "-home-USER-projects-spotter-worktrees-spotter-4te";
const MAIN: &str = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";
/// Extra sessions, copies of the fixture's main transcript.
const COPIES: usize = 20;

fn options(config: &Path, cache_dir: &Path) -> DiscoverOptions {
    DiscoverOptions {
        claude_config_dir: Some(config.to_path_buf()),
        registry_root: Some(config.parent().unwrap().join("state")),
        persistent_cache: PersistentCache::In(cache_dir.to_path_buf()),
        ..DiscoverOptions::default()
    }
}

/// A fresh process's discovery with the persistent cache, and the read
/// calls it made.
fn fresh(config: &Path, cache_dir: &Path) -> (Arc<Vec<DiscoveredSession>>, u64) {
    let before = read_calls();
    let found = discover_sessions(
        &RepoPath::resolve(REPO),
        &options(config, cache_dir),
        &DiscoveryCache::new(),
    );
    (found, read_calls() - before)
}

fn uncached(config: &Path) -> String {
    let mut options = options(config, Path::new("/nonexistent"));
    options.persistent_cache = PersistentCache::Off;
    format!(
        "{:#?}",
        discover_sessions(&RepoPath::resolve(REPO), &options, &DiscoveryCache::new())
    )
}

#[test]
fn settled_unchanged_files_are_not_read_and_any_change_of_their_stat_data_is_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("claude");
    let cache_dir = tmp.path().join("cache");
    let folder = config.join("projects").join(SLUG);
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/shared/claude-code/projects")
        .join(SLUG);
    fs::create_dir_all(folder.join(MAIN).join("subagents")).unwrap();
    fs::create_dir_all(tmp.path().join("state")).unwrap();
    let main_bytes = fs::read(fixture.join(format!("{MAIN}.jsonl"))).unwrap();
    fs::write(folder.join(format!("{MAIN}.jsonl")), &main_bytes).unwrap();
    for sub in fs::read_dir(fixture.join(MAIN).join("subagents")).unwrap() {
        let sub = sub.unwrap();
        fs::copy(
            sub.path(),
            folder.join(MAIN).join("subagents").join(sub.file_name()),
        )
        .unwrap();
    }
    for i in 0..COPIES {
        let id = format!("00000000-0000-4000-8000-{i:012}");
        fs::write(folder.join(format!("{id}.jsonl")), &main_bytes).unwrap();
    }
    let files = COPIES + 3;

    // Scanned once they have settled, and saved.
    std::thread::sleep(Duration::from_millis(2100));
    let (first, _) = fresh(&config, &cache_dir);
    assert_eq!(first.len(), COPIES + 1);
    let truth = uncached(&config);
    assert_eq!(format!("{first:#?}"), truth);
    let file = cache_file(&cache_dir, &config);
    let saved = scan_store::load(&file, &config).unwrap();
    assert_eq!(saved.len(), files);
    assert!(
        saved.iter().all(|(s, _)| s.settled),
        "scanned after they settled"
    );

    // A fresh process reads the cache, not the transcripts.
    let (trusted, trusted_reads) = fresh(&config, &cache_dir);
    assert_eq!(format!("{trusted:#?}"), truth);
    assert!(
        trusted_reads < files as u64,
        "{trusted_reads} read calls for {files} unchanged files"
    );

    // The same entries saved as not settled: each file's prefix is checked.
    let unsettled: Vec<_> = saved
        .iter()
        .map(|(s, facts)| {
            let mut s = s.clone();
            s.settled = false;
            (s, scan_store::Facts::Encoded(facts))
        })
        .collect();
    scan_store::save(&file, &config, &unsettled, scan_store::MAX_BYTES).unwrap();
    let (checked, checked_reads) = fresh(&config, &cache_dir);
    assert_eq!(format!("{checked:#?}"), truth);
    assert!(
        checked_reads >= trusted_reads + files as u64,
        "{checked_reads} read calls with the prefix checked, {trusted_reads} without"
    );

    // Saved settled again (a process with no cache saves one). A file
    // rewritten in place, its size and modification time put back: only
    // its status change time tells, and it is read.
    fs::remove_file(&file).unwrap();
    fresh(&config, &cache_dir);
    let (_, reads) = fresh(&config, &cache_dir);
    assert!(reads < files as u64);
    let copy: PathBuf = folder.join("00000000-0000-4000-8000-000000000000.jsonl");
    let modified = fs::metadata(&copy).unwrap().modified().unwrap();
    // The last time, within the last KiB the prefix check hashes.
    let text = String::from_utf8(main_bytes.clone()).unwrap();
    let last = r#""timestamp":"2026-02-12T15:05:00.730Z""#;
    assert!(text.rfind(last).unwrap() > text.len() - 1000);
    let other = text.replace(last, r#""timestamp":"2026-02-12T15:05:00.731Z""#);
    fs::write(&copy, &other).unwrap();
    fs::File::options()
        .write(true)
        .open(&copy)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    assert_eq!(fs::metadata(&copy).unwrap().modified().unwrap(), modified);
    let (after, _) = fresh(&config, &cache_dir);
    let rewritten = |found: &[DiscoveredSession]| {
        let row = found
            .iter()
            .find(|s| s.session_id.ends_with("000000000000"));
        row.unwrap().last_activity.unwrap().to_rfc3339()
    };
    assert_eq!(rewritten(&first), "2026-02-12T15:05:00.730+00:00");
    assert_eq!(rewritten(&after), "2026-02-12T15:05:00.731+00:00");
    assert_eq!(format!("{after:#?}"), uncached(&config));
}
