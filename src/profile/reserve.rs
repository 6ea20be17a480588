//! The brake's reserve: a preallocated file in the profile, released only so that a Stop
//! or a person's decision can commit when the disk is full (SQLite answered
//! `SQLITE_FULL`), then made again.
//!
//! [`RESERVE_BYTES`] is 1 MiB. A Stop writes its pages to the WAL: measured at about
//! 36 KiB with 10 sends queued and about 612 KiB with 1,000 (docs/custody.md, "The brake
//! gets through whatever else is wrong"), so 1 MiB covers a Stop of a long queue.

use super::{Profile, ProfileError};
use crate::platform;
use std::fs::{self, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// File name of the reserve inside a profile.
pub const RESERVE_FILE: &str = "reserve.bin";
/// Size of the reserve, in bytes.
pub const RESERVE_BYTES: u64 = 1 << 20;

/// The profile's reserve file.
#[derive(Debug, Clone)]
pub struct Reserve {
    path: PathBuf,
}

impl Reserve {
    /// The reserve of `profile` (not created yet: see [`Reserve::ensure`]).
    pub fn of(profile: &Profile) -> Result<Self, ProfileError> {
        Ok(Self {
            path: profile.file(RESERVE_FILE)?,
        })
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the reserve is in place at its full size.
    pub fn is_held(&self) -> bool {
        fs::metadata(&self.path).is_ok_and(|m| m.len() >= RESERVE_BYTES)
    }

    /// Makes the reserve when it is missing or short: [`RESERVE_BYTES`] allocated on disk
    /// ([`platform::preallocate`]: not a sparse file), private, synced. Returns whether it was
    /// made now. On a disk too full for it, nothing is left behind and the error says so.
    pub fn ensure(&self) -> io::Result<bool> {
        if self.is_held() {
            return Ok(false);
        }
        let file =
            platform::private_file(OpenOptions::new().write(true).create(true).truncate(false))
                .open(&self.path)?;
        let done = platform::preallocate(&file, RESERVE_BYTES).and_then(|()| file.sync_all());
        if done.is_err() {
            drop(file);
            let _ = fs::remove_file(&self.path);
        }
        done.map(|()| true)
    }

    /// Frees the reserve's space. Returns whether there was a reserve to release.
    pub fn release(&self) -> io::Result<bool> {
        match fs::remove_file(&self.path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
}
