//! Which folders had something created, removed, renamed, written or
//! touched in them since a caller last read them: what lets a repeat
//! discovery skip stat'ing files nothing happened to.
//!
//! On Linux this is inotify. The kernel queues an event inside the system
//! call that changes a folder's entries or a file's bytes or times, so a
//! change that finished before [`ChangeMonitor::refresh`] is counted by it.
//! A caller that wants to trust what it read:
//!
//! 1. calls `refresh` once when it starts;
//! 2. takes a [`Ticket`] for the folder *before* reading it (a ticket holds
//!    the folder's change counts);
//! 3. keeps what it read with that ticket, and later trusts it only while
//!    the folder's ticket (after a new `refresh`) is still equal to it.
//!
//! A change made while it was reading is queued and moves the counts at the
//! next `refresh`, so it is never missed, only read twice. What inotify does
//! not report is not trusted: folders on file systems where another machine
//! may write (NFS, SMB, FUSE, 9p) get no ticket, and neither does anything
//! once the per-process watch budget is spent or the kernel refuses a watch;
//! callers then read as they would without a monitor. Writes through a
//! memory map, or through a hard link in another folder, are not reported
//! either; nothing writes transcripts that way.
//!
//! Elsewhere (macOS, Windows) there is no monitor: file system event APIs
//! there deliver events late, which cannot prove that nothing changed.

use std::ffi::OsString;
use std::path::Path;

/// A folder's change counts when the ticket was taken. Two tickets of a
/// folder are equal exactly when nothing was reported in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket {
    /// Which watch: a folder watched again (after it was replaced) gets a
    /// new one.
    watch: u64,
    /// Events of any kind so far.
    changes: u64,
    /// Events that changed which entries the folder has (or moved or
    /// removed the folder itself) so far.
    entries: u64,
}

impl Ticket {
    /// Whether nothing was reported for the folder between the two tickets.
    pub fn same_contents(&self, later: &Ticket) -> bool {
        self == later
    }

    /// Whether the folder's entries are those it had at `self` (files in
    /// it may have been written).
    pub fn same_entries(&self, later: &Ticket) -> bool {
        self.watch == later.watch && self.entries == later.entries
    }

    /// Whether `self` was taken no earlier than `other`.
    pub fn not_older_than(&self, other: &Ticket) -> bool {
        (self.watch, self.changes) >= (other.watch, other.changes)
    }
}

/// Change counts per watched folder, shared by every thread of the process.
#[derive(Debug)]
pub struct ChangeMonitor {
    #[cfg(target_os = "linux")]
    inotify: std::sync::OnceLock<Option<inotify::Inotify>>,
    /// At most this many folders are watched: watches are a per-user
    /// kernel budget shared with editors and other tools.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    max_watches: usize,
}

impl Default for ChangeMonitor {
    /// A monitor of up to 4,096 folders.
    fn default() -> Self {
        ChangeMonitor::with_max_watches(4096)
    }
}

impl ChangeMonitor {
    /// A monitor that watches at most `max_watches` folders; past them,
    /// folders get no ticket.
    pub fn with_max_watches(max_watches: usize) -> Self {
        ChangeMonitor {
            #[cfg(target_os = "linux")]
            inotify: std::sync::OnceLock::new(),
            max_watches,
        }
    }

    /// Takes in every change reported so far. Tickets compared afterwards
    /// account for all changes finished before this call.
    pub fn refresh(&self) {
        #[cfg(target_os = "linux")]
        if let Some(Some(inotify)) = self.inotify.get() {
            inotify.refresh();
        }
    }

    /// The ticket of a folder already watched (no system call); `None` when
    /// it is not.
    pub fn ticket(&self, dir: &Path) -> Option<Ticket> {
        #[cfg(target_os = "linux")]
        if let Some(Some(inotify)) = self.inotify.get() {
            return inotify.ticket(dir);
        }
        let _ = dir;
        None
    }

    /// The names of the entries of the watched folder `dir` that were
    /// written to or touched (their bytes or attributes changed) since
    /// `since` was taken, when the monitor still knows them all: `None`
    /// when it does not (the folder is no longer watched the same way, or
    /// more files changed than it remembers per folder). Reports nothing
    /// about entries added, removed or renamed: compare tickets for those.
    pub fn written_since(&self, dir: &Path, since: &Ticket) -> Option<Vec<OsString>> {
        #[cfg(target_os = "linux")]
        if let Some(Some(inotify)) = self.inotify.get() {
            return inotify.written_since(dir, since);
        }
        let _ = (dir, since);
        None
    }

    /// Watches `dir` as the path names it now (again, if it was replaced)
    /// and returns its ticket; `None` when it cannot be watched.
    pub fn watch(&self, dir: &Path) -> Option<Ticket> {
        #[cfg(target_os = "linux")]
        if let Some(inotify) = self.inotify.get_or_init(inotify::Inotify::open) {
            return inotify.watch(dir, self.max_watches);
        }
        let _ = dir;
        None
    }

    /// Stops watching `dirs`, giving their watches back to the budget. A
    /// folder watched again later gets a new watch, so tickets taken before
    /// never equal its tickets after.
    pub fn unwatch<'a>(&self, dirs: impl IntoIterator<Item = &'a Path>) {
        #[cfg(target_os = "linux")]
        if let Some(Some(inotify)) = self.inotify.get() {
            inotify.unwatch(dirs);
            return;
        }
        let _ = dirs;
    }
}

#[cfg(target_os = "linux")]
mod inotify {
    use super::Ticket;
    use crate::fast_map::{FastMap, FastSet};
    use std::collections::VecDeque;
    use std::ffi::{CString, OsStr, OsString};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};
    use std::sync::{Mutex, MutexGuard};

    const ENTRIES: u32 =
        libc::IN_CREATE | libc::IN_DELETE | libc::IN_MOVED_FROM | libc::IN_MOVED_TO;
    const SELF: u32 =
        libc::IN_DELETE_SELF | libc::IN_MOVE_SELF | libc::IN_IGNORED | libc::IN_UNMOUNT;
    const CONTENTS: u32 = libc::IN_MODIFY | libc::IN_ATTRIB;

    /// File systems on which only the local machine writes, so that inotify sees
    /// every change: ext2/3/4, XFS, Btrfs, tmpfs, overlayfs, F2FS, ZFS,
    /// bcachefs.
    const LOCAL_FILE_SYSTEMS: [u32; 8] = [
        0xEF53,
        0x5846_5342,
        0x9123_683E,
        0x0102_1994,
        0x794C_7630,
        0xF2F5_2010,
        0x2FC1_2FC1,
        0xCA45_1A4E,
    ];

    /// Names of written files remembered per folder: a folder whose files
    /// change faster than a caller looks is stat'ed whole.
    pub(super) const NAMES_KEPT: usize = 32;

    #[derive(Debug)]
    struct Counts {
        watch: u64,
        changes: u64,
        entries: u64,
        /// The entries written to or touched, each with the count of
        /// the last change to it, oldest first.
        written: VecDeque<(u64, OsString)>,
        /// Every change counted from this one on is in `written`, or
        /// changed entries or touched the folder itself.
        written_known_from: u64,
    }

    impl Counts {
        fn new(watch: u64) -> Self {
            Counts {
                watch,
                changes: 0,
                entries: 0,
                written: VecDeque::new(),
                written_known_from: 1,
            }
        }

        /// Notes that the entry `name` was written to or touched, as the
        /// latest change.
        fn note_written(&mut self, name: &[u8]) {
            let name = OsStr::from_bytes(name);
            // A name written again moves to the back, its text kept.
            let kept = self
                .written
                .iter()
                .position(|(_, n)| n == name)
                .and_then(|at| self.written.remove(at));
            let name = kept.map_or_else(|| name.to_owned(), |(_, n)| n);
            self.written.push_back((self.changes, name));
            if self.written.len() > NAMES_KEPT {
                if let Some((last, _)) = self.written.pop_front() {
                    self.written_known_from = last + 1;
                }
            }
        }
    }

    #[derive(Debug, Default)]
    struct Watches {
        by_wd: FastMap<i32, Counts>,
        by_path: FastMap<PathBuf, i32>,
        serial: u64,
    }

    impl Watches {
        fn ticket(&self, wd: i32) -> Option<Ticket> {
            self.by_wd.get(&wd).map(|c| Ticket {
                watch: c.watch,
                changes: c.changes,
                entries: c.entries,
            })
        }

        fn forget(&mut self, wd: i32) {
            self.by_wd.remove(&wd);
            self.by_path.retain(|_, w| *w != wd);
        }
    }

    #[derive(Debug)]
    pub(super) struct Inotify {
        fd: OwnedFd,
        watches: Mutex<Watches>,
    }

    impl Inotify {
        pub(super) fn open() -> Option<Inotify> {
            // SAFETY: plain system call; a non-negative result is a new
            // descriptor that only this value owns.
            let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
            (fd >= 0).then(|| Inotify {
                fd: unsafe { OwnedFd::from_raw_fd(fd) },
                watches: Mutex::default(),
            })
        }

        fn lock(&self) -> MutexGuard<'_, Watches> {
            // Every update leaves the maps consistent before the next one.
            self.watches.lock().unwrap_or_else(|e| e.into_inner())
        }

        pub(super) fn refresh(&self) {
            let mut watches = self.lock();
            let mut buf = EventBuffer([0; 16 << 10]);
            loop {
                // SAFETY: the buffer is writable for its whole length.
                let n = unsafe {
                    libc::read(self.fd.as_raw_fd(), buf.0.as_mut_ptr().cast(), buf.0.len())
                };
                if n <= 0 {
                    // EAGAIN: the queue is empty (any other error leaves
                    // the counts as they are; watches then only miss by
                    // being stale, which `watch` handles by re-adding).
                    break;
                }
                let bytes = &buf.0[..n as usize];
                let mut at = 0;
                while at + HEADER <= bytes.len() {
                    // SAFETY: the kernel wrote a whole event header here;
                    // `read_unaligned` needs no alignment.
                    let event: libc::inotify_event =
                        unsafe { std::ptr::read_unaligned(bytes[at..].as_ptr().cast()) };
                    let name = bytes
                        .get(at + HEADER..at + HEADER + event.len as usize)
                        .unwrap_or_default();
                    at += HEADER + event.len as usize;
                    if let Some(moved) = record(&mut watches, &event, name) {
                        // Moved away, so still watched by the kernel: its
                        // events are no longer ours.
                        // SAFETY: removing a watch of our own descriptor.
                        unsafe { libc::inotify_rm_watch(self.fd.as_raw_fd(), moved) };
                    }
                }
            }
        }

        pub(super) fn unwatch<'a>(&self, dirs: impl IntoIterator<Item = &'a Path>) {
            let mut watches = self.lock();
            let mut gone: FastSet<i32> = dirs
                .into_iter()
                .filter_map(|dir| watches.by_path.remove(dir))
                .collect();
            gone.retain(|wd| watches.by_wd.remove(wd).is_some());
            if gone.is_empty() {
                return; // the usual case after a status: the same folders
            }
            // Another path may name the same folder (through a symbolic
            // link above it): it goes too.
            watches.by_path.retain(|_, wd| !gone.contains(wd));
            for wd in gone {
                // SAFETY: removing a watch of our own descriptor. Its
                // IN_IGNORED event then names no known watch.
                unsafe { libc::inotify_rm_watch(self.fd.as_raw_fd(), wd) };
            }
        }

        pub(super) fn ticket(&self, dir: &Path) -> Option<Ticket> {
            let watches = self.lock();
            watches.ticket(*watches.by_path.get(dir)?)
        }

        pub(super) fn written_since(&self, dir: &Path, since: &Ticket) -> Option<Vec<OsString>> {
            let watches = self.lock();
            let counts = watches.by_wd.get(watches.by_path.get(dir)?)?;
            let known =
                counts.watch == since.watch && counts.written_known_from <= since.changes + 1;
            known.then(|| {
                counts
                    .written
                    .iter()
                    .filter(|(at, _)| *at > since.changes)
                    .map(|(_, name)| name.clone())
                    .collect()
            })
        }

        pub(super) fn watch(&self, dir: &Path, max_watches: usize) -> Option<Ticket> {
            let path = CString::new(dir.as_os_str().as_bytes()).ok()?;
            // SAFETY: `st` is plain data the call fills in; the path is
            // NUL-terminated.
            let mut st: libc::statfs = unsafe { std::mem::zeroed() };
            if unsafe { libc::statfs(path.as_ptr(), &mut st) } != 0
                || !LOCAL_FILE_SYSTEMS.contains(&(st.f_type as u32))
            {
                return None;
            }
            let mut watches = self.lock();
            let known = watches.by_path.get(dir).copied();
            if known.is_none() && watches.by_wd.len() >= max_watches {
                return None;
            }
            let mask = ENTRIES | SELF | CONTENTS | libc::IN_ONLYDIR | libc::IN_DONT_FOLLOW;
            // SAFETY: the descriptor is open and the path NUL-terminated.
            let wd = unsafe { libc::inotify_add_watch(self.fd.as_raw_fd(), path.as_ptr(), mask) };
            if wd < 0 {
                return None;
            }
            if let Some(old) = known.filter(|&old| old != wd) {
                // The path names another folder now; the old one is not
                // ours to watch any more.
                watches.forget(old);
                // SAFETY: removing a watch of our own descriptor.
                unsafe { libc::inotify_rm_watch(self.fd.as_raw_fd(), old) };
            }
            if !watches.by_wd.contains_key(&wd) {
                watches.serial += 1;
                let watch = watches.serial;
                watches.by_wd.insert(wd, Counts::new(watch));
            }
            watches.by_path.insert(dir.to_owned(), wd);
            watches.ticket(wd)
        }
    }

    const HEADER: usize = std::mem::size_of::<libc::inotify_event>();

    /// Where events are read to, aligned like their headers.
    #[repr(C, align(8))]
    struct EventBuffer([u8; 16 << 10]);

    /// Counts one event (`name`: the entry it names, NUL-padded, empty for
    /// the folder itself); the watch to remove when its folder moved away.
    fn record(watches: &mut Watches, event: &libc::inotify_event, name: &[u8]) -> Option<i32> {
        if event.mask & libc::IN_Q_OVERFLOW != 0 {
            // Events were dropped: nothing can be trusted.
            for counts in watches.by_wd.values_mut() {
                counts.changes += 1;
                counts.entries += 1;
                counts.written_known_from = counts.changes + 1;
            }
            return None;
        }
        let counts = watches.by_wd.get_mut(&event.wd)?;
        counts.changes += 1;
        if event.mask & (ENTRIES | SELF) != 0 {
            counts.entries += 1;
        }
        let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
        if event.mask & CONTENTS != 0 && !name.is_empty() {
            counts.note_written(name);
        }
        if event.mask & SELF == 0 {
            return None;
        }
        // The folder was removed or moved away: the path no longer names
        // it. A later `watch` of the path starts afresh.
        watches.forget(event.wd);
        (event.mask & libc::IN_MOVE_SELF != 0).then_some(event.wd)
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::fs::{self, OpenOptions};
    use std::io::Write;
    use std::time::{Duration, SystemTime};

    fn append(path: &Path) {
        let mut file = OpenOptions::new().append(true).open(path).unwrap();
        file.write_all(b"more\n").unwrap();
    }

    fn written(monitor: &ChangeMonitor, dir: &Path, since: &Ticket) -> Option<Vec<String>> {
        monitor.refresh();
        let mut names: Vec<String> = monitor
            .written_since(dir, since)?
            .into_iter()
            .map(|n| n.into_string().unwrap())
            .collect();
        names.sort();
        Some(names)
    }

    #[test]
    fn the_names_of_written_files_are_known_until_more_changed_than_are_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let names: Vec<String> = (0..=inotify::NAMES_KEPT)
            .map(|i| format!("{i:02}.jsonl"))
            .collect();
        for name in &names {
            fs::write(dir.join(name), "first\n").unwrap();
        }
        let monitor = ChangeMonitor::default();
        let Some(since) = monitor.watch(dir) else {
            eprintln!("skipped: the temporary folder's file system is not watched");
            return;
        };
        assert_eq!(written(&monitor, dir, &since), Some(vec![]));

        // A file written to, another touched; the same file written many
        // times is one name.
        append(&dir.join(&names[0]));
        let touched = fs::File::options().write(true).open(dir.join(&names[1]));
        let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
        touched.unwrap().set_modified(an_hour_ago).unwrap();
        for _ in 0..100 {
            append(&dir.join(&names[2]));
        }
        let expected = names[..3].to_vec();
        assert_eq!(written(&monitor, dir, &since), Some(expected.clone()));
        let later = monitor.ticket(dir).unwrap();
        assert_eq!(written(&monitor, dir, &later), Some(vec![]));

        // More files written than are kept: which is no longer known from
        // `since`, but still from a ticket taken after the ones forgotten.
        for name in &names {
            append(&dir.join(name));
        }
        assert_eq!(written(&monitor, dir, &since), None);
        assert_eq!(written(&monitor, dir, &later), None);
        let last = monitor.ticket(dir).unwrap();
        append(&dir.join(&names[5]));
        assert_eq!(written(&monitor, dir, &last), Some(vec![names[5].clone()]));

        // A folder not watched tells nothing.
        let other = tempfile::tempdir().unwrap();
        assert_eq!(written(&monitor, other.path(), &since), None);
    }
}
