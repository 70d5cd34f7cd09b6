//! Writing files without ever leaving them half-written, and taking the lock
//! files OpenClaw uses so that several processes can share them.

pub mod appends;
mod atomic;
pub mod json_file;
mod lock;

pub use atomic::{commit_temp, temp_path, write_atomic};
pub use lock::{FileLock, LockOptions};
