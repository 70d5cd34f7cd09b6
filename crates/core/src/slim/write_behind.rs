//! The slim's writes, on a thread of their own: the slimming thread hands
//! over each block it read with what becomes of it (runs of lines kept as
//! they are, and the lines it rewrote), and the writing thread writes them
//! out of the block to the (buffered) file. The copy and the kernel's copy
//! into the page cache cost the slimming thread no time of its own on a
//! machine with a second core.

use super::read_ahead::{Block, Recycler};
use std::io::{self, Write};
use std::ops::Range;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::{Scope, ScopedJoinHandle};

/// What is written of a piece of the transcript read.
pub enum Part {
    /// A run of whole lines (newlines included) written as they were read:
    /// a range of the piece's bytes.
    Kept(Range<usize>),
    /// One line written in place of the one read (its newline follows).
    Line(Vec<u8>),
}

/// A piece of the transcript read, and what is written of it.
pub struct Batch {
    /// The bytes read.
    pub read: Read,
    /// What is written of them, in order.
    pub parts: Vec<Part>,
}

/// Bytes read, as one block or on their own.
pub enum Read {
    /// A block of the file, handed back to be read into once written.
    Block(Block),
    /// A line longer than the room in front of a block, gathered from
    /// several.
    Line(Vec<u8>),
}

impl Read {
    /// The bytes read.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Read::Block(block) => block.bytes(),
            Read::Line(line) => line,
        }
    }
}

/// The writing thread of a pass. [`WriteBehind::finish`] waits for every
/// byte to be written and gives the first error.
pub struct WriteBehind<'scope> {
    /// Batches to write; `None` once the thread stopped.
    batches: Option<SyncSender<Batch>>,
    /// The writing thread.
    thread: Option<ScopedJoinHandle<'scope, io::Result<()>>>,
}

impl<'scope> WriteBehind<'scope> {
    /// Starts the writing thread on `scope`, writing to `out` (buffered:
    /// a rewritten line and its newline are two writes) and handing the
    /// blocks written back to `recycler`.
    pub fn start(
        scope: &'scope Scope<'scope, '_>,
        out: &'scope mut (dyn Write + Send),
        recycler: Recycler,
    ) -> io::Result<WriteBehind<'scope>> {
        let (batches, received) = sync_channel::<Batch>(2);
        let thread = std::thread::Builder::new()
            .name("slim-write".into())
            .spawn_scoped(scope, move || {
                for Batch { read, parts } in received {
                    for part in &parts {
                        match part {
                            Part::Kept(range) => out.write_all(&read.bytes()[range.clone()])?,
                            Part::Line(line) => {
                                out.write_all(line)?;
                                out.write_all(b"\n")?;
                            }
                        }
                    }
                    if let Read::Block(block) = read {
                        recycler.recycle(block);
                    }
                }
                Ok(())
            })?;
        Ok(WriteBehind {
            batches: Some(batches),
            thread: Some(thread),
        })
    }

    /// Hands a batch to the writing thread; its error when it has stopped.
    pub fn send(&mut self, batch: Batch) -> io::Result<()> {
        match self.batches.as_ref().map(|b| b.send(batch)) {
            Some(Ok(())) => Ok(()),
            _ => Err(self.stop().err().unwrap_or_else(stopped)),
        }
    }

    /// Lets the writing thread finish and gives its result.
    fn stop(&mut self) -> io::Result<()> {
        self.batches = None;
        match self.thread.take().map(ScopedJoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(io::Error::other("the slim's writing thread failed")),
            None => Err(stopped()),
        }
    }

    /// Waits until every byte handed over is written; the first error of
    /// any write.
    pub fn finish(mut self) -> io::Result<()> {
        self.stop()
    }
}

/// The error of a write after the writing thread stopped.
fn stopped() -> io::Error {
    io::Error::other("the slim's writing thread has stopped")
}

#[cfg(test)]
mod tests {
    use super::{Batch, Part, Read, WriteBehind};
    use crate::slim::read_ahead::ReadAhead;
    use std::io::{self, Write};

    /// Takes `room` bytes, then fails as a full disk does.
    struct Full {
        written: Vec<u8>,
        room: usize,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.written.len() + buf.len() > self.room {
                return Err(io::Error::new(io::ErrorKind::StorageFull, "no room"));
            }
            self.written.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Batches of runs kept and lines rewritten, of every size up to a few
    /// MB; and the bytes they write.
    fn batches() -> (Vec<Batch>, Vec<u8>) {
        let (mut batches, mut expected) = (Vec::new(), Vec::new());
        for i in 0..120usize {
            let read: Vec<u8> = (0..i * 30_011 % 3_000_000).map(|b| b as u8).collect();
            let third = read.len() / 3;
            let line = vec![b'x'; i * 7_919 % 40_000];
            expected.extend_from_slice(&read[..third]);
            expected.extend_from_slice(&line);
            expected.push(b'\n');
            expected.extend_from_slice(&read[2 * third..]);
            let parts = vec![
                Part::Kept(0..third),
                Part::Line(line),
                Part::Kept(2 * third..read.len()),
            ];
            batches.push(Batch {
                read: Read::Line(read),
                parts,
            });
        }
        (batches, expected)
    }

    /// Writes `batches` through a [`WriteBehind`] to `out`: the first error
    /// of a hand-over, or of the finish.
    fn write_through(out: &mut Full, batches: Vec<Batch>) -> io::Result<()> {
        let file = tempfile::tempfile().unwrap();
        std::thread::scope(|scope| {
            let blocks = ReadAhead::start(scope, &file, 0)?;
            let mut w = WriteBehind::start(scope, out, blocks.recycler())?;
            for batch in batches {
                w.send(batch)?;
            }
            w.finish()
        })
    }

    #[test]
    fn every_byte_reaches_the_file_in_order() {
        let (batches, expected) = batches();
        let mut out = Full {
            written: Vec::new(),
            room: usize::MAX,
        };
        write_through(&mut out, batches).unwrap();
        assert!(out.written == expected);
    }

    #[test]
    fn a_failed_write_is_the_slim_s_error() {
        let mut out = Full {
            written: Vec::new(),
            room: 3 << 20,
        };
        let e = write_through(&mut out, batches().0).unwrap_err();
        assert_eq!(
            (e.kind(), e.to_string().as_str()),
            (io::ErrorKind::StorageFull, "no room")
        );
    }
}
