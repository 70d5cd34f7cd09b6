//! Core errors as JavaScript `Error`s with a stable `code` and a `hint`,
//! and panics kept on the Rust side of the boundary.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core as core;

/// The stable `code` of every error this addon throws or rejects with
/// (`error.code`; `error.hint` says what to do about it). At run time
/// `ErrorCode` is an object from each variant name to its code, e.g.
/// `ErrorCode.SessionBusy === 'E_SESSION_BUSY'`.
///
/// - `E_INVALID_ARGUMENT`: an argument is missing, malformed or out of range.
/// - `E_REPO_NOT_FOUND`: the repository path does not exist.
/// - `E_SESSION_NOT_FOUND`: no session or transcript has that id or prefix.
/// - `E_AMBIGUOUS_SESSION`: a prefix matches more than one session.
/// - `E_NO_SESSIONS`: the agent has no transcripts at all.
/// - `E_AGENT_NOT_FOUND`: the agent is unknown: the hook registry does not
///   list it, or the state dir holds no sessions of it.
/// - `E_UNKNOWN_PRESET`: no preset has that name.
/// - `E_PARSE`: a transcript or backup is not in the format it should be.
/// - `E_SESSION_BUSY`: another process holds the file's lock (a transcript,
///   a registry, a pin file) or OpenClaw is mid-turn; try again later.
/// - `E_CONCURRENT_MODIFICATION`: the transcript changed under the edit in
///   a way that cannot be carried over; nothing was written.
/// - `E_NO_BACKUP`: there is no backup to restore.
/// - `E_WRITE_FAILED`: a file could not be written; nothing was changed.
/// - `E_UNSUPPORTED_STORE`: the transcript store cannot be used: a schema
///   this version does not know, a database that does not open, or one this
///   process already has open through another SQLite.
/// - `E_TRANSCRIPT_UNAVAILABLE`: the transcript is in a cold archive or empty.
/// - `E_INTERNAL`: a bug (a panic caught at the boundary); please report it.
#[napi(string_enum)]
pub enum ErrorCode {
    /// An argument is missing, malformed or out of range.
    #[napi(value = "E_INVALID_ARGUMENT")]
    InvalidArgument,
    /// The repository path does not exist.
    #[napi(value = "E_REPO_NOT_FOUND")]
    RepoNotFound,
    /// No session or transcript has that id or prefix.
    #[napi(value = "E_SESSION_NOT_FOUND")]
    SessionNotFound,
    /// A prefix matches more than one session.
    #[napi(value = "E_AMBIGUOUS_SESSION")]
    AmbiguousSession,
    /// The agent has no transcripts at all.
    #[napi(value = "E_NO_SESSIONS")]
    NoSessions,
    /// The agent is unknown: the hook registry does not list it, or the
    /// state dir holds no sessions of it.
    #[napi(value = "E_AGENT_NOT_FOUND")]
    AgentNotFound,
    /// No preset has that name.
    #[napi(value = "E_UNKNOWN_PRESET")]
    UnknownPreset,
    /// A transcript or backup is not in the format it should be.
    #[napi(value = "E_PARSE")]
    Parse,
    /// Another process holds the file's lock (a transcript, a registry, a
    /// pin file) or OpenClaw is mid-turn; try again later.
    #[napi(value = "E_SESSION_BUSY")]
    SessionBusy,
    /// The transcript changed under the edit in a way that cannot be carried
    /// over; nothing was written.
    #[napi(value = "E_CONCURRENT_MODIFICATION")]
    ConcurrentModification,
    /// There is no backup to restore.
    #[napi(value = "E_NO_BACKUP")]
    NoBackup,
    /// A file could not be written; nothing was changed.
    #[napi(value = "E_WRITE_FAILED")]
    WriteFailed,
    /// The transcript store cannot be used: a schema this version does not
    /// know, a database that does not open, or one this process already has
    /// open through another SQLite.
    #[napi(value = "E_UNSUPPORTED_STORE")]
    UnsupportedStore,
    /// The transcript is in a cold archive or has no events.
    #[napi(value = "E_TRANSCRIPT_UNAVAILABLE")]
    TranscriptUnavailable,
    /// A bug (a panic caught at the boundary); please report it.
    #[napi(value = "E_INTERNAL")]
    Internal,
}

/// Builds the JS `Error` for a core error: `message`, `code`, and `hint`
/// when there is one.
pub(crate) fn coded_error(env: &Env, err: core::Error) -> napi::Error {
    let build = || -> napi::Result<napi::Error> {
        let js = JsError::from(napi::Error::new(err.code.as_str(), err.message.clone()));
        let unknown = js.into_unknown(*env);
        if let Some(hint) = &err.hint {
            let mut obj = unknown.coerce_to_object()?;
            obj.set_named_property("hint", hint.as_str())?;
        }
        Ok(napi::Error::from(unknown))
    };
    build().unwrap_or_else(|e| e)
}

/// Runs a synchronous API call: panics and core errors become thrown JS errors.
pub(crate) fn run_sync<T>(env: &Env, f: impl FnOnce() -> core::Result<T>) -> napi::Result<T> {
    core::catch_panic(f).map_err(|e| coded_error(env, e))
}

/// An `AsyncTask` body: computed off the JS thread, rejected with a coded error.
pub struct CoreTask<T: Send + 'static, R> {
    work: Option<Box<dyn FnOnce() -> core::Result<T> + Send>>,
    failure: Option<core::Error>,
    convert: fn(T) -> R,
}

impl<T: Send + 'static, R> CoreTask<T, R> {
    pub(crate) fn new(
        work: impl FnOnce() -> core::Result<T> + Send + 'static,
        convert: fn(T) -> R,
    ) -> Self {
        CoreTask {
            work: Some(Box::new(work)),
            failure: None,
            convert,
        }
    }
}

impl<T: Send + 'static, R: ToNapiValue + TypeName> Task for CoreTask<T, R> {
    type Output = T;
    type JsValue = R;

    fn compute(&mut self) -> napi::Result<T> {
        let work = self.work.take().expect("a task is computed once");
        core::catch_panic(work).map_err(|e| {
            let status = napi::Error::new(Status::GenericFailure, e.message.clone());
            self.failure = Some(e);
            status
        })
    }

    fn resolve(&mut self, _env: Env, output: T) -> napi::Result<R> {
        Ok((self.convert)(output))
    }

    fn reject(&mut self, env: Env, err: napi::Error) -> napi::Result<R> {
        match self.failure.take() {
            Some(e) => Err(coded_error(&env, e)),
            None => Err(err),
        }
    }
}
