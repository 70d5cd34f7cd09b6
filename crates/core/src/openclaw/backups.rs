//! Backups of transcripts taken before every edit and restore, under
//! OpenClaw's own archive name `<name>.jsonl.bak.<ISO time with dashes>`
//! (a name OpenClaw never mistakes for a live transcript), newest first
//! kept. JSONL transcripts keep theirs beside the file; SQLite sessions
//! keep theirs, as JSONL exports, in `<state>/agents/<agent>/session-intel-backups/`
//! (outside `sessions/`, where a legacy store would block OpenClaw).

use std::fs;
use std::path::{Path, PathBuf};

/// How many backups of a transcript are kept by default.
pub const DEFAULT_BACKUPS: usize = 5;

/// The folder of an agent's SQLite session backups.
pub fn sqlite_backup_dir(state_dir: &Path, agent_id: &str) -> PathBuf {
    state_dir
        .join("agents")
        .join(agent_id)
        .join("session-intel-backups")
}

/// `<base>.bak.<now>`, with `-<n>` added when that name is taken.
pub fn new_backup_path(base: &Path) -> PathBuf {
    let stamp = chrono::Utc::now().format("%Y-%m-%dT%H-%M-%S%.3fZ");
    let mut name = base.as_os_str().to_owned();
    name.push(format!(".bak.{stamp}"));
    let mut candidate = PathBuf::from(&name);
    let mut n = 1;
    while candidate.exists() {
        candidate = PathBuf::from(format!("{}-{n}", name.to_string_lossy()));
        n += 1;
    }
    candidate
}

/// The backups of `base` (`<base>.bak.<time>`), oldest first.
pub fn backups_of(base: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (base.parent(), base.file_name()) else {
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

/// Removes all but the newest `keep` (at least one) backups of `base`.
pub fn rotate(base: &Path, keep: usize) {
    let all = backups_of(base);
    for old in &all[..all.len().saturating_sub(keep.max(1))] {
        let _ = fs::remove_file(old);
    }
}
