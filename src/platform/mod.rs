//! The platform seam: everything that differs between Linux, Windows and macOS, and
//! nothing else. One file per OS, chosen by `cfg` here and nowhere else in the core:
//! `linux.rs`, `windows.rs`, `macos.rs` (the last two share `unix.rs` where POSIX is the
//! same on both). The rest of the crate calls the functions below and names no OS.
//!
//! | concern | Linux | Windows | macOS (not built here) |
//! | --- | --- | --- | --- |
//! | owner lock | `flock` on `owner.lock` (std `File::try_lock`) | `LockFileEx` (the same std call) | `flock` |
//! | who holds it | written in `owner.lock` | written in `owner.note` beside it (a locked range cannot be read by another process) | in `owner.lock` |
//! | private files | 0600 files, 0700 folders | the per-user folder's inherited ACL (user, SYSTEM, Administrators) | 0600 / 0700 |
//! | shutdown | SIGTERM, SIGINT | Ctrl-C, Ctrl-Break, console close, logoff, shutdown | SIGTERM, SIGINT |
//! | account name | `getpwuid(getuid())` | `%USERNAME%` | `getpwuid(getuid())` |
//! | open-file limit | soft `RLIMIT_NOFILE` raised to the hard one | none to raise (sockets are not descriptors) | as Linux |
//! | reserve | `posix_fallocate` | `set_len` (NTFS allocates, not sparse) | zeros written |
//! | canonical paths | `realpath` | `dunce::canonicalize` (no `\\?\` prefix where the plain path means the same) | `realpath` |
//! | a file's identity | (device, inode) by `stat`, never opening the path | `same-file`'s handle (volume, file index) | as Linux |
//! | a lock on the ledger file itself | `flock` for the owner's life | none (SQLite's handle keeps it from being removed) | as Linux |
//! | heap arenas | glibc's capped at 2 (`mallopt`): the tray's heap stays small | the system heap | the system allocator |
//!
//! The default profile folder comes from `directories` (`data_local_dir`):
//! `~/.local/share/sendledger` on Linux, `%LOCALAPPDATA%\sendledger\data` on Windows,
//! `~/Library/Application Support/sendledger` on macOS.

#[cfg(unix)]
mod unix;

#[cfg(target_os = "linux")]
#[path = "linux.rs"]
mod os;
#[cfg(target_os = "macos")]
#[path = "macos.rs"]
mod os;
#[cfg(windows)]
#[path = "windows.rs"]
mod os;

pub use os::{
    account_name, canonicalize, few_heap_arenas, file_id, host_name, is_executable,
    make_private_dir, out_of_files, path_id, preallocate, privacy_problem, private_file,
    raise_open_file_limit, shutdown_signal, stdout_goes_nowhere, tighten_file, FileId,
    CHECK_SQLITE_SIDE_FILES, LOCK_LEDGER_FILE, NAME, NOTE_IN_LOCK_FILE, SHUTDOWN_SIGNALS,
};

/// The platform facts `sendledger doctor` prints: the OS, how the owner lock works, how
/// files are kept private, which signals stop an owner.
pub fn facts() -> Vec<(&'static str, String)> {
    vec![
        ("platform", format!("{NAME} ({})", std::env::consts::ARCH)),
        (
            "owner lock",
            if NOTE_IN_LOCK_FILE {
                "an OS lock on owner.lock (dies with the process), holder written in it".into()
            } else {
                "an OS lock on owner.lock (dies with the process), holder written in owner.note"
                    .into()
            },
        ),
        ("private files", os::PRIVACY.into()),
        ("shutdown on", SHUTDOWN_SIGNALS.into()),
    ]
}
