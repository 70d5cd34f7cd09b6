//! The core's integration tests, built as one binary: one link instead of
//! one per suite. Each module below is a suite; its doc says what it proves.
//! Three suites run in a process of their own, as binaries beside this one:
//! `tests/settled_scans.rs` (it counts the process's read calls),
//! `tests/status_watches.rs` (it uses more work trees than the status cache
//! keeps, which would evict those of the suites here) and
//! `tests/transient_read_errors.rs` (it lowers the process's descriptor
//! limit).
//!
//! Run one suite with `cargo test -p session-intel-core --test integration
//! <module>::`.

/// Shared helpers: real git repositories (`git_repo`), the spotter fixture
/// in a temporary config dir (`spotter`).
mod util;

// Discovery of Claude Code sessions and its caches.
mod claude_code_2_1; // what the real Claude Code 2.1 wrote: usage, cost, prompts, models
mod fixtures; // the fast scanner against a plain JSON reading of the same rules
mod fuzz_regressions; // inputs the fuzz targets once crashed on
mod json_walker; // the selective walker against a full JSON parser
mod liveness_discovery; // `isRunning` from liveness records, through the caches
mod persistent_scan_cache; // the scan cache on disk, against scans without it
mod repo_folders; // which project folders hold a repository's sessions
mod repo_identity; // identity across paths and machines, its index, moved folders

// Project status, the spawn pre-flight, selection and resume.
mod preflight; // the spawn pre-flight on real git repositories and transcripts
mod preflight_isolation; // a spawn into a busy repository in a worktree of its own
mod preflight_slim; // the continuation slimming a large transcript before resuming it
mod project_status_git; // every git field of the briefing against the git CLI
mod relevance_eval; // how well the offline fallbacks rank related sessions
mod resume_pins; // pins, epochs, retirement and every resume guard
mod selection_scoring;
mod spare_worktrees; // the spare worktree: prepared, taken, kept current, every fault undone
mod spawn_outcomes; // what each spawn did: record, transcript, liveness and git
mod spawn_worktrees; // spawn worktrees made, every fault undone, finished, listed, pruned // every constant and branch of the score

// OpenClaw's transcripts, the cleaner and the handoff.
mod handoff_patterns; // pattern detection on labelled messages
mod handoff_store; // handoff capture, offer, status and retention
mod openclaw_sqlite; // the cleaner, reads and exports on real SQLite stores
mod openclaw_strip; // the strip transform on every structure of the format
mod openclaw_transcripts; // listing, resolving and reading transcripts
mod openclaw_tree; // the active path against OpenClaw's own tree scan
mod slim_claude; // slimming a Claude Code transcript, in place or as a fork, and restoring it

// Claude Code hooks.
mod hooks; // context pressure, the hook registry and pane state
