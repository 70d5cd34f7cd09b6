//! One SQLite per file per process.
//!
//! POSIX file locks belong to a process, not to a connection: when one copy
//! of SQLite closes a database file, every lock the process holds on it is
//! gone, including those of another SQLite copy in the same process that
//! has the file open too (the OpenClaw gateway's `node:sqlite`, or a second
//! copy of this addon after a plugin reload). A lost lock lets another
//! process check the WAL back into the database under the gateway's feet.
//! So the addon opens an agent database only when nothing else in the
//! process has it (or its `-wal`/`-shm`) open, and its own operations take
//! turns, so that at each check any other descriptor is a foreign one.
//! Callers inside the gateway run the operation in a child process instead
//! (the plugin does, through `occ`).

use crate::error::{Error, ErrorCode, Result};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

/// Held while this copy of the addon has an agent database open.
static TURN: Mutex<()> = Mutex::new(());

/// Waits for this copy's turn to open an agent database.
pub fn take_turn() -> MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `E_UNSUPPORTED_STORE` when a descriptor of this process already refers to
/// the database or its sidecars.
pub fn refuse_if_open_elsewhere(db: &Path) -> Result<()> {
    if open_in_this_process(db) {
        return Err(Error::new(
            ErrorCode::UnsupportedStore,
            format!(
                "this process already has {} open through another SQLite (the OpenClaw gateway does, or another copy of this addon)",
                db.display()
            ),
        )
        .with_hint("two SQLite libraries in one process break each other's file locks; run the operation in a separate process (occ, or the OpenClaw plugin, which does so itself)"));
    }
    Ok(())
}

#[cfg(unix)]
fn open_in_this_process(db: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let mut wanted: Vec<(u64, u64)> = Vec::new();
    for suffix in ["", "-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        if let Ok(m) = std::fs::metadata(Path::new(&p)) {
            wanted.push((m.dev(), m.ino()));
        }
    }
    let dir = if cfg!(target_os = "linux") {
        "/proc/self/fd"
    } else {
        "/dev/fd"
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let Some(fd) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            return false;
        };
        // SAFETY: fstat only writes into the zeroed struct; a descriptor
        // closed meanwhile makes it fail, which we treat as not a match.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd, &mut st) } != 0 {
            return false;
        }
        wanted.contains(&(st.st_dev as u64, st.st_ino as u64))
    })
}

/// Windows locks belong to handles, not processes: no conflict to detect.
#[cfg(not(unix))]
fn open_in_this_process(_db: &Path) -> bool {
    false
}
