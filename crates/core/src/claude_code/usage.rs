//! Token usage, counted once per API response.
//!
//! Claude Code writes one line per content block, each repeating the whole
//! response's `usage`; only the last carries the final `output_tokens`.
//! Subagent lines are also mirrored into the parent as `agent_progress`
//! copies. Counting each line would inflate input and cache counts 2-4x, so
//! lines are grouped by (`message.id`, `requestId`) — or (`message.id`,
//! `sessionId`) without a request id — and each group counts once, with the
//! largest `output_tokens` seen (research: claude-code-jsonl.md §4).

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The four counters of one response.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
}

impl Usage {
    /// What the prompt of this response held: input plus both cache counts.
    pub fn prompt_tokens(&self) -> u64 {
        self.input
            .saturating_add(self.cache_creation)
            .saturating_add(self.cache_read)
    }

    /// Both counts added, each stopping at `u64::MAX` (a hostile transcript
    /// can claim any count; no sum of them may wrap or panic).
    fn plus(self, other: Usage) -> Usage {
        Usage {
            input: self.input.saturating_add(other.input),
            output: self.output.saturating_add(other.output),
            cache_creation: self.cache_creation.saturating_add(other.cache_creation),
            cache_read: self.cache_read.saturating_add(other.cache_read),
        }
    }
}

/// One response's usage and whether it was only ever seen on sidechain lines.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Group {
    usage: Usage,
    sidechain: bool,
}

/// Usage of the lines of one or more files, deduplicated by response.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct UsageGroups {
    /// Keyed by a 128-bit hash of the response key: a fraction of the memory
    /// of the strings, for state that grows with the number of responses.
    /// (foldhash: randomly seeded like std's, and several times faster to
    /// fill, which a process loading the persistent cache does for every
    /// response of every file.)
    groups: HashMap<u128, Group, foldhash::fast::RandomState>,
    /// Lines with usage but no `message.id`: nothing to group them by.
    ungrouped: Usage,
}

impl UsageGroups {
    /// Records one line's usage. `key` is the response key (see
    /// [`response_key`]); `None` counts the line on its own.
    pub fn add(&mut self, key: Option<u128>, usage: Usage, sidechain: bool) {
        let Some(key) = key else {
            self.ungrouped = self.ungrouped.plus(usage);
            return;
        };
        let incoming = Group { usage, sidechain };
        self.groups
            .entry(key)
            .and_modify(|g| g.merge(incoming))
            .or_insert(incoming);
    }

    /// Folds another file's groups in (a subagent file into its parent).
    pub fn merge(&mut self, other: &UsageGroups) {
        for (key, group) in &other.groups {
            match self.groups.get_mut(key) {
                Some(g) => g.merge(*group),
                None => {
                    self.groups.insert(*key, *group);
                }
            }
        }
        self.add(None, other.ungrouped, false);
    }

    /// The deduplicated totals.
    pub fn totals(&self) -> Usage {
        self.groups
            .values()
            .fold(self.ungrouped, |total, g| total.plus(g.usage))
    }

    /// Number of distinct responses.
    pub fn responses(&self) -> usize {
        self.groups.len()
    }
}

impl Group {
    fn merge(&mut self, other: Group) {
        // A main-chain copy is authoritative for the prompt-side counters
        // (a `/btw` replay on a sidechain repeats them).
        if self.sidechain && !other.sidechain {
            let output = self.usage.output.max(other.usage.output);
            self.usage = other.usage;
            self.usage.output = output;
            self.sidechain = false;
        } else {
            self.usage.output = self.usage.output.max(other.usage.output);
        }
    }
}

/// The grouping key of a response: `message.id` with `requestId`, else with
/// the line's `sessionId`, hashed to 128 bits (XXH3, a fixed algorithm:
/// keys are kept on disk by the persistent scan cache and must be the same
/// in every build). `None` when there is no message id.
pub fn response_key(
    message_id: Option<&str>,
    request_id: Option<&str>,
    session_id: Option<&str>,
) -> Option<u128> {
    let id = message_id.filter(|s| !s.is_empty())?;
    let (tag, other) = match request_id.filter(|s| !s.is_empty()) {
        Some(req) => (b'r', req),
        None => (b's', session_id.unwrap_or("")),
    };
    let mut key = xxhash_rust::xxh3::Xxh3::new();
    key.update(id.as_bytes());
    key.update(&[0, tag]);
    key.update(other.as_bytes());
    Some(key.digest128())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(input: u64, output: u64, cc: u64, cr: u64) -> Usage {
        Usage {
            input,
            output,
            cache_creation: cc,
            cache_read: cr,
        }
    }

    /// Found while writing the transcript_fold fuzz target: counts near `u64::MAX`
    /// (any number a hostile line claims) wrapped or panicked when summed.
    #[test]
    fn claimed_counts_beyond_u64_stop_at_the_maximum() {
        let mut g = UsageGroups::default();
        let huge = u(u64::MAX - 1, u64::MAX, u64::MAX, 5);
        g.add(None, huge, false);
        g.add(None, huge, false);
        g.add(Some(1), huge, false);
        assert_eq!(g.totals(), u(u64::MAX, u64::MAX, u64::MAX, 15));
        assert_eq!(huge.prompt_tokens(), u64::MAX);
    }

    fn add(
        g: &mut UsageGroups,
        id: Option<&str>,
        req: Option<&str>,
        session: Option<&str>,
        usage: Usage,
        sidechain: bool,
    ) {
        g.add(response_key(id, req, session), usage, sidechain);
    }

    #[test]
    fn one_response_over_many_lines_counts_once_with_max_output() {
        let mut g = UsageGroups::default();
        for out in [10, 10, 441, 10] {
            add(
                &mut g,
                Some("msg_1"),
                Some("req_1"),
                Some("s"),
                u(3, out, 8165, 17842),
                false,
            );
        }
        assert_eq!(g.totals(), u(3, 441, 8165, 17842));
        assert_eq!(g.responses(), 1);
    }

    #[test]
    fn falls_back_to_session_id_and_counts_idless_lines_alone() {
        let mut g = UsageGroups::default();
        add(&mut g, Some("m"), None, Some("s1"), u(1, 1, 0, 0), false);
        add(&mut g, Some("m"), None, Some("s1"), u(1, 5, 0, 0), false);
        add(&mut g, Some("m"), None, Some("s2"), u(1, 1, 0, 0), false);
        add(&mut g, None, Some("r"), Some("s1"), u(2, 2, 0, 0), false);
        add(&mut g, None, Some("r"), Some("s1"), u(2, 2, 0, 0), false);
        assert_eq!(g.totals(), u(6, 10, 0, 0));
    }

    #[test]
    fn merging_subagent_files_dedupes_progress_copies() {
        let mut parent = UsageGroups::default();
        add(
            &mut parent,
            Some("a"),
            Some("r"),
            None,
            u(5, 3, 100, 0),
            true,
        );
        let mut sub = UsageGroups::default();
        add(&mut sub, Some("a"), Some("r"), None, u(5, 7, 100, 0), true);
        add(&mut sub, Some("b"), Some("r2"), None, u(1, 1, 1, 1), true);
        parent.merge(&sub);
        assert_eq!(parent.totals(), u(6, 8, 101, 1));
    }

    #[test]
    fn main_chain_copy_wins_over_sidechain_replay() {
        let mut g = UsageGroups::default();
        add(&mut g, Some("a"), Some("r"), None, u(9, 2, 999, 999), true);
        add(&mut g, Some("a"), Some("r"), None, u(1, 1, 10, 10), false);
        assert_eq!(g.totals(), u(1, 2, 10, 10));
    }
}
