//! The last results of discovery, reused while what they were built from is
//! unchanged.
//!
//! A repeat call with nothing changed finds the same registry rows, folders
//! and scans as the call before it, and would build the same sessions from
//! them again (titles, merged usage, times, the final sort), and its caller
//! would convert them again. For a repository with thousands of sessions
//! that is most of a repeat call. The memo keeps the last results, as their
//! callers made them (see [`discover_sessions_as`](crate::claude_code::discovery::discover_sessions_as)),
//! each with everything it was built from (its [`Walk`]: the folders as
//! listed and the scans of their files, held here so that the addresses of
//! their facts cannot be reused by newer ones), and hands back the one whose
//! inputs are equal and whose scans are the very same.
//!
//! A result the change monitor can vouch for ([`Vouched`]) is handed back
//! before anything is read at all, while nothing was reported in any of
//! the folders it came from. When files were only written to in some of
//! them (a line appended, the common case), its walk is handed out instead,
//! with those folders, so that only their files are stat'ed again
//! ([`ResultMemo::take_written`]).

use super::dirs::{DirItem, Round, Vouched, WrittenFolder};
use super::walk::Walk;
use crate::claude_code::fold::context_window::ContextWindows;
use crate::claude_code::layout::paths::ProjectDir;
use crate::claude_code::records::registry::RegistryRow;
use crate::repo_path::RepoPath;
use std::any::Any;
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Results kept: one per repository (and running sessions, and form) a
/// host asks about in turn.
const KEPT: usize = 8;

/// What a discovery's sessions are built from, besides the scans of its
/// files.
#[derive(Debug, PartialEq)]
pub struct Inputs {
    /// The repository, resolved.
    pub repo: RepoPath,
    /// Its registry rows, in registry order.
    pub registry_rows: Vec<RegistryRow>,
    /// Rows of the plugin's spawns whose session id was never learned, by
    /// the nonce the session's first prompt carries.
    pub spawned_by_nonce: Vec<(String, RegistryRow)>,
    /// Its project folders.
    pub dirs: Vec<ProjectDir>,
    /// The directories its sessions may have been started in, each with
    /// the folders below it (see [`launch_dirs`](crate::claude_code::layout::paths::launch_dirs)).
    pub launch_dirs: Vec<PathBuf>,
    /// Transcripts of registry sessions found outside those folders.
    pub elsewhere: HashMap<String, PathBuf>,
    /// What the host said is running: these sessions...
    pub running_session_ids: Vec<String>,
    /// ...and those a Claude Code process is running now by its liveness
    /// record (sorted): a process that starts or ends changes no project
    /// folder, so it must change the inputs.
    pub live_session_ids: Vec<String>,
    /// ...or, when it is running Claude Code in the repository, every
    /// registry session of it.
    pub repo_busy: bool,
    /// The caller's context windows of models.
    pub context_windows: ContextWindows,
    /// Claude Desktop's folder of session metadata, when there is one.
    pub desktop_dir: Option<PathBuf>,
}

struct Memo {
    inputs: Inputs,
    walk: Walk,
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

/// A kept result whose folders were only written to since it was made,
/// taken out of the memo to be brought up to date (and put back).
pub struct Written<T> {
    /// What it was built from.
    pub walk: Walk,
    /// The folders in which files were written to or touched since.
    pub folders: Vec<WrittenFolder>,
    /// What the monitor can vouch for now, if nothing else is reported
    /// before the folders' files are stat'ed.
    pub vouched: Vouched,
    /// What was made of it.
    pub made: Arc<T>,
}

/// The project folders found for some launch directories in one listing of
/// `projects/`.
struct FoundFolders {
    /// The listing, held so that its address cannot be reused.
    listing: Arc<[DirItem]>,
    launch_dirs: Vec<PathBuf>,
    dirs: Vec<ProjectDir>,
}

/// Recent discovery results, safe to share between threads.
#[derive(Default)]
pub struct ResultMemo {
    /// Most recently used first.
    kept: Mutex<VecDeque<Memo>>,
    /// Most recently used first.
    folders: Mutex<VecDeque<FoundFolders>>,
}

impl ResultMemo {
    /// What was made before, in the form `T`, of the sessions built from
    /// `inputs` and the same scans as `walk`'s, if it is still kept.
    /// `vouched` is what the monitor can say of the folders now: it
    /// replaces what it said before.
    pub fn get<T: Send + Sync + 'static>(
        &self,
        inputs: &Inputs,
        walk: &Walk,
        vouched: Option<Arc<Vouched>>,
    ) -> Option<Arc<T>> {
        let mut kept = self.lock();
        let at = kept.iter().position(|m| m.is::<T>(inputs))?;
        let mut memo = kept.remove(at)?;
        if !memo.walk.same_scans(walk) {
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

    /// The result made in the form `T` from `inputs`, taken out with its
    /// walk, when `round` finds that every folder it came from still has
    /// the entries it had (each top path naming the same folder, the absent
    /// ones still absent) and only files were written to in some of them:
    /// those are [`Written::folders`]. `None` when nothing happened (see
    /// [`ResultMemo::unchanged`]) or more than that did, or when the
    /// monitor could not vouch for the result.
    pub fn take_written<T: Send + Sync + 'static>(
        &self,
        inputs: &Inputs,
        round: &Round,
    ) -> Option<Written<T>> {
        let mut kept = self.lock();
        let at = kept.iter().position(|m| m.is::<T>(inputs))?;
        let (folders, vouched) = round.written(kept[at].vouched.as_deref()?)?;
        if folders.is_empty() {
            return None;
        }
        let memo = kept.remove(at)?;
        Some(Written {
            walk: memo.walk,
            folders,
            vouched,
            made: memo.made.downcast::<T>().ok()?,
        })
    }

    /// Keeps `made` as made of the sessions built from `inputs` and `walk`
    /// (from folders the monitor found as `vouched`), in place of anything
    /// of its form built from the same inputs before.
    pub fn put<T: Send + Sync + 'static>(
        &self,
        inputs: Inputs,
        walk: Walk,
        vouched: Option<Arc<Vouched>>,
        made: Arc<T>,
    ) {
        let mut kept = self.lock();
        kept.retain(|m| !m.is::<T>(&inputs));
        kept.push_front(Memo {
            inputs,
            walk,
            vouched,
            made,
        });
        kept.truncate(KEPT);
    }

    /// The project folders `find` finds for `launch_dirs` in the listing
    /// `listing` of `projects/`: found again only when the listing is not
    /// the very one (kept while nothing was created, removed or renamed in
    /// `projects/`) they were last found in. `projects/` may hold thousands
    /// of folders; a repeat call compares none of their names.
    pub fn folders(
        &self,
        listing: &Arc<[DirItem]>,
        launch_dirs: &[PathBuf],
        find: impl FnOnce() -> Vec<ProjectDir>,
    ) -> Vec<ProjectDir> {
        let mut kept = self.folders.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = kept
            .iter()
            .position(|f| Arc::ptr_eq(&f.listing, listing) && f.launch_dirs == launch_dirs)
        {
            if let Some(found) = kept.remove(at) {
                let dirs = found.dirs.clone();
                kept.push_front(found);
                return dirs;
            }
        }
        let dirs = find();
        kept.push_front(FoundFolders {
            listing: Arc::clone(listing),
            launch_dirs: launch_dirs.to_vec(),
            dirs: dirs.clone(),
        });
        kept.truncate(KEPT);
        dirs
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
