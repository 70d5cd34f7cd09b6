//! The floor of a warm discovery on the machine it runs on: what one `stat` of every
//! transcript under a folder costs, by path and relative to each folder's
//! handle (what discovery does), on one thread and on all of them.
//! `cargo run --release -p session-intel-core --example stat_floor -- <claudeDir>/projects`

use rayon::prelude::*;
use session_intel_core::platform::stat_each_in;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn transcripts(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            transcripts(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
}

/// The median of 200 timed runs of `f`.
fn median(mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..200)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[100]
}

fn main() {
    let root = std::env::args().nth(1).expect("a folder");
    let mut files = Vec::new();
    transcripts(Path::new(&root), &mut files);
    files.sort();
    let folders: Vec<&[PathBuf]> = files.chunk_by(|a, b| a.parent() == b.parent()).collect();
    let in_folder = |group: &[PathBuf]| {
        let names: Vec<_> = group.iter().filter_map(|p| p.file_name()).collect();
        stat_each_in(group[0].parent().unwrap_or(Path::new("")), &names).len()
    };
    let by_path = median(|| {
        files.iter().for_each(|p| {
            let _ = std::fs::symlink_metadata(p);
        })
    });
    let by_path_parallel = median(|| {
        files.par_iter().for_each(|p| {
            let _ = std::fs::symlink_metadata(p);
        })
    });
    let by_folder = median(|| {
        folders.iter().for_each(|g| {
            in_folder(g);
        })
    });
    let by_folder_parallel = median(|| {
        folders.par_iter().for_each(|g| {
            in_folder(g);
        })
    });
    let per = |d: Duration| d.as_secs_f64() * 1e9 / files.len() as f64;
    println!(
        "{} files in {} folders, median of 200:\n  by path: {by_path:?} ({:.0} ns each), {} threads: {by_path_parallel:?}\n  by folder handle: {by_folder:?} ({:.0} ns each), {} threads: {by_folder_parallel:?}",
        files.len(),
        folders.len(),
        per(by_path),
        rayon::current_num_threads(),
        per(by_folder),
        rayon::current_num_threads(),
    );
}
