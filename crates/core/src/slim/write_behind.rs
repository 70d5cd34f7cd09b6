//! The slim's writes, on a thread of their own: the slimmed lines are
//! gathered into large chunks that a writing thread hands to the file while
//! the next lines are slimmed, so the kernel's copy into the page cache and
//! the hand-over to the disk cost the slim no time of its own on a machine
//! with a second core.

use std::io::{self, Write};
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::thread::{Scope, ScopedJoinHandle};

/// Bytes gathered before a chunk goes to the writing thread.
const CHUNK: usize = 1 << 20;

/// A writer that writes to `out` on a thread of the scope it was started
/// in. [`WriteBehind::finish`] waits for every byte to be written and
/// gives the first error.
pub struct WriteBehind<'scope> {
    /// Bytes not handed over yet.
    chunk: Vec<u8>,
    /// Chunks to write; `None` once finished or the thread stopped.
    full: Option<SyncSender<Vec<u8>>>,
    /// Chunks written, to be filled again.
    spent: Receiver<Vec<u8>>,
    /// The writing thread: its first error.
    thread: Option<ScopedJoinHandle<'scope, io::Result<()>>>,
}

impl<'scope> WriteBehind<'scope> {
    /// Starts the writing thread on `scope`.
    pub fn start(
        scope: &'scope Scope<'scope, '_>,
        out: &'scope mut (dyn Write + Send),
    ) -> io::Result<WriteBehind<'scope>> {
        let (full, chunks) = sync_channel::<Vec<u8>>(1);
        let (spent_back, spent) = channel();
        let thread = std::thread::Builder::new()
            .name("slim-write".into())
            .spawn_scoped(scope, move || {
                for mut chunk in chunks {
                    out.write_all(&chunk)?;
                    chunk.clear();
                    let _ = spent_back.send(chunk);
                }
                Ok(())
            })?;
        Ok(WriteBehind {
            chunk: Vec::with_capacity(CHUNK),
            full: Some(full),
            spent,
            thread: Some(thread),
        })
    }

    /// Hands the gathered bytes to the writing thread; its error when it
    /// has stopped.
    fn hand_over(&mut self) -> io::Result<()> {
        let next = self
            .spent
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(CHUNK));
        let chunk = std::mem::replace(&mut self.chunk, next);
        let sent = self.full.as_ref().map(|full| full.send(chunk));
        match sent {
            Some(Ok(())) => Ok(()),
            _ => Err(self.stop().err().unwrap_or_else(stopped)),
        }
    }

    /// Lets the writing thread finish and gives its result.
    fn stop(&mut self) -> io::Result<()> {
        self.full = None;
        match self.thread.take().map(ScopedJoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(io::Error::other("the slim's writing thread failed")),
            None => Err(stopped()),
        }
    }

    /// Writes what is left and waits until every byte is written; the
    /// first error of any write.
    pub fn finish(mut self) -> io::Result<()> {
        if !self.chunk.is_empty() {
            self.hand_over()?;
        }
        self.stop()
    }
}

/// The error of a write after the writing thread stopped.
fn stopped() -> io::Error {
    io::Error::other("the slim's writing thread has stopped")
}

impl Write for WriteBehind<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.chunk.extend_from_slice(buf);
        if self.chunk.len() >= CHUNK {
            self.hand_over()?;
        }
        Ok(buf.len())
    }

    /// Bytes reach the file by [`WriteBehind::finish`] only.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::WriteBehind;
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

    /// Writes `pieces` through a [`WriteBehind`] to `out`: the first error
    /// of a write, or of the finish.
    fn write_through(out: &mut Full, pieces: &[Vec<u8>]) -> io::Result<()> {
        std::thread::scope(|scope| {
            let mut w = WriteBehind::start(scope, out)?;
            for piece in pieces {
                w.write_all(piece)?;
            }
            w.finish()
        })
    }

    fn pieces() -> Vec<Vec<u8>> {
        (0..400u32)
            .map(|i| vec![i as u8; (i as usize * 7_919) % 60_000])
            .collect()
    }

    #[test]
    fn every_byte_reaches_the_file_in_order() {
        let mut out = Full {
            written: Vec::new(),
            room: usize::MAX,
        };
        write_through(&mut out, &pieces()).unwrap();
        assert!(out.written == pieces().concat());
    }

    #[test]
    fn a_failed_write_is_the_slim_s_error() {
        let mut out = Full {
            written: Vec::new(),
            room: 3 << 20,
        };
        let e = write_through(&mut out, &pieces()).unwrap_err();
        assert_eq!(
            (e.kind(), e.to_string().as_str()),
            (io::ErrorKind::StorageFull, "no room")
        );
    }
}
