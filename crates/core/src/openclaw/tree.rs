//! The active path of a transcript: the entries OpenClaw walks when it
//! builds the session's context, by the rules of its tree scan
//! (`scanSessionTranscriptNavigation`, the same in 2026.8.2 and 2026.9.6;
//! docs/formats.md, "The tree").
//!
//! Entries are read in order. The session header is not part of the tree.
//! Canonical entries (messages, compactions, resets, …) need an id; each
//! becomes the leaf unless appended with `appendMode: "side"`. A valid
//! `leaf` control record moves the leaf to its `targetId` (or to none).
//! Other records with an id and a `parentId` are opaque links: part of the
//! tree, never the leaf. A canonical entry's parent is normalised: after a
//! `reset`, a parent outside the reset's descendants is the current leaf
//! (and so is a leaf control's target: the path never goes back across a
//! reset); a parent that names no earlier entry is the current leaf; a
//! parent on a side chain is the current leaf. The path is the walk from
//! the leaf up the normalised parents, leaf controls skipped.
//!
//! Transcripts without ids (format v1) are linear: every entry is on it.

use std::collections::{HashMap, HashSet};

/// `parentId` as written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Parent<'a> {
    #[default]
    Absent,
    Null,
    Id(&'a str),
    /// Neither a string nor null.
    Invalid,
}

impl<'a> Parent<'a> {
    /// The parent id, when there is one.
    fn id(self) -> Option<&'a str> {
        match self {
            Parent::Id(p) => Some(p),
            _ => None,
        }
    }
}

/// The facts of one entry the tree needs.
#[derive(Debug, Clone, Copy, Default)]
pub struct TreeEntry<'a> {
    /// `type`; `None` for a line that is not a JSON object.
    pub kind: Option<&'a str>,
    pub id: Option<&'a str>,
    pub parent: Parent<'a>,
    /// `targetId` of a `leaf` record: `Some(None)` for null, `None` when
    /// absent or neither a string nor null.
    pub target: Option<Option<&'a str>>,
    /// `appendParentId` of a `leaf` record.
    pub append_parent: Option<&'a str>,
    /// `appendMode`, when it is a string.
    pub append_mode: Option<&'a str>,
}

/// Entry types OpenClaw indexes as session entries.
const CANONICAL: [&str; 10] = [
    "message",
    "thinking_level_change",
    "model_change",
    "compaction",
    "reset",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
];

/// The session header, which is not part of the tree.
fn is_header(e: &TreeEntry<'_>) -> bool {
    e.kind == Some("session")
}

fn non_blank(s: Option<&str>) -> Option<&str> {
    s.filter(|s| !s.trim().is_empty())
}

/// A node of the tree: its normalised parent, and whether it is a leaf
/// control (never on the path itself).
struct Node<'a> {
    index: usize,
    parent: Option<&'a str>,
    control: bool,
    /// An invalid leaf control: a node, but no leaf control may name it.
    invalid: bool,
}

impl<'a> Node<'a> {
    /// An entry of the transcript (not a leaf control).
    fn entry(index: usize, parent: Option<&'a str>) -> Self {
        Node {
            index,
            parent,
            control: false,
            invalid: false,
        }
    }
}

/// The indices of the entries on the active path, root first.
pub fn active_path(entries: &[TreeEntry<'_>]) -> Vec<usize> {
    Tree::read(entries).path()
}

/// A transcript's tree as OpenClaw normalises it while reading.
pub struct Tree<'a> {
    nodes: HashMap<&'a str, Node<'a>>,
    leaf: Option<&'a str>,
    /// Format v1 (no ids): the entries, in order, which are the path.
    linear: Option<Vec<usize>>,
}

impl<'a> Tree<'a> {
    /// Reads the entries in order, by the rules in the module docs.
    pub fn read(entries: &[TreeEntry<'a>]) -> Tree<'a> {
        if !entries
            .iter()
            .any(|e| !is_header(e) && non_blank(e.id).is_some())
        {
            // Format v1: a list, not a tree.
            let linear = entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.kind.is_some_and(|k| k != "session" && k != "leaf"))
                .map(|(i, _)| i)
                .collect();
            return Tree {
                nodes: HashMap::new(),
                leaf: None,
                linear: Some(linear),
            };
        }
        Self::read_nodes(entries)
    }

    /// Format v2 and later: entries with ids and parents.
    fn read_nodes(entries: &[TreeEntry<'a>]) -> Tree<'a> {
        let mut nodes: HashMap<&str, Node<'_>> = HashMap::new();
        let mut leaf: Option<&str> = None;
        let mut cursor: Option<&str> = None;
        let mut reset_descendants: Option<HashSet<&str>> = None;
        for (index, e) in entries.iter().enumerate() {
            let Some(kind) = e.kind.filter(|_| !is_header(e)) else {
                continue;
            };
            let side = e.append_mode == Some("side");
            if CANONICAL.contains(&kind) {
                let Some(id) = non_blank(e.id) else { continue };
                let parent = match e.parent {
                    Parent::Invalid => continue,
                    Parent::Absent => leaf,
                    Parent::Null | Parent::Id(_) => {
                        let raw = e.parent.id();
                        let outside_reset = reset_descendants
                            .as_ref()
                            .is_some_and(|d| raw.is_none_or(|p| !d.contains(p)));
                        let stale = raw.is_some_and(|p| !nodes.contains_key(p)) && leaf.is_some();
                        let on_side_chain = raw.is_some() && raw == cursor && leaf != cursor;
                        if (outside_reset && !side) || stale || (on_side_chain && !side) {
                            leaf
                        } else {
                            raw
                        }
                    }
                };
                let parent = resolve_controls(&nodes, parent);
                track_reset(&mut reset_descendants, kind, id, parent);
                nodes.insert(id, Node::entry(index, parent));
                if !side {
                    leaf = Some(id);
                }
                cursor = Some(id);
            } else if kind == "leaf" {
                let Some(target) = e.target.filter(|t| t.is_none_or(|t| !t.trim().is_empty()))
                else {
                    continue;
                };
                if e.append_mode.is_some_and(|m| m != "side") {
                    continue;
                }
                let append = e.append_parent.or(target);
                let known =
                    |r: Option<&str>| r.is_none_or(|r| nodes.get(r).is_some_and(|n| !n.invalid));
                let id = non_blank(e.id);
                if !(known(target) && known(append)) {
                    // An invalid control: a node with its raw parent, which
                    // moves neither the leaf nor the append point.
                    if let Some(id) = id {
                        nodes.insert(
                            id,
                            Node {
                                index,
                                parent: e.parent.id(),
                                control: true,
                                invalid: true,
                            },
                        );
                    }
                    continue;
                }
                let crosses_reset = leaf.is_some()
                    && reset_descendants
                        .as_ref()
                        .is_some_and(|d| target.is_none_or(|t| !d.contains(t)));
                let (target, append) = if crosses_reset {
                    (leaf, leaf)
                } else {
                    (target, append)
                };
                if let Some(id) = id {
                    nodes.insert(
                        id,
                        Node {
                            index,
                            parent: target,
                            control: true,
                            invalid: false,
                        },
                    );
                }
                leaf = target;
                cursor = append;
            } else if let (Some(id), Parent::Null | Parent::Id(_)) = (non_blank(e.id), e.parent) {
                let parent = e.parent.id();
                track_reset(&mut reset_descendants, kind, id, parent);
                nodes.insert(id, Node::entry(index, parent));
                cursor = Some(id);
            }
        }
        Tree {
            nodes,
            leaf,
            linear: None,
        }
    }

    /// The indices of the entries on the active path, root first.
    pub fn path(&self) -> Vec<usize> {
        if let Some(linear) = &self.linear {
            return linear.clone();
        }
        let mut path = Vec::new();
        let mut seen = HashSet::new();
        let mut at = self.leaf;
        while let Some(id) = at {
            let Some(node) = self.nodes.get(id) else {
                break;
            };
            if !seen.insert(id) {
                return Vec::new(); // a cycle: OpenClaw reads no path at all
            }
            if !node.control {
                path.push(node.index);
            }
            at = node.parent;
        }
        path.reverse();
        path
    }

    /// The parent OpenClaw gives the entry with this id (a stale, missing
    /// or side-chain parent replaced by the leaf of the time, a leaf
    /// control by its target; `Some(None)` for a root), or `None` for an id
    /// that is not in the tree.
    pub fn parent_of(&self, id: &str) -> Option<Option<&'a str>> {
        self.nodes.get(id).map(|n| n.parent)
    }
}

/// A parent that is a leaf control stands for the control's target.
fn resolve_controls<'a>(
    nodes: &HashMap<&'a str, Node<'a>>,
    mut parent: Option<&'a str>,
) -> Option<&'a str> {
    let mut hops = 0;
    while let Some(node) = parent.and_then(|p| nodes.get(p)).filter(|n| n.control) {
        parent = node.parent;
        hops += 1;
        if hops > nodes.len() {
            return None;
        }
    }
    parent
}

/// A `reset` starts a new set of descendants; a child of one joins it.
fn track_reset<'a>(
    set: &mut Option<HashSet<&'a str>>,
    kind: &str,
    id: &'a str,
    parent: Option<&'a str>,
) {
    if kind == "reset" {
        *set = Some(HashSet::from([id]));
    } else if let Some(d) = set.as_mut() {
        if parent.is_some_and(|p| d.contains(p)) {
            d.insert(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e<'a>(kind: &'a str, id: &'a str, parent: Option<&'a str>) -> TreeEntry<'a> {
        TreeEntry {
            kind: Some(kind),
            id: Some(id),
            parent: parent.map_or(Parent::Null, Parent::Id),
            ..TreeEntry::default()
        }
    }

    fn leaf<'a>(id: &'a str, parent: &'a str, target: Option<&'a str>) -> TreeEntry<'a> {
        TreeEntry {
            target: Some(target),
            ..e("leaf", id, Some(parent))
        }
    }

    fn header() -> TreeEntry<'static> {
        TreeEntry {
            kind: Some("session"),
            id: Some("s"),
            ..TreeEntry::default()
        }
    }

    #[test]
    fn leaf_records_rewinds_and_side_appends() {
        let mut entries = vec![
            header(),
            e("message", "a", None),
            e("message", "b", Some("a")),
            e("message", "c", Some("b")),
        ];
        assert_eq!(active_path(&entries), vec![1, 2, 3]);
        // A rewind to b, then a new branch from it.
        entries.push(leaf("l1", "c", Some("b")));
        assert_eq!(active_path(&entries), vec![1, 2]);
        entries.push(e("message", "d", Some("b")));
        assert_eq!(active_path(&entries), vec![1, 2, 5]);
        // A side append does not move the leaf, and a later entry naming the
        // side chain as parent is put back on the visible branch.
        entries.push(TreeEntry {
            append_mode: Some("side"),
            ..e("custom", "x", Some("d"))
        });
        assert_eq!(active_path(&entries), vec![1, 2, 5]);
        entries.push(e("message", "y", Some("x")));
        assert_eq!(active_path(&entries), vec![1, 2, 5, 7]);
        // A leaf record naming an unknown entry is ignored.
        entries.push(leaf("l2", "y", Some("nope")));
        assert_eq!(active_path(&entries), vec![1, 2, 5, 7]);
        // An opaque link never becomes the leaf.
        entries.push(e("future-record", "f", Some("y")));
        assert_eq!(active_path(&entries), vec![1, 2, 5, 7]);
        // A leaf record with a null target empties the path.
        entries.push(leaf("l3", "y", None));
        assert_eq!(active_path(&entries), Vec::<usize>::new());
    }

    #[test]
    fn stale_parents_and_resets_are_normalised_as_openclaw_does() {
        let entries = vec![
            header(),
            e("message", "u1", None),
            e("message", "a1", Some("u1")),
            // A parent that names no earlier entry hangs on the current leaf.
            e("message", "u2", Some("gone")),
            e("reset", "r1", Some("u2")),
            e("message", "u3", Some("r1")),
            // After a reset, a parent before it is pulled onto the new branch.
            e("message", "a3", Some("a1")),
            // A leaf record cannot go back across the reset.
            leaf("l1", "a3", Some("u1")),
        ];
        assert_eq!(active_path(&entries), vec![1, 2, 3, 4, 5, 6]);
        // A null parent before any reset starts a new root.
        let rooted = vec![
            header(),
            e("message", "u1", None),
            e("message", "u2", None),
            e("message", "a2", Some("u2")),
        ];
        assert_eq!(active_path(&rooted), vec![2, 3]);
        // A cycle yields no path.
        let cycle = vec![
            header(),
            e("message", "a", Some("b")),
            e("link", "b", Some("a")),
            leaf("l", "b", Some("a")),
        ];
        assert!(active_path(&cycle).is_empty());
    }

    #[test]
    fn linear_transcripts_without_ids() {
        let entries = vec![
            TreeEntry {
                kind: Some("session"),
                ..TreeEntry::default()
            },
            TreeEntry {
                kind: Some("message"),
                ..TreeEntry::default()
            },
            TreeEntry::default(),
            TreeEntry {
                kind: Some("message"),
                ..TreeEntry::default()
            },
        ];
        assert_eq!(active_path(&entries), vec![1, 3]);
    }
}
