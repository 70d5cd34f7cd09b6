//! Claude Code's sessions of a repository: where Claude Code keeps them
//! ([`layout`]), what a transcript says ([`fold`]), the caches that make a
//! repeat discovery cheap ([`cache`]), OpenClaw's own records of the
//! sessions it spawned ([`records`]), which sessions run now
//! ([`liveness`]), and discovery itself ([`discovery`], the public session
//! model in [`session`]).

pub mod cache;
pub mod discovery;
pub mod fold;
pub mod host_page;
pub mod layout;
pub mod liveness;
pub mod local_repos;
pub mod records;
pub mod session;

pub use cache::{DiscoveryCache, PersistentCache, ScanCache};
pub use discovery::{discover_sessions, discover_sessions_as, parse_jsonl_header};
pub use layout::session_files::find_transcript;
pub use liveness::{running_sessions, LiveSession};
pub use session::{DiscoverOptions, DiscoveredSession, JsonlHeader, SessionSource, TokenTotals};
