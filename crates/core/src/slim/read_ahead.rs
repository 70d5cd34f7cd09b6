//! The slim's reads, on a thread of their own: while one block of the
//! transcript is slimmed, the next is copied out of the page cache, so the
//! kernel's copy costs the slim no time of its own on a machine with a
//! second core.

use crate::platform;
use std::fs::File;
use std::io;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};
use std::thread::Scope;

/// Bytes read at a time (the last block of a file is shorter).
const BLOCK: usize = 1 << 20;

/// Room kept in front of each block's bytes for the unfinished line of the
/// block before, so that it joins the block without copying the block.
const HEADROOM: usize = 256 << 10;

/// Blocks read or being read at most: one slimmed, one ready, one filling.
const POOL: usize = 3;

/// One block of the file as it was read.
pub struct Block {
    /// The buffer, with [`HEADROOM`] in front of the bytes read.
    buf: Vec<u8>,
    /// Where the block's bytes start in `buf` (before [`HEADROOM`] once a
    /// line was put in front of them).
    start: usize,
    /// Where they end.
    end: usize,
}

impl Block {
    /// The block's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Puts `line` (the unfinished end of the block before) in front of
    /// the block's bytes when it fits in the room kept there; `false` when
    /// it does not, and the block is as it was.
    pub fn prepend(&mut self, line: &[u8]) -> bool {
        if line.len() > self.start {
            return false;
        }
        self.start -= line.len();
        self.buf[self.start..self.start + line.len()].copy_from_slice(line);
        true
    }
}

/// The blocks of the first `len` bytes of a file, in order, read ahead on a
/// thread of the scope they were started in.
pub struct ReadAhead {
    /// Blocks read, or the error that ended the reading.
    read: Receiver<io::Result<Block>>,
    /// Where blocks go back to be read into again.
    spent: Recycler,
}

/// Hands blocks back to a [`ReadAhead`] to be read into again (from any
/// thread).
#[derive(Clone)]
pub struct Recycler(Sender<Vec<u8>>);

impl Recycler {
    /// Hands `block` back.
    pub fn recycle(&self, block: Block) {
        let _ = self.0.send(block.buf);
    }
}

impl ReadAhead {
    /// Starts reading the first `len` bytes of `file` on a thread of
    /// `scope` (a file that turns out shorter ends sooner). The thread ends
    /// once every block is read or the `ReadAhead` is dropped.
    pub fn start<'scope>(
        scope: &'scope Scope<'scope, '_>,
        file: &'scope File,
        len: u64,
    ) -> io::Result<ReadAhead> {
        let (ready, read) = sync_channel(1);
        let (spent, recycled) = channel();
        std::thread::Builder::new()
            .name("slim-read".into())
            .spawn_scoped(scope, move || read_blocks(file, len, &ready, &recycled))?;
        Ok(ReadAhead {
            read,
            spent: Recycler(spent),
        })
    }

    /// The next block; `None` after the last.
    pub fn next_block(&mut self) -> Option<io::Result<Block>> {
        self.read.recv().ok()
    }

    /// What hands blocks back to be read into again, from any thread.
    pub fn recycler(&self) -> Recycler {
        self.spent.clone()
    }
}

/// The reading thread: reads the first `len` bytes of `file` block by
/// block into `ready`, reusing the buffers handed back on `recycled`.
fn read_blocks(
    file: &File,
    len: u64,
    ready: &std::sync::mpsc::SyncSender<io::Result<Block>>,
    recycled: &Receiver<Vec<u8>>,
) {
    let block_len = usize::try_from(len).map_or(BLOCK, |len| len.min(BLOCK));
    let (mut offset, mut allocated) = (0u64, 0);
    while offset < len {
        let buf = match recycled.try_recv() {
            Ok(buf) => Some(buf),
            Err(_) if allocated < POOL => {
                allocated += 1;
                Some(vec![0; HEADROOM + block_len])
            }
            Err(_) => recycled.recv().ok(),
        };
        let Some(mut buf) = buf else {
            return; // the slim stopped
        };
        let want = usize::try_from(len - offset).map_or(block_len, |rest| rest.min(block_len));
        let mut filled = 0;
        while filled < want {
            let into = &mut buf[HEADROOM + filled..HEADROOM + want];
            match platform::read_at(file, into, offset + filled as u64) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = ready.send(Err(e));
                    return;
                }
            }
        }
        if filled == 0 {
            return; // the file is shorter than `len`
        }
        offset += filled as u64;
        let block = Block {
            buf,
            start: HEADROOM,
            end: HEADROOM + filled,
        };
        if ready.send(Ok(block)).is_err() || filled < want {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ReadAhead;
    use std::io::Write;

    /// The bytes the blocks of the first `len` bytes of a file of `bytes`
    /// give, one after the other.
    fn read_through(bytes: &[u8], len: u64) -> Vec<u8> {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        std::thread::scope(|scope| {
            let mut blocks = ReadAhead::start(scope, &file, len).unwrap();
            let mut read = Vec::new();
            while let Some(block) = blocks.next_block() {
                let block = block.unwrap();
                read.extend_from_slice(block.bytes());
                blocks.recycler().recycle(block);
            }
            read
        })
    }

    #[test]
    fn the_blocks_are_the_first_bytes_asked_for_in_order() {
        let bytes: Vec<u8> = (0..(13 << 20) + 5).map(|i: u32| (i % 251) as u8).collect();
        let len = bytes.len() as u64 - 3;
        assert!(read_through(&bytes, len) == bytes[..len as usize]);
    }

    #[test]
    fn a_file_shorter_than_asked_ends_the_blocks_where_it_ends() {
        assert_eq!(read_through(b"ten bytes\n", 1 << 30), b"ten bytes\n");
        assert_eq!(read_through(b"", 100), b"");
    }

    #[test]
    fn a_line_is_put_in_front_of_a_block_when_it_fits() {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(b"rest of the line\n").unwrap();
        std::thread::scope(|scope| {
            let mut blocks = ReadAhead::start(scope, &file, 17).unwrap();
            let mut block = blocks.next_block().unwrap().unwrap();
            assert!(!block.prepend(&vec![b'x'; super::HEADROOM + 1]));
            assert_eq!(block.bytes(), b"rest of the line\n");
            assert!(block.prepend(b"the "));
            assert_eq!(block.bytes(), b"the rest of the line\n");
        });
    }
}
