//! Windows: `LockFileEx` through std's `File::try_lock`, the per-user profile folder's
//! inherited ACL for privacy, console control events for shutdown.
//!
//! Privacy, decided: the default profile lives in `%LOCALAPPDATA%\sendledger\data`, whose
//! ACL (inherited from the user's profile folder) grants only the user, SYSTEM and the
//! Administrators group — the same protection as the user's browser profiles and
//! credentials, and what a 0700 folder gives on Linux (root reads both). sendledger adds
//! no ACL of its own; a `--profile` elsewhere inherits that folder's ACL, which `doctor`
//! says it does not check.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// The OS's name, for `doctor`.
pub const NAME: &str = "Windows";
/// A byte-range lock (`LockFileEx`) keeps other processes from *reading* the locked
/// file, so the owner's pid and command line go in `owner.note` beside `owner.lock`.
pub const NOTE_IN_LOCK_FILE: bool = false;
/// The console events that end an owner gracefully, for its log and the README.
pub const SHUTDOWN_SIGNALS: &str = "Ctrl-C, Ctrl-Break, console close, logoff or shutdown";
/// How files are kept private, for `doctor`.
pub const PRIVACY: &str =
    "the profile folder's inherited ACL (the user, SYSTEM, Administrators; not checked)";

/// Files are private through the folder's inherited ACL: nothing to set per file.
pub fn private_file(opts: &mut OpenOptions) -> &mut OpenOptions {
    opts
}

/// Nothing to tighten: the folder keeps the ACL it inherits (see the module's note).
pub fn make_private_dir(dir: &Path) -> io::Result<()> {
    std::fs::metadata(dir).map(drop)
}

/// Nothing to tighten (see the module's note).
pub fn tighten_file(_path: &Path) {}

/// The ACL is not checked (see the module's note): never a problem.
pub fn privacy_problem(_path: &Path, _is_dir: bool) -> Option<String> {
    None
}

/// Waits for Ctrl-C, Ctrl-Break, the console window's close, logoff or shutdown.
pub async fn shutdown_signal() {
    use tokio::signal::windows::{ctrl_break, ctrl_close, ctrl_logoff, ctrl_shutdown};
    let mut brk = ctrl_break().expect("Ctrl-Break handler");
    let mut close = ctrl_close().expect("console close handler");
    let mut logoff = ctrl_logoff().expect("logoff handler");
    let mut shutdown = ctrl_shutdown().expect("shutdown handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = brk.recv() => {}
        _ = close.recv() => {}
        _ = logoff.recv() => {}
        _ = shutdown.recv() => {}
    }
}

/// The logged-on account (`%USERNAME%`), `None` when unset.
pub fn account_name() -> Option<String> {
    std::env::var("USERNAME")
        .ok()
        .filter(|u| !u.trim().is_empty())
}

/// This computer's name (`%COMPUTERNAME%`), what another machine's `ssh` names it by;
/// `None` when unset.
pub fn host_name() -> Option<String> {
    std::env::var("COMPUTERNAME")
        .ok()
        .filter(|h| !h.trim().is_empty())
}

/// Windows has no per-process limit on sockets like `RLIMIT_NOFILE`: nothing to raise,
/// and the connection cap is the bridge's own.
pub fn raise_open_file_limit() -> u64 {
    u64::MAX
}

/// Whether accepting failed for want of sockets or buffers (WSAEMFILE, WSAENOBUFS).
pub fn out_of_files(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(10024) | Some(10055))
}

/// Preallocates `bytes` of `file`: NTFS allocates the clusters of a file extended with
/// `SetEndOfFile` (std's `set_len`), so a full disk fails here.
pub fn preallocate(file: &File, bytes: u64) -> io::Result<()> {
    file.set_len(bytes)
}

/// Whether standard output goes where nobody reads it: no handle at all (a process
/// started without a console or a redirection; std then drops every write), or a
/// character device that is not a console (`NUL`).
pub fn stdout_goes_nowhere() -> bool {
    use std::io::IsTerminal;
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Storage::FileSystem::{GetFileType, FILE_TYPE_CHAR};
    let out = std::io::stdout();
    let handle = out.as_raw_handle();
    if handle.is_null() {
        return true;
    }
    // SAFETY: GetFileType only reads the type of a handle this process holds.
    let kind = unsafe { GetFileType(handle as _) };
    kind == FILE_TYPE_CHAR && !out.is_terminal()
}

/// Whether `p` is a file (Windows runs any file it is asked to start as a program).
pub fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file())
}

/// The canonical, absolute form of `path`, without the `\\?\` prefix std's
/// `canonicalize` adds whenever the plain form means the same file (`dunce`): what a
/// person reads in a message, and what SQLite is given.
pub fn canonicalize(path: &Path) -> io::Result<std::path::PathBuf> {
    dunce::canonicalize(path)
}

/// A file's identity (volume serial number and file index, by the `same-file` crate).
pub type FileId = same_file::Handle;

/// The identity of the open `file`. Errors: the handle cannot be read.
pub fn file_id(file: &File) -> io::Result<FileId> {
    same_file::Handle::from_file(file.try_clone()?)
}

/// The identity of the file `path` names now (opened here: Windows locks are per handle).
/// Errors: `NotFound` when the path is gone.
pub fn path_id(path: &Path) -> io::Result<FileId> {
    same_file::Handle::from_path(path)
}

/// No lock on the ledger file itself: a Windows lock is mandatory and would block
/// SQLite's own reads, and SQLite's handle (opened without delete sharing) already keeps
/// the file from being removed or renamed while the owner runs.
pub const LOCK_LEDGER_FILE: bool = false;

/// No check of SQLite's `-wal` and `-shm`: SQLite's handles keep them from being removed
/// or renamed while the owner runs, and an identity here is a handle that would keep them
/// open past SQLite's own close.
pub const CHECK_SQLITE_SIDE_FILES: bool = false;

/// Nothing to cap: the process heap is the system's (Linux caps glibc's arenas).
pub fn few_heap_arenas() {}
