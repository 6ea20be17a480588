//! The profile: one directory holding one ledger, its owner lock and its tokens.
//!
//! The directory is created 0700 and every file in it 0600. Paths are checked to stay
//! inside the directory after canonicalisation, so a symlinked ledger cannot send the
//! custody record somewhere else.

pub mod config;
pub mod default_destination;
pub mod discovery;
mod identity;
mod owner_lock;
mod reserve;
pub mod settings;

pub use config::Config;
pub use identity::FileIdentity;
pub use owner_lock::{OwnerInfo, OwnerLock};
pub use reserve::{Reserve, RESERVE_BYTES, RESERVE_FILE};

use crate::platform;
use std::fs::{self, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// File name of the ledger inside a profile.
pub const LEDGER_FILE: &str = "ledger.sqlite3";
/// File name of the owner lock inside a profile.
pub const LOCK_FILE: &str = "owner.lock";
/// Written by an owner that found its ledger or lock file removed, renamed or replaced
/// under it (docs/custody.md, "The profile's folder while an owner runs").
pub const DISPLACED_FILE: &str = "ledger.displaced.json";
/// Files that only exist in a profile that has had a ledger: the owner's `bridge.json`,
/// its tokens (`client.token`, `extension.json`), the brake's reserve, the ledger's own
/// `-wal`/`-shm`, and what salvage or a displaced owner keep (`ledger.damaged-*`,
/// `ledger.rescued-*`, [`DISPLACED_FILE`]).
const LEDGER_SIGNS: &[&str] = &[
    "bridge.json",
    "client.token",
    "extension.json",
    RESERVE_FILE,
    DISPLACED_FILE,
];
/// Name prefixes of the same (see [`LEDGER_SIGNS`]).
const LEDGER_SIGN_PREFIXES: &[&str] = &["ledger.sqlite3-", "ledger.damaged-", "ledger.rescued-"];
/// File name of the owner's pid and command line where the OS keeps a locked
/// `owner.lock` from being read (Windows: see [`crate::platform::NOTE_IN_LOCK_FILE`]).
pub const OWNER_NOTE_FILE: &str = "owner.note";
/// Environment variable that overrides the default profile directory.
pub const PROFILE_ENV: &str = "SENDLEDGER_PROFILE";

/// Errors about the profile directory and its owner.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// No home directory to derive the default profile from.
    #[error("no home directory to put the profile in: pass --profile DIR or set {PROFILE_ENV}")]
    NoDefaultDirectory,
    /// A path inside the profile resolves outside it (a symlink).
    #[error("{path} resolves to {target}, outside the profile {profile}: remove the link and let sendledger create the file")]
    Escapes {
        path: PathBuf,
        target: PathBuf,
        profile: PathBuf,
    },
    /// Another live process owns the profile.
    #[error("the profile {profile} is owned by another process ({owner}): stop it, or use read-only commands (list, show, status)")]
    Owned { profile: PathBuf, owner: OwnerInfo },
    /// The directory or a file could not be created or read.
    #[error("cannot use {path}: {source}; check that it is a directory you own")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// A profile directory, created with mode 0700.
#[derive(Debug, Clone)]
pub struct Profile {
    dir: PathBuf,
}

impl Profile {
    /// The profile at `explicit` (from `--profile`), else `$SENDLEDGER_PROFILE`, else the
    /// platform's local data directory (`~/.local/share/sendledger` on Linux,
    /// `%LOCALAPPDATA%\sendledger\data` on Windows). Creates it private
    /// ([`platform::make_private_dir`]).
    pub fn resolve(explicit: Option<&Path>) -> Result<Self, ProfileError> {
        let dir = match explicit {
            Some(p) => p.to_path_buf(),
            None => match std::env::var_os(PROFILE_ENV) {
                Some(p) if !p.is_empty() => PathBuf::from(p),
                _ => Self::default_dir().ok_or(ProfileError::NoDefaultDirectory)?,
            },
        };
        Self::at(dir)
    }

    /// The platform's default profile directory (`~/.local/share/sendledger` on Linux),
    /// what a command with neither `--profile` nor `$SENDLEDGER_PROFILE` uses; `None` when
    /// the platform names no home directory.
    pub fn default_dir() -> Option<PathBuf> {
        directories::ProjectDirs::from("", "", "sendledger")
            .map(|d| d.data_local_dir().to_path_buf())
    }

    /// Whether this is the default profile ([`Profile::default_dir`]), so a command needs
    /// no `--profile` to reach it.
    pub fn is_default(&self) -> bool {
        Self::default_dir()
            .and_then(|d| platform::canonicalize(&d).ok())
            .is_some_and(|d| d == self.dir)
    }

    /// The profile at `dir`, created 0700 if missing (an existing one keeps its mode
    /// unless it is group- or world-accessible, which is tightened to 0700).
    pub fn at(dir: impl Into<PathBuf>) -> Result<Self, ProfileError> {
        let dir = dir.into();
        let io_err = |source| ProfileError::Io {
            path: dir.clone(),
            source,
        };
        fs::create_dir_all(&dir).map_err(io_err)?;
        platform::make_private_dir(&dir).map_err(io_err)?;
        let dir = platform::canonicalize(&dir).map_err(io_err)?;
        Ok(Self { dir })
    }

    /// The canonical profile directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The D-Bus id of this profile's queue window: `org.sendledger.app.profile_<16 hex>`
    /// (the first 8 bytes of SHA-256 of the canonical directory). tauri-plugin-single-instance
    /// appends `.SingleInstance` for the name a running window holds, so a launch hands over
    /// only to a window of the same profile.
    pub fn window_bus_id(&self) -> String {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(self.dir.as_os_str().as_encoded_bytes());
        let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        format!("org.sendledger.app.profile_{hex}")
    }

    /// Path of `name` inside the profile, refused if it resolves outside the directory.
    pub fn file(&self, name: &str) -> Result<PathBuf, ProfileError> {
        let path = self.dir.join(name);
        match platform::canonicalize(&path) {
            Ok(target) if target.parent() != Some(self.dir.as_path()) => {
                Err(ProfileError::Escapes {
                    path,
                    target,
                    profile: self.dir.clone(),
                })
            }
            Ok(_) => Ok(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                // A dangling symlink also canonicalises to NotFound: refuse it too.
                match fs::symlink_metadata(&path) {
                    Ok(m) if m.file_type().is_symlink() => Err(ProfileError::Escapes {
                        target: fs::read_link(&path).unwrap_or_default(),
                        path,
                        profile: self.dir.clone(),
                    }),
                    _ => Ok(path),
                }
            }
            Err(source) => Err(ProfileError::Io { path, source }),
        }
    }

    /// The ledger file's path (see [`LEDGER_FILE`]).
    pub fn ledger_path(&self) -> Result<PathBuf, ProfileError> {
        self.file(LEDGER_FILE)
    }

    /// Writes `contents` to `name` with mode 0600 (created or replaced atomically).
    pub fn write_private(&self, name: &str, contents: &[u8]) -> Result<PathBuf, ProfileError> {
        let path = self.file(name)?;
        let tmp = self.dir.join(format!(".{name}.tmp"));
        let io_err = |source| ProfileError::Io {
            path: path.clone(),
            source,
        };
        let _ = fs::remove_file(&tmp);
        {
            use std::io::Write;
            let mut f = platform::private_file(OpenOptions::new().write(true).create_new(true))
                .open(&tmp)
                .map_err(io_err)?;
            f.write_all(contents).map_err(io_err)?;
            f.sync_all().map_err(io_err)?;
        }
        fs::rename(&tmp, &path).map_err(io_err)?;
        Ok(path)
    }

    /// Takes the owner lock, or says who holds it.
    pub fn lock_owner(&self) -> Result<OwnerLock, ProfileError> {
        OwnerLock::acquire(self)
    }

    /// The files in the profile that show it has had a ledger (see [`LEDGER_SIGNS`]),
    /// sorted by name: a profile with none of them and no ledger is new.
    pub fn signs_of_a_ledger(&self) -> Vec<String> {
        let mut found: Vec<String> = fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| {
                LEDGER_SIGNS.contains(&n.as_str())
                    || LEDGER_SIGN_PREFIXES.iter().any(|p| n.starts_with(p))
            })
            .collect();
        found.sort();
        found
    }

    /// Whether a live process holds the profile now (probes the lock; takes none).
    pub fn is_owned(&self) -> bool {
        OwnerLock::is_held(self)
    }

    /// Who owns the profile now, if anyone (reads the lock file; takes no lock).
    pub fn current_owner(&self) -> Option<OwnerInfo> {
        OwnerLock::holder(self)
    }
}
