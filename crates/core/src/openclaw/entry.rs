//! The few top-level facts of one transcript entry that the tree, the
//! cleaner and the handoff need, read without parsing the entry (tool
//! output, the bulk of a transcript, is skipped, never decoded).

use super::tree::{Parent, TreeEntry};
use crate::json_scan::{as_str, field, Fields};
use serde::de::IgnoredAny;

/// An entry's type, links and message role.
#[derive(Debug, Clone, Default)]
pub struct EntryHead {
    /// `type`; `None` when the line is not an object with a string type.
    pub kind: Option<String>,
    /// `id` when it is a string.
    pub id: Option<String>,
    /// `parentId` when it is a string.
    pub parent: Option<String>,
    /// Whether `parentId` is present, and whether it is null.
    parent_present: bool,
    parent_null: bool,
    /// `targetId`: `Some(None)` for null.
    pub target: Option<Option<String>>,
    /// `appendParentId` when it is a string.
    pub append_parent: Option<String>,
    /// `appendMode` when it is a string.
    pub append_mode: Option<String>,
    /// `firstKeptEntryId` of a compaction or reset.
    pub first_kept: Option<String>,
    /// `message.role`.
    pub role: Option<String>,
    /// The raw `message` object, when there is one.
    message: Option<(usize, usize)>,
    /// Whether `fromId`, `targetId`, `firstKeptEntryId` or `appendParentId`
    /// is present (fields that name another entry).
    pub refers: bool,
}

/// Fields that name another entry besides `parentId`.
pub(crate) const REFERENCE_FIELDS: [&str; 4] =
    ["firstKeptEntryId", "fromId", "targetId", "appendParentId"];

impl EntryHead {
    /// Reads the head of `raw`, a JSON object. Anything else reads as an
    /// entry of no type: OpenClaw skips a line `JSON.parse` rejects, so it
    /// is not part of its tree. That is checked at the top level by the
    /// walk, and inside by validating the line (serde without building
    /// anything; it agrees with `JSON.parse` on the bytes OpenClaw reads as
    /// text: bad escapes, control characters, numbers, trailing commas,
    /// lone surrogates and any depth).
    pub fn read(raw: &[u8]) -> EntryHead {
        let text = |v: &[u8]| as_str(v).map(|s| s.into_owned());
        let mut head = EntryHead::default();
        let mut fields = Fields::new(raw);
        for (key, value) in fields.by_ref() {
            match key {
                b"type" => head.kind = text(value),
                b"id" => head.id = text(value),
                b"parentId" => {
                    head.parent_present = true;
                    head.parent_null = value == b"null";
                    head.parent = text(value);
                }
                b"message" => {
                    let start = value.as_ptr() as usize - raw.as_ptr() as usize;
                    head.message = Some((start, start + value.len()));
                    head.role = field(value, b"role").and_then(text);
                }
                b"appendMode" => head.append_mode = text(value),
                k if REFERENCE_FIELDS.iter().any(|f| f.as_bytes() == k) => {
                    head.refers = true;
                    match k {
                        b"targetId" if value == b"null" => head.target = Some(None),
                        b"targetId" => head.target = text(value).map(Some),
                        b"firstKeptEntryId" => head.first_kept = text(value),
                        b"appendParentId" => head.append_parent = text(value),
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        // Cut short (a torn append), followed by more text, or flawed inside.
        if !fields.closed() || serde_json::from_slice::<IgnoredAny>(raw).is_err() {
            return EntryHead::default();
        }
        head
    }

    /// The raw `message` object of the entry read from `raw`.
    pub fn message<'a>(&self, raw: &'a [u8]) -> Option<&'a [u8]> {
        self.message.map(|(a, b)| &raw[a..b])
    }

    /// The role of a `message` entry.
    pub fn message_role(&self) -> Option<&str> {
        (self.kind.as_deref() == Some("message"))
            .then_some(self.role.as_deref())
            .flatten()
    }

    /// What the tree needs of it.
    pub fn tree(&self) -> TreeEntry<'_> {
        TreeEntry {
            kind: self.kind.as_deref(),
            id: self.id.as_deref(),
            parent: match (&self.parent, self.parent_present, self.parent_null) {
                (Some(p), _, _) => Parent::Id(p),
                (None, false, _) => Parent::Absent,
                (None, true, true) => Parent::Null,
                (None, true, false) => Parent::Invalid,
            },
            target: self.target.as_ref().map(|t| t.as_deref()),
            append_parent: self.append_parent.as_deref(),
            append_mode: self.append_mode.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OpenClaw skips a line `JSON.parse` rejects: a torn append is no entry.
    #[test]
    fn a_line_cut_short_or_run_on_is_no_entry() {
        let whole = r#"{"type":"message","id":"a","parentId":"p","message":{"role":"user"}}"#;
        assert_eq!(EntryHead::read(whole.as_bytes()).id.as_deref(), Some("a"));
        for broken in [&whole[..whole.len() - 1], &format!("{whole}{whole}")] {
            let head = EntryHead::read(broken.as_bytes());
            assert!(head.kind.is_none() && head.id.is_none(), "{broken}");
        }
    }

    /// ...and so is a line whose flaw is deep inside a value.
    #[test]
    fn a_line_flawed_deep_inside_is_no_entry() {
        let head = r#"{"type":"message","id":"a","parentId":"p","message":{"role":"user","content":[{"type":"text","text":"#;
        for flaw in [
            r#""bad \x escape""#,
            "\"raw \u{1} control\"",
            "01",
            "[1,]",
            "tru",
        ] {
            let line = format!("{head}{flaw}}}]}}}}");
            assert!(Fields::new(line.as_bytes()).by_ref().count() > 0);
            let read = EntryHead::read(line.as_bytes());
            assert!(read.kind.is_none() && read.id.is_none(), "{line}");
        }
        // What JSON.parse accepts is an entry: a lone surrogate, deep nesting.
        let deep = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
        for fine in [r#""\ud800""#.to_owned(), deep] {
            let line = format!("{head}{fine}}}]}}}}");
            assert_eq!(
                EntryHead::read(line.as_bytes()).id.as_deref(),
                Some("a"),
                "{line}"
            );
        }
    }

    #[test]
    fn reads_links_roles_and_parent_forms() {
        let h = EntryHead::read(br#"{"type":"message","id":"a","parentId":"p","message":{"role":"user","content":"x"}}"#);
        assert_eq!(h.message_role(), Some("user"));
        assert_eq!(h.tree().parent, Parent::Id("p"));
        assert_eq!(
            EntryHead::read(br#"{"type":"x","id":"a","parentId":null}"#)
                .tree()
                .parent,
            Parent::Null
        );
        assert_eq!(
            EntryHead::read(br#"{"type":"x","id":"a"}"#).tree().parent,
            Parent::Absent
        );
        assert_eq!(
            EntryHead::read(br#"{"type":"x","id":"a","parentId":7}"#)
                .tree()
                .parent,
            Parent::Invalid
        );
        let leaf = EntryHead::read(
            br#"{"type":"leaf","id":"l","parentId":"a","targetId":null,"appendMode":"side"}"#,
        );
        assert_eq!(leaf.tree().target, Some(None));
        assert_eq!(leaf.tree().append_mode, Some("side"));
        assert!(leaf.refers);
        let raw = br#"{"type":"message","message":{"role":"toolResult","toolCallId":"c"}}"#;
        let m = EntryHead::read(raw);
        assert_eq!(
            m.message(raw),
            Some(&br#"{"role":"toolResult","toolCallId":"c"}"#[..])
        );
        assert_eq!(EntryHead::read(b"not json").kind, None);
    }
}
