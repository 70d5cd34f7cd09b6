//! This process's I/O counters, for the suites that prove a cache reads
//! nothing (each alone in its test binary, so no other test adds to them).

use std::fs;

/// Read calls (`read`, `pread`, ...) this process has made so far.
pub fn read_calls() -> u64 {
    let io = fs::read_to_string("/proc/self/io").unwrap();
    io.lines()
        .find_map(|l| l.strip_prefix("syscr: "))
        .unwrap()
        .parse()
        .unwrap()
}
