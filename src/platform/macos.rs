//! macOS, on paper: POSIX (`unix.rs`) as on Linux; macOS has no `posix_fallocate`, so the
//! reserve is written out as zeros. Not built or tested on this project's machines (see
//! the README's macOS section for what a maintainer with a Mac runs).

pub use super::unix::*;

use std::fs::File;
use std::io::{self, Write};

/// The OS's name, for `doctor`.
pub const NAME: &str = "macOS";

/// Allocates `bytes` of `file` on disk by writing zeros (APFS would keep a `set_len`
/// sparse, and a full disk must fail here rather than at a later write).
pub fn preallocate(mut file: &File, bytes: u64) -> io::Result<()> {
    let zeros = vec![0u8; 64 * 1024];
    let mut left = bytes;
    while left > 0 {
        let n = left.min(zeros.len() as u64) as usize;
        file.write_all(&zeros[..n])?;
        left -= n as u64;
    }
    Ok(())
}

/// Nothing to cap: the system allocator's zones are not glibc's arenas.
pub fn few_heap_arenas() {}
