//! Which file a path names now, compared with a file the owner holds open: the owner's
//! check that the ledger and the lock it holds custody in are still the ones at their
//! paths (a clean-up, a sync or backup tool may remove, rename or replace them).
//!
//! What an identity is, per OS, is the platform seam's (`platform::file_id`,
//! `platform::path_id`): on Unix (device, inode), the path read by `stat` — never by
//! opening it, which would drop SQLite's own POSIX locks in this process.

use crate::platform;
use std::fs::File;
use std::io;
use std::path::Path;

/// The identity of one open file.
#[derive(Debug)]
pub struct FileIdentity(platform::FileId);

impl FileIdentity {
    /// The identity of the open `file`. Errors: the descriptor cannot be read.
    pub fn of_file(file: &File) -> io::Result<Self> {
        platform::file_id(file).map(Self)
    }

    /// The identity of the file `path` names now, read without opening it on Unix.
    /// Errors: `NotFound` when the path is gone.
    pub fn at_path(path: &Path) -> io::Result<Self> {
        platform::path_id(path).map(Self)
    }

    /// Whether `path` names this very file now: `Ok(false)` when the path is gone or names
    /// another file (removed, renamed, replaced). Errors: the path cannot be read.
    pub fn is_at(&self, path: &Path) -> io::Result<bool> {
        match platform::path_id(path) {
            Ok(id) => Ok(id == self.0),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
}
