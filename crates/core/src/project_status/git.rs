//! Branch, HEAD, recent commits and stashes, read in-process with libgit2.

use super::relative_date::relative_date;
use super::short_status::ShortStatus;
use super::working_tree::short_status;
use git2::{ErrorCode as GitErrorCode, Repository, Sort};
use std::path::Path;

/// One commit of `recentCommits`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecentCommit {
    /// Abbreviated as `git log --format=%h` does.
    pub sha: String,
    /// Subject line (`%s`), `|` and all.
    pub message: String,
    /// Author name (`%an`).
    pub author: String,
    /// Relative author date, worded as git's `%ar` (e.g. `2 hours ago`).
    pub date: String,
}

/// What git says about the repository.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitState {
    /// The current branch (`git branch --show-current`); `""` when HEAD is
    /// detached.
    pub current_branch: String,
    /// HEAD's commit id, abbreviated as `git log --format=%h` does (`""`
    /// without a commit).
    pub head_commit_sha: String,
    /// HEAD's subject line (`%s`).
    pub head_commit_message: String,
    /// `git status --short`, by kind of change.
    pub status: ShortStatus,
    /// Entries of `git stash list`.
    pub stash_count: u32,
    /// The last ten commits reachable from HEAD, newest first.
    pub recent_commits: Vec<RecentCommit>,
}

/// Number of commits in `recentCommits`.
const RECENT_COMMITS: usize = 10;

/// Reads the git state of `repo`; `now` (Unix seconds) words the dates.
/// Parts git itself could not produce are left empty, as `git` would print nothing.
pub fn read_git_state(repo: &Repository, now: i64) -> GitState {
    GitState {
        status: short_status(repo).unwrap_or_default(),
        ..read_git_history(repo, now)
    }
}

/// [`read_git_state`] but for the working tree's status (left empty): the
/// branch, HEAD, stashes and recent commits, which take milliseconds
/// whatever the size of the work tree.
pub fn read_git_history(repo: &Repository, now: i64) -> GitState {
    let mut state = GitState {
        current_branch: current_branch(repo),
        stash_count: repo
            .reflog("refs/stash")
            .map(|r| r.len() as u32)
            .unwrap_or(0),
        ..GitState::default()
    };
    let Ok(head) = repo.head().and_then(|h| h.peel_to_commit()) else {
        return state; // unborn or broken HEAD
    };
    let abbrev = abbrev_len(repo);
    state.head_commit_sha = short_sha(repo, head.id(), abbrev);
    state.head_commit_message = subject(&head);
    if let Ok(mut walk) = repo.revwalk() {
        let _ = walk.set_sorting(Sort::TIME);
        if walk.push(head.id()).is_ok() {
            for oid in walk.flatten().take(RECENT_COMMITS) {
                let Ok(commit) = repo.find_commit(oid) else {
                    continue;
                };
                let author = commit.author();
                state.recent_commits.push(RecentCommit {
                    sha: short_sha(repo, oid, abbrev),
                    message: subject(&commit),
                    author: String::from_utf8_lossy(author.name_bytes()).into_owned(),
                    date: relative_date(author.when().seconds(), now),
                });
            }
        }
    }
    state
}

/// `%s`: the first paragraph of the message with its line breaks folded.
fn subject(commit: &git2::Commit<'_>) -> String {
    let raw = String::from_utf8_lossy(commit.message_bytes());
    let first = raw
        .trim_start_matches('\n')
        .split("\n\n")
        .next()
        .unwrap_or("");
    first
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join(" ")
        .trim()
        .to_owned()
}

fn current_branch(repo: &Repository) -> String {
    let Ok(head) = repo.find_reference("HEAD") else {
        return String::new();
    };
    match head.symbolic_target_bytes() {
        Some(target) => {
            String::from_utf8_lossy(target.strip_prefix(b"refs/heads/").unwrap_or(b"")).into_owned()
        }
        None => String::new(), // detached
    }
}

/// git's abbreviation length: `core.abbrev`, else the automatic length that
/// grows with the number of packed objects (at least 7).
fn abbrev_len(repo: &Repository) -> usize {
    if let Ok(config) = repo.config() {
        if let Ok(n) = config.get_i32("core.abbrev") {
            if (4..=40).contains(&n) {
                return n as usize;
            }
        }
    }
    let count = packed_object_count(&repo.path().join("objects").join("pack"));
    if count == 0 {
        return 7;
    }
    let bits = 64 - count.leading_zeros() as usize; // msb + 1
    bits.div_ceil(2).max(7)
}

/// Objects in the pack indexes (the count git's automatic abbreviation uses).
fn packed_object_count(pack_dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(pack_dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "idx"))
        .filter_map(|e| {
            let bytes = std::fs::read(e.path()).ok()?;
            // v2 index: magic, version, 256 big-endian fan-out entries; the last is the total.
            let at = if bytes.starts_with(b"\xfftOc") {
                8 + 255 * 4
            } else {
                255 * 4
            };
            let total = bytes.get(at..at + 4)?;
            Some(u32::from_be_bytes(total.try_into().ok()?) as u64)
        })
        .sum()
}

/// The shortest prefix of `oid` of at least `min` digits that no other
/// object shares (as git's `%h`: objects only, refs play no part).
fn short_sha(repo: &Repository, oid: git2::Oid, min: usize) -> String {
    let full = oid.to_string();
    let Ok(odb) = repo.odb() else {
        return full[..min.min(full.len())].to_owned();
    };
    for len in min..full.len() {
        let unique =
            git2::Oid::from_str(&full[..len]).and_then(|prefix| odb.exists_prefix(prefix, len));
        match unique {
            Err(e) if e.code() == GitErrorCode::Ambiguous => continue,
            _ => return full[..len].to_owned(),
        }
    }
    full
}
