//! Times discovery over a corpus from the command line, for profiling:
//! `cargo run --release -p session-intel-core --example scan_corpus -- <repo> <claudeDir> <stateDir> [repeats]`

use session_intel_core::claude_code::{discover_sessions, DiscoverOptions, ScanCache};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [repo, claude, state] = [&args[0], &args[1], &args[2]];
    let repeats: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(1);
    let options = DiscoverOptions {
        claude_config_dir: Some(claude.into()),
        registry_root: Some(state.into()),
        ..DiscoverOptions::default()
    };
    let cache = ScanCache::new();
    for i in 0..repeats {
        let t = Instant::now();
        let sessions = discover_sessions(repo, &options, &cache);
        println!("call {i}: {} sessions in {:?}", sessions.len(), t.elapsed());
    }
}
