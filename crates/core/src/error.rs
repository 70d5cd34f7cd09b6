//! Stable, machine-readable errors shared by every module.
//!
//! Each error carries an [`ErrorCode`] (the string the JavaScript side sees as
//! `error.code`), a message saying what went wrong and a hint saying what to do
//! about it.

use std::fmt;

/// The stable error codes of the public API (listed in the README, "Errors").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    InvalidArgument,
    RepoNotFound,
    SessionNotFound,
    AmbiguousSession,
    NoSessions,
    AgentNotFound,
    UnknownPreset,
    Parse,
    SessionBusy,
    ConcurrentModification,
    NoBackup,
    WriteFailed,
    UnsupportedStore,
    /// The session's transcript is in a cold archive or has no events.
    TranscriptUnavailable,
    Internal,
}

impl ErrorCode {
    /// Every code, in the documented order.
    pub const ALL: [ErrorCode; 15] = [
        ErrorCode::InvalidArgument,
        ErrorCode::RepoNotFound,
        ErrorCode::SessionNotFound,
        ErrorCode::AmbiguousSession,
        ErrorCode::NoSessions,
        ErrorCode::AgentNotFound,
        ErrorCode::UnknownPreset,
        ErrorCode::Parse,
        ErrorCode::SessionBusy,
        ErrorCode::ConcurrentModification,
        ErrorCode::NoBackup,
        ErrorCode::WriteFailed,
        ErrorCode::UnsupportedStore,
        ErrorCode::TranscriptUnavailable,
        ErrorCode::Internal,
    ];

    /// The string form, e.g. `"E_SESSION_BUSY"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "E_INVALID_ARGUMENT",
            ErrorCode::RepoNotFound => "E_REPO_NOT_FOUND",
            ErrorCode::SessionNotFound => "E_SESSION_NOT_FOUND",
            ErrorCode::AmbiguousSession => "E_AMBIGUOUS_SESSION",
            ErrorCode::NoSessions => "E_NO_SESSIONS",
            ErrorCode::AgentNotFound => "E_AGENT_NOT_FOUND",
            ErrorCode::UnknownPreset => "E_UNKNOWN_PRESET",
            ErrorCode::Parse => "E_PARSE",
            ErrorCode::SessionBusy => "E_SESSION_BUSY",
            ErrorCode::ConcurrentModification => "E_CONCURRENT_MODIFICATION",
            ErrorCode::NoBackup => "E_NO_BACKUP",
            ErrorCode::WriteFailed => "E_WRITE_FAILED",
            ErrorCode::UnsupportedStore => "E_UNSUPPORTED_STORE",
            ErrorCode::TranscriptUnavailable => "E_TRANSCRIPT_UNAVAILABLE",
            ErrorCode::Internal => "E_INTERNAL",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error with a stable code, a message and an optional resolution hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    pub hint: Option<String>,
}

impl Error {
    /// An error without a hint.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            hint: None,
        }
    }

    /// Adds the hint that tells the caller how to resolve the error.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// An `E_WRITE_FAILED` error for an I/O failure on `path`.
    pub fn write_failed(path: &std::path::Path, err: &std::io::Error) -> Self {
        Error::new(
            ErrorCode::WriteFailed,
            format!("could not write {}: {err}", path.display()),
        )
        .with_hint("check that the directory exists, is writable and the disk is not full")
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, " (hint: {hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Result type of the core crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Runs `f`, turning a panic into an `E_INTERNAL` error so that no panic
/// unwinds into a host that embeds this crate (the Node addon).
pub fn catch_panic<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(
            Error::new(ErrorCode::Internal, format!("internal error: {what}")).with_hint(
                "this is a bug in openclaw-session-intel; please report it with this message",
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_internal_errors() {
        let err = catch_panic::<()>(|| panic!("index out of bounds")).unwrap_err();
        assert_eq!(err.code, ErrorCode::Internal);
        assert_eq!(err.message, "internal error: index out of bounds");
        assert!(err.hint.is_some());
        let owned = catch_panic::<()>(|| panic!("{}", String::from("formatted"))).unwrap_err();
        assert_eq!(owned.message, "internal error: formatted");
        assert_eq!(catch_panic(|| Ok(7)).unwrap(), 7);
    }

    #[test]
    fn codes_are_the_documented_strings() {
        let all: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(all.len(), 15);
        assert!(all.iter().all(|c| c.starts_with("E_")));
        assert_eq!(ErrorCode::SessionBusy.to_string(), "E_SESSION_BUSY");
    }
}
