//! What Linux and macOS share: POSIX modes, signals, the passwd entry, `RLIMIT_NOFILE`,
//! the `O_RDONLY`/character-device test of stdout.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// The owner's pid and command line are written in `owner.lock` itself: a `flock` does
/// not keep other processes from reading the file.
pub const NOTE_IN_LOCK_FILE: bool = true;
/// The signals that end an owner gracefully, for its log and the README.
pub const SHUTDOWN_SIGNALS: &str = "SIGTERM or SIGINT";
/// How files are kept private, for `doctor`.
pub const PRIVACY: &str = "files 0600, folders 0700 (checked)";

/// Makes `opts` create the file 0600 (only the owner reads or writes it).
pub fn private_file(opts: &mut OpenOptions) -> &mut OpenOptions {
    opts.mode(0o600)
}

/// Tightens an existing folder to 0700 when it is group- or world-accessible; a folder
/// already private keeps its mode.
pub fn make_private_dir(dir: &Path) -> io::Result<()> {
    let meta = std::fs::metadata(dir)?;
    if meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Tightens an existing file to 0600 when it is group- or world-accessible (best effort:
/// a file another user owns stays as it is, and `doctor` reports it).
pub fn tighten_file(path: &Path) {
    if let Ok(m) = std::fs::metadata(path) {
        if m.permissions().mode() & 0o077 != 0 {
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
        }
    }
}

/// What is wrong with the privacy of `path` (a folder when `is_dir`), as a sentence
/// with the command that fixes it; `None` when it is private or cannot be read.
pub fn privacy_problem(path: &Path, is_dir: bool) -> Option<String> {
    let m = std::fs::metadata(path).ok()?.permissions().mode() & 0o777;
    if m & 0o077 == 0 {
        return None;
    }
    Some(if is_dir {
        format!(
            "profile directory is mode {m:o}, not 700: run `chmod 700 {}`",
            path.display()
        )
    } else {
        format!(
            "{} is mode {m:o}, not 600: run `chmod 600 {}`",
            path.display(),
            path.display()
        )
    })
}

/// Waits for SIGTERM or SIGINT (Ctrl-C).
pub async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

/// The account name of the process's uid (`getpwuid`), `None` when it has none.
pub fn account_name() -> Option<String> {
    // SAFETY: getpwuid returns a pointer into static storage or null; the name is copied
    // out before anything else can call it on this thread.
    unsafe {
        let pw = libc::getpwuid(libc::getuid());
        if pw.is_null() || (*pw).pw_name.is_null() {
            return None;
        }
        let name = std::ffi::CStr::from_ptr((*pw).pw_name);
        name.to_str().ok().map(str::to_string)
    }
}

/// This machine's host name (`gethostname`), what another machine's `ssh` names it by;
/// `None` when it cannot be read.
pub fn host_name() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into `buf`.
    if unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    std::str::from_utf8(&buf[..end])
        .ok()
        .map(str::to_string)
        .filter(|h| !h.is_empty())
}

/// Raises the soft `RLIMIT_NOFILE` to the hard limit; returns the soft limit in force
/// afterwards (the old one when raising failed, `u64::MAX` when unlimited).
pub fn raise_open_file_limit() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit write or read only the struct passed.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return 1024;
    }
    if lim.rlim_cur < lim.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: lim.rlim_max,
            rlim_max: lim.rlim_max,
        };
        // SAFETY: as above.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            lim.rlim_cur = lim.rlim_max;
        } else {
            tracing::warn!(
                soft = lim.rlim_cur,
                hard = lim.rlim_max,
                "the open-file limit could not be raised"
            );
        }
    }
    #[allow(clippy::useless_conversion)] // rlim_t is 32 bits on some targets
    u64::try_from(lim.rlim_cur).unwrap_or(u64::MAX)
}

/// Whether accepting failed for want of file descriptors (EMFILE, ENFILE).
pub fn out_of_files(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE) | Some(libc::ENFILE))
}

/// Whether standard output goes where nobody reads it: a device that is not a terminal
/// (/dev/null — also what a closed stdout, `>&-`, is by the time `main` runs, since the
/// Rust runtime reopens a closed fd 0–2 on it — /dev/zero, /dev/urandom, …), or an fd
/// open only for reading (writes to it fail with EBADF, which Rust's stdout reports as
/// success).
pub fn stdout_goes_nowhere() -> bool {
    use std::io::IsTerminal;
    use std::os::fd::{AsFd, AsRawFd};
    use std::os::unix::fs::FileTypeExt;
    let out = std::io::stdout();
    // SAFETY: F_GETFL only reads the flags of an fd this process holds open.
    let flags = unsafe { libc::fcntl(out.as_fd().as_raw_fd(), libc::F_GETFL) };
    if flags >= 0 && flags & libc::O_ACCMODE == libc::O_RDONLY {
        return true;
    }
    let meta = out
        .as_fd()
        .try_clone_to_owned()
        .map(File::from)
        .and_then(|f| f.metadata());
    meta.is_ok_and(|m| m.file_type().is_char_device()) && !out.is_terminal()
}

/// Whether `p` is a file with an execute bit.
pub fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The canonical, absolute form of `path` (`realpath`).
pub fn canonicalize(path: &Path) -> io::Result<std::path::PathBuf> {
    path.canonicalize()
}

/// A file's identity: (device, inode). Compared to tell whether a path still names a file
/// the owner holds open.
pub type FileId = (u64, u64);

/// The identity of the open `file`. Errors: the descriptor cannot be read.
pub fn file_id(file: &File) -> io::Result<FileId> {
    use std::os::unix::fs::MetadataExt;
    let m = file.metadata()?;
    Ok((m.dev(), m.ino()))
}

/// The identity of the file `path` names now, by `stat` — never by opening it: opening and
/// closing another descriptor of the SQLite file would drop SQLite's own POSIX locks in
/// this process. Errors: `NotFound` when the path is gone.
pub fn path_id(path: &Path) -> io::Result<FileId> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path)?;
    Ok((m.dev(), m.ino()))
}

/// Whether the owner also locks the ledger file itself for its life: `flock`, independent
/// of SQLite's POSIX record locks.
pub const LOCK_LEDGER_FILE: bool = true;

/// Whether the owner checks that SQLite's `-wal` and `-shm` beside the ledger are still the
/// files at their paths: on Unix a removed one goes on being written through SQLite's open
/// descriptor, so a clean-up that deletes it loses what is in it.
pub const CHECK_SQLITE_SIDE_FILES: bool = true;
