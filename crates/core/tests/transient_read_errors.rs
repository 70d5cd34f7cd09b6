//! A transcript that could not be read for a passing reason (the process
//! had run out of file descriptors) is read again by the next call, also
//! when nothing changed on disk in between and the change monitor has
//! nothing to report. Its own test binary: it lowers the descriptor limit
//! of the whole process for a moment.
#![cfg(target_os = "linux")]

#[allow(dead_code)]
#[path = "integration/util/spotter.rs"]
mod spotter;
use session_intel_core::claude_code::{discover_sessions, DiscoveryCache, PersistentCache};
use session_intel_core::repo_path::RepoPath;
use spotter::*;
use std::fs::File;
use std::os::fd::AsRawFd;

/// Runs `f` with no file descriptor left to open.
fn out_of_descriptors<T>(f: impl FnOnce() -> T) -> T {
    // SAFETY: plain system calls on a struct they fill in.
    let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
    assert_eq!(
        unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) },
        0
    );
    // Descriptors are handed out lowest first: with the limit at the lowest
    // free one, none is left.
    let lowest_free = File::open("/dev/null").unwrap().as_raw_fd() as libc::rlim_t;
    let lowered = libc::rlimit {
        rlim_cur: lowest_free,
        ..limit
    };
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lowered) }, 0);
    let out = f();
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) }, 0);
    out
}

#[test]
fn a_read_that_failed_for_a_passing_reason_is_tried_again() {
    let s = Setup::new();
    let process = DiscoveryCache::new();
    let options = s.options(PersistentCache::Off);
    let call = || discover_sessions(&RepoPath::resolve(REPO), &options, &process);
    // Read, watched, then vouched for by the change monitor.
    let settled = call();
    for _ in 0..2 {
        assert_eq!(shown(&call()), shown(&settled));
    }

    append_response(&s.main_file());
    let failed = out_of_descriptors(call);
    assert_ne!(
        shown(&failed),
        shown(&s.uncached()),
        "the appended transcript could not be opened"
    );
    assert_eq!(shown(&call()), shown(&s.uncached()));
}
