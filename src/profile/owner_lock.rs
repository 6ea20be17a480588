//! The owner lock: an exclusive OS lock on an open descriptor of `owner.lock` (std's
//! `File::try_lock`: `flock` on Linux and macOS, `LockFileEx` on Windows).
//!
//! The kernel drops it when the process dies, so a crashed owner never wedges the
//! profile. On Unix it is an open-file-description lock (not a POSIX record lock), so
//! closing some other descriptor of the same file in this process does not release it.
//! The owner's pid and command line, for the refusal message, are written in the lock
//! file itself, or in `owner.note` beside it where the OS keeps a locked file from being
//! read ([`platform::NOTE_IN_LOCK_FILE`]).

use super::identity::FileIdentity;
use super::{Profile, ProfileError, LOCK_FILE, OWNER_NOTE_FILE};
use crate::platform;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

/// Who holds a profile: pid and command line, as written by the holder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnerInfo {
    /// Process id of the owner.
    pub pid: u32,
    /// The owner's command line, arguments joined by spaces.
    pub command: String,
}

impl OwnerInfo {
    /// This process: its pid, and its program and subcommand only — never the other
    /// arguments, which may hold a message's text.
    pub fn current() -> Self {
        let args: Vec<String> = std::env::args().collect();
        let program = args.first().cloned().unwrap_or_default();
        let sub = args.iter().skip(1).find(|a| !a.starts_with('-'));
        let command = match sub {
            Some(s)
                if s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') && s.len() <= 32 =>
            {
                format!("{program} {s}")
            }
            _ => program,
        };
        Self {
            pid: std::process::id(),
            command,
        }
    }

    /// Whether the owner runs the program named `name` (no extension): the program in
    /// [`OwnerInfo::command`] (all of it, or all but the subcommand after its last space)
    /// has the file name `name`, with the platform's executable suffix (`.exe` on Windows)
    /// — wherever it is installed, in a folder whose name may hold spaces.
    pub fn runs_program(&self, name: &str) -> bool {
        let is_it = |program: &str| {
            let program = program
                .strip_suffix(std::env::consts::EXE_SUFFIX)
                .unwrap_or(program);
            std::path::Path::new(program)
                .file_name()
                .is_some_and(|n| n == name)
        };
        is_it(&self.command) || self.command.rsplit_once(' ').is_some_and(|(p, _)| is_it(p))
    }
}

impl std::fmt::Display for OwnerInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.pid == 0 {
            return f.write_str(&self.command);
        }
        write!(f, "pid {}: {}", self.pid, self.command)
    }
}

/// Held while this process owns the profile; released on drop or process death.
#[derive(Debug)]
pub struct OwnerLock {
    _file: File,
    identity: FileIdentity,
    path: PathBuf,
}

/// How many times taking the lock opens the path again when the file it locked was
/// removed or replaced in between (a clean-up racing the start).
const LOCK_ATTEMPTS: usize = 3;
/// How long a would-be owner waits for the holder to write its name, in ms (a second
/// owner started at the same instant finds the file locked but still empty).
const NAME_WAIT_MS: u64 = 500;

impl OwnerLock {
    /// Takes the lock and proves it: the file locked is the file at the path once the lock
    /// is held (a lock on a file removed in between would prove nothing). Errors: `Owned`
    /// naming the holder, `Io`, `Displaced` when the path keeps changing under it.
    pub(super) fn acquire(profile: &Profile) -> Result<Self, ProfileError> {
        let path = profile.file(LOCK_FILE)?;
        for _ in 0..LOCK_ATTEMPTS {
            let mut file = lock_file_at(profile, &path)?;
            let io_err = |source| ProfileError::Io {
                path: path.clone(),
                source,
            };
            let identity = FileIdentity::of_file(&file).map_err(io_err)?;
            if !identity.is_at(&path).map_err(io_err)? {
                continue; // removed or replaced between the open and the lock: open it again
            }
            let body = serde_json::to_vec(&OwnerInfo::current()).expect("owner info serialises");
            if platform::NOTE_IN_LOCK_FILE {
                file.set_len(0).map_err(io_err)?;
                file.seek(SeekFrom::Start(0)).map_err(io_err)?;
                file.write_all(&body).map_err(io_err)?;
                file.sync_data().map_err(io_err)?;
            } else {
                profile.write_private(OWNER_NOTE_FILE, &body)?;
            }
            return Ok(Self {
                _file: file,
                identity,
                path,
            });
        }
        Err(ProfileError::Io {
            path,
            source: std::io::Error::other(
                "the lock file was removed or replaced each time it was locked: stop whatever cleans the profile folder, then start again",
            ),
        })
    }

    /// Whether the file this lock holds is still the one at `owner.lock` (not removed,
    /// renamed or replaced). Errors: the path cannot be read.
    pub fn is_in_place(&self) -> std::io::Result<bool> {
        self.identity.is_at(&self.path)
    }

    /// Whether a live process holds the owner lock now (its name read or not).
    pub(super) fn is_held(profile: &Profile) -> bool {
        let Ok(path) = profile.file(LOCK_FILE) else {
            return false;
        };
        let Ok(file) = File::open(path) else {
            return false;
        };
        match file.try_lock_shared() {
            Ok(()) => {
                let _ = file.unlock();
                false
            }
            Err(_) => true,
        }
    }

    pub(super) fn holder(profile: &Profile) -> Option<OwnerInfo> {
        let path = profile.file(LOCK_FILE).ok()?;
        let mut file = File::open(path).ok()?;
        // Probing with a shared lock tells a live owner from a stale file. The probe is on
        // our own descriptor; flock locks of other descriptors are unaffected by it.
        match file.try_lock_shared() {
            Ok(()) => {
                let _ = file.unlock();
                None
            }
            Err(_) => read_owner(profile, &mut file),
        }
    }

    /// Path of the lock file.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }
}

/// Opens (creating 0600) and locks the lock file at `path`. Errors: `Owned` naming the
/// holder (or saying it is starting, when it has not written its name within
/// [`NAME_WAIT_MS`]), `Io`.
fn lock_file_at(profile: &Profile, path: &std::path::Path) -> Result<File, ProfileError> {
    let io_err = |source| ProfileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = platform::private_file(
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false),
    )
    .open(path)
    .map_err(io_err)?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(ProfileError::Owned {
            profile: profile.dir().to_path_buf(),
            owner: wait_for_name(profile, &mut file),
        }),
        Err(TryLockError::Error(e)) => Err(io_err(e)),
    }
}

/// The holder's name, waiting up to [`NAME_WAIT_MS`] for a holder that has just locked
/// the file to write it; else an owner "starting" (pid 0).
fn wait_for_name(profile: &Profile, file: &mut File) -> OwnerInfo {
    let start = std::time::Instant::now();
    loop {
        if let Some(owner) = read_owner(profile, file) {
            return owner;
        }
        if start.elapsed() >= std::time::Duration::from_millis(NAME_WAIT_MS) {
            return OwnerInfo {
                pid: 0,
                command: STARTING.into(),
            };
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// What a holder that has not written its name is called.
const STARTING: &str = "an owner that is starting (it has not written its name yet)";

/// The holder's pid and command line: from the lock file, or from `owner.note` where
/// the lock keeps the lock file from being read ([`platform::NOTE_IN_LOCK_FILE`]).
fn read_owner(profile: &Profile, file: &mut File) -> Option<OwnerInfo> {
    let mut s = String::new();
    if platform::NOTE_IN_LOCK_FILE {
        file.seek(SeekFrom::Start(0)).ok()?;
        file.read_to_string(&mut s).ok()?;
    } else {
        s = std::fs::read_to_string(profile.file(OWNER_NOTE_FILE).ok()?).ok()?;
    }
    serde_json::from_str(&s).ok()
}

#[cfg(test)]
mod tests {
    use super::OwnerInfo;

    fn runs(command: &str) -> bool {
        let o = OwnerInfo {
            pid: 7,
            command: command.into(),
        };
        o.runs_program("sendledger-tray")
    }

    #[test]
    fn an_owner_is_known_by_its_program_name_wherever_it_is_installed() {
        assert!(runs("/usr/bin/sendledger-tray"));
        assert!(runs("sendledger-tray"));
        // A folder with a space (a Windows user name, say) is still the program's folder.
        assert!(runs("/home/Jo Doe/apps/sendledger-tray"));
        // `sendledger-tray --profile work`: the subcommand-like word is recorded too.
        assert!(runs("/usr/bin/sendledger-tray work"));
        assert!(runs(&format!(
            "/opt/x/sendledger-tray{}",
            std::env::consts::EXE_SUFFIX
        )));
        assert!(!runs("/usr/bin/sendledger serve"));
        assert!(!runs("/usr/bin/sendledger-tray-old"));
        assert!(!runs("/home/sendledger-tray/bin/sendledger serve"));
    }
}
