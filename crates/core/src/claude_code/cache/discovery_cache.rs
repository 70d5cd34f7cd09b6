//! [`DiscoveryCache`]: every cache of discovery, owned by one value that a
//! process shares ([`DiscoveryCache::global`]) and a test makes afresh.

use super::dirs::DirCache;
use super::meta_files::MetaFiles;
use super::result_memo::ResultMemo;
use super::scans::ScanCache;
use crate::repo_identity::Identities;
use std::sync::OnceLock;

/// The caches of discovery, safe to share between threads: the scans of
/// transcripts (with their store on disk, when attached), the listings of
/// the folders they were found in, whole results, and the session metadata
/// files read alongside them.
#[derive(Debug, Default)]
pub struct DiscoveryCache {
    /// Per-file scans, kept between calls and extended incrementally.
    scans: ScanCache,
    /// Listings of the folders the scanned files were found in.
    dirs: DirCache,
    /// Discovery results built from these scans.
    results: ResultMemo,
    /// Session metadata files read alongside the transcripts.
    meta_files: MetaFiles,
    /// Identities of the repositories discovered, and the index of their
    /// folders kept beside the scans on disk.
    identities: Identities,
}

impl DiscoveryCache {
    /// Empty caches.
    pub fn new() -> Self {
        DiscoveryCache::default()
    }

    /// The process-wide caches that the public API uses.
    pub fn global() -> &'static DiscoveryCache {
        static CACHE: OnceLock<DiscoveryCache> = OnceLock::new();
        CACHE.get_or_init(DiscoveryCache::new)
    }

    /// The scans of transcripts.
    pub fn scans(&self) -> &ScanCache {
        &self.scans
    }

    /// The folder listings kept alongside the scans.
    pub fn dirs(&self) -> &DirCache {
        &self.dirs
    }

    /// The discovery results built from these scans.
    pub(crate) fn results(&self) -> &ResultMemo {
        &self.results
    }

    /// The identities of repositories, and the index of their folders.
    pub fn identities(&self) -> &Identities {
        &self.identities
    }

    /// The session metadata files read alongside the transcripts.
    pub(crate) fn meta_files(&self) -> &MetaFiles {
        &self.meta_files
    }
}
