//! Slimming a large transcript before the continuation resumes it
//! (`slimOverMb`): the session re-sends its whole transcript on every turn,
//! so one grown over the threshold is slimmed in place first
//! ([`crate::slim`]), when its CLI is not running and the slim fits the
//! pre-flight's time; the briefing then says what was cut.

use crate::claude_code::DiscoveredSession;
use crate::slim::{self, human_bytes, SessionRef, SlimRequest};
use std::path::PathBuf;
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
    };
    let needed = std::time::Duration::from_millis(size * 1000 / SLIM_BYTES_PER_SEC);
    if deadline.is_some_and(|d| Instant::now() + needed > d) {
        out.skipped = Some(format!(
            "slimming {} would take longer than the pre-flight has left",
            human_bytes(size)
        ));
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
