//! The JSONL session store of OpenClaw up to 2026.7: one file per session
//! in `<state>/agents/<agent>/sessions/`, indexed by `sessions.json`
//! (docs/formats.md, "The JSONL store").
//!
//! An edit takes OpenClaw's transcript lock, keeps a backup, replaces the
//! file atomically and carries over every line another writer appends
//! meanwhile.

use super::super::backups::{backups_of, new_backup_path, rotate};
use super::super::edit::{
    CloneOutcome, CloneRequest, EditOutcome, EditRequest, ExportOutcome, RestoreOutcome,
};
use super::super::entry::REFERENCE_FIELDS;
use super::super::events::{split_lines, Events};
use super::super::strip::strip_tools;
use super::super::transcripts::{is_valid_session_id, Availability, StoreKind, TranscriptSummary};
use crate::error::{Error, ErrorCode, Result};
use crate::fs_safe::appends::{carry_appends, late_appends, whole_lines, NotCarried};
use crate::fs_safe::json_file::read_json;
use crate::fs_safe::{write_atomic, FileLock, LockOptions};
use crate::platform;
use crate::repo_path::resolve_lexically;
use aho_corasick::AhoCorasick;
use chrono::{DateTime, TimeZone, Utc};
use serde_json::Value;
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One agent's sessions directory.
#[derive(Debug, Clone)]
pub struct JsonlStore {
    /// The agent (normalised id).
    pub agent_id: String,
    /// The agent's sessions directory.
    pub dir: PathBuf,
}

/// Whether a file name is a live transcript: any `*.jsonl` but OpenClaw's
/// checkpoints, trajectories and corrupt-file copies (archives such as
/// `.jsonl.bak.<ts>` do not end in `.jsonl`).
fn is_transcript(name: &str) -> bool {
    name.ends_with(".jsonl")
        && !name.contains(".checkpoint.")
        && !name.ends_with(".trajectory.jsonl")
        && !name.contains(".corrupt-")
}

/// `sessionFile` of an index entry, honoured only inside the sessions dir.
fn index_file(dir: &Path, entry: &Value) -> Option<PathBuf> {
    let id = entry["sessionId"]
        .as_str()
        .filter(|id| is_valid_session_id(id))?;
    let declared = entry["sessionFile"].as_str().map(|f| {
        let p = Path::new(f);
        resolve_lexically(
            &if p.is_absolute() {
                p.to_path_buf()
            } else {
                dir.join(p)
            }
            .to_string_lossy(),
        )
    });
    let inside = declared.filter(|p| p.starts_with(resolve_lexically(&dir.to_string_lossy())));
    Some(inside.unwrap_or_else(|| dir.join(format!("{id}.jsonl"))))
}

fn from_ms(ms: f64) -> Option<DateTime<Utc>> {
    Utc.timestamp_millis_opt(ms as i64).single()
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

fn unreadable(path: &Path, e: std::io::Error) -> Error {
    Error::new(
        ErrorCode::SessionNotFound,
        format!("cannot read {}: {e}", path.display()),
    )
}

impl JsonlStore {
    /// Every transcript of the agent, newest first.
    pub fn list(&self) -> Result<Vec<TranscriptSummary>> {
        let index = read_json(&self.dir.join("sessions.json"));
        let mut by_file: BTreeMap<PathBuf, Vec<(&String, &Value)>> = BTreeMap::new();
        if let Some(entries) = index.as_object() {
            for (key, entry) in entries {
                if let Some(file) = index_file(&self.dir, entry) {
                    by_file.entry(file).or_default().push((key, entry));
                }
            }
        }
        let entries = fs::read_dir(&self.dir).map_err(|e| {
            Error::new(
                ErrorCode::AgentNotFound,
                format!("cannot read {}: {e}", self.dir.display()),
            )
        })?;
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !is_transcript(&name) {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            let path = entry.path();
            let keys = by_file
                .get(&resolve_lexically(&path.to_string_lossy()))
                .cloned()
                .unwrap_or_default();
            let text = |k: &str| {
                keys.iter()
                    .find_map(|(_, e)| e[k].as_str().map(str::to_owned))
            };
            out.push(TranscriptSummary {
                session_id: name.trim_end_matches(".jsonl").to_owned(),
                size_bytes: meta.len(),
                modified: meta
                    .modified()
                    .map(DateTime::<Utc>::from)
                    .unwrap_or_default(),
                session_keys: keys.iter().map(|(k, _)| (*k).clone()).collect(),
                label: text("label"),
                display_name: text("displayName"),
                updated_at: keys
                    .iter()
                    .filter_map(|(_, e)| e["updatedAt"].as_f64())
                    .fold(None, |a: Option<f64>, b| Some(a.map_or(b, |a| a.max(b))))
                    .and_then(from_ms),
                window_key: None,
                store: StoreKind::Jsonl,
                availability: Availability::Available,
                event_count: None,
                path,
            });
        }
        out.sort_by(|a, b| {
            b.modified
                .cmp(&a.modified)
                .then_with(|| a.session_id.cmp(&b.session_id))
        });
        Ok(out)
    }

    /// The transcript's whole lines (a line being written is left out).
    pub fn read(&self, t: &TranscriptSummary) -> Result<Events> {
        let mut bytes = fs::read(&t.path).map_err(|e| unreadable(&t.path, e))?;
        let whole = whole_lines(&bytes);
        if whole > 0 {
            bytes.truncate(whole);
        }
        Ok(Events::from_file_bytes(bytes))
    }

    /// Edits a transcript in place. Nothing is written for a dry run or when
    /// the edit changes nothing; on any failure the transcript and its
    /// backups are as they were.
    pub fn edit(&self, target: TranscriptSummary, req: &EditRequest) -> Result<EditOutcome> {
        let path = target.path.clone();
        let _lock = FileLock::acquire(&path, req.lock)?;
        let file = File::open(&path).map_err(|e| unreadable(&path, e))?;
        let meta = file.metadata().map_err(io_err(&path))?;
        // SAFETY (mapped, not copied): we hold OpenClaw's lock, and OpenClaw
        // only appends to a transcript it does not hold the lock for.
        let map = (meta.len() > 0)
            .then(|| unsafe { memmap2::Mmap::map(&file) })
            .transpose()
            .map_err(io_err(&path))?;
        // Whole lines only: a line being appended (or a write a reader sees
        // cut at a page boundary for a moment) is folded in by `replace`
        // once it is complete, never edited half-written.
        let mapped: &[u8] = map.as_deref().unwrap_or_default();
        let original = &mapped[..whole_lines(mapped)];
        let strip = strip_tools(original, req.keep_turns_with_tools, req.truncate_percent)?;
        let mut outcome = EditOutcome {
            session_id: target.session_id.clone(),
            path: path.clone(),
            backup_path: None,
            changed: strip.changes_anything(),
            dry_run: req.dry_run,
            size_original: original.len() as u64,
            size_after: strip.size_after,
            appended_lines_kept: 0,
            strip,
        };
        if req.dry_run || !outcome.changed {
            return Ok(outcome);
        }
        let mode = platform::mode(&meta);
        let identity = platform::file_id(&file).map_err(io_err(&path))?;
        // The backup is the original file itself: a hard link to the inode
        // we read, which the atomic replace below detaches from the live
        // name. No copy is written (a copy is the fallback where links fail).
        let backup = new_backup_path(&path);
        let linked = fs::hard_link(&path, &backup).is_ok()
            && platform::path_id(&backup).ok() == Some(identity);
        if !linked {
            let _ = fs::remove_file(&backup);
            write_atomic(&backup, original, Some(mode))?;
        }
        let body = outcome.strip.render(original);
        match replace(
            &path,
            &file,
            original.len() as u64,
            mode,
            body,
            &mut outcome,
        ) {
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

    /// Restores a transcript from its newest backup, atomically and under
    /// the lock, keeping what it replaced as a backup.
    pub fn restore(
        &self,
        target: TranscriptSummary,
        lock: LockOptions,
        keep: usize,
    ) -> Result<RestoreOutcome> {
        let path = target.path.clone();
        let _lock = FileLock::acquire(&path, lock)?;
        let newest = backups_of(&path)
            .pop()
            .ok_or_else(|| no_backup(&target.session_id))?;
        let saved = fs::read(&newest).map_err(io_err(&newest))?;
        validate_backup(&saved, &newest)?;
        let current = fs::read(&path).map_err(io_err(&path))?;
        let mode = platform::mode(&fs::metadata(&path).map_err(io_err(&path))?);
        let replaced = new_backup_path(&path);
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

    /// Writes a copy of a transcript under a new UUID (header
    /// `parentSession` naming the source, `clonedFrom` recording it),
    /// stripped if asked, and registers it in `sessions.json` under
    /// OpenClaw's lock, every other entry and field kept as it was.
    pub fn clone_session(
        &self,
        source: TranscriptSummary,
        req: &CloneRequest,
    ) -> Result<CloneOutcome> {
        let events = self.read(&source)?;
        let id = uuid::Uuid::new_v4().to_string();
        let path = req
            .output
            .clone()
            .unwrap_or_else(|| self.dir.join(format!("{id}.jsonl")));
        let inside = path.parent().and_then(|p| fs::canonicalize(p).ok())
            == fs::canonicalize(&self.dir).ok();
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
        let copy = cloned_transcript(&events, &source, req.strip, &id)?;
        write_new_file(&path, &copy.bytes, source_mode(&source.path))?;
        let session_key = if req.no_register {
            None
        } else {
            let key = format!("agent:{}:clone:{id}", self.agent_id);
            let registered =
                crate::fs_safe::json_file::update_json(&self.dir.join("sessions.json"), |doc| {
                    let mut entry = serde_json::Map::new();
                    entry.insert("sessionId".into(), id.clone().into());
                    entry.insert("updatedAt".into(), copy.created.timestamp_millis().into());
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
            size_original: events.bytes().len() as u64,
            size_cloned: copy.bytes.len() as u64,
            stats: copy.stats,
            session_key,
            path,
        })
    }
}

fn source_mode(path: &Path) -> u32 {
    fs::metadata(path).map_or(0o600, |m| platform::mode(&m))
}

/// `E_NO_BACKUP` for a session.
pub(crate) fn no_backup(session_id: &str) -> Error {
    Error::new(ErrorCode::NoBackup, format!("{session_id} has no backup"))
        .with_hint("backups are made by edits; there is nothing to restore yet")
}

/// A backup must be a transcript (header first, every line readable by the
/// transform) before anything is replaced with it.
pub(crate) fn validate_backup(saved: &[u8], path: &Path) -> Result<()> {
    if strip_tools(saved, u32::MAX, 0).is_err() {
        return Err(Error::new(
            ErrorCode::Parse,
            format!("backup {} is not a valid transcript", path.display()),
        )
        .with_hint("restore was not attempted; inspect the backup by hand"));
    }
    Ok(())
}

/// Writes a file that must not exist yet, atomically.
pub(crate) fn write_new_file(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    if path.exists() {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("{} already exists", path.display()),
        )
        .with_hint("choose another output path"));
    }
    write_atomic(path, bytes, Some(mode))
}

/// A transcript copied under a new identity.
pub(crate) struct ClonedTranscript {
    pub bytes: Vec<u8>,
    pub stats: super::super::strip::StripStats,
    pub created: DateTime<Utc>,
}

/// The copy of `events` as the session `id`: stripped when asked, with a
/// new header (same settings, new id and time, `parentSession` naming the
/// source and `clonedFrom` recording it).
pub(crate) fn cloned_transcript(
    events: &Events,
    source: &TranscriptSummary,
    strip: Option<(u32, u32)>,
    id: &str,
) -> Result<ClonedTranscript> {
    let (keep, pct) = strip.unwrap_or((u32::MAX, 0));
    let plan = strip_tools(events.bytes(), keep, pct)?;
    let stripped = plan.render(events.bytes());
    let mut lines = stripped.splitn(2, |&b| b == b'\n');
    let mut header: Value = serde_json::from_slice(lines.next().unwrap_or_default())
        .map_err(|e| Error::new(ErrorCode::Parse, e.to_string()))?;
    let now = Utc::now();
    header["id"] = id.into();
    header["timestamp"] = crate::time::iso_millis(now).into();
    header["parentSession"] = match source.store {
        StoreKind::Jsonl => source.path.to_string_lossy().into_owned().into(),
        StoreKind::Sqlite => source.session_id.clone().into(),
    };
    header["clonedFrom"] =
        serde_json::json!({ "sessionId": source.session_id, "clonedAt": header["timestamp"] });
    let mut out =
        serde_json::to_vec(&header).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
    out.push(b'\n');
    out.extend_from_slice(lines.next().unwrap_or_default());
    Ok(ClonedTranscript {
        bytes: out,
        stats: plan.stats,
        created: now,
    })
}

/// Writes a session's JSONL to `output` (a new file, mode 0600), or
/// returns it.
pub(crate) fn export_events(
    session_id: &str,
    events: &Events,
    output: Option<&Path>,
) -> Result<ExportOutcome> {
    let bytes = events.bytes();
    let event_count = split_lines(bytes).filter(|l| !l.is_empty()).count() as u64;
    let path = match output {
        Some(p) => {
            if p.file_name().is_some_and(|n| n == "sessions.json") {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "an export may not be named sessions.json",
                )
                .with_hint(
                    "OpenClaw treats such a file as a legacy session store; choose another name",
                ));
            }
            write_new_file(p, bytes, 0o600)?;
            Some(p.to_path_buf())
        }
        None => None,
    };
    Ok(ExportOutcome {
        session_id: session_id.to_owned(),
        jsonl: path.is_none().then(|| bytes.to_vec()),
        path,
        event_count,
        bytes: bytes.len() as u64,
    })
}

/// Lines written by another process during an edit, with references to
/// deleted entries re-linked the way the edit re-linked the file.
struct Relinker<'a> {
    relinked: &'a HashMap<String, Option<String>>,
    /// Finds any deleted entry's id in a line in one pass, however many
    /// were deleted; built for the first line carried (`None` when none
    /// were deleted, or the automaton could not be built: then every line
    /// is parsed).
    mentions: OnceCell<Option<AhoCorasick>>,
}

impl<'a> Relinker<'a> {
    fn new(relinked: &'a HashMap<String, Option<String>>) -> Self {
        Relinker {
            relinked,
            mentions: OnceCell::new(),
        }
    }

    /// Appends the non-empty lines of `lines`, re-linked and each ended by a
    /// newline, to `out`; returns how many there were.
    fn carry(&self, lines: &[u8], out: &mut Vec<u8>) -> u32 {
        let mut carried = 0;
        for line in split_lines(lines).filter(|l| !l.is_empty()) {
            out.extend_from_slice(&self.line(line));
            out.push(b'\n');
            carried += 1;
        }
        carried
    }

    /// `raw` with its references to deleted entries re-linked.
    fn line(&self, raw: &[u8]) -> Vec<u8> {
        let ids = self.mentions.get_or_init(|| {
            (!self.relinked.is_empty())
                .then(|| AhoCorasick::new(self.relinked.keys()).ok())
                .flatten()
        });
        let mentions = match ids {
            Some(ids) => ids.is_match(raw),
            None => !self.relinked.is_empty(),
        };
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
                .and_then(|id| self.relinked.get(id))
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
}

/// Writes the edited bytes over `path`, folding in what others append.
fn replace(
    path: &Path,
    file: &File,
    read_len: u64,
    mode: u32,
    mut body: Vec<u8>,
    outcome: &mut EditOutcome,
) -> Result<()> {
    if !body.is_empty() && !body.ends_with(b"\n") {
        body.push(b'\n');
    }
    // Complete appended lines, until the file holds still; a last line
    // without its newline that stopped growing is taken whole (and
    // terminated, like every carried line).
    let relinker = Relinker::new(&outcome.strip.relinked);
    let mut carried = 0;
    let consumed = carry_appends(file, path, read_len, |lines| {
        carried += relinker.carry(lines, &mut body);
        Ok(())
    })
    .map_err(|why| match why {
        NotCarried::Read(e) => io_err(path)(e),
        NotCarried::Carry(e) => e,
        NotCarried::Replaced => concurrent(path, "it was replaced or shortened"),
        NotCarried::NoPause => {
            concurrent(path, "another process kept appending to it without a pause")
        }
        NotCarried::Unfinished => concurrent(path, "a line is being written and does not finish"),
    })?;
    outcome.appended_lines_kept += carried;
    write_atomic(path, &body, Some(mode))?;
    outcome.size_after = body.len() as u64;
    // Lines appended to the old file between the last check and the rename
    // are still in it: carry them over too, once a line being written there
    // has finished (a writer that opened the path before the rename). A
    // reader can see a write cut at a page boundary for a moment, so only
    // complete lines are carried: a line that never finishes (its writer
    // died) is not turned into a broken one.
    let mut tail = late_appends(file, consumed).map_err(io_err(path))?;
    tail.truncate(whole_lines(&tail));
    if !tail.is_empty() {
        let mut rescued = Vec::new();
        outcome.appended_lines_kept += relinker.carry(&tail, &mut rescued);
        let mut out = platform::open_append(path, mode).map_err(io_err(path))?;
        out.write_all(&rescued)
            .and_then(|_| out.sync_all())
            .map_err(io_err(path))?;
        outcome.size_after += rescued.len() as u64;
    }
    Ok(())
}
