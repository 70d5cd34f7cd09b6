//! Times the cleaner's edit of one SQLite session, for profiling:
//! `cargo run --profile profiling -p session-intel-core --example sqlite_edit_time -- <stateDir> <session>`
use session_intel_core::openclaw::edit::EditRequest;
use session_intel_core::openclaw::gateway::QUIET_MS;
use session_intel_core::openclaw::store::AgentStore;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [state, session] = &args[..2] else {
        panic!("usage: sqlite_edit_time <stateDir> <session>");
    };
    let t = std::time::Instant::now();
    let store = AgentStore::open(std::path::Path::new(state), "main").expect("an agent store");
    let outcome = store
        .edit(&EditRequest {
            session: Some(session.clone()),
            keep_turns_with_tools: 20,
            truncate_percent: 50,
            dry_run: false,
            backups_to_keep: 5,
            lock: Default::default(),
            quiet_ms: QUIET_MS,
        })
        .expect("the edit");
    println!(
        "edit {:?}: {} -> {} bytes",
        t.elapsed(),
        outcome.size_original,
        outcome.size_after
    );
}
