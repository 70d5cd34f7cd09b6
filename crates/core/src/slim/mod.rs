//! Slimming a bloated Claude Code transcript so that resuming it re-sends
//! less, without losing the conversation (docs/api/cleaning.md, "Slimming a
//! Claude Code session").
//!
//! In place (a backup beside it, byte-exact [`restore_claude_session`]),
//! refused while a CLI process runs the session; or as a fork under a new
//! session id that `claude --resume` lists under its own title. Either way
//! the transcript is streamed line by line into a temporary file, both
//! sides are folded as discovery folds them, and the file is renamed only
//! when prompts, responses, compactions, titles and token totals agree.

pub mod cuts;
pub mod raw_text;
mod read_ahead;
pub mod rules;
mod stream;
mod write_behind;

pub use rules::{
    human_bytes, preset, settings, SlimOverrides, SlimSettings, SlimStats, BYTES_PER_TOKEN,
};

use crate::claude_code::fold::transcript::TranscriptFacts;
use crate::claude_code::layout::paths::claude_config_dir;
use crate::claude_code::layout::session_files::{find_transcript, is_safe_session_id};
use crate::claude_code::liveness::running_sessions;
use crate::error::{Error, ErrorCode, Result};
use crate::fs_safe::appends::late_appends;
use crate::fs_safe::{commit_temp, temp_path};
use crate::openclaw::backups::{backups_of, new_backup_path, rotate, DEFAULT_BACKUPS};
use crate::platform;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use stream::{carry_appends, finish, slim_lines, temp_writer};

/// Which session to slim or restore, and where to look for it.
#[derive(Debug, Clone, Default)]
pub struct SessionRef {
    /// The session id, or a unique prefix of one.
    pub session_id: String,
    /// Claude Code's config folder (default `CLAUDE_CONFIG_DIR`, else
    /// `~/.claude`).
    pub claude_config_dir: Option<PathBuf>,
    /// A repository whose project folders are searched first.
    pub repo: Option<PathBuf>,
}

/// What to do.
#[derive(Debug, Clone)]
pub struct SlimRequest {
    /// The session.
    pub session: SessionRef,
    /// What to cut.
    pub settings: SlimSettings,
    /// Report what would be cut; write nothing.
    pub dry_run: bool,
    /// Write a slimmed copy under a new session id instead of slimming in
    /// place.
    pub fork: bool,
    /// The fork's title (default: the session's title with ` (slimmed)`).
    pub fork_title: Option<String>,
    /// Backups kept per transcript.
    pub backups_to_keep: usize,
}

impl SlimRequest {
    /// A request for `session_id` with the `default` preset.
    pub fn new(session_id: &str) -> Self {
        SlimRequest {
            session: SessionRef {
                session_id: session_id.to_owned(),
                ..SessionRef::default()
            },
            settings: rules::preset("default").expect("the default preset exists"),
            dry_run: false,
            fork: false,
            fork_title: None,
            backups_to_keep: DEFAULT_BACKUPS,
        }
    }
}

/// What a slim did (or, for a dry run, would do).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SlimOutcome {
    /// The session slimmed.
    pub session_id: String,
    /// Its transcript.
    pub path: PathBuf,
    /// Where the original was kept (in place, not a dry run, changed).
    pub backup_path: Option<PathBuf>,
    /// The fork's session id (fork only).
    pub fork_session_id: Option<String>,
    /// The fork's transcript (fork only, not a dry run).
    pub fork_path: Option<PathBuf>,
    /// The fork's title (fork only).
    pub fork_title: Option<String>,
    /// Whether anything was (or would be) cut.
    pub changed: bool,
    /// Whether this was a dry run.
    pub dry_run: bool,
    /// Bytes of the transcript read (whole lines).
    pub size_original: u64,
    /// Bytes of the slimmed transcript.
    pub size_after: u64,
    /// What was cut.
    pub stats: SlimStats,
    /// Input tokens every resumed turn no longer sends (message bytes saved
    /// / [`BYTES_PER_TOKEN`]).
    pub estimated_input_tokens_saved: u64,
    /// Lines another process appended during the slim, carried over.
    pub appended_lines_kept: u64,
}

impl SlimOutcome {
    /// The size reduction in percent (0 when nothing changed).
    pub fn reduction_percent(&self) -> f64 {
        if self.size_original == 0 {
            return 0.0;
        }
        let saved = self.size_original.saturating_sub(self.size_after) as f64;
        (saved * 1000.0 / self.size_original as f64).round() / 10.0
    }
}

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlimRestoreOutcome {
    /// The session restored.
    pub session_id: String,
    /// Its transcript.
    pub path: PathBuf,
    /// The backup put back.
    pub restored_from: PathBuf,
    /// Where the replaced (slimmed) transcript was kept, so a second
    /// restore undoes the first.
    pub replaced_backup: PathBuf,
}

/// The transcript of a session: exact id (the repository's project folders
/// first, then all), else a unique prefix among every project folder.
pub fn locate(session: &SessionRef) -> Result<(String, PathBuf)> {
    let id = session.session_id.trim();
    let config = claude_config_dir(session.claude_config_dir.as_deref());
    if !is_safe_session_id(id) {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("{id:?} is not a Claude Code session id"),
        )
        .with_hint("give the session's id (a UUID) or a unique prefix of it"));
    }
    let repo = session.repo.clone().unwrap_or_default();
    if let Some(path) = find_transcript(&config, &repo, id) {
        return Ok((id.to_owned(), path));
    }
    let mut hits = Vec::new();
    for dir in fs::read_dir(config.join("projects"))
        .into_iter()
        .flatten()
        .flatten()
    {
        for file in fs::read_dir(dir.path()).into_iter().flatten().flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".jsonl").filter(|s| s.starts_with(id)) {
                hits.push((stem.to_owned(), file.path()));
            }
        }
    }
    hits.sort();
    hits.dedup_by(|a, b| a.0 == b.0);
    match hits.len() {
        1 => Ok(hits.remove(0)),
        0 => Err(Error::new(
            ErrorCode::SessionNotFound,
            format!(
                "no Claude Code session {id:?} under {}",
                config.join("projects").display()
            ),
        )
        .with_hint(
            "list the sessions with `occ cc list` or discoverSessions, or set claudeConfigDir",
        )),
        _ => Err(Error::new(
            ErrorCode::AmbiguousSession,
            format!(
                "{id:?} matches {} sessions: {}",
                hits.len(),
                hits.iter()
                    .map(|h| h.0.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .with_hint("give more of the session id")),
    }
}

/// `E_SESSION_BUSY` when a CLI process runs `session_id` now.
fn refuse_running(config: &Path, session_id: &str, what: &str) -> Result<()> {
    match running_sessions(config)
        .into_iter()
        .find(|s| s.session_id == session_id)
    {
        Some(live) => Err(Error::new(
            ErrorCode::SessionBusy,
            format!(
                "Claude Code session {session_id} is running (pid {}{}); it cannot be {what} now",
                live.pid,
                live.cwd.map(|c| format!(" in {c}")).unwrap_or_default()
            ),
        )
        .with_hint("wait until its CLI process exits, or slim a fork of it (fork: true)")),
        None => Ok(()),
    }
}

/// What discovery reads of a transcript that a slim must leave as it was.
fn discovery_view(f: &TranscriptFacts, with_usage: bool) -> impl PartialEq + std::fmt::Debug {
    (
        (f.prompt_count, f.response_count, f.compactions),
        (f.first_prompt.clone(), f.last_prompt.clone()),
        (f.custom_title.clone(), f.ai_title.clone()),
        with_usage.then(|| (f.usage.totals(), f.cost_state.clone(), f.models.clone())),
    )
}

/// Slims a Claude Code session in place or as a fork (see the module doc).
/// On any failure every file is as it was.
pub fn slim_claude_session(req: &SlimRequest) -> Result<SlimOutcome> {
    let (session_id, path) = locate(&req.session)?;
    let config = claude_config_dir(req.session.claude_config_dir.as_deref());
    if !req.dry_run && !req.fork {
        refuse_running(&config, &session_id, "slimmed in place")?;
    }
    let file = File::open(&path).map_err(|e| Error::write_failed(&path, &e))?;
    let meta = file
        .metadata()
        .map_err(|e| Error::write_failed(&path, &e))?;
    let mut outcome = SlimOutcome {
        session_id: session_id.clone(),
        path: path.clone(),
        dry_run: req.dry_run,
        ..SlimOutcome::default()
    };
    if req.fork {
        return fork(req, &file, meta.len(), &session_id, &path, outcome);
    }
    if req.dry_run {
        let pass = slim_lines(&file, meta.len(), &req.settings, None, None, &path)?;
        fill(&mut outcome, &pass, meta.len() - pass.bytes_read);
        return Ok(outcome);
    }
    let mode = platform::mode(&meta);
    let tmp = temp_path(&path)
        .ok_or_else(|| Error::write_failed(&path, &std::io::ErrorKind::InvalidInput.into()))?;
    let result = (|| -> Result<SlimOutcome> {
        let mut writer = stream::temp_writer(&tmp, mode)?;
        // Whole lines only: a last line without its newline is carried
        // below, as it is.
        let pass = slim_lines(
            &file,
            meta.len(),
            &req.settings,
            None,
            Some(&mut writer),
            &path,
        )?;
        let whole = pass.bytes_read;
        check_same(&pass, &path, true)?;
        fill(&mut outcome, &pass, 0);
        if !outcome.changed {
            return Ok(outcome);
        }
        let (mut consumed, mut carried) = carry_appends(&file, &path, whole, &mut writer)?;
        let mut new = finish(writer, &tmp)?;
        // The backup is the original itself: a hard link to the inode read,
        // which the rename detaches from the live name (a copy where links
        // fail).
        let backup = new_backup_path(&path);
        let linked = fs::hard_link(&path, &backup).is_ok()
            && platform::path_id(&backup).ok() == platform::file_id(&file).ok();
        if !linked {
            let _ = fs::remove_file(&backup);
            fs::copy(&path, &backup).map_err(|e| Error::write_failed(&backup, &e))?;
        }
        // What was appended while the copy was flushed to disk, until a look
        // finds nothing new: the rename follows that look at once, so that a
        // writer's next line lands after every line before it.
        loop {
            let (now, more) = match carry_appends(&file, &path, consumed, &mut new) {
                Ok(found) => found,
                Err(e) => {
                    let _ = fs::remove_file(&backup);
                    return Err(e);
                }
            };
            if now == consumed {
                break;
            }
            (consumed, carried) = (now, carried + more);
            new.sync_all().map_err(|e| Error::write_failed(&tmp, &e))?;
        }
        outcome.appended_lines_kept = carried;
        outcome.size_after += consumed - whole;
        outcome.size_original = consumed;
        if carried == 0 {
            // Listed where it was: the resume picker sorts by this time.
            if let Ok(t) = meta.modified() {
                let _ = new.set_modified(t);
            }
        }
        if let Err(e) = commit_temp(&tmp, &path) {
            let _ = fs::remove_file(&backup);
            return Err(e);
        }
        outcome.backup_path = Some(backup);
        // Lines written to the old file between the last look and the rename.
        let late = late_appends(&file, consumed).map_err(|e| Error::write_failed(&path, &e))?;
        if !late.is_empty() {
            let mut out =
                platform::open_append(&path, mode).map_err(|e| Error::write_failed(&path, &e))?;
            out.write_all(&late)
                .and_then(|()| out.sync_all())
                .map_err(|e| Error::write_failed(&path, &e))?;
            outcome.appended_lines_kept += late.iter().filter(|&&b| b == b'\n').count() as u64;
            outcome.size_after += late.len() as u64;
        }
        rotate(&path, req.backups_to_keep);
        Ok(outcome)
    })();
    let _ = fs::remove_file(&tmp);
    result
}

/// Fills the outcome's figures from a pass; `partial` bytes of an
/// unterminated last line are counted on both sides.
fn fill(outcome: &mut SlimOutcome, pass: &stream::Pass, partial: u64) {
    outcome.stats = pass.stats.clone();
    outcome.changed = pass.stats != SlimStats::default();
    outcome.size_original = pass.bytes_read + partial;
    outcome.size_after = pass.bytes_written + partial;
    outcome.estimated_input_tokens_saved = pass.stats.message_bytes_saved / BYTES_PER_TOKEN;
}

/// Refuses (`E_INTERNAL`, nothing renamed) when the slimmed lines would
/// tell discovery something else than the original.
fn check_same(pass: &stream::Pass, path: &Path, with_usage: bool) -> Result<()> {
    if discovery_view(&pass.before, with_usage) == discovery_view(&pass.after, with_usage) {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::Internal,
        format!(
            "slimming {} would change what discovery reads of it: {:?} became {:?}",
            path.display(),
            discovery_view(&pass.before, with_usage),
            discovery_view(&pass.after, with_usage)
        ),
    )
    .with_hint("nothing was changed; this is a bug in openclaw-session-intel, please report it"))
}

/// Writes the slimmed copy as a new session beside the original.
fn fork(
    req: &SlimRequest,
    file: &File,
    len: u64,
    session_id: &str,
    path: &Path,
    mut outcome: SlimOutcome,
) -> Result<SlimOutcome> {
    let new_id = uuid::Uuid::new_v4().to_string();
    let old_field = format!(r#""sessionId":"{session_id}""#);
    let new_field = format!(r#""sessionId":"{new_id}""#);
    let billed_to = format!(r#"{{"requestSessionId":"{session_id}","#);
    // Every line re-stamped with the new id; each copied response names the
    // session it was billed to, as the CLI's own forks do (so discovery
    // counts its tokens once, under the original).
    let restamp = |line: &[u8]| -> Option<Vec<u8>> {
        let mut out = memchr::memmem::find(line, old_field.as_bytes()).map(|_| {
            String::from_utf8_lossy(line)
                .replace(&old_field, &new_field)
                .into_bytes()
        });
        let current = out.as_deref().unwrap_or(line);
        let response = crate::json_scan::field(current, b"type") == Some(b"\"assistant\"")
            && crate::json_scan::field(current, b"requestSessionId").is_none()
            && current.starts_with(b"{");
        if response {
            let mut stamped = billed_to.clone().into_bytes();
            stamped.extend_from_slice(&current[1..]);
            out = Some(stamped);
        }
        out
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let fork_path = dir.join(format!("{new_id}.jsonl"));
    let mode = platform::mode(&file.metadata().map_err(|e| Error::write_failed(path, &e))?);
    let tmp = temp_path(&fork_path)
        .ok_or_else(|| Error::write_failed(path, &std::io::ErrorKind::InvalidInput.into()))?;
    let result = (|| -> Result<()> {
        let mut writer = if req.dry_run {
            None
        } else {
            Some(temp_writer(&tmp, mode)?)
        };
        let pass = slim_lines(
            file,
            len,
            &req.settings,
            Some(&restamp),
            writer.as_mut().map(|w| w as &mut (dyn Write + Send)),
            path,
        )?;
        check_same(&pass, path, false)?;
        fill(&mut outcome, &pass, 0);
        let base = pass
            .before
            .custom_title
            .clone()
            .or_else(|| pass.before.ai_title.clone())
            .or_else(|| pass.before.first_prompt.clone())
            .unwrap_or_else(|| session_id.to_owned());
        let title = req
            .fork_title
            .clone()
            .unwrap_or_else(|| format!("{base} (slimmed)"));
        let title_line = serde_json::json!({
            "type": "custom-title",
            "customTitle": title,
            "sessionId": new_id,
            "slimmedFrom": session_id,
        });
        let mut title_bytes = serde_json::to_vec(&title_line)
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        title_bytes.push(b'\n');
        outcome.size_after += title_bytes.len() as u64;
        outcome.fork_session_id = Some(new_id.clone());
        outcome.fork_title = Some(title);
        outcome.changed = true;
        if let Some(mut w) = writer {
            w.write_all(&title_bytes)
                .map_err(|e| Error::write_failed(&tmp, &e))?;
            finish(w, &tmp)?;
            if fork_path.exists() {
                return Err(Error::new(
                    ErrorCode::WriteFailed,
                    format!("{} exists", fork_path.display()),
                ));
            }
            commit_temp(&tmp, &fork_path)?;
            outcome.fork_path = Some(fork_path.clone());
        }
        Ok(())
    })();
    let _ = fs::remove_file(&tmp);
    result.map(|()| outcome)
}

/// Puts back the newest backup of a session slimmed in place, byte for
/// byte, keeping what it replaces as a backup (so a second restore undoes
/// the first). Refused while a CLI process runs the session.
pub fn restore_claude_session(
    session: &SessionRef,
    backups_to_keep: usize,
) -> Result<SlimRestoreOutcome> {
    let (session_id, path) = locate(session)?;
    let config = claude_config_dir(session.claude_config_dir.as_deref());
    refuse_running(&config, &session_id, "restored")?;
    let newest = backups_of(&path).pop().ok_or_else(|| {
        Error::new(
            ErrorCode::NoBackup,
            format!(
                "Claude Code session {session_id} has no backup beside {}",
                path.display()
            ),
        )
        .with_hint("only a session slimmed in place has one")
    })?;
    let tmp = temp_path(&path)
        .ok_or_else(|| Error::write_failed(&path, &std::io::ErrorKind::InvalidInput.into()))?;
    let result = (|| -> Result<PathBuf> {
        fs::copy(&newest, &tmp).map_err(|e| Error::write_failed(&tmp, &e))?;
        let copy = File::options()
            .write(true)
            .open(&tmp)
            .map_err(|e| Error::write_failed(&tmp, &e))?;
        if let Ok(t) = fs::metadata(&newest).and_then(|m| m.modified()) {
            let _ = copy.set_modified(t);
        }
        copy.sync_all().map_err(|e| Error::write_failed(&tmp, &e))?;
        let replaced = new_backup_path(&path);
        fs::hard_link(&path, &replaced)
            .or_else(|_| fs::copy(&path, &replaced).map(|_| ()))
            .map_err(|e| Error::write_failed(&replaced, &e))?;
        if let Err(e) = commit_temp(&tmp, &path) {
            let _ = fs::remove_file(&replaced);
            return Err(e);
        }
        Ok(replaced)
    })();
    let _ = fs::remove_file(&tmp);
    let replaced = result?;
    rotate(&path, backups_to_keep);
    Ok(SlimRestoreOutcome {
        session_id,
        path,
        restored_from: newest,
        replaced_backup: replaced,
    })
}

/// What slimming `path` with `settings` would save, without writing:
/// `(bytes, estimated input tokens per resumed turn)`.
pub fn savings(path: &Path, settings: &SlimSettings) -> Result<(u64, u64)> {
    let file = File::open(path).map_err(|e| Error::write_failed(path, &e))?;
    let len = file
        .metadata()
        .map_err(|e| Error::write_failed(path, &e))?
        .len();
    let pass = slim_lines(&file, len, settings, None, None, path)?;
    Ok((
        pass.bytes_read.saturating_sub(pass.bytes_written),
        pass.stats.message_bytes_saved / BYTES_PER_TOKEN,
    ))
}
