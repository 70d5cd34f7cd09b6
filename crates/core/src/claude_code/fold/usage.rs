//! Token usage, counted once per API response.
//!
//! Claude Code writes one line per content block, each repeating the whole
//! response's `usage`; only the last carries the final `output_tokens`.
//! Subagent lines are also mirrored into the parent as `agent_progress`
//! copies. Counting each line would inflate input and cache counts 2-4x, so
//! lines are grouped by (`message.id`, `requestId`) — or (`message.id`,
//! `sessionId`) without a request id — and each group counts once, with the
//! largest `output_tokens` seen (docs/formats.md, "Usage: one count per API
//! response").

use super::fixed128::Fixed128;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The four counters of one response.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// `input_tokens`: prompt tokens not read from or written to the cache.
    pub input: u64,
    /// `output_tokens`.
    pub output: u64,
    /// `cache_creation_input_tokens`: prompt tokens written to the cache.
    pub cache_creation: u64,
    /// `cache_read_input_tokens`: prompt tokens read from the cache.
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
    pub fn plus(self, other: Usage) -> Usage {
        Usage {
            input: self.input.saturating_add(other.input),
            output: self.output.saturating_add(other.output),
            cache_creation: self.cache_creation.saturating_add(other.cache_creation),
            cache_read: self.cache_read.saturating_add(other.cache_read),
        }
    }
}

impl Usage {
    /// `self` less `other`, each count stopping at 0.
    pub fn minus(self, other: Usage) -> Usage {
        Usage {
            input: self.input.saturating_sub(other.input),
            output: self.output.saturating_sub(other.output),
            cache_creation: self.cache_creation.saturating_sub(other.cache_creation),
            cache_read: self.cache_read.saturating_sub(other.cache_read),
        }
    }
}

/// One response's usage and whether it was only ever seen on sidechain lines.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct Group {
    usage: Usage,
    sidechain: bool,
}

/// Usage of the lines of one or more files, deduplicated by response.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageGroups {
    groups: Groups,
    /// Lines with usage but no `message.id`: nothing to group them by.
    ungrouped: Usage,
}

/// The responses' groups, keyed by a 128-bit hash of the response key: a
/// fraction of the memory of the strings, for state that grows with the
/// number of responses.
#[derive(Debug, Clone)]
enum Groups {
    /// Being folded: every line with usage looks its response up. (foldhash:
    /// randomly seeded like std's, and several times faster to fill.)
    Indexed(HashMap<u128, Group, foldhash::fast::RandomState>),
    /// As the persistent cache kept them, one key each: a fresh process loads
    /// every response of every file, and reading a list costs a fraction of
    /// filling a map. Indexed only if more lines are folded in.
    Listed(Vec<(u128, Group)>),
}

/// The same responses with the same usage, in either form.
impl PartialEq for Groups {
    fn eq(&self, other: &Self) -> bool {
        let map = |g: &Groups| g.pairs().collect::<HashMap<u128, Group>>();
        self.len() == other.len() && map(self) == map(other)
    }
}

impl Default for Groups {
    fn default() -> Self {
        Groups::Listed(Vec::new())
    }
}

/// Both forms are written as the same sequence of `(key, group)` pairs.
impl Serialize for Groups {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.pairs().map(|(key, group)| (Fixed128(key), group)))
    }
}

/// Read back as a list, its keys as unique as those of the map or list it
/// was written from.
impl<'de> Deserialize<'de> for Groups {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let pairs = Vec::<(Fixed128, Group)>::deserialize(d)?;
        Ok(Groups::Listed(
            pairs
                .into_iter()
                .map(|(key, group)| (key.0, group))
                .collect(),
        ))
    }
}

impl Groups {
    /// The groups as a map, built from the list the first time.
    fn indexed(&mut self) -> &mut HashMap<u128, Group, foldhash::fast::RandomState> {
        if let Groups::Listed(list) = self {
            let mut map = HashMap::with_capacity_and_hasher(list.len(), Default::default());
            for (key, group) in list.drain(..) {
                merge_into(&mut map, key, group);
            }
            *self = Groups::Indexed(map);
        }
        match self {
            Groups::Indexed(map) => map,
            Groups::Listed(_) => unreachable!("indexed just above"),
        }
    }

    fn len(&self) -> usize {
        match self {
            Groups::Indexed(map) => map.len(),
            Groups::Listed(list) => list.len(),
        }
    }

    /// Every `(key, group)`, in no particular order.
    fn pairs(&self) -> Box<dyn Iterator<Item = (u128, Group)> + '_> {
        match self {
            Groups::Indexed(map) => Box::new(map.iter().map(|(k, g)| (*k, *g))),
            Groups::Listed(list) => Box::new(list.iter().copied()),
        }
    }
}

/// Adds one sighting of response `key` to `map`.
fn merge_into(
    map: &mut HashMap<u128, Group, foldhash::fast::RandomState>,
    key: u128,
    group: Group,
) {
    map.entry(key)
        .and_modify(|g| g.merge(group))
        .or_insert(group);
}

impl UsageGroups {
    /// Records one line's usage. `key` is the response key (see
    /// [`response_key`]); `None` counts the line on its own.
    pub fn add(&mut self, key: Option<u128>, usage: Usage, sidechain: bool) {
        let Some(key) = key else {
            self.ungrouped = self.ungrouped.plus(usage);
            return;
        };
        merge_into(self.groups.indexed(), key, Group { usage, sidechain });
    }

    /// The deduplicated totals.
    pub fn totals(&self) -> Usage {
        self.groups
            .pairs()
            .fold(self.ungrouped, |total, (_, g)| total.plus(g.usage))
    }

    /// The deduplicated totals of several files' groups taken together (a
    /// main transcript first, then its subagents): a response seen in more
    /// than one counts once, as if every line had been folded in the order
    /// of `parts`. ([`Group::merge`] is associative: merging the first
    /// part's group with the others' merged group is the same.)
    pub fn merged_totals(parts: &[&UsageGroups]) -> Usage {
        let Some((first, rest)) = parts.split_first() else {
            return Usage::default();
        };
        // The subagents' responses: usually far fewer than the main file's,
        // which are only looked up.
        let mut others: HashMap<u128, Group, foldhash::fast::RandomState> =
            HashMap::with_capacity_and_hasher(
                rest.iter().map(|part| part.groups.len()).sum(),
                Default::default(),
            );
        for part in rest {
            for (key, group) in part.groups.pairs() {
                merge_into(&mut others, key, group);
            }
        }
        let ungrouped = parts
            .iter()
            .fold(Usage::default(), |t, p| t.plus(p.ungrouped));
        let mut total = ungrouped;
        for (key, group) in first.groups.pairs() {
            match others.get_mut(&key) {
                Some(later) => {
                    let mut merged = group;
                    merged.merge(*later);
                    *later = merged;
                }
                None => total = total.plus(group.usage),
            }
        }
        others.values().fold(total, |t, g| t.plus(g.usage))
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
        assert_eq!(
            UsageGroups::merged_totals(&[&parent, &sub]),
            u(6, 8, 101, 1)
        );
    }

    /// What a fresh process does with a file's groups: reads them from the
    /// persistent cache (as a list), merges them with its subagents', and
    /// folds the lines appended since.
    #[test]
    fn groups_read_back_merge_and_fold_on_as_the_map_they_were_written_from() {
        let mut main = UsageGroups::default();
        add(&mut main, Some("a"), Some("r"), None, u(5, 3, 100, 0), true);
        add(&mut main, Some("b"), Some("r"), None, u(2, 2, 0, 0), false);
        main.add(None, u(1, 1, 1, 1), false);
        let mut sub = UsageGroups::default();
        add(&mut sub, Some("a"), Some("r"), None, u(5, 7, 100, 0), true);
        let round_trip = |g: &UsageGroups| -> UsageGroups {
            let bytes = postcard::to_allocvec(g).unwrap();
            let back: UsageGroups = postcard::from_bytes(&bytes).unwrap();
            assert!(matches!(back.groups, Groups::Listed(_)));
            assert_eq!(postcard::to_allocvec(&back).unwrap(), bytes, "one format");
            back
        };
        let (main_back, sub_back) = (round_trip(&main), round_trip(&sub));
        assert_eq!(main_back.totals(), main.totals());
        assert_eq!(main_back.responses(), 2);
        assert_eq!(
            UsageGroups::merged_totals(&[&main_back, &sub_back]),
            UsageGroups::merged_totals(&[&main, &sub])
        );
        assert_eq!(
            UsageGroups::merged_totals(&[&main_back, &sub_back]),
            u(8, 10, 101, 1)
        );
        // More lines: one more sighting of "b" and a new response.
        let mut grown = main_back;
        add(&mut grown, Some("b"), Some("r"), None, u(2, 9, 0, 0), false);
        add(&mut grown, Some("c"), Some("r"), None, u(1, 1, 0, 0), false);
        assert!(matches!(grown.groups, Groups::Indexed(_)));
        assert_eq!(grown.responses(), 3);
        assert_eq!(grown.totals(), u(9, 14, 101, 1));
    }

    /// Merging files' groups equals folding all their lines, in order, into
    /// one: for every mix of main-chain and sidechain sightings of a
    /// response across three files.
    #[test]
    fn merged_totals_equal_folding_every_line_in_order() {
        for mix in 0u32..(1 << 6) {
            let sighting = |i: u32| {
                let side = mix >> i & 1 == 1;
                (
                    u(
                        10 + i as u64,
                        [5, 9, 2, 7, 1, 3][i as usize],
                        100 * i as u64,
                        1,
                    ),
                    side,
                )
            };
            let mut parts: [UsageGroups; 3] = Default::default();
            let mut whole = UsageGroups::default();
            // Two sightings per file; the third file's second is another response.
            for i in 0..6 {
                let (usage, side) = sighting(i);
                let id = if i == 5 { "other" } else { "same" };
                add(
                    &mut parts[i as usize / 2],
                    Some(id),
                    Some("r"),
                    None,
                    usage,
                    side,
                );
                add(&mut whole, Some(id), Some("r"), None, usage, side);
            }
            let refs: Vec<&UsageGroups> = parts.iter().collect();
            assert_eq!(
                UsageGroups::merged_totals(&refs),
                whole.totals(),
                "mix {mix:06b}"
            );
        }
    }

    #[test]
    fn main_chain_copy_wins_over_sidechain_replay() {
        let mut g = UsageGroups::default();
        add(&mut g, Some("a"), Some("r"), None, u(9, 2, 999, 999), true);
        add(&mut g, Some("a"), Some("r"), None, u(1, 1, 10, 10), false);
        assert_eq!(g.totals(), u(1, 2, 10, 10));
    }
}
