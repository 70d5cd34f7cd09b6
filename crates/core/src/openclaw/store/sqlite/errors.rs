//! SQLite's failures as the addon's coded errors.

use crate::error::{Error, ErrorCode};

/// Maps a SQLite failure to the addon's codes: a lock held past the busy
/// timeout is `E_SESSION_BUSY`; a full disk, read-only file or I/O error is
/// `E_WRITE_FAILED`; a damaged file is `E_PARSE`.
pub(crate) fn sql_error(err: rusqlite::Error) -> Error {
    use rusqlite::ErrorCode as C;
    let code = match &err {
        rusqlite::Error::SqliteFailure(e, _) => Some(e.code),
        _ => None,
    };
    match code {
        Some(C::DatabaseBusy | C::DatabaseLocked) => Error::new(
            ErrorCode::SessionBusy,
            format!("the agent database stayed locked by another writer: {err}"),
        )
        .with_hint("OpenClaw is writing to this agent's database; retry in a moment"),
        Some(
            C::DiskFull | C::ReadOnly | C::SystemIoFailure | C::CannotOpen | C::PermissionDenied,
        ) => Error::new(
            ErrorCode::WriteFailed,
            format!("the agent database could not be written: {err}"),
        )
        .with_hint(
            "check that the database and its directory are writable and the disk is not full",
        ),
        Some(C::DatabaseCorrupt | C::NotADatabase) => Error::new(
            ErrorCode::Parse,
            format!("the agent database is damaged: {err}"),
        )
        .with_hint("run `openclaw doctor` to check and repair it"),
        _ => Error::new(ErrorCode::Internal, format!("SQLite: {err}")).with_hint(
            "this is a bug in openclaw-session-intel or an unexpected database; please report it",
        ),
    }
}
