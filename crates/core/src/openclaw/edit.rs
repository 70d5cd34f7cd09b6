//! Editing a transcript in place without losing a line: OpenClaw's lock,
//! a backup first, an atomic replace, and every line another writer appends
//! meanwhile carried over (research openclaw-formats.md §2.2, §5).

use super::strip::{strip_tools, StripOutput, REFERENCE_FIELDS};
use super::transcripts::{resolve_transcript, AgentSessions};
use crate::error::{Error, ErrorCode, Result};
use crate::fs_safe::{write_atomic, FileLock, LockOptions};
use serde_json::Value;
use std::collections::HashMap;
use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How many backups of a transcript are kept by default.
pub const DEFAULT_BACKUPS: usize = 5;

/// What to edit and how.
#[derive(Debug, Clone)]
pub struct EditRequest {
    /// Full id, unique prefix, or `None` for the most recent transcript.
    pub session: Option<String>,
    pub keep_turns_with_tools: u32,
    pub truncate_percent: u32,
    pub dry_run: bool,
    pub backups_to_keep: usize,
    pub lock: LockOptions,
}

/// What an edit did.
#[derive(Debug, Clone)]
pub struct EditOutcome {
    pub session_id: String,
    pub path: PathBuf,
    /// The copy of the transcript as it was (none for a dry run or when
    /// nothing changed).
    pub backup_path: Option<PathBuf>,
    pub changed: bool,
    /// Nothing was written: the request was a dry run.
    pub dry_run: bool,
    pub size_original: u64,
    pub size_after: u64,
    /// Lines another writer appended during the edit, carried over.
    pub appended_lines_kept: u32,
    pub strip: StripOutput,
}

/// `<file>.bak.<ISO time with dashes>`, OpenClaw's own archive name (a name
/// OpenClaw does not mistake for a live transcript).
fn backup_name(path: &Path) -> PathBuf {
    let stamp = chrono::Utc::now().format("%Y-%m-%dT%H-%M-%S%.3fZ");
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".bak.{stamp}"));
    let mut candidate = PathBuf::from(&name);
    let mut n = 1;
    while candidate.exists() {
        candidate = PathBuf::from(format!("{}-{n}", name.to_string_lossy()));
        n += 1;
    }
    candidate
}

/// The transcript's backups, oldest first.
pub fn backups_of(path: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Vec::new();
    };
    let prefix = format!("{}.bak.", name.to_string_lossy());
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    n.strip_prefix(&prefix)
                        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
                })
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

fn rotate(path: &Path, keep: usize) {
    let all = backups_of(path);
    for old in &all[..all.len().saturating_sub(keep.max(1))] {
        let _ = fs::remove_file(old);
    }
}

/// A line written by another process, with references to deleted entries
/// re-linked the way the edit re-linked the file.
fn relink_line(raw: &[u8], relinked: &HashMap<String, Option<String>>) -> Vec<u8> {
    let mentions = relinked
        .keys()
        .any(|id| memchr::memmem::find(raw, id.as_bytes()).is_some());
    let Some(mut v) = mentions
        .then(|| serde_json::from_slice::<Value>(raw).ok())
        .flatten()
    else {
        return raw.to_vec();
    };
    let mut changed = false;
    for field in std::iter::once("parentId").chain(REFERENCE_FIELDS) {
        if let Some(new) = v
            .get(field)
            .and_then(Value::as_str)
            .and_then(|id| relinked.get(id))
            .cloned()
        {
            v[field] = new.map_or(Value::Null, Value::String);
            changed = true;
        }
    }
    if changed {
        serde_json::to_vec(&v).unwrap_or_else(|_| raw.to_vec())
    } else {
        raw.to_vec()
    }
}

fn concurrent(path: &Path, why: &str) -> Error {
    Error::new(
        ErrorCode::ConcurrentModification,
        format!("{} changed during the edit: {why}", path.display()),
    )
    .with_hint("another process rewrote the transcript; nothing was changed, run the edit again")
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::write_failed(path, &e)
}

/// Edits a transcript in place. Nothing is written for a dry run or when
/// the edit changes nothing; on any failure the transcript and its backups
/// are as they were.
pub fn execute_edit(agent: &AgentSessions, req: &EditRequest) -> Result<EditOutcome> {
    let target = resolve_transcript(agent, req.session.as_deref())?;
    let path = target.path.clone();
    let _lock = FileLock::acquire(&path, req.lock)?;
    let file = File::open(&path).map_err(|e| {
        Error::new(
            ErrorCode::SessionNotFound,
            format!("cannot open {}: {e}", path.display()),
        )
    })?;
    let meta = file.metadata().map_err(io_err(&path))?;
    // SAFETY (mapped, not copied): we hold OpenClaw's lock, and OpenClaw only
    // appends to a transcript it does not hold the lock for.
    let map = (meta.len() > 0)
        .then(|| unsafe { memmap2::Mmap::map(&file) })
        .transpose()
        .map_err(io_err(&path))?;
    let original: &[u8] = map.as_deref().unwrap_or_default();
    let strip = strip_tools(original, req.keep_turns_with_tools, req.truncate_percent)?;
    let mut outcome = EditOutcome {
        session_id: target.session_id.clone(),
        path: path.clone(),
        backup_path: None,
        changed: strip.bytes != original,
        dry_run: req.dry_run,
        size_original: original.len() as u64,
        size_after: strip.bytes.len() as u64,
        appended_lines_kept: 0,
        strip,
    };
    if req.dry_run || !outcome.changed {
        return Ok(outcome);
    }
    let mode = meta.permissions().mode() & 0o7777;
    // The backup is the original file itself: a hard link to the inode we
    // read, which the atomic replace below detaches from the live name.
    // No copy is written (a copy is the fallback where links fail).
    let backup = backup_name(&path);
    let linked = fs::hard_link(&path, &backup).is_ok()
        && fs::metadata(&backup).map(|m| m.ino()).ok() == Some(meta.ino());
    if !linked {
        let _ = fs::remove_file(&backup);
        write_atomic(&backup, original, Some(mode))?;
    }
    match replace(&path, &file, original.len() as u64, mode, &mut outcome) {
        Ok(()) => {
            outcome.backup_path = Some(backup);
            rotate(&path, req.backups_to_keep);
            Ok(outcome)
        }
        Err(e) => {
            let _ = fs::remove_file(&backup);
            Err(e)
        }
    }
}

/// Writes the edited bytes over `path`, folding in what others append.
fn replace(
    path: &Path,
    file: &File,
    read_len: u64,
    mode: u32,
    outcome: &mut EditOutcome,
) -> Result<()> {
    let ino = file.metadata().map_err(io_err(path))?.ino();
    let mut consumed = read_len;
    let mut body = outcome.strip.bytes.clone();
    if !body.is_empty() && !body.ends_with(b"\n") {
        body.push(b'\n');
    }
    // Fold in complete appended lines until the file holds still.
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let now = fs::metadata(path).map_err(io_err(path))?;
        if now.ino() != ino || now.len() < consumed {
            return Err(concurrent(path, "it was replaced or shortened"));
        }
        if now.len() == consumed {
            break;
        }
        let mut tail = vec![0; (now.len() - consumed) as usize];
        file.read_exact_at(&mut tail, consumed)
            .map_err(io_err(path))?;
        let complete = tail.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        for line in tail[..complete]
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
        {
            body.extend_from_slice(&relink_line(line, &outcome.strip.relinked));
            body.push(b'\n');
            outcome.appended_lines_kept += 1;
        }
        consumed += complete as u64;
        if complete == tail.len() {
            continue;
        }
        if Instant::now() > deadline {
            return Err(concurrent(
                path,
                "a line is being written and does not finish",
            ));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    write_atomic(path, &body, Some(mode))?;
    outcome.size_after = body.len() as u64;
    // Lines appended to the old file between the last check and the rename
    // are still in it: carry them over too, once a line being written there
    // has finished (a writer that opened the path before the rename).
    let settle = Instant::now() + Duration::from_millis(200);
    let tail = loop {
        let old_len = file.metadata().map_err(io_err(path))?.len();
        let mut tail = vec![0; old_len.saturating_sub(consumed) as usize];
        file.read_exact_at(&mut tail, consumed)
            .map_err(io_err(path))?;
        if tail.is_empty() || tail.ends_with(b"\n") || Instant::now() > settle {
            break tail;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    if !tail.is_empty() {
        let mut rescued = Vec::new();
        for line in tail.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            rescued.extend_from_slice(&relink_line(line, &outcome.strip.relinked));
            rescued.push(b'\n');
            outcome.appended_lines_kept += 1;
        }
        let mut out = fs::OpenOptions::new()
            .append(true)
            .mode(mode)
            .open(path)
            .map_err(io_err(path))?;
        out.write_all(&rescued)
            .and_then(|_| out.sync_all())
            .map_err(io_err(path))?;
        outcome.size_after += rescued.len() as u64;
    }
    Ok(())
}

/// What a restore did.
#[derive(Debug, Clone)]
pub struct RestoreOutcome {
    pub session_id: String,
    pub path: PathBuf,
    pub restored_from: PathBuf,
    /// The content that was replaced, kept as the newest backup (restore
    /// again to undo).
    pub replaced_backup: PathBuf,
}

/// Restores a transcript from its newest backup, atomically and under the
/// lock, keeping what it replaced as a backup.
pub fn restore_from_backup(
    agent: &AgentSessions,
    session: Option<&str>,
    lock: LockOptions,
    keep: usize,
) -> Result<RestoreOutcome> {
    let target = resolve_transcript(agent, session)?;
    let path = target.path.clone();
    let _lock = FileLock::acquire(&path, lock)?;
    let newest = backups_of(&path).pop().ok_or_else(|| {
        Error::new(
            ErrorCode::NoBackup,
            format!("{} has no backup", target.session_id),
        )
        .with_hint("backups are made by edits; there is nothing to restore yet")
    })?;
    let saved = fs::read(&newest).map_err(io_err(&newest))?;
    if strip_tools(&saved, u32::MAX, 0).is_err() {
        return Err(Error::new(
            ErrorCode::Parse,
            format!("backup {} is not a valid transcript", newest.display()),
        )
        .with_hint("restore was not attempted; inspect the backup by hand"));
    }
    let current = fs::read(&path).map_err(io_err(&path))?;
    let mode = fs::metadata(&path)
        .map_err(io_err(&path))?
        .permissions()
        .mode()
        & 0o7777;
    let replaced = backup_name(&path);
    write_atomic(&replaced, &current, Some(mode))?;
    if let Err(e) = write_atomic(&path, &saved, Some(mode)) {
        let _ = fs::remove_file(&replaced);
        return Err(e);
    }
    rotate(&path, keep);
    Ok(RestoreOutcome {
        session_id: target.session_id,
        path,
        restored_from: newest,
        replaced_backup: replaced,
    })
}

/// What to clone and where.
#[derive(Debug, Clone)]
pub struct CloneRequest {
    pub session: Option<String>,
    /// Strip with these settings, or copy as is.
    pub strip: Option<(u32, u32)>,
    /// Where to write (default `<sessions dir>/<new id>.jsonl`).
    pub output: Option<PathBuf>,
    /// Leave `sessions.json` alone.
    pub no_register: bool,
}

/// What a clone did.
#[derive(Debug, Clone)]
pub struct CloneOutcome {
    pub source_session_id: String,
    pub cloned_session_id: String,
    pub path: PathBuf,
    /// The `sessions.json` key it was registered under.
    pub session_key: Option<String>,
    pub size_original: u64,
    pub size_cloned: u64,
    /// What stripping did (all tool calls preserved for a plain copy).
    pub stats: super::strip::StripStats,
}

/// Writes a copy of a transcript under a new UUID (header `parentSession`
/// naming the source, `clonedFrom` recording it), stripped if asked, and
/// registers it in `sessions.json` under OpenClaw's lock, every other entry
/// and field kept as it was.
pub fn execute_clone(agent: &AgentSessions, req: &CloneRequest) -> Result<CloneOutcome> {
    let source = resolve_transcript(agent, req.session.as_deref())?;
    let bytes = fs::read(&source.path).map_err(|e| {
        Error::new(
            ErrorCode::SessionNotFound,
            format!("cannot read {}: {e}", source.path.display()),
        )
    })?;
    // Only whole lines: the source may be being written.
    let whole = &bytes[..bytes
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(bytes.len(), |p| p + 1)];
    let (keep, pct) = req.strip.unwrap_or((u32::MAX, 0));
    let stripped = strip_tools(whole, keep, pct)?;
    let id = uuid::Uuid::new_v4().to_string();
    let path = req
        .output
        .clone()
        .unwrap_or_else(|| agent.dir.join(format!("{id}.jsonl")));
    let inside =
        path.parent().and_then(|p| fs::canonicalize(p).ok()) == fs::canonicalize(&agent.dir).ok();
    if !req.no_register && !inside {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "{} is outside the sessions dir, where OpenClaw would not load it",
                path.display()
            ),
        )
        .with_hint("write into the agent's sessions dir, or pass noRegister"));
    }
    if path.exists() {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("{} already exists", path.display()),
        )
        .with_hint("choose another output path"));
    }
    // The new header: same session settings, new identity, its origin.
    let mut lines = stripped.bytes.splitn(2, |&b| b == b'\n');
    let mut header: serde_json::Value = serde_json::from_slice(lines.next().unwrap_or_default())
        .map_err(|e| Error::new(ErrorCode::Parse, e.to_string()))?;
    let now = chrono::Utc::now();
    header["id"] = id.clone().into();
    header["timestamp"] = now
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
        .into();
    header["parentSession"] = source.path.to_string_lossy().into_owned().into();
    header["clonedFrom"] =
        serde_json::json!({ "sessionId": source.session_id, "clonedAt": header["timestamp"] });
    let mut out =
        serde_json::to_vec(&header).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
    out.push(b'\n');
    out.extend_from_slice(lines.next().unwrap_or_default());
    let mode = fs::metadata(&source.path)
        .map(|m| m.permissions().mode() & 0o7777)
        .unwrap_or(0o600);
    write_atomic(&path, &out, Some(mode))?;
    let session_key = if req.no_register {
        None
    } else {
        let key = format!("agent:{}:clone:{id}", agent.agent_id);
        let registered =
            crate::fs_safe::json_file::update_json(&agent.dir.join("sessions.json"), |doc| {
                let mut entry = serde_json::Map::new();
                entry.insert("sessionId".into(), id.clone().into());
                entry.insert("updatedAt".into(), now.timestamp_millis().into());
                entry.insert(
                    "sessionFile".into(),
                    path.to_string_lossy().into_owned().into(),
                );
                entry.insert(
                    "displayName".into(),
                    format!("clone of {}", source.session_id).into(),
                );
                doc.insert(key.clone(), serde_json::Value::Object(entry));
                (true, ())
            });
        if let Err(e) = registered {
            let _ = fs::remove_file(&path);
            return Err(e);
        }
        Some(key)
    };
    Ok(CloneOutcome {
        source_session_id: source.session_id,
        cloned_session_id: id,
        size_original: bytes.len() as u64,
        size_cloned: out.len() as u64,
        stats: stripped.stats,
        session_key,
        path,
    })
}
