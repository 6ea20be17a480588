//! Linux: POSIX (`unix.rs`) and `posix_fallocate` for the reserve.

pub use super::unix::*;

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// The OS's name, for `doctor`.
pub const NAME: &str = "Linux";

/// Allocates `bytes` of `file` on disk (`posix_fallocate`: not a sparse file, so a full
/// disk fails here rather than at a later write).
pub fn preallocate(file: &File, bytes: u64) -> io::Result<()> {
    // SAFETY: a plain syscall on a descriptor the caller holds for the call's duration.
    let rc = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, bytes as libc::off_t) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(rc))
    }
}
