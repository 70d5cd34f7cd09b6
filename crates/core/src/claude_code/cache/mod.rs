//! The caches of discovery, behind one type ([`DiscoveryCache`]): per-file
//! scans and their store on disk, folder listings, whole results, session
//! metadata files. Each trusts something narrow (docs/architecture.md, "The
//! six caches of discovery").

pub mod dirs;
pub mod discovery_cache;
pub mod meta_files;
pub(crate) mod result_memo;
pub mod scan_store;
pub mod scans;
pub mod settled;
pub mod walk;

pub use discovery_cache::DiscoveryCache;
pub use scan_store::PersistentCache;
pub use scans::{FileScan, ScanCache};
