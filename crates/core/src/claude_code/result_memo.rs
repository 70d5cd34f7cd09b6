//! The last results of discovery, reused while what they were built from is
//! unchanged.
//!
//! A repeat call with nothing changed finds the same registry rows, folders
//! and scans as the call before it, and would build the same sessions from
//! them again (titles, merged usage, times, the final sort), and its caller
//! would convert them again. For a repository with thousands of sessions
//! that is most of a repeat call. The memo keeps the last results, as their
//! callers made them (see [`discover_sessions_as`](super::discovery::discover_sessions_as)),
//! each with everything it was built from, and hands back the one whose
//! inputs are equal and whose scans are the very same (their facts are
//! shared `Arc`s, held here so that their addresses cannot be reused by
//! newer ones).
//!
//! A result the change monitor can vouch for ([`Vouched`]) is handed back
//! before anything is read at all, while nothing was reported in any of
//! the folders it came from.

use super::dir_cache::{Round, Vouched};
use super::paths::ProjectDir;
use super::registry::RegistryRow;
use super::scan_cache::FileScan;
use crate::FastMap;
use std::any::Any;
use std::collections::{HashMap, VecDeque};
use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use xxhash_rust::xxh3::xxh3_64;

/// Results kept: one per repository (and running sessions, and form) a
/// host asks about in turn.
const KEPT: usize = 8;

/// What a discovery's sessions are built from, besides the scans of its
/// files.
#[derive(Debug, PartialEq)]
pub struct Inputs {
    /// The repository, resolved.
    pub repo: PathBuf,
    /// Its registry rows, in registry order.
    pub registry_rows: Vec<RegistryRow>,
    /// Its project folders.
    pub dirs: Vec<ProjectDir>,
    /// Transcripts of registry sessions found outside those folders.
    pub elsewhere: HashMap<String, PathBuf>,
    /// What the host said is running: these sessions...
    pub running_session_ids: Vec<String>,
    /// ...or, when it is running Claude Code in the repository, every
    /// registry session of it.
    pub repo_busy: bool,
}

/// The scans a result was built from, by a hash of their paths: a hash
/// that two paths share can only cost a miss, since a scan is the same only
/// with the very same facts, which belong to one path's entry.
pub struct KeptScans(FastMap<u64, FileScan>);

impl KeptScans {
    /// Keeps `scans`.
    pub fn of(scans: FastMap<&OsStr, FileScan>) -> Self {
        KeptScans(
            scans
                .into_iter()
                .map(|(path, scan)| (key(path), scan))
                .collect(),
        )
    }

    /// Whether `scans` are the very ones kept.
    fn same(&self, scans: &FastMap<&OsStr, FileScan>) -> bool {
        self.0.len() == scans.len()
            && scans.iter().all(|(path, scan)| {
                self.0
                    .get(&key(path))
                    .is_some_and(|kept| kept.same_as(scan))
            })
    }
}

fn key(path: &OsStr) -> u64 {
    xxh3_64(path.as_encoded_bytes())
}

struct Memo {
    inputs: Inputs,
    scans: KeptScans,
    /// The folders it came from, as the monitor found them.
    vouched: Option<Arc<Vouched>>,
    /// What the caller made of the sessions.
    made: Arc<dyn Any + Send + Sync>,
}

impl Memo {
    /// Whether this is the form `T` made from `inputs`.
    fn is<T: 'static>(&self, inputs: &Inputs) -> bool {
        self.made.is::<T>() && self.inputs == *inputs
    }
}

/// Recent discovery results, safe to share between threads.
#[derive(Default)]
pub struct ResultMemo {
    /// Most recently used first.
    kept: Mutex<VecDeque<Memo>>,
}

impl ResultMemo {
    /// What was made before, in the form `T`, of the sessions built from
    /// `inputs` and the same `scans`, if it is still kept.
    /// `vouched` is what the monitor can say of the folders now: it
    /// replaces what it said before.
    pub fn get<T: Send + Sync + 'static>(
        &self,
        inputs: &Inputs,
        scans: &FastMap<&OsStr, FileScan>,
        vouched: Option<Arc<Vouched>>,
    ) -> Option<Arc<T>> {
        let mut kept = self.lock();
        let at = kept.iter().position(|m| m.is::<T>(inputs))?;
        let mut memo = kept.remove(at)?;
        if !memo.scans.same(scans) {
            return None;
        }
        if vouched.is_some() {
            memo.vouched = vouched;
        }
        let made = Arc::clone(&memo.made).downcast::<T>().ok();
        kept.push_front(memo);
        made
    }

    /// What was made before, in the form `T`, of the sessions built from
    /// `inputs`, when `round` finds that nothing happened since in any of
    /// the folders they came from.
    pub fn unchanged<T: Send + Sync + 'static>(
        &self,
        inputs: &Inputs,
        round: &Round,
    ) -> Option<Arc<T>> {
        let (vouched, made) = {
            let kept = self.lock();
            let memo = kept.iter().find(|m| m.is::<T>(inputs))?;
            (Arc::clone(memo.vouched.as_ref()?), Arc::clone(&memo.made))
        };
        // Checked outside the lock: it takes a system call per top and
        // absent folder. `made` stands for the state vouched for whether
        // or not it is still kept.
        round
            .unchanged(&vouched)
            .then(|| made.downcast::<T>().ok())
            .flatten()
    }

    /// Keeps `made` as made of the sessions built from `inputs` and
    /// `scans` (from folders the monitor found as `vouched`), in place of
    /// anything of its form built from the same inputs before.
    pub fn put<T: Send + Sync + 'static>(
        &self,
        inputs: Inputs,
        scans: KeptScans,
        vouched: Option<Arc<Vouched>>,
        made: Arc<T>,
    ) {
        let mut kept = self.lock();
        kept.retain(|m| !m.is::<T>(&inputs));
        kept.push_front(Memo {
            inputs,
            scans,
            vouched,
            made,
        });
        kept.truncate(KEPT);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Memo>> {
        // Every update is a whole insert or removal: a panic elsewhere
        // while the lock was held cannot have left it half-changed.
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl std::fmt::Debug for ResultMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResultMemo")
            .field("kept", &self.lock().len())
            .finish()
    }
}
