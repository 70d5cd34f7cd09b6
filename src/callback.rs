//! Calls into the host's JavaScript callbacks (the summarizer of a handoff,
//! the relevance model of a selection).

use napi::bindgen_prelude::*;
use napi::threadsafe_function::ThreadsafeFunction;

/// A host callback taking `A` and resolving to `R`.
pub(crate) type HostCallback<A, R> = ThreadsafeFunction<A, Promise<R>, A, Status, false>;

/// Calls `callback` with `arg` and waits for its promise: a synchronous
/// throw or a rejection becomes `Err` with its reason.
pub(crate) async fn call_host<A, R>(
    callback: &HostCallback<A, R>,
    arg: A,
) -> std::result::Result<R, String>
where
    A: 'static + JsValuesTupleIntoVec,
    R: 'static + FromNapiValue,
{
    let promise = callback
        .call_async_catch(arg)
        .await
        .map_err(|e| e.reason.clone())?;
    promise.await.map_err(|e| e.reason.clone())
}
