//! Atomic replacement of a file: temp file, fsync, rename, fsync directory.

use crate::error::{Error, Result};
use crate::platform;
use std::fs;
use std::io::Write;
use std::path::Path;

/// Replaces `path` with `contents` so that a reader (or a crash) sees either
/// the old file or the new one, never a mix.
///
/// The temporary file lives in the same directory (same filesystem), is
/// flushed to disk before the rename, and the directory is flushed after it.
/// `mode` sets the permissions of the new file; `None` keeps those of the file
/// being replaced (0644 for a new file). On failure the old file is untouched
/// and the temporary file is removed.
pub fn write_atomic(path: &Path, contents: &[u8], mode: Option<u32>) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let dir = dir.unwrap_or_else(|| Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| Error::write_failed(path, &std::io::ErrorKind::InvalidInput.into()))?;
    let mode = mode.unwrap_or_else(|| fs::metadata(path).map_or(0o644, |m| platform::mode(&m)));
    let tmp = dir.join(format!(
        ".{}.tmp-{}-{}",
        name.to_string_lossy(),
        std::process::id(),
        unique_suffix()
    ));
    let result = (|| -> std::io::Result<()> {
        let mut file = platform::create_new(&tmp, mode)?;
        file.write_all(contents)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, path)?;
        platform::sync_dir(dir)
    })();
    result.map_err(|err| {
        let _ = fs::remove_file(&tmp);
        Error::write_failed(path, &err)
    })
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
    fn failure_leaves_the_old_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-dir").join("a.json");
        let err = write_atomic(&path, b"x", None).unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::WriteFailed);
    }
}
