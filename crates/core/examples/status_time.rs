//! Times the `git status --short` part of the briefing on a repository, for
//! `npm run bench`: `cargo run --release --example status_time -- <repo> [runs]`.
//! Prints the median in milliseconds, and the first run's (nothing watched
//! yet: every tracked file stat'ed).

use session_intel_core::project_status::working_tree::short_status;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(9);
    let mut times = Vec::new();
    let mut lines = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let repo = git2::Repository::discover(&args[0]).expect("a repository");
        lines = short_status(&repo).expect("status").lines.len();
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    println!(
        "{{\"medianMs\":{:.3},\"firstMs\":{:.3},\"lines\":{lines}}}",
        sorted[sorted.len() / 2],
        times[0]
    );
}
