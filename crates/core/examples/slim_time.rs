//! Times slimming a Claude Code transcript in place, for profiling:
//! `cargo run --release -p session-intel-core --example slim_time -- <file.jsonl> [runs] [keep.jsonl]`
//! (each run slims a fresh copy in a scratch config folder; the last
//! slimmed copy is kept at `keep.jsonl` when given).
use session_intel_core::slim::{slim_claude_session, SlimRequest};

fn main() {
    let mut args = std::env::args().skip(1);
    let source = args.next().expect("a transcript path");
    let runs: usize = args
        .next()
        .map_or(1, |r| r.parse().expect("a number of runs"));
    let keep = args.next();
    let id = "0b1a7ed0-0000-4000-8000-000000000001";
    let config = std::env::temp_dir().join("slim_time");
    let project = config.join("projects").join("-home-u-project");
    for _ in 0..runs {
        let _ = std::fs::remove_dir_all(&config);
        std::fs::create_dir_all(&project).unwrap();
        let path = project.join(format!("{id}.jsonl"));
        let t = std::time::Instant::now();
        std::fs::copy(&source, &path).unwrap();
        std::fs::File::open(&path).unwrap().sync_all().unwrap();
        let copy = t.elapsed();
        let mut req = SlimRequest::new(id);
        req.session.claude_config_dir = Some(config.clone());
        let (t, cpu, all) = (std::time::Instant::now(), thread_cpu(), process_cpu());
        let out = slim_claude_session(&req).unwrap();
        println!(
            "slim {:?}, CPU {:?} on its thread, {:?} in all (copy+fsync {copy:?}): {} -> {} bytes",
            t.elapsed(),
            thread_cpu() - cpu,
            process_cpu() - all,
            out.size_original,
            out.size_after
        );
        if let Some(keep) = &keep {
            std::fs::copy(&path, keep).unwrap();
        }
    }
    let _ = std::fs::remove_dir_all(&config);
}

/// CPU time of this thread (user and system), steadier than wall time on a
/// shared machine.
fn thread_cpu() -> std::time::Duration {
    cpu_clock(Clock::Thread)
}

/// CPU time of this process, every thread (the slim reads and writes on
/// threads of its own).
fn process_cpu() -> std::time::Duration {
    cpu_clock(Clock::Process)
}

/// Whose CPU time is read.
enum Clock {
    Thread,
    Process,
}

/// CPU time of this thread or process.
#[cfg(unix)]
fn cpu_clock(clock: Clock) -> std::time::Duration {
    let id = match clock {
        Clock::Thread => libc::CLOCK_THREAD_CPUTIME_ID,
        Clock::Process => libc::CLOCK_PROCESS_CPUTIME_ID,
    };
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write to.
    unsafe { libc::clock_gettime(id, &mut ts) };
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// CPU time: not measured here.
#[cfg(not(unix))]
fn cpu_clock(_: Clock) -> std::time::Duration {
    std::time::Duration::ZERO
}
