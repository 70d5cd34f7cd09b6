//! Atomic replacement of a file: temp file, fsync, rename, fsync directory.

use crate::error::{Error, Result};
use crate::platform;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// A temporary file this old is stale whoever wrote it (a writer in another
/// PID namespace cannot be asked whether it is alive).
const STALE_TEMP: Duration = Duration::from_secs(600);

/// Replaces `path` with `contents` so that a reader (or a crash) sees either
/// the old file or the new one, never a mix.
///
/// The temporary file lives in the same directory (same filesystem), is
/// flushed to disk before the rename, and the directory is flushed after it.
/// `mode` sets the permissions of the new file; `None` keeps those of the file
/// being replaced (0644 for a new file). On failure the old file is untouched
/// and the temporary file is removed. Temporary files in the same folder
/// left by writers that died (killed between create and rename) are removed
/// after a successful write, so they never pile up.
pub fn write_atomic(path: &Path, contents: &[u8], mode: Option<u32>) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let dir = dir.unwrap_or_else(|| Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| Error::write_failed(path, &std::io::ErrorKind::InvalidInput.into()))?;
    let mode = mode.unwrap_or_else(|| fs::metadata(path).map_or(0o644, |m| platform::mode(&m)));
    let tmp = temp_path_in(dir, name);
    let result = (|| -> std::io::Result<()> {
        let mut file = platform::create_new(&tmp, mode)?;
        file.write_all(contents)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, path)?;
        platform::sync_dir(dir)
    })();
    match result {
        Ok(()) => {
            remove_stale_temps(dir);
            Ok(())
        }
        Err(err) => {
            let _ = fs::remove_file(&tmp);
            Err(Error::write_failed(path, &err))
        }
    }
}

/// A new temporary file's name beside `path`, named as [`write_atomic`]
/// names its own (so that [`commit_temp`] sweeps those of dead writers):
/// for a caller that writes a large file as a stream and then renames it.
pub fn temp_path(path: &Path) -> Option<std::path::PathBuf> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty())?;
    Some(temp_path_in(dir, path.file_name()?))
}

fn temp_path_in(dir: &Path, name: &std::ffi::OsStr) -> std::path::PathBuf {
    dir.join(format!(
        ".{}.tmp-{}-{}",
        name.to_string_lossy(),
        std::process::id(),
        unique_suffix()
    ))
}

/// Renames a flushed temporary file from [`temp_path`] over `path` and
/// flushes the folder; on failure the temporary file is removed and `path`
/// is untouched.
pub fn commit_temp(tmp: &Path, path: &Path) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let dir = dir.unwrap_or_else(|| Path::new("."));
    match fs::rename(tmp, path).and_then(|()| platform::sync_dir(dir)) {
        Ok(()) => {
            remove_stale_temps(dir);
            Ok(())
        }
        Err(err) => {
            let _ = fs::remove_file(tmp);
            Err(Error::write_failed(path, &err))
        }
    }
}

/// Removes the temporary files `.<name>.tmp-<pid>-<n>` in `dir` (of any
/// target: backups and snapshots are written under new names each time)
/// whose writer is not running any more, or that are older than
/// [`STALE_TEMP`].
fn remove_stale_temps(dir: &Path) {
    let Ok(listing) = fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in listing.flatten() {
        let file = entry.file_name();
        let Some(writer) = file.to_str().and_then(temp_writer) else {
            continue;
        };
        let dead = writer != u64::from(std::process::id()) && !platform::process_alive(writer);
        let old = || {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|age| age >= STALE_TEMP)
        };
        if dead || old() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The writer's pid, when `file` is named as [`write_atomic`] names its
/// temporary files.
fn temp_writer(file: &str) -> Option<u64> {
    let (_, suffix) = file.strip_prefix('.')?.rsplit_once(".tmp-")?;
    let (pid, n) = suffix.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(n))
        .then(|| pid.parse().ok())
        .flatten()
}

fn unique_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos() as u64)
        .unwrap_or(0);
    (nanos << 16) ^ COUNTER.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_contents_keeps_mode_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        write_atomic(&path, b"one", Some(0o600)).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one");
        write_atomic(&path, b"two", None).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        #[cfg(unix)]
        assert_eq!(platform::mode(&fs::metadata(&path).unwrap()), 0o600);
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn temporary_files_of_dead_writers_are_removed_by_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        let temp = |pid: u64, n: u32| dir.path().join(format!(".a.json.tmp-{pid}-{n}"));
        // pid 1 is always running; 4194305 is above Linux's largest pid.
        for p in [temp(4_194_305, 1), temp(1, 2), temp(1, 3)] {
            fs::write(&p, b"half").unwrap();
        }
        let hour_ago = SystemTime::now() - Duration::from_secs(3600);
        fs::File::options()
            .write(true)
            .open(temp(1, 3))
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        // A backup written under a new name each time: swept all the same.
        let backup = dir
            .path()
            .join(".a.json.bak.2026-11-23T18-41-44.080Z.tmp-4194305-1");
        let not_ours = dir.path().join(".b.json.tmp-4194305");
        fs::write(&backup, b"half").unwrap();
        fs::write(&not_ours, b"someone else's").unwrap();
        write_atomic(&path, b"x", None).unwrap();
        assert!(!temp(4_194_305, 1).exists(), "its writer is gone");
        assert!(temp(1, 2).exists(), "a running writer's save in progress");
        assert!(!temp(1, 3).exists(), "too old to be in progress");
        assert!(
            !backup.exists(),
            "a dead writer's temporary file of another target"
        );
        assert!(
            not_ours.exists(),
            "not named as write_atomic names its files"
        );
    }

    #[test]
    fn failure_leaves_the_old_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-dir").join("a.json");
        let err = write_atomic(&path, b"x", None).unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::WriteFailed);
    }
}
