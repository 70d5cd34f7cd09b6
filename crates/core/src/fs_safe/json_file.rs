//! A JSON document that several processes read and change: every change is
//! a fresh read under the document's lock file, then an atomic replace, with
//! unknown fields and key order kept.

use super::{write_atomic, FileLock, LockOptions};
use crate::error::{Error, ErrorCode, Result};
use serde_json::{Map, Value};
use std::fs;
use std::path::{Path, PathBuf};

/// The document's JSON, or `null` when it is missing or unparsable.
pub fn read_json(path: &Path) -> Value {
    fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null)
}

/// Changes the object stored at `path` under `<path>.lock`. `change` gets the
/// top-level object (empty for a new file) and returns whether it changed
/// anything — nothing is written otherwise — and its result. The file is
/// written as 2-space JSON without a trailing newline; a new file gets mode
/// 0600. A file that is not a JSON object is copied aside
/// (`<path>.corrupt-<time>`) before being replaced, never silently lost.
pub fn update_json<R>(
    path: &Path,
    change: impl FnOnce(&mut Map<String, Value>) -> (bool, R),
) -> Result<R> {
    let dir = path.parent().expect("a document path has a parent");
    fs::create_dir_all(dir).map_err(|e| Error::write_failed(dir, &e))?;
    let _lock = FileLock::acquire(path, LockOptions::default())?;
    let mut doc = match read_json(path) {
        Value::Object(m) => m,
        _ => {
            if path.exists() {
                preserve_unreadable(path);
            }
            Map::new()
        }
    };
    let (changed, result) = change(&mut doc);
    if changed {
        let text = serde_json::to_string_pretty(&Value::Object(doc)).map_err(|e| {
            Error::new(
                ErrorCode::Internal,
                format!("could not serialise {}: {e}", path.display()),
            )
        })?;
        let mode = if path.exists() { None } else { Some(0o600) };
        write_atomic(path, text.as_bytes(), mode)?;
    }
    Ok(result)
}

/// Keeps a copy of a document that cannot be read before it is replaced.
fn preserve_unreadable(path: &Path) {
    let stamp = chrono::Utc::now().format("%Y-%m-%dT%H-%M-%S%.3fZ");
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".corrupt-{stamp}"));
    let _ = fs::copy(path, PathBuf::from(name));
}

/// The object under `key` of `doc`, created (or replaced, if it is not an
/// object) when needed.
pub fn object_at<'a>(doc: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
    if !doc.get(key).is_some_and(Value::is_object) {
        doc.insert(key.into(), Value::Object(Map::new()));
    }
    doc.get_mut(key)
        .and_then(Value::as_object_mut)
        .expect("just ensured")
}

/// A JSON number the way `JSON.stringify` prints it: integers without `.0`.
pub fn json_number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
}
