//! Times as the files and the API write them.

use chrono::{DateTime, SecondsFormat, Utc};

/// `t` as ISO-8601 in UTC with milliseconds, e.g. `2026-02-20T10:00:00.000Z`
/// (JavaScript's `Date.prototype.toISOString`).
pub fn iso_millis(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The current time as [`iso_millis`] writes it.
pub fn now_iso() -> String {
    iso_millis(Utc::now())
}
