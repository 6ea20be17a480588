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

/// How many heaps glibc's allocator may keep: 2 (it defaults to 8 per core, one per
/// thread that met contention, each holding freed memory of its own). Measured in the tray
/// with 300 pending and 1,000 of History: 17.2 → 11.3 MB of heap (docs/performance.md).
const HEAP_ARENAS: libc::c_int = 2;

/// Caps glibc's heap arenas at [`HEAP_ARENAS`]; called first thing by the long-lived
/// processes (the tray, `sendledger serve`, the window), before their threads start. A
/// C library without `mallopt` (musl) is left as it is.
pub fn few_heap_arenas() {
    #[cfg(target_env = "gnu")]
    // SAFETY: `mallopt` only sets an allocator parameter; called before other threads run.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, HEAP_ARENAS);
    }
}
