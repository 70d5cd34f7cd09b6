//! What slimming a transcript with the `default` preset would save, added up
//! line by line in the discovery fold (docs/api/cleaning.md, "What a slim
//! would save"): the same figures [`crate::slim::savings`] gets from a pass
//! of its own.

use crate::slim::cuts::{measure_line, LineParts};
use crate::slim::rules::{preset, SlimSettings, BYTES_PER_TOKEN};
use std::collections::HashSet;
use std::sync::LazyLock;

/// The settings the figures are of.
static DEFAULT: LazyLock<SlimSettings> =
    LazyLock::new(|| preset("default").expect("the default preset exists"));

/// What a slim would save, so far. Kept in the persistent scan cache with
/// the rest of the fold.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SlimSavings {
    /// Bytes the transcript would lose.
    pub bytes: u64,
    /// Bytes of message content it would lose (what each resumed turn no
    /// longer sends).
    pub message_bytes: u64,
    /// Dropped lines whose nearest kept ancestor is none: a line naming one
    /// as its parent is re-linked to `null`, which is shorter than a uuid.
    #[serde(with = "super::fixed128::set")]
    rootless: HashSet<u128, foldhash::fast::RandomState>,
}

impl SlimSavings {
    /// Estimated input tokens every resumed turn would no longer send.
    pub fn tokens(&self) -> u64 {
        self.message_bytes / BYTES_PER_TOKEN
    }

    /// Adds one line: `parts`, its `uuid`, and the parents it names
    /// (`parentUuid`, `logicalParentUuid`): each its raw JSON and the uuid
    /// it holds.
    pub(super) fn note(
        &mut self,
        parts: &LineParts<'_>,
        uuid: Option<u128>,
        parents: [Option<(&[u8], Option<u128>)>; 2],
    ) {
        let saving = measure_line(parts, &DEFAULT);
        self.bytes += saving.bytes;
        self.message_bytes += saving.message_bytes;
        if saving.dropped {
            let rootless = match parents[0] {
                None | Some((b"null", _)) => true,
                Some((_, parent)) => self.is_rootless(parent),
            };
            if let (true, Some(uuid)) = (rootless, uuid) {
                self.rootless.insert(uuid);
            }
            return;
        }
        for (raw, parent) in parents.into_iter().flatten() {
            if self.is_rootless(parent) {
                self.bytes += raw.len().saturating_sub(b"null".len()) as u64;
            }
        }
    }

    fn is_rootless(&self, uuid: Option<u128>) -> bool {
        !self.rootless.is_empty() && uuid.is_some_and(|u| self.rootless.contains(&u))
    }
}
