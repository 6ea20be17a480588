//! Which file a path names now, compared with a file the owner holds open: the owner's
//! check that the ledger and the lock it holds custody in are still the ones at their
//! paths (a clean-up, a sync or backup tool may remove, rename or replace them).
//!
//! On Unix the identity is (device, inode), read from the open descriptor and, for the
//! path, by `stat` — never by opening it: opening and closing another descriptor of the
//! SQLite file would drop SQLite's own POSIX locks in this process. Elsewhere it is
//! [`same_file::Handle`] (there the path is opened; Windows locks are per handle).

use std::fs::File;
use std::io;
use std::path::Path;

/// The identity of one open file.
#[derive(Debug)]
pub struct FileIdentity(Id);

#[cfg(unix)]
type Id = (u64, u64);
#[cfg(not(unix))]
type Id = same_file::Handle;

impl FileIdentity {
    /// The identity of the open `file`. Errors: the descriptor cannot be read.
    pub fn of_file(file: &File) -> io::Result<Self> {
        of_file(file).map(Self)
    }

    /// Whether `path` names this very file now: `Ok(false)` when the path is gone or names
    /// another file (removed, renamed, replaced). Errors: the path cannot be read.
    pub fn is_at(&self, path: &Path) -> io::Result<bool> {
        match at_path(path) {
            Ok(id) => Ok(id == self.0),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
}

#[cfg(unix)]
fn of_file(file: &File) -> io::Result<Id> {
    use std::os::unix::fs::MetadataExt;
    let m = file.metadata()?;
    Ok((m.dev(), m.ino()))
}

#[cfg(unix)]
fn at_path(path: &Path) -> io::Result<Id> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path)?;
    Ok((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn of_file(file: &File) -> io::Result<Id> {
    same_file::Handle::from_file(file.try_clone()?)
}

#[cfg(not(unix))]
fn at_path(path: &Path) -> io::Result<Id> {
    same_file::Handle::from_path(path)
}
