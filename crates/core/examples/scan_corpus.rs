//! Times discovery over a corpus from the command line, for profiling:
//! `cargo run --release -p session-intel-core --example scan_corpus -- <repo> <claudeDir> <stateDir> [repeats] [cacheDir]`
//!
//! With a cache folder, each call stands for a fresh process using the
//! persistent scan cache kept there; with `-` for it, for a fresh process
//! without one (every call scans everything).

use session_intel_core::claude_code::{
    discover_sessions, DiscoverOptions, DiscoveryCache, PersistentCache,
};
use session_intel_core::repo_path::RepoPath;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [repo, claude, state] = [&args[0], &args[1], &args[2]];
    let repeats: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(1);
    let fresh = args.get(4).is_some();
    let persistent = args
        .get(4)
        .filter(|d| *d != "-")
        .map(|d| PersistentCache::In(d.into()));
    let options = DiscoverOptions {
        claude_config_dir: Some(claude.into()),
        registry_root: Some(state.into()),
        persistent_cache: persistent.clone().unwrap_or_default(),
        ..DiscoverOptions::default()
    };
    let mut cache = DiscoveryCache::new();
    for i in 0..repeats {
        if fresh {
            cache = DiscoveryCache::new();
        }
        let t = Instant::now();
        let sessions = discover_sessions(&RepoPath::resolve(repo), &options, &cache);
        println!("call {i}: {} sessions in {:?}", sessions.len(), t.elapsed());
    }
}
