//! A transcript's entries in one form for both stores: pi JSONL, one JSON
//! text per line, the session header first.
//!
//! The JSONL store maps its file as it is. The SQLite store decodes its rows
//! (in `seq` order) into the same form, which is also its export and backup
//! format; line `i` is then the row `seqs[i]`. The transforms read lines and
//! never learn which store the bytes came from.

use memmap2::Mmap;

/// The bytes of a transcript.
enum Bytes {
    Owned(Vec<u8>),
    Mapped(Mmap),
}

/// A transcript's entries as JSONL.
pub struct Events {
    bytes: Bytes,
    /// The SQLite row of each line (empty for a JSONL file).
    seqs: Vec<i64>,
}

impl Events {
    /// Entries read from a JSONL file (owned or mapped bytes).
    pub fn from_file_bytes(bytes: Vec<u8>) -> Events {
        Events {
            bytes: Bytes::Owned(bytes),
            seqs: Vec::new(),
        }
    }

    /// Entries of a mapped JSONL file.
    pub fn mapped(map: Mmap) -> Events {
        Events {
            bytes: Bytes::Mapped(map),
            seqs: Vec::new(),
        }
    }

    /// Entries decoded from SQLite rows: `jsonl` holds one line per row, in
    /// the order of `seqs`, each ending with a newline.
    pub fn from_rows(jsonl: Vec<u8>, seqs: Vec<i64>) -> Events {
        Events {
            bytes: Bytes::Owned(jsonl),
            seqs,
        }
    }

    /// The JSONL text.
    pub fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Owned(v) => v,
            Bytes::Mapped(m) => m,
        }
    }

    /// The row each line came from; empty for a JSONL file.
    pub fn seqs(&self) -> &[i64] {
        &self.seqs
    }

    /// The lines, as `strip_tools` and the readers split them (a final
    /// empty line follows a trailing newline).
    pub fn lines(&self) -> impl Iterator<Item = &[u8]> {
        split_lines(self.bytes())
    }
}

/// The lines of `bytes` as `bytes.split(|&b| b == b'\n')` gives them (a
/// final empty line follows a trailing newline), found with `memchr`
/// rather than byte by byte: on a 50 MB transcript the byte loop was a
/// tenth of an edit.
pub fn split_lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', bytes)
        .chain(std::iter::once(bytes.len()))
        .map(move |end| {
            let line = &bytes[start..end];
            start = end + 1;
            line
        })
}

/// Byte offsets just past the end of each line of `bytes` (newline
/// included, when there is one).
pub fn line_ends(bytes: &[u8]) -> Vec<usize> {
    let mut ends: Vec<usize> = memchr::memchr_iter(b'\n', bytes).map(|p| p + 1).collect();
    if ends.last().copied().unwrap_or(0) < bytes.len() || bytes.is_empty() {
        ends.push(bytes.len());
    }
    ends
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_as_the_byte_loop_splits_them() {
        for text in ["", "\n", "\n\n", "a", "a\n", "a\nbb", "a\n\nbb\n", "\na"] {
            let bytes = text.as_bytes();
            let expected: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
            assert_eq!(split_lines(bytes).collect::<Vec<_>>(), expected, "{text:?}");
        }
    }

    #[test]
    fn line_ends_cover_every_line() {
        assert_eq!(line_ends(b"a\nbb\n"), vec![2, 5]);
        assert_eq!(line_ends(b"a\nbb"), vec![2, 4]);
        assert_eq!(line_ends(b""), vec![0]);
    }
}
