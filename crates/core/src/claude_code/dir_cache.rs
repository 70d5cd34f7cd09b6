//! Directory listings kept between calls while the directory is unchanged.
//!
//! A repeat discovery call with nothing changed would otherwise spend most
//! of its time reading the same folders again (open, `getdents`, close for
//! every session's `subagents` folder). Adding, removing or renaming an
//! entry changes its directory's modification time, so a listing is reused
//! while the directory's identity and mtime are what they were when it was
//! read. Appends to files inside do not change it; the files themselves are
//! still stat'ed on every call.
//!
//! Timestamps are coarse (a clock tick on Linux): a change made within the
//! same tick as the one before it can leave the mtime unchanged. So, like
//! git's "racily clean" index entries, a listing is only trusted when the
//! directory had not changed for [`SETTLED`] before it was read; a folder
//! that is busy right now is listed again on every call.

use crate::platform::{self, FileId};
use crate::FastMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a directory must have been unchanged before its listing is
/// reused.
const SETTLED: Duration = Duration::from_secs(2);

/// One entry of a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirItem {
    pub name: OsString,
    /// A directory (not following a symlink).
    pub is_dir: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    id: FileId,
    mtime_ns: i128,
}

#[derive(Debug)]
struct Listing {
    stamp: Stamp,
    items: Arc<[DirItem]>,
}

/// Listings of directories, safe to share between threads.
#[derive(Debug, Default)]
pub struct DirCache {
    listings: Mutex<FastMap<PathBuf, Listing>>,
}

impl DirCache {
    /// The entries of `dir`, from the kept listing when the directory is
    /// unchanged since it was read; `None` when it cannot be read.
    pub fn items(&self, dir: &Path) -> Option<Arc<[DirItem]>> {
        let meta = fs::symlink_metadata(dir).ok()?;
        let stamp = Stamp {
            id: platform::entry_id(dir, &meta).ok()?,
            mtime_ns: platform::mtime_ns(&meta),
        };
        if let Some(kept) = self.lock().get(dir) {
            if kept.stamp == stamp {
                return Some(Arc::clone(&kept.items));
            }
        }
        let read_at = SystemTime::now();
        let items: Arc<[DirItem]> = fs::read_dir(dir)
            .ok()?
            .flatten()
            .map(|entry| DirItem {
                is_dir: entry.file_type().is_ok_and(|t| t.is_dir()),
                name: entry.file_name(),
            })
            .collect();
        let settled_ns = read_at
            .checked_sub(SETTLED)
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        let mut listings = self.lock();
        if stamp.mtime_ns < settled_ns {
            listings.insert(
                dir.to_owned(),
                Listing {
                    stamp,
                    items: Arc::clone(&items),
                },
            );
        } else {
            listings.remove(dir);
        }
        Some(items)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FastMap<PathBuf, Listing>> {
        // Every update is a single insert or remove: a panic elsewhere while
        // the lock was held cannot have left the map half-changed.
        self.listings.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(items: &[DirItem]) -> Vec<String> {
        let mut names: Vec<String> = items
            .iter()
            .map(|i| i.name.to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn age(path: &Path, secs: u64) {
        let t = SystemTime::now() - Duration::from_secs(secs);
        fs::File::open(path).unwrap().set_modified(t).unwrap();
    }

    #[test]
    fn a_settled_listing_is_reused_until_the_directory_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("d");
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join("a"), "").unwrap();
        fs::create_dir(dir.join("sub")).unwrap();
        age(&dir, 60);
        let cache = DirCache::default();
        let first = cache.items(&dir).unwrap();
        assert_eq!(names(&first), ["a", "sub"]);
        assert!(first.iter().any(|i| i.name == "sub" && i.is_dir));
        let again = cache.items(&dir).unwrap();
        assert!(
            Arc::ptr_eq(&first, &again),
            "an unchanged folder is not read again"
        );

        fs::write(dir.join("b"), "").unwrap();
        assert_eq!(names(&cache.items(&dir).unwrap()), ["a", "b", "sub"]);
        fs::remove_file(dir.join("a")).unwrap();
        assert_eq!(names(&cache.items(&dir).unwrap()), ["b", "sub"]);
    }

    #[test]
    fn a_folder_changed_just_now_is_listed_on_every_call() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("a"), "").unwrap();
        let cache = DirCache::default();
        let first = cache.items(tmp.path()).unwrap();
        // A second change in the same clock tick may leave the mtime as it
        // was; put it back to be sure, as such a change would.
        let meta = fs::metadata(tmp.path()).unwrap();
        fs::write(tmp.path().join("b"), "").unwrap();
        fs::File::open(tmp.path())
            .unwrap()
            .set_modified(meta.modified().unwrap())
            .unwrap();
        let second = cache.items(tmp.path()).unwrap();
        assert!(!Arc::ptr_eq(&first, &second));
        assert_eq!(names(&second), ["a", "b"]);
    }

    #[test]
    fn a_folder_replaced_by_another_is_read_again() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("d");
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join("old"), "").unwrap();
        age(&dir, 60);
        let cache = DirCache::default();
        assert_eq!(names(&cache.items(&dir).unwrap()), ["old"]);
        let other = tmp.path().join("e");
        fs::create_dir(&other).unwrap();
        fs::write(other.join("new"), "").unwrap();
        age(&other, 60);
        fs::File::open(&other)
            .unwrap()
            .set_modified(fs::metadata(&dir).unwrap().modified().unwrap())
            .unwrap();
        fs::remove_dir_all(&dir).unwrap();
        fs::rename(&other, &dir).unwrap();
        assert_eq!(names(&cache.items(&dir).unwrap()), ["new"]);
        assert!(cache.items(&tmp.path().join("gone")).is_none());
    }
}
