//! Which Claude Code session a spawn made: the transcript whose first
//! lines carry the spawn's nonce in their origin marker.

use crate::claude_code::layout::paths::project_dirs_for_repo;
use crate::repo_path::RepoPath;
use std::fs;
use std::io::Read;
use std::path::Path;
use std::time::SystemTime;

/// How much of a transcript's start is searched for the nonce: the first
/// prompt is within the first lines.
const HEAD_BYTES: u64 = 256 * 1024;

/// The id of the Claude Code session whose transcript, in the project
/// folders of `cwd` under `claude_dir`, carries `spawn=<nonce>` in its
/// first lines, among those written at or after `since` (`None`: any).
/// `None` when there is none yet.
pub fn find_spawned_session(
    claude_dir: &Path,
    cwd: &str,
    nonce: &str,
    since: Option<SystemTime>,
) -> Option<String> {
    if nonce.is_empty() {
        return None;
    }
    let needle = format!("spawn={nonce}]");
    let needle_mid = format!("spawn={nonce},");
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let finder_mid = memchr::memmem::Finder::new(needle_mid.as_bytes());
    let projects = claude_dir.join("projects");
    for dir in project_dirs_for_repo(&projects, &RepoPath::resolve(cwd)) {
        let Ok(entries) = fs::read_dir(&dir.path) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".jsonl")) else {
                continue;
            };
            let recent = since.is_none_or(|since| {
                entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| t >= since)
            });
            if !recent {
                continue;
            }
            let mut head = Vec::new();
            let read = fs::File::open(entry.path())
                .and_then(|f| f.take(HEAD_BYTES).read_to_end(&mut head));
            if read.is_ok() && (finder.find(&head).is_some() || finder_mid.find(&head).is_some()) {
                return Some(id.to_owned());
            }
        }
    }
    None
}
