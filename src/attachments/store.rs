//! The content-addressed store: `attachments/<sha256-hex>` in the profile folder, 0600
//! files in a 0700 folder, each written to a temporary file, synced, then renamed, so a
//! file at its address is whole. Bounded: [`MAX_FILE_BYTES`] a file, [`MAX_STORE_BYTES`]
//! in all (what the folder's files hold now, counted at each write).

use super::bounds::{MAX_FILE_BYTES, MAX_STORE_BYTES};
use crate::platform;
use sha2::{Digest, Sha256};
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The store's folder inside the profile.
pub const DIR: &str = "attachments";

/// Why the store could not take, give or drop a file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file over [`MAX_FILE_BYTES`].
    #[error("the file is {size} bytes; an attachment is at most {max} bytes (32 MiB): send a smaller file")]
    TooLarge {
        /// Its size.
        size: u64,
        /// The bound.
        max: u64,
    },
    /// An empty file.
    #[error("the file is empty: an attachment holds at least one byte")]
    Empty,
    /// The store would pass [`MAX_STORE_BYTES`].
    #[error("the attachment store is full ({used} of {max} bytes in use; 2 GiB at most): finish or settle the sends that carry files (their bytes are deleted 30 days after they end), then upload again")]
    Full {
        /// Bytes stored now.
        used: u64,
        /// The bound.
        max: u64,
    },
    /// No file at that address (never stored, or its bytes were deleted).
    #[error("the attachment {0} is not in the store (never uploaded, or its bytes were deleted after its sends ended): upload the file again")]
    Missing(String),
    /// The file at that address no longer hashes to it.
    #[error("the attachment {0} in the store is damaged (its bytes no longer match its sha256): upload the file again and queue a new send")]
    Corrupt(String),
    /// The file system refused.
    #[error("the attachment store at {path} could not be used ({source}): check the profile folder's space and permissions")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

/// The SHA-256 of `bytes`, as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The store in a profile folder.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// The store of the profile folder `profile_dir` (the folder is made, 0700, on the
    /// first write).
    pub fn new(profile_dir: &Path) -> Self {
        Store {
            dir: profile_dir.join(DIR),
        }
    }

    /// Its folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of the file at `sha` (checked: 64 lowercase hex digits).
    fn path(&self, sha: &str) -> Result<PathBuf, StoreError> {
        super::check_sha256(sha)
            .map_err(|_| StoreError::Missing(sha.chars().take(64).collect()))?;
        Ok(self.dir.join(sha))
    }

    fn io(&self, path: &Path) -> impl Fn(io::Error) -> StoreError + '_ {
        let path = path.to_path_buf();
        move |source| StoreError::Io {
            path: path.clone(),
            source,
        }
    }

    /// Bytes the store's files hold now (files whose name is not an address count too:
    /// the bound is on the disk).
    pub fn used_bytes(&self) -> Result<u64, StoreError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(self.io(&self.dir)(e)),
        };
        let mut used = 0u64;
        for entry in entries {
            let entry = entry.map_err(self.io(&self.dir))?;
            if let Ok(m) = entry.metadata() {
                used = used.saturating_add(m.len());
            }
        }
        Ok(used)
    }

    /// Stores `bytes` at their SHA-256; returns it and whether it was new (`false`: the
    /// same bytes were stored already). Errors: `Empty`, `TooLarge`, `Full`, `Io`.
    pub fn put(&self, bytes: &[u8]) -> Result<(String, bool), StoreError> {
        let size = bytes.len() as u64;
        if size == 0 {
            return Err(StoreError::Empty);
        }
        if size > MAX_FILE_BYTES {
            return Err(StoreError::TooLarge {
                size,
                max: MAX_FILE_BYTES,
            });
        }
        let sha = sha256_hex(bytes);
        let path = self.path(&sha)?;
        if fs::metadata(&path).is_ok_and(|m| m.len() == size) {
            return Ok((sha, false));
        }
        let used = self.used_bytes()?;
        if used.saturating_add(size) > MAX_STORE_BYTES {
            return Err(StoreError::Full {
                used,
                max: MAX_STORE_BYTES,
            });
        }
        self.write_atomically(&sha, &path, bytes)?;
        Ok((sha, true))
    }

    fn write_atomically(&self, sha: &str, path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
        fs::create_dir_all(&self.dir).map_err(self.io(&self.dir))?;
        platform::make_private_dir(&self.dir).map_err(self.io(&self.dir))?;
        let tmp = self
            .dir
            .join(format!(".{sha}.{}.tmp", uuid::Uuid::new_v4().simple()));
        let written = (|| {
            let mut f = platform::private_file(OpenOptions::new().write(true).create_new(true))
                .open(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
            fs::rename(&tmp, path)
        })();
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(self.io(path)(e));
        }
        Ok(())
    }

    /// Whether the file at `sha` is there with `size` bytes (the cheap check at hand-out
    /// time). Errors: `Missing`, `Corrupt` (another size).
    pub fn check_present(&self, sha: &str, size: u64) -> Result<(), StoreError> {
        let path = self.path(sha)?;
        match fs::metadata(&path) {
            Ok(m) if m.len() == size => Ok(()),
            Ok(_) => Err(StoreError::Corrupt(sha.into())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(StoreError::Missing(sha.into())),
            Err(e) => Err(self.io(&path)(e)),
        }
    }

    /// The bytes at `sha`, checked against it. Errors: `Missing`, `Corrupt`, `Io`.
    pub fn read(&self, sha: &str) -> Result<Vec<u8>, StoreError> {
        let path = self.path(sha)?;
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(StoreError::Missing(sha.into()))
            }
            Err(e) => return Err(self.io(&path)(e)),
        };
        if sha256_hex(&bytes) != sha {
            return Err(StoreError::Corrupt(sha.into()));
        }
        Ok(bytes)
    }

    /// Deletes the bytes at `sha` (its record stays in the ledger). `Ok(false)`: none there.
    pub fn remove(&self, sha: &str) -> Result<bool, StoreError> {
        let path = self.path(sha)?;
        match fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(self.io(&path)(e)),
        }
    }
}
