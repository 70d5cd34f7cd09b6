//! OpenClaw-compatible lock files.
//!
//! OpenClaw guards a file `<f>` with `<f>.lock`, created with `O_EXCL` and
//! holding pretty-printed `{"pid": N, "createdAt": "<ISO>"}`. A lock is stale
//! when its process is gone or it is older than 30 minutes; a stale lock may be
//! taken over. We write and honour exactly that format, so OpenClaw and this
//! addon exclude each other.

use crate::error::{Error, ErrorCode, Result};
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long to wait for a lock and when to call one stale.
#[derive(Debug, Clone, Copy)]
pub struct LockOptions {
    /// Give up (with `E_SESSION_BUSY`) after waiting this long.
    pub timeout: Duration,
    /// A lock older than this is stale even when its process lives.
    pub stale_after: Duration,
}

impl Default for LockOptions {
    fn default() -> Self {
        LockOptions {
            timeout: Duration::from_secs(10),
            stale_after: Duration::from_secs(30 * 60),
        }
    }
}

/// A held lock file; dropping it releases the lock.
#[derive(Debug)]
pub struct FileLock {
    path: PathBuf,
}

impl FileLock {
    /// Takes the lock `<target>.lock`, waiting up to `options.timeout` for a
    /// live holder to release it and taking over a stale one.
    pub fn acquire(target: &Path, options: LockOptions) -> Result<FileLock> {
        let path = lock_path(target);
        let deadline = Instant::now() + options.timeout;
        let mut pause = Duration::from_millis(1);
        loop {
            match try_create(&path) {
                Ok(()) => return Ok(FileLock { path }),
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                    if let Some(stale) = stale_contents(&path, options.stale_after) {
                        // Remove only if it is still the same stale lock.
                        if fs::read(&path).ok().as_deref() == Some(stale.as_slice()) {
                            let _ = fs::remove_file(&path);
                        }
                        continue;
                    }
                }
                Err(err) => return Err(Error::write_failed(&path, &err)),
            }
            if Instant::now() >= deadline {
                return Err(Error::new(
                    ErrorCode::SessionBusy,
                    format!("{} is locked by another process", target.display()),
                )
                .with_hint(format!(
                    "another process holds {}; wait for it to finish and retry",
                    path.display()
                )));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(25));
        }
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// `<target>.lock`.
pub fn lock_path(target: &Path) -> PathBuf {
    let mut name = target.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

fn try_create(path: &Path) -> std::io::Result<()> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(path)?;
    let payload = format!(
        "{{\n  \"pid\": {},\n  \"createdAt\": \"{}\"\n}}",
        std::process::id(),
        crate::time::now_iso()
    );
    let written = file.write_all(payload.as_bytes());
    if written.is_err() {
        let _ = fs::remove_file(path);
    }
    written
}

/// Returns the lock's bytes when it is stale: unreadable payload older than a
/// second, a dead pid, or a `createdAt` older than `stale_after`.
fn stale_contents(path: &Path, stale_after: Duration) -> Option<Vec<u8>> {
    let bytes = fs::read(path).ok()?;
    let parsed: Option<serde_json::Value> = serde_json::from_slice(&bytes).ok();
    let pid = parsed
        .as_ref()
        .and_then(|v| v.get("pid"))
        .and_then(|v| v.as_u64());
    let created = parsed
        .as_ref()
        .and_then(|v| v.get("createdAt"))
        .and_then(|v| v.as_str())
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok());
    let (Some(pid), Some(created)) = (pid, created) else {
        // A holder may be between create and write: give it a moment.
        let age = fs::metadata(path).ok()?.modified().ok()?.elapsed().ok()?;
        return (age > Duration::from_secs(1)).then_some(bytes);
    };
    let age = chrono::Utc::now().signed_duration_since(created);
    let too_old = age.to_std().map(|a| a > stale_after).unwrap_or(false);
    (too_old || !crate::platform::process_alive(pid)).then_some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quick() -> LockOptions {
        LockOptions {
            timeout: Duration::from_millis(100),
            ..LockOptions::default()
        }
    }

    #[test]
    fn writes_openclaw_payload_and_releases_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("s.jsonl");
        let lock = FileLock::acquire(&target, quick()).unwrap();
        let text = fs::read_to_string(lock.path()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["pid"].as_u64(), Some(std::process::id() as u64));
        assert!(v["createdAt"].as_str().unwrap().ends_with('Z'));
        assert!(text.starts_with("{\n  \"pid\": "));
        drop(lock);
        assert!(!lock_path(&target).exists());
    }

    #[test]
    fn live_lock_is_busy_dead_or_old_lock_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("s.jsonl");
        let held = FileLock::acquire(&target, quick()).unwrap();
        let err = FileLock::acquire(&target, quick()).unwrap_err();
        assert_eq!(err.code, ErrorCode::SessionBusy);
        drop(held);

        // The shape of the real leftover lock in the fixtures, with a pid
        // above Linux's pid_max, so certainly dead.
        fs::write(
            lock_path(&target),
            "{\n  \"pid\": 999999999,\n  \"createdAt\": \"2026-01-31T11:53:47.108Z\"\n}",
        )
        .unwrap();
        assert!(FileLock::acquire(&target, quick()).is_ok());

        // Our own live pid, but created two hours ago.
        fs::write(
            lock_path(&target),
            format!(
                "{{\"pid\": {}, \"createdAt\": \"{}\"}}",
                std::process::id(),
                (chrono::Utc::now() - chrono::Duration::hours(2)).to_rfc3339()
            ),
        )
        .unwrap();
        assert!(FileLock::acquire(&target, quick()).is_ok());
    }
}
