//! Core errors as JavaScript `Error`s with a stable `code` and a `hint`,
//! and panics kept on the Rust side of the boundary.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use session_intel_core as core;

/// The stable `code` of every error this addon throws or rejects with.
#[napi(string_enum)]
pub enum ErrorCode {
    #[napi(value = "E_INVALID_ARGUMENT")]
    InvalidArgument,
    #[napi(value = "E_REPO_NOT_FOUND")]
    RepoNotFound,
    #[napi(value = "E_SESSION_NOT_FOUND")]
    SessionNotFound,
    #[napi(value = "E_AMBIGUOUS_SESSION")]
    AmbiguousSession,
    #[napi(value = "E_NO_SESSIONS")]
    NoSessions,
    #[napi(value = "E_AGENT_NOT_FOUND")]
    AgentNotFound,
    #[napi(value = "E_UNKNOWN_PRESET")]
    UnknownPreset,
    #[napi(value = "E_PARSE")]
    Parse,
    #[napi(value = "E_SESSION_BUSY")]
    SessionBusy,
    #[napi(value = "E_CONCURRENT_MODIFICATION")]
    ConcurrentModification,
    #[napi(value = "E_NO_BACKUP")]
    NoBackup,
    #[napi(value = "E_WRITE_FAILED")]
    WriteFailed,
    #[napi(value = "E_UNSUPPORTED_STORE")]
    UnsupportedStore,
    #[napi(value = "E_TRANSCRIPT_UNAVAILABLE")]
    TranscriptUnavailable,
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
