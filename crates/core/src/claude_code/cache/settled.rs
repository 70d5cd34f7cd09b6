//! When a file's stat data alone may vouch, later, that it is still as it
//! was: like git's "racily clean" index entries, only what had settled
//! when it was read is trusted on its timestamps.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a file or folder must have gone unchanged before its stat data
/// alone is trusted to tell, later, that it is still as it was. Timestamps
/// are coarse (a clock tick, or seconds on some file systems), so a change
/// within the tick of the one before can leave them as they were.
pub const SETTLED: Duration = Duration::from_secs(2);

/// Whether a change stamped `changed_ns` (nanoseconds since the epoch; 0
/// for unknown) lies [`SETTLED`] or more before `observed`, a time taken
/// before what the stamp vouches for was read.
pub fn had_settled(changed_ns: i128, observed: SystemTime) -> bool {
    let settled_ns = observed
        .checked_sub(SETTLED)
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128);
    changed_ns > 0 && changed_ns < settled_ns
}
