//! Times the strip transform on a transcript, for profiling:
//! `cargo run --release -p session-intel-core --example strip_time -- <file.jsonl>`
fn main() {
    let path = std::env::args().nth(1).expect("a transcript path");
    let t = std::time::Instant::now();
    let bytes = std::fs::read(&path).unwrap();
    let read = t.elapsed();
    let out = session_intel_core::openclaw::strip::strip_tools(&bytes, 20, 50).unwrap();
    let strip = t.elapsed() - read;
    let tmp = std::env::temp_dir().join("strip_time.out");
    session_intel_core::fs_safe::write_atomic(&tmp, &out.render(&bytes), None).unwrap();
    println!(
        "read {read:?} strip {strip:?} write+fsync {:?} ({} -> {} bytes)",
        t.elapsed() - read - strip,
        bytes.len(),
        out.size_after
    );
}
