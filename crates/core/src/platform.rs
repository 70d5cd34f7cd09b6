//! What differs between the operating systems OpenClaw runs on (Linux,
//! macOS, Windows), in one place; every other module is written against
//! these functions.
//!
//! | concern | Unix (Linux, macOS) | Windows |
//! | --- | --- | --- |
//! | file identity | device and inode (`st_dev`, `st_ino`) | volume serial number and file index of an open handle |
//! | process liveness | `kill(pid, 0)` succeeds or fails with `EPERM` | `OpenProcess` succeeds and `GetExitCodeProcess` says `STILL_ACTIVE` |
//! | process start time | Linux: `/proc/<pid>/stat` field 22 (clock ticks after boot; a zombie is gone); macOS: `proc_pidinfo` `PROC_PIDTBSDINFO` (seconds since the epoch; a zombie is gone); other Unix: not read | `GetProcessTimes` creation time (`FILETIME`) |
//! | permissions | the mode bits, set exactly on create | not applicable: files take the folder's ACL; a mode is ignored |
//! | directory fsync after a rename | `fsync` on the directory | not needed (NTFS journals the rename); skipped |
//! | positional reads | `pread` | `ReadFile` with an offset (moves the file pointer, which the callers do not use) |
//! | home folder | `$HOME` | `%USERPROFILE%`, as Node's `os.homedir()` |
//! | path bytes | the bytes of the path | UTF-8 of the path (lossy for unpaired surrogates) |

use std::borrow::Cow;
use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};

/// The identity of a file: two paths with equal ids name the same file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileId {
    /// The device (volume serial number on Windows).
    pub dev: u64,
    /// The inode (file index on Windows).
    pub ino: u64,
}

/// The id of an open file.
pub fn file_id(file: &File) -> io::Result<FileId> {
    imp::file_id(file)
}

/// The id of an open file whose metadata the caller already has (no
/// second query on POSIX).
pub fn open_file_id(file: &File, meta: &Metadata) -> io::Result<FileId> {
    if cfg!(unix) {
        entry_id(Path::new(""), meta)
    } else {
        file_id(file)
    }
}

/// The id of the file or directory at `path` (symlinks followed).
pub fn path_id(path: &Path) -> io::Result<FileId> {
    imp::path_id(path)
}

/// The id of the entry at `path` itself (a final symlink not followed),
/// where the platform can say without opening it; else as [`path_id`].
pub fn entry_id(path: &Path, meta: &Metadata) -> io::Result<FileId> {
    imp::entry_id(path, meta)
}

/// What tells a file's versions apart: identity, size, modification time
/// and status change time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    /// Which file it is.
    pub id: FileId,
    /// Size in bytes.
    pub len: u64,
    /// As [`mtime_ns`] gives it.
    pub mtime_ns: i128,
    /// As [`ctime_ns`] gives it.
    pub ctime_ns: i128,
}

impl FileStat {
    /// The stat of the entry at `path` whose metadata the caller has.
    pub fn of(path: &Path, meta: &Metadata) -> io::Result<FileStat> {
        Ok(FileStat {
            id: entry_id(path, meta)?,
            len: meta.len(),
            mtime_ns: mtime_ns(meta),
            ctime_ns: ctime_ns(meta),
        })
    }
}

/// The stats of the entries `names` of the directory `dir` (a final symlink
/// not followed), `None` for one that cannot be stat'ed. On Unix they are
/// taken relative to one open handle of the directory, which spares the
/// kernel walking the directory's path again for every name.
pub fn stat_each_in(dir: &Path, names: &[&OsStr]) -> Vec<Option<FileStat>> {
    imp::stat_each_in(dir, names)
}

/// Nanoseconds since the epoch of the last modification (0 before it).
pub fn mtime_ns(meta: &Metadata) -> i128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128)
}

/// Nanoseconds since the epoch of the last change to the file's data or
/// metadata (`st_ctime`), which, unlike the modification time, no system
/// call can set back; 0 where the platform keeps no such time (Windows).
pub fn ctime_ns(meta: &Metadata) -> i128 {
    imp::ctime_ns(meta)
}

/// The permission bits of a file (0o644 where the platform has none).
pub fn mode(meta: &Metadata) -> u32 {
    imp::mode(meta)
}

/// Creates `path`, which must not exist, with permissions `mode` exactly
/// (not filtered by the umask) where the platform has them.
pub fn create_new(path: &Path, mode: u32) -> io::Result<File> {
    imp::create_new(path, mode)
}

/// Opens `path` for appending, creating it with `mode` if needed.
pub fn open_append(path: &Path, mode: u32) -> io::Result<File> {
    imp::open_append(path, mode)
}

/// Makes a rename or create in `dir` durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    imp::sync_dir(dir)
}

/// Starts writing the `len` bytes of `file` at `offset` to disk without
/// waiting for them (Linux; elsewhere nothing): a sync that follows waits
/// only for what is still unwritten.
pub fn start_writeback(file: &File, offset: u64, len: u64) {
    imp::start_writeback(file, offset, len)
}

/// Reads up to `buf.len()` bytes at `offset`; the number read (0 at the end).
pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    imp::read_at(file, buf, offset)
}

/// The `len` bytes at `offset` (fewer when the file ends sooner), read into
/// a new vector without zeroing it first: zeroing would write every byte
/// once more before the read overwrites it.
pub fn read_vec_at(file: &File, len: usize, offset: u64) -> io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(len);
    while buf.len() < len {
        let done = buf.len();
        let spare = &mut buf.spare_capacity_mut()[..len - done];
        match imp::read_uninit_at(file, spare, offset + done as u64)? {
            0 => break,
            // SAFETY: the read initialised the first `n` bytes of the spare
            // capacity (at most its length).
            n => unsafe { buf.set_len(done + n) },
        }
    }
    Ok(buf)
}

/// Fills `buf` from `offset`, or fails.
pub fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match read_at(file, buf, offset)? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

/// Whether a process with this pid exists.
pub fn process_alive(pid: u64) -> bool {
    imp::process_alive(pid)
}

/// What the system says of a process's start time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessStart {
    /// No such process, or one that has exited and waits for its parent to
    /// collect it (a zombie).
    Gone,
    /// The process exists; when it started cannot be read here (another
    /// user's process on Windows, a system without `/proc`, ...).
    Unknown,
    /// Linux: field 22 (`starttime`) of `/proc/<pid>/stat`: clock ticks
    /// (`sysconf(_SC_CLK_TCK)`, usually 100 a second) after boot.
    BootTicks(u64),
    /// macOS: seconds since the Unix epoch (`proc_pidinfo`, `PROC_PIDTBSDINFO`).
    EpochSeconds(u64),
    /// Windows: the creation time as a `FILETIME` (100 ns units since 1601).
    FileTime(u64),
}

/// When the process `pid` started (see [`ProcessStart`] for the unit on
/// each platform), or whether it is gone.
pub fn process_start(pid: u64) -> ProcessStart {
    imp::process_start(pid)
}

/// What tells this process table apart from another one's on Linux, in the
/// form Claude Code records it as a liveness record's `pidDomain`:
/// `linux:<contents of /etc/machine-id>:<target of /proc/self/ns/pid>`
/// (each part empty when it cannot be read). `None` elsewhere.
pub fn pid_domain() -> Option<&'static str> {
    #[cfg(target_os = "linux")]
    {
        static DOMAIN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        Some(DOMAIN.get_or_init(|| {
            let machine = std::fs::read_to_string("/etc/machine-id").unwrap_or_default();
            let ns = std::fs::read_link("/proc/self/ns/pid")
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("linux:{}:{ns}", machine.trim())
        }))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The user's home folder, as Node's `os.homedir()` finds it.
pub fn home_dir() -> PathBuf {
    imp::home_dir()
}

/// The bytes of a path component.
pub fn os_bytes(s: &OsStr) -> Cow<'_, [u8]> {
    imp::os_bytes(s)
}

#[cfg(unix)]
mod imp {
    use super::{FileId, FileStat};
    use std::borrow::Cow;
    use std::ffi::OsStr;
    use std::fs::{File, Metadata, OpenOptions};
    use std::io;
    use std::mem::MaybeUninit;
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
    use std::path::{Path, PathBuf};

    fn of(meta: &Metadata) -> FileId {
        FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        }
    }

    pub fn file_id(file: &File) -> io::Result<FileId> {
        file.metadata().map(|m| of(&m))
    }

    pub fn path_id(path: &Path) -> io::Result<FileId> {
        std::fs::metadata(path).map(|m| of(&m))
    }

    pub fn entry_id(_path: &Path, meta: &Metadata) -> io::Result<FileId> {
        Ok(of(meta))
    }

    pub fn mode(meta: &Metadata) -> u32 {
        meta.permissions().mode() & 0o7777
    }

    pub fn ctime_ns(meta: &Metadata) -> i128 {
        nanos(meta.ctime(), meta.ctime_nsec())
    }

    fn nanos(secs: i64, nsec: i64) -> i128 {
        (i128::from(secs) * 1_000_000_000 + i128::from(nsec)).max(0)
    }

    pub fn stat_each_in(dir: &Path, names: &[&OsStr]) -> Vec<Option<FileStat>> {
        let Ok(handle) = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY)
            .open(dir)
        else {
            return vec![None; names.len()];
        };
        names
            .iter()
            .map(|name| {
                let name = std::ffi::CString::new(name.as_bytes()).ok()?;
                // SAFETY: `st` is plain data the call fills in; the name is
                // a NUL-terminated string and the handle is open.
                let mut st: libc::stat = unsafe { std::mem::zeroed() };
                let rc = unsafe {
                    libc::fstatat(
                        handle.as_raw_fd(),
                        name.as_ptr(),
                        &mut st,
                        libc::AT_SYMLINK_NOFOLLOW,
                    )
                };
                (rc == 0).then(|| FileStat {
                    id: FileId {
                        dev: st.st_dev as u64,
                        ino: st.st_ino as u64,
                    },
                    len: st.st_size as u64,
                    mtime_ns: nanos(st.st_mtime, st.st_mtime_nsec),
                    ctime_ns: nanos(st.st_ctime, st.st_ctime_nsec),
                })
            })
            .collect()
    }

    pub fn create_new(path: &Path, mode: u32) -> io::Result<File> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(path)?;
        // `mode` is filtered by the umask on create; set it exactly.
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        Ok(file)
    }

    pub fn open_append(path: &Path, mode: u32) -> io::Result<File> {
        OpenOptions::new().append(true).mode(mode).open(path)
    }

    pub fn sync_dir(dir: &Path) -> io::Result<()> {
        File::open(dir)?.sync_all()
    }

    #[cfg(target_os = "linux")]
    pub fn start_writeback(file: &File, offset: u64, len: u64) {
        let (Ok(offset), Ok(len)) = (
            libc::off64_t::try_from(offset),
            libc::off64_t::try_from(len),
        ) else {
            return;
        };
        // SAFETY: the descriptor is open for as long as `file` is borrowed;
        // the call only schedules writeback of its pages (a failure leaves
        // them to the sync that follows).
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE)
        };
    }

    #[cfg(not(target_os = "linux"))]
    pub fn start_writeback(_file: &File, _offset: u64, _len: u64) {}

    pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        file.read_at(buf, offset)
    }

    pub fn read_uninit_at(
        file: &File,
        buf: &mut [MaybeUninit<u8>],
        offset: u64,
    ) -> io::Result<usize> {
        let offset = libc::off_t::try_from(offset).map_err(|_| io::ErrorKind::InvalidInput)?;
        loop {
            // SAFETY: pread writes at most `buf.len()` bytes into `buf`,
            // which is valid for writes of that many bytes.
            let n = unsafe {
                libc::pread(file.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), offset)
            };
            match usize::try_from(n) {
                Ok(n) => return Ok(n),
                Err(_) => {
                    let err = io::Error::last_os_error();
                    if err.kind() != io::ErrorKind::Interrupted {
                        return Err(err);
                    }
                }
            }
        }
    }

    pub fn process_alive(pid: u64) -> bool {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        if pid <= 0 {
            return false;
        }
        // SAFETY: kill with signal 0 only checks for existence and permission.
        let rc = unsafe { libc::kill(pid, 0) };
        rc == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }

    /// Gone or unknown, by `kill(pid, 0)` alone.
    #[cfg(not(target_os = "macos"))]
    fn alive_or_gone(pid: u64) -> super::ProcessStart {
        if process_alive(pid) {
            super::ProcessStart::Unknown
        } else {
            super::ProcessStart::Gone
        }
    }

    #[cfg(target_os = "linux")]
    pub fn process_start(pid: u64) -> super::ProcessStart {
        use super::ProcessStart;
        if pid == 0 || libc::pid_t::try_from(pid).is_err() {
            return ProcessStart::Gone;
        }
        let stat = match std::fs::read(format!("/proc/{pid}/stat")) {
            Ok(stat) => stat,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return ProcessStart::Gone,
            Err(_) => return alive_or_gone(pid),
        };
        // `pid (comm) state ppid ...`: the name may hold spaces and
        // parentheses, so fields are counted after its last `)`.
        let Some(close) = stat.iter().rposition(|&b| b == b')') else {
            return alive_or_gone(pid);
        };
        let mut fields = stat[close + 1..]
            .split(|&b| b == b' ')
            .filter(|f| !f.is_empty());
        let state = fields.next();
        if matches!(state, Some(b"Z" | b"X")) {
            return ProcessStart::Gone;
        }
        // The state is field 3; `starttime` is field 22.
        match fields
            .nth(18)
            .and_then(|f| std::str::from_utf8(f).ok())
            .and_then(|f| f.parse().ok())
        {
            Some(ticks) => ProcessStart::BootTicks(ticks),
            None => alive_or_gone(pid),
        }
    }

    #[cfg(target_os = "macos")]
    pub fn process_start(pid: u64) -> super::ProcessStart {
        use super::ProcessStart;
        /// `SZOMB` of `<sys/proc.h>`.
        const ZOMBIE: u32 = 5;
        let Ok(pid) = libc::c_int::try_from(pid) else {
            return ProcessStart::Gone;
        };
        if pid <= 0 {
            return ProcessStart::Gone;
        }
        let mut info = MaybeUninit::<libc::proc_bsdinfo>::zeroed();
        let size = std::mem::size_of::<libc::proc_bsdinfo>() as libc::c_int;
        // SAFETY: the kernel writes at most `size` bytes into `info`.
        let n = unsafe {
            libc::proc_pidinfo(
                pid,
                libc::PROC_PIDTBSDINFO,
                0,
                info.as_mut_ptr().cast(),
                size,
            )
        };
        if n == size {
            // SAFETY: the call filled the whole structure.
            let info = unsafe { info.assume_init() };
            if info.pbi_status == ZOMBIE {
                return ProcessStart::Gone;
            }
            return ProcessStart::EpochSeconds(info.pbi_start_tvsec);
        }
        if process_alive(pid as u64) {
            ProcessStart::Unknown
        } else {
            ProcessStart::Gone
        }
    }

    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    pub fn process_start(pid: u64) -> super::ProcessStart {
        alive_or_gone(pid)
    }

    pub fn home_dir() -> PathBuf {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/"))
    }

    pub fn os_bytes(s: &OsStr) -> Cow<'_, [u8]> {
        Cow::Borrowed(s.as_bytes())
    }
}

#[cfg(windows)]
mod imp {
    use super::{FileId, FileStat};
    use std::borrow::Cow;
    use std::ffi::OsStr;
    use std::fs::{File, Metadata, OpenOptions};
    use std::io;
    use std::mem::MaybeUninit;
    use std::os::windows::fs::{FileExt, OpenOptionsExt};
    use std::os::windows::io::AsRawHandle;
    use std::path::{Path, PathBuf};
    use windows_sys::Win32::Foundation::{CloseHandle, FILETIME, STILL_ACTIVE};
    use windows_sys::Win32::Storage::FileSystem::{
        GetFileInformationByHandle, BY_HANDLE_FILE_INFORMATION, FILE_FLAG_BACKUP_SEMANTICS,
    };
    use windows_sys::Win32::System::Threading::{
        GetExitCodeProcess, GetProcessTimes, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    };

    pub fn file_id(file: &File) -> io::Result<FileId> {
        // SAFETY: the handle is open for the duration of the call and the
        // struct is plain data the call fills in.
        let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
        if unsafe { GetFileInformationByHandle(file.as_raw_handle() as _, &mut info) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(FileId {
            dev: u64::from(info.dwVolumeSerialNumber),
            ino: (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow),
        })
    }

    pub fn path_id(path: &Path) -> io::Result<FileId> {
        // Directories open only with backup semantics.
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
            .open(path)?;
        file_id(&file)
    }

    pub fn entry_id(path: &Path, _meta: &Metadata) -> io::Result<FileId> {
        path_id(path)
    }

    pub fn mode(_meta: &Metadata) -> u32 {
        0o644
    }

    pub fn ctime_ns(_meta: &Metadata) -> i128 {
        0
    }

    pub fn stat_each_in(dir: &Path, names: &[&OsStr]) -> Vec<Option<FileStat>> {
        names
            .iter()
            .map(|name| {
                let path = dir.join(name);
                let meta = std::fs::symlink_metadata(&path).ok()?;
                FileStat::of(&path, &meta).ok()
            })
            .collect()
    }

    pub fn create_new(path: &Path, _mode: u32) -> io::Result<File> {
        OpenOptions::new().write(true).create_new(true).open(path)
    }

    pub fn open_append(path: &Path, _mode: u32) -> io::Result<File> {
        OpenOptions::new().append(true).open(path)
    }

    pub fn sync_dir(_dir: &Path) -> io::Result<()> {
        Ok(())
    }

    pub fn start_writeback(_file: &File, _offset: u64, _len: u64) {}

    pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        file.seek_read(buf, offset)
    }

    /// Stable std has no read into uninitialised bytes on Windows: they
    /// are zeroed first.
    pub fn read_uninit_at(
        file: &File,
        buf: &mut [MaybeUninit<u8>],
        offset: u64,
    ) -> io::Result<usize> {
        buf.fill(MaybeUninit::new(0));
        // SAFETY: every byte was initialised just above, and
        // `MaybeUninit<u8>` has the layout of `u8`.
        let buf = unsafe { &mut *(buf as *mut [MaybeUninit<u8>] as *mut [u8]) };
        file.seek_read(buf, offset)
    }

    pub fn process_alive(pid: u64) -> bool {
        let Ok(pid) = u32::try_from(pid) else {
            return false;
        };
        // SAFETY: OpenProcess returns a handle we close, or null; the exit
        // code is written into a local.
        unsafe {
            let handle = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
            if handle.is_null() {
                // Access denied still means the process exists.
                return io::Error::last_os_error().raw_os_error() == Some(5);
            }
            let mut code = 0u32;
            let ok = GetExitCodeProcess(handle, &mut code);
            CloseHandle(handle);
            ok != 0 && code == STILL_ACTIVE as u32
        }
    }

    pub fn process_start(pid: u64) -> super::ProcessStart {
        use super::ProcessStart;
        let Ok(pid) = u32::try_from(pid) else {
            return ProcessStart::Gone;
        };
        // SAFETY: OpenProcess returns a handle we close, or null; the exit
        // code and times are written into locals.
        unsafe {
            let handle = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
            if handle.is_null() {
                // Access denied still means the process exists.
                return if io::Error::last_os_error().raw_os_error() == Some(5) {
                    ProcessStart::Unknown
                } else {
                    ProcessStart::Gone
                };
            }
            let mut code = 0u32;
            let alive = GetExitCodeProcess(handle, &mut code) != 0 && code == STILL_ACTIVE as u32;
            let mut created = FILETIME::default();
            let (mut exited, mut kernel, mut user) = (created, created, created);
            let timed =
                GetProcessTimes(handle, &mut created, &mut exited, &mut kernel, &mut user) != 0;
            CloseHandle(handle);
            match (alive, timed) {
                (false, _) => ProcessStart::Gone,
                (true, false) => ProcessStart::Unknown,
                (true, true) => ProcessStart::FileTime(
                    (u64::from(created.dwHighDateTime) << 32) | u64::from(created.dwLowDateTime),
                ),
            }
        }
    }

    pub fn home_dir() -> PathBuf {
        std::env::var_os("USERPROFILE")
            .or_else(|| std::env::var_os("HOME"))
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("C:\\"))
    }

    pub fn os_bytes(s: &OsStr) -> Cow<'_, [u8]> {
        match s.to_string_lossy() {
            Cow::Borrowed(b) => Cow::Borrowed(b.as_bytes()),
            Cow::Owned(o) => Cow::Owned(o.into_bytes()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_read_at_an_offset_hold_those_bytes_and_stop_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"0123456789").unwrap();
        let file = File::open(&path).unwrap();
        assert_eq!(read_vec_at(&file, 4, 3).unwrap(), b"3456");
        assert_eq!(read_vec_at(&file, 20, 5).unwrap(), b"56789");
        assert_eq!(read_vec_at(&file, 10, 0).unwrap(), b"0123456789");
        assert!(read_vec_at(&file, 4, 10).unwrap().is_empty());
        assert!(read_vec_at(&file, 0, 2).unwrap().is_empty());
    }
}
