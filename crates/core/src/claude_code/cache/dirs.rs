//! Directory listings, and the stats of the files in them, kept between
//! calls while the directory is unchanged.
//!
//! A repeat discovery call with nothing changed would otherwise spend most
//! of its time reading the same folders again (open, `getdents`, close for
//! every session's `subagents` folder) and stat'ing every file in them.
//!
//! Without a change monitor, adding, removing or renaming an entry changes
//! its directory's modification time, so a listing is reused while the
//! directory's identity and mtime are what they were when it was read.
//! Timestamps are coarse (a clock tick on Linux): a change made within the
//! same tick as the one before it can leave the mtime unchanged. So, like
//! git's "racily clean" index entries, a listing is only reused this way
//! when the directory had not changed for a while before it was read
//! ([`had_settled`](super::settled::had_settled)).
//! Appends to files do not change the directory; the files are stat'ed.
//!
//! With the [`ChangeMonitor`], a folder read a second time is watched
//! first, and what is read is kept with the folder's ticket. A later
//! [`Round`] reuses the listing while no entry of the folder (or of the
//! folder above it) was created, removed or renamed, and the files' stats
//! while nothing at all was reported in it: then neither the folder nor its
//! files are touched. A round can also vouch for all it read
//! ([`Round::vouch`]); a later round then checks, reading nothing, that
//! nothing was reported in any of those folders since ([`Round::unchanged`]),
//! which lets discovery hand back its last result as it is.

use crate::change_monitor::{ChangeMonitor, Ticket};
use crate::fast_map::FastMap;
use crate::platform::{self, FileId, FileStat};
use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// One entry of a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirItem {
    /// The entry's file name.
    pub name: OsString,
    /// A directory (not following a symlink).
    pub is_dir: bool,
    /// A regular file (not following a symlink).
    pub is_file: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    id: FileId,
    mtime_ns: i128,
}

/// Stats of files of a folder, taken under a ticket.
type FileStats = Arc<FastMap<OsString, Option<FileStat>>>;

#[derive(Debug)]
struct Listing {
    stamp: Stamp,
    items: Arc<[DirItem]>,
    /// The folder had been quiet for a while when it was read, so an
    /// equal stamp proves the listing current.
    settled: bool,
    /// The folder's ticket, taken before it was read.
    listed_under: Option<Ticket>,
    /// Stats of its files, with the ticket taken before they were.
    files: Option<(Ticket, FileStats)>,
}

/// Listings of directories, safe to share between threads.
#[derive(Debug, Default)]
pub struct DirCache {
    listings: Mutex<FastMap<PathBuf, Listing>>,
    monitor: ChangeMonitor,
}

/// A directory as a [`Round`] found it.
#[derive(Debug)]
pub struct Listed {
    /// The directory.
    pub dir: PathBuf,
    /// Its entries.
    pub items: Arc<[DirItem]>,
    /// The kept listing was reused because the monitor reported no change
    /// of entries since it was read.
    same_entries: bool,
    /// The folder's ticket in this round, taken before anything was read.
    ticket: Option<Ticket>,
    /// For a folder listed without a parent, which folder its path named:
    /// the folders above it are not watched.
    top: Option<FileId>,
}

/// Folders read in a round, in a form the change monitor can vouch for
/// later ([`Round::unchanged`]): each folder's ticket, which folder each
/// top path named, and the folders that could not be read (no watched
/// folder reports their creation, so they are looked for again).
#[derive(Debug)]
pub struct Vouched {
    folders: Vec<(PathBuf, Ticket, Option<FileId>)>,
    absent: Vec<PathBuf>,
}

/// A folder in which files were written to or touched ([`Round::written`]).
#[derive(Debug)]
pub struct WrittenFolder {
    /// The directory.
    pub dir: PathBuf,
    /// The names of those files, when the change monitor knows them all.
    pub names: Option<Vec<OsString>>,
}

/// One caller's reads of folders and their files. Changes reported before
/// it began are taken into account.
#[derive(Debug)]
pub struct Round<'a> {
    cache: &'a DirCache,
    monitored: bool,
}

impl DirCache {
    /// Begins a round of reads; `monitored: false` reads and stats as if
    /// there were no change monitor.
    pub fn round(&self, monitored: bool) -> Round<'_> {
        if monitored {
            self.monitor.refresh();
        }
        Round {
            cache: self,
            monitored,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FastMap<PathBuf, Listing>> {
        // Every update is a single insert, remove or field store: a panic
        // elsewhere while the lock was held cannot have left it half-changed.
        self.listings.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Round<'_> {
    /// The entries of `dir`; `None` when it cannot be read. A folder found
    /// inside another one read in this round names it as `parent`: when
    /// that one's entries changed, this one may have been replaced.
    pub fn list(&self, dir: &Path, parent: Option<&Listed>) -> Option<Listed> {
        let cache = self.cache;
        let kept = cache
            .lock()
            .get(dir)
            .map(|l| (l.stamp, Arc::clone(&l.items), l.settled, l.listed_under));
        let anchored = parent.is_none_or(|p| p.same_entries);
        if let (true, true, Some((stamp, items, _, Some(under)))) =
            (self.monitored, anchored, &kept)
        {
            if let Some(now) = cache.monitor.ticket(dir) {
                // A top folder is named by a path whose ancestors are not
                // watched: check that it still names the same folder.
                let same_place = parent.is_some() || path_names(dir, stamp.id);
                if under.same_entries(&now) && same_place {
                    return Some(Listed {
                        dir: dir.to_owned(),
                        items: Arc::clone(items),
                        same_entries: true,
                        ticket: Some(now),
                        top: parent.is_none().then_some(stamp.id),
                    });
                }
            }
        }
        // Read it. A folder read before is watched first, so that what is
        // read now can be trusted later.
        let ticket = if self.monitored && kept.is_some() {
            cache.monitor.watch(dir)
        } else {
            None
        };
        let meta = fs::symlink_metadata(dir).ok()?;
        let stamp = Stamp {
            id: platform::entry_id(dir, &meta).ok()?,
            mtime_ns: platform::mtime_ns(&meta),
        };
        let (items, settled) = match kept {
            Some((kept_stamp, items, true, _)) if kept_stamp == stamp => (items, true),
            _ => {
                let read_at = SystemTime::now();
                let items: Arc<[DirItem]> = fs::read_dir(dir)
                    .ok()?
                    .flatten()
                    .map(|entry| {
                        let kind = entry.file_type().ok();
                        DirItem {
                            is_dir: kind.is_some_and(|t| t.is_dir()),
                            is_file: kind.is_some_and(|t| t.is_file()),
                            name: entry.file_name(),
                        }
                    })
                    .collect();
                (items, super::settled::had_settled(stamp.mtime_ns, read_at))
            }
        };
        let mut listings = cache.lock();
        // A listing kept under a later ticket (or under one, when this one
        // has none) stays: it is the one the monitor can vouch for.
        let better_kept = listings
            .get(dir)
            .and_then(|l| l.listed_under)
            .is_some_and(|theirs| ticket.is_none_or(|ours| !ours.not_older_than(&theirs)));
        if !better_kept {
            let files = listings.remove(dir).and_then(|l| l.files);
            listings.insert(
                dir.to_owned(),
                Listing {
                    stamp,
                    items: Arc::clone(&items),
                    settled,
                    listed_under: ticket,
                    files,
                },
            );
        }
        Some(Listed {
            dir: dir.to_owned(),
            items,
            same_entries: false,
            ticket,
            top: parent.is_none().then_some(stamp.id),
        })
    }

    /// What `folders` were found to hold in this round, and that `absent`
    /// could not be read, as the monitor can vouch for later; `None` when
    /// it cannot (an unmonitored round, or a folder without a ticket).
    pub fn vouch<'l>(
        &self,
        folders: impl IntoIterator<Item = &'l Listed>,
        absent: impl IntoIterator<Item = &'l PathBuf>,
    ) -> Option<Vouched> {
        let folders = folders
            .into_iter()
            .map(|l| Some((l.dir.clone(), l.ticket?, l.top)))
            .collect::<Option<_>>()?;
        Some(Vouched {
            folders,
            absent: absent.into_iter().cloned().collect(),
        })
    }

    /// Whether everything `vouched` holds still holds: nothing was reported
    /// in any of its folders since, each top path names the same folder,
    /// and the absent folders are still absent. Reads no folder and stats
    /// no file in them.
    pub fn unchanged(&self, vouched: &Vouched) -> bool {
        self.tickets_now(vouched).is_some_and(|now| {
            now.iter()
                .zip(&vouched.folders)
                .all(|(now, (_, then, _))| now == then)
        })
    }

    /// When the folders of `vouched` still have the entries they had (each
    /// top path naming the same folder, the absent ones still absent): the
    /// folders in which files were written to or touched since, each with
    /// the names of those files when the monitor knows them, and what the
    /// monitor can vouch for now (as long as nothing else is reported
    /// before those files are stat'ed again). Reads no folder.
    pub fn written(&self, vouched: &Vouched) -> Option<(Vec<WrittenFolder>, Vouched)> {
        let now = self.tickets_now(vouched)?;
        let monitor = &self.cache.monitor;
        let written = now
            .iter()
            .zip(&vouched.folders)
            .filter(|(now, (_, then, _))| now != &then)
            .map(|(_, (dir, then, _))| WrittenFolder {
                names: monitor.written_since(dir, then),
                dir: dir.clone(),
            })
            .collect();
        let folders = now
            .into_iter()
            .zip(&vouched.folders)
            .map(|(now, (dir, _, top))| (dir.clone(), now, *top))
            .collect();
        let absent = vouched.absent.clone();
        Some((written, Vouched { folders, absent }))
    }

    /// The tickets of the folders of `vouched` now, when each still has the
    /// entries it had, each top path names the same folder and the absent
    /// folders are still absent.
    fn tickets_now(&self, vouched: &Vouched) -> Option<Vec<Ticket>> {
        let monitor = &self.cache.monitor;
        if !self.monitored {
            return None;
        }
        let now = vouched
            .folders
            .iter()
            .map(|(dir, then, top)| {
                let now = monitor.ticket(dir).filter(|now| then.same_entries(now))?;
                top.is_none_or(|id| path_names(dir, id)).then_some(now)
            })
            .collect::<Option<Vec<Ticket>>>()?;
        vouched
            .absent
            .iter()
            .all(|dir| fs::symlink_metadata(dir).is_err())
            .then_some(now)
    }

    /// The stats of the entries `names` of a folder listed in this round
    /// (a final symlink not followed; `None` for one that cannot be
    /// stat'ed): the kept ones when nothing was reported in the folder since
    /// they were taken, else from disk.
    pub fn stat(&self, listed: &Listed, names: &[&OsStr]) -> Vec<Option<FileStat>> {
        let Some(ticket) = listed.ticket else {
            return platform::stat_each_in(&listed.dir, names);
        };
        let kept = self
            .cache
            .lock()
            .get(&listed.dir)
            .and_then(|l| l.files.clone());
        if let Some((_, stats)) = kept.filter(|(taken, _)| taken.same_contents(&ticket)) {
            let known: Option<Vec<Option<FileStat>>> =
                names.iter().map(|n| stats.get(*n).copied()).collect();
            if let Some(known) = known {
                return known;
            }
        }
        let fresh = platform::stat_each_in(&listed.dir, names);
        let stats: FileStats = Arc::new(
            names
                .iter()
                .map(|n| n.to_os_string())
                .zip(fresh.iter().copied())
                .collect(),
        );
        if let Some(listing) = self.cache.lock().get_mut(&listed.dir) {
            if listing
                .files
                .as_ref()
                .is_none_or(|(theirs, _)| ticket.not_older_than(theirs))
            {
                listing.files = Some((ticket, stats));
            }
        }
        fresh
    }
}

/// Whether the path `dir` (a final symlink not followed) names the folder
/// `id`.
fn path_names(dir: &Path, id: FileId) -> bool {
    fs::symlink_metadata(dir)
        .ok()
        .and_then(|m| platform::entry_id(dir, &m).ok())
        == Some(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn names(items: &[DirItem]) -> Vec<String> {
        let mut names: Vec<String> = items
            .iter()
            .map(|i| i.name.to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// The entries of `dir` read as a round without the change monitor.
    fn unmonitored(cache: &DirCache, dir: &Path) -> Option<Arc<[DirItem]>> {
        cache.round(false).list(dir, None).map(|l| l.items)
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
        let first = unmonitored(&cache, &dir).unwrap();
        assert_eq!(names(&first), ["a", "sub"]);
        assert!(first.iter().any(|i| i.name == "sub" && i.is_dir));
        let again = unmonitored(&cache, &dir).unwrap();
        assert!(
            Arc::ptr_eq(&first, &again),
            "an unchanged folder is not read again"
        );

        fs::write(dir.join("b"), "").unwrap();
        assert_eq!(
            names(&unmonitored(&cache, &dir).unwrap()),
            ["a", "b", "sub"]
        );
        fs::remove_file(dir.join("a")).unwrap();
        assert_eq!(names(&unmonitored(&cache, &dir).unwrap()), ["b", "sub"]);
    }

    #[test]
    fn a_folder_changed_just_now_is_listed_on_every_call() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("a"), "").unwrap();
        let cache = DirCache::default();
        let first = unmonitored(&cache, tmp.path()).unwrap();
        // A second change in the same clock tick may leave the mtime as it
        // was; put it back to be sure, as such a change would.
        let meta = fs::metadata(tmp.path()).unwrap();
        fs::write(tmp.path().join("b"), "").unwrap();
        fs::File::open(tmp.path())
            .unwrap()
            .set_modified(meta.modified().unwrap())
            .unwrap();
        let second = unmonitored(&cache, tmp.path()).unwrap();
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
        assert_eq!(names(&unmonitored(&cache, &dir).unwrap()), ["old"]);
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
        assert_eq!(names(&unmonitored(&cache, &dir).unwrap()), ["new"]);
        assert!(unmonitored(&cache, &tmp.path().join("gone")).is_none());
    }
}

#[cfg(all(test, target_os = "linux"))]
mod monitored_tests {
    use super::*;
    use std::io::Write;
    use std::time::Duration;

    /// What a round saw of one folder: its file names with (size, mtime),
    /// and whether the listing and the stats were the kept ones.
    #[derive(Debug)]
    struct Seen {
        files: Vec<(String, Option<(u64, i128)>)>,
        same_entries: bool,
        kept_stats: bool,
    }

    /// One monitored round as discovery makes it: `top`, then `top/S/sub`
    /// below it, and the stats of the files of both.
    fn round_of(cache: &DirCache, top: &Path) -> (Seen, Option<Seen>) {
        let round = cache.round(true);
        let seen = |listed: &Listed| {
            let names: Vec<&OsStr> = listed
                .items
                .iter()
                .filter(|i| !i.is_dir)
                .map(|i| i.name.as_os_str())
                .collect();
            let kept_stats = cache.lock()[&listed.dir]
                .files
                .as_ref()
                .zip(listed.ticket)
                .is_some_and(|((taken, _), now)| taken.same_contents(&now));
            let stats = round.stat(listed, &names);
            let mut files: Vec<_> = names
                .iter()
                .zip(stats)
                .map(|(n, s)| {
                    (
                        n.to_string_lossy().into_owned(),
                        s.map(|s| (s.len, s.mtime_ns)),
                    )
                })
                .collect();
            files.sort();
            Seen {
                files,
                same_entries: listed.same_entries,
                kept_stats,
            }
        };
        let listed = round.list(top, None).unwrap();
        let inner = round
            .list(&top.join("S").join("sub"), Some(&listed))
            .map(|l| seen(&l));
        (seen(&listed), inner)
    }

    /// The files of `dir` as the disk has them now.
    fn on_disk(dir: &Path) -> Vec<(String, Option<(u64, i128)>)> {
        let mut files: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter(|e| !e.file_type().unwrap().is_dir())
            .map(|e| {
                let m = e.metadata().unwrap();
                let name = e.file_name().to_string_lossy().into_owned();
                (name, Some((m.len(), platform::mtime_ns(&m))))
            })
            .collect();
        files.sort();
        files
    }

    fn append(path: &Path, text: &str) {
        let mut f = fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    fn layout() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().join("project");
        fs::create_dir_all(top.join("S").join("sub")).unwrap();
        append(&top.join("a.jsonl"), "{}\n");
        append(&top.join("S").join("sub").join("agent-1.jsonl"), "{}\n");
        (tmp, top)
    }

    /// Rounds until both folders are trusted again, checking each against
    /// the disk; panics if that takes more than three.
    fn settle(cache: &DirCache, top: &Path) {
        let inner = top.join("S").join("sub");
        for _ in 0..3 {
            let (t, i) = round_of(cache, top);
            assert_eq!(t.files, on_disk(top));
            let i = i.expect("the inner folder exists");
            assert_eq!(i.files, on_disk(&inner));
            if t.same_entries && t.kept_stats && i.same_entries && i.kept_stats {
                return;
            }
        }
        panic!("a quiet watched folder is not trusted after three rounds");
    }

    #[test]
    fn a_quiet_folder_is_trusted_and_every_kind_of_change_is_seen() {
        let (_tmp, top) = layout();
        let inner = top.join("S").join("sub");
        let cache = DirCache::default();
        let (first, _) = round_of(&cache, &top);
        assert!(
            !first.same_entries && !first.kept_stats,
            "a first read is a read"
        );
        settle(&cache, &top);

        type Change = Box<dyn Fn(&Path)>;
        let changes: Vec<(&str, Change)> = vec![
            (
                "append to a top file",
                Box::new(|top| append(&top.join("a.jsonl"), "{\"x\":1}\n")),
            ),
            (
                "append to an inner file",
                Box::new(|top| append(&top.join("S/sub/agent-1.jsonl"), "{\"y\":2}\n")),
            ),
            (
                "touch without growing",
                Box::new(|top| {
                    let f = fs::File::options()
                        .write(true)
                        .open(top.join("S/sub/agent-1.jsonl"))
                        .unwrap();
                    f.set_modified(SystemTime::now() - Duration::from_secs(3600))
                        .unwrap();
                }),
            ),
            (
                "create a file",
                Box::new(|top| append(&top.join("b.jsonl"), "{}\n")),
            ),
            (
                "remove an inner file",
                Box::new(|top| {
                    append(&top.join("S/sub/agent-2.jsonl"), "{}\n");
                    fs::remove_file(top.join("S/sub/agent-1.jsonl")).unwrap();
                }),
            ),
            (
                "replace the inner folder",
                Box::new(|top| {
                    fs::rename(top.join("S/sub"), top.join("S/old-sub")).unwrap();
                    fs::create_dir(top.join("S/sub")).unwrap();
                    append(&top.join("S/sub/agent-3.jsonl"), "{}\n");
                }),
            ),
            (
                "replace the folder above the inner one",
                Box::new(|top| {
                    fs::rename(top.join("S"), top.join("S-old")).unwrap();
                    fs::create_dir_all(top.join("S/sub")).unwrap();
                    append(&top.join("S/sub/agent-4.jsonl"), "{}\n");
                }),
            ),
            (
                "write through a file renamed in",
                Box::new(|top| {
                    append(&top.join("S-old/new.jsonl"), "{\"z\":3}\n{}\n");
                    fs::rename(top.join("S-old/new.jsonl"), top.join("S/sub/agent-4.jsonl"))
                        .unwrap();
                }),
            ),
        ];
        for (what, change) in &changes {
            change(&top);
            let (t, i) = round_of(&cache, &top);
            let i = i.unwrap();
            assert_eq!(t.files, on_disk(&top), "after '{what}', the top folder");
            assert_eq!(i.files, on_disk(&inner), "after '{what}', the inner folder");
            settle(&cache, &top);
        }
    }

    #[test]
    fn a_change_made_after_a_folder_was_read_is_seen_by_the_next_round() {
        let (_tmp, top) = layout();
        let cache = DirCache::default();
        settle(&cache, &top);
        // The write lands between this round's stats and the next round.
        let (t, _) = round_of(&cache, &top);
        assert!(t.kept_stats);
        append(&top.join("a.jsonl"), "{\"late\":true}\n");
        let (t, _) = round_of(&cache, &top);
        assert!(!t.kept_stats);
        assert_eq!(t.files, on_disk(&top));
    }

    #[test]
    fn dropped_events_make_every_folder_read_again() {
        let max: usize = fs::read_to_string("/proc/sys/fs/inotify/max_queued_events")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(16384);
        if max > 1 << 20 {
            return; // Too many to fill here; the kernel default is 16384.
        }
        let (_tmp, top) = layout();
        append(&top.join("c.jsonl"), "{}\n");
        let cache = DirCache::default();
        settle(&cache, &top);
        // Alternate two files of the top folder so that no two events in a
        // row are equal (the kernel merges those) until the queue
        // overflows; then a write in the inner folder, whose event is
        // dropped.
        let open = |name: &str| {
            fs::OpenOptions::new()
                .append(true)
                .open(top.join(name))
                .unwrap()
        };
        let (mut a, mut c) = (open("a.jsonl"), open("c.jsonl"));
        for _ in 0..max / 2 + 64 {
            a.write_all(b" ").unwrap();
            c.write_all(b" ").unwrap();
        }
        append(&top.join("S/sub/agent-1.jsonl"), "{\"last\":1}\n");
        let (t, i) = round_of(&cache, &top);
        let i = i.unwrap();
        assert!(!i.kept_stats && !t.kept_stats);
        assert_eq!(i.files, on_disk(&top.join("S/sub")));
        assert_eq!(t.files, on_disk(&top));
    }

    #[test]
    fn an_unmonitored_round_stats_every_file() {
        let (_tmp, top) = layout();
        let cache = DirCache::default();
        settle(&cache, &top);
        let round = cache.round(false);
        let listed = round.list(&top, None).unwrap();
        assert!(!listed.same_entries && listed.ticket.is_none());
    }
}
