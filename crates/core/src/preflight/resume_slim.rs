//! Slimming a large transcript before the continuation resumes it
//! (`slimOverMb`): the session re-sends its whole transcript on every turn,
//! so one grown over the threshold is slimmed in place first
//! ([`crate::slim`]), when its CLI is not running and the slim fits the
//! pre-flight's time; the briefing then says what was cut. One that does
//! not fit is marked `deferred`: the host slims it once this run has ended,
//! in the background, and the briefing of the resume after says what that
//! slim cut (read from the backup it left).

use crate::claude_code::DiscoveredSession;
use crate::openclaw::backups::backups_of;
use crate::slim::{self, human_bytes, SessionRef, SlimRequest};
use chrono::{DateTime, NaiveDateTime, Utc};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Bytes a slim is taken to get through per second when deciding whether
/// it fits what is left of the pre-flight's time (a fraction of what it
/// does on a laptop, so that a slower disk still fits).
const SLIM_BYTES_PER_SEC: u64 = 100 << 20;

/// What the continuation did about a large transcript before resuming it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeSlim {
    /// The session resumed.
    pub session_id: String,
    /// Bytes of its transcript before.
    pub size_original: u64,
    /// Bytes of its transcript after (the same when it was not slimmed).
    pub size_after: u64,
    /// Why it was not slimmed (its CLI is running, not enough time left, an
    /// error); absent when it was.
    pub skipped: Option<String>,
    /// Where the original transcript was kept (`restoreClaudeSession` puts
    /// it back).
    pub backup_path: Option<String>,
    /// What the briefing says about it (absent when it was not slimmed).
    pub briefing_line: Option<String>,
    /// The slim did not fit the pre-flight's time: the host slims the
    /// session once this run has ended (`slimClaudeSession`, in the
    /// background), before it is resumed again.
    pub deferred: bool,
}

/// Slims `session`'s transcript in place when it is over `over_bytes`, with
/// the `default` preset, unless it would not finish by `deadline`. `None`
/// when the transcript is not over the threshold.
pub fn slim_before_resume(
    session: &DiscoveredSession,
    over_bytes: u64,
    claude_config_dir: Option<PathBuf>,
    deadline: Option<Instant>,
) -> Option<ResumeSlim> {
    if let Some(earlier) = slimmed_since_last_run(session) {
        return Some(earlier);
    }
    let size = session.file_size_bytes;
    if size <= over_bytes {
        return None;
    }
    let mut out = ResumeSlim {
        session_id: session.session_id.clone(),
        size_original: size,
        size_after: size,
        skipped: None,
        backup_path: None,
        briefing_line: None,
        deferred: false,
    };
    let needed = std::time::Duration::from_millis(size * 1000 / SLIM_BYTES_PER_SEC);
    if deadline.is_some_and(|d| Instant::now() + needed > d) {
        out.skipped = Some(format!(
            "slimming {} would take longer than the pre-flight has left; it is slimmed once this run has ended",
            human_bytes(size)
        ));
        out.deferred = true;
        return Some(out);
    }
    let mut request = SlimRequest::new(&session.session_id);
    request.session = SessionRef {
        session_id: session.session_id.clone(),
        claude_config_dir,
        repo: None,
    };
    match slim::slim_claude_session(&request) {
        Err(e) => out.skipped = Some(e.message),
        Ok(done) if !done.changed => out.skipped = Some("nothing to cut".into()),
        Ok(done) => {
            let s = &done.stats;
            out.size_after = done.size_after;
            out.backup_path = done.backup_path.map(|p| p.to_string_lossy().into_owned());
            out.briefing_line = Some(format!(
                "This session's transcript was slimmed before it was resumed ({} → {}): {} image(s) were replaced by a placeholder and {} long tool output(s) cut to their head and tail. Read a file or run a command again when you need its full content.",
                human_bytes(done.size_original),
                human_bytes(done.size_after),
                s.images_removed,
                s.tool_results_cut,
            ));
        }
    }
    Some(out)
}

/// What a slim made since the session last ran (the host's in the
/// background after its last run, or a person's): its newest backup, when
/// it is newer than the session's last line and larger than the transcript
/// now. A restore leaves a smaller backup, so it does not count.
fn slimmed_since_last_run(session: &DiscoveredSession) -> Option<ResumeSlim> {
    let path = PathBuf::from(session.transcript_path.as_deref()?);
    let backup = backups_of(&path).pop()?;
    let made = backup_time(&backup)?;
    if session.last_activity.is_some_and(|last| last >= made) {
        return None;
    }
    let size_original = std::fs::metadata(&backup).ok()?.len();
    let size_after = session.file_size_bytes;
    if size_original <= size_after {
        return None;
    }
    Some(ResumeSlim {
        session_id: session.session_id.clone(),
        size_original,
        size_after,
        skipped: None,
        backup_path: Some(backup.to_string_lossy().into_owned()),
        briefing_line: Some(format!(
            "This session's transcript was slimmed since it last ran ({} → {}): images were replaced by a placeholder and long tool outputs cut to their head and tail. Read a file or run a command again when you need its full content.",
            human_bytes(size_original),
            human_bytes(size_after),
        )),
        deferred: false,
    })
}

/// When a backup was made, from its name (`<transcript>.bak.<time>`, a
/// `-<n>` after the time when two were made in one millisecond).
fn backup_time(backup: &Path) -> Option<DateTime<Utc>> {
    let name = backup.file_name()?.to_str()?;
    let stamp = name.rsplit_once(".bak.")?.1;
    let stamp = stamp.get(..24).unwrap_or(stamp);
    NaiveDateTime::parse_from_str(stamp, "%Y-%m-%dT%H-%M-%S%.3fZ")
        .ok()
        .map(|t| t.and_utc())
}
