//! Which repository a folder holds, in terms that hold on every machine
//! (`repositoryIdentity`, `sameRepository`, `normalizeRemoteUrl`): the
//! normalized URL of its remote, else the hash of its root commit. The
//! path is only ever a hint: one repository sits at different paths on
//! different machines, and at a new path after a move or rename.
//!
//! Identities are read from git's own files through libgit2 (the config
//! of a linked worktree or submodule included); the root commit costs one
//! `git rev-list` per repository, then comes from the [`Identities`] cache
//! and its file in discovery's persistent cache folder, which doubles as
//! the index of every repository folder seen (see docs/api/identity.md).

pub mod identities;
pub mod identity;
pub mod remote_url;
mod root_commit;

pub use identities::Identities;
pub use identity::{same_repository, RepositoryIdentity};
pub use remote_url::normalize_remote_url;
