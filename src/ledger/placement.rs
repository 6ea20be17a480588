//! The owner's files are the ones at their paths (docs/custody.md, "The profile's folder
//! while an owner runs"). The owner holds the ledger file open and locked for as long as
//! it runs ([`HeldLedger`]: a second owner whose `owner.lock` was taken from under the
//! first cannot take the ledger too), and before and after every transaction it checks
//! that the ledger and the lock it holds are still the files at their paths. When one was
//! removed, renamed or replaced, the owner is [`Displacement`]: it acknowledges nothing
//! more, saves a copy of the open ledger beside it, and leaves [`DISPLACED_FILE`] for
//! `doctor` and the next start. A start that finds no ledger where the profile shows it
//! had one refuses to begin an empty one ([`missing_ledger`]).

use super::displacement::Displacement;
use super::error::{LedgerError, Result};
use crate::clock::Millis;
use crate::profile::{FileIdentity, OwnerInfo, Profile, ProfileError, DISPLACED_FILE, LEDGER_FILE};
use rusqlite::Connection;

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

/// The ledger file, held open and locked by its owner.
#[derive(Debug)]
pub(crate) struct HeldLedger {
    _file: File,
    identity: FileIdentity,
    path: PathBuf,
}

impl HeldLedger {
    /// Opens (creating 0600) and locks the ledger file at `path` for this owner, and
    /// proves the locked file is the one at the path. Errors: `Refused` when another
    /// process holds it (an owner whose `owner.lock` was removed), `Profile` (I/O).
    pub(crate) fn take(path: &Path) -> Result<Self> {
        let io_err = |source| {
            LedgerError::Profile(ProfileError::Io {
                path: path.into(),
                source,
            })
        };
        let file = open_private(path).map_err(io_err)?;
        if !lock_exclusively(&file).map_err(io_err)? {
            return Err(LedgerError::Profile(ProfileError::Owned {
                profile: path.parent().unwrap_or(path).to_path_buf(),
                owner: OwnerInfo {
                    pid: 0,
                    command: "an owner whose owner.lock was removed or replaced while it ran; it holds the ledger file itself, and bridge.json names its pid".into(),
                },
            }));
        }
        let identity = FileIdentity::of_file(&file).map_err(io_err)?;
        if !identity.is_at(path).map_err(io_err)? {
            return Err(LedgerError::Refused(format!(
                "the ledger file {} changed while it was being opened (something removes or replaces files in the profile): stop that, then start again",
                path.display()
            )));
        }
        Ok(Self {
            _file: file,
            identity,
            path: path.into(),
        })
    }

    /// Whether the held file is still the one at its path.
    pub(crate) fn is_in_place(&self) -> std::io::Result<bool> {
        self.identity.is_at(&self.path)
    }
}

/// SQLite's `-wal` and `-shm` beside the owner's ledger, each with the identity it had
/// when the owner first saw it (SQLite makes them when the owner's connection opens and
/// removes them only when the last connection closes, so while the owner runs they are
/// the same files). Checked only where the platform says so
/// ([`crate::platform::CHECK_SQLITE_SIDE_FILES`]).
#[derive(Debug, Default)]
pub(crate) struct SideFiles(Vec<(String, Option<FileIdentity>)>);

impl SideFiles {
    /// The side files of the ledger named `ledger_name`, identities taken when first seen.
    pub(crate) fn of(ledger_name: &str) -> Self {
        if !crate::platform::CHECK_SQLITE_SIDE_FILES {
            return Self::default();
        }
        Self(
            ["-wal", "-shm"]
                .iter()
                .map(|s| (format!("{ledger_name}{s}"), None))
                .collect(),
        )
    }

    /// The first side file in `dir` that is no longer the one the owner saw: (its name,
    /// how it moved). A side file not seen yet is taken as it is now.
    pub(crate) fn moved(&mut self, dir: &Path) -> Option<(String, String)> {
        for (name, seen) in &mut self.0 {
            let path = dir.join(&*name);
            match seen {
                None => *seen = FileIdentity::at_path(&path).ok(),
                Some(id) => {
                    if let Some(how) = how_moved(&path, id.is_at(&path)) {
                        return Some((name.clone(), how));
                    }
                }
            }
        }
        None
    }
}

fn open_private(path: &Path) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true).write(true).create(true).truncate(false);
    crate::platform::private_file(&mut o).open(path)
}

/// An exclusive lock on the whole ledger file for this owner's life where the platform
/// takes one (`platform::LOCK_LEDGER_FILE`: `flock`, independent of SQLite's POSIX record
/// locks). `Ok(false)`: another process holds it.
fn lock_exclusively(file: &File) -> std::io::Result<bool> {
    if !crate::platform::LOCK_LEDGER_FILE {
        return Ok(true);
    }
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(std::fs::TryLockError::WouldBlock) => Ok(false),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

/// How the file at `path` stands, given whether the held one is `in_place`: `None` in
/// place, else how it moved.
pub(crate) fn how_moved(path: &Path, in_place: std::io::Result<bool>) -> Option<String> {
    match in_place {
        Ok(true) => None,
        Ok(false) if std::fs::symlink_metadata(path).is_ok() => {
            Some("replaced by another file".into())
        }
        Ok(false) => Some("removed or renamed".into()),
        Err(e) => Some(format!("unreadable ({e})")),
    }
}

/// The marker a displaced owner left, if any (an unreadable one counts as one that says
/// the ledger moved: the safe reading).
pub(crate) fn read_marker(profile: &Profile) -> Option<Displacement> {
    let path = profile.file(DISPLACED_FILE).ok()?;
    let text = std::fs::read_to_string(path).ok()?;
    Some(serde_json::from_str(&text).unwrap_or(Displacement {
        file: LEDGER_FILE.into(),
        how: "removed, renamed or replaced (the note about it is unreadable)".into(),
        at: 0,
        pid: 0,
        rescued: None,
        stop: None,
    }))
}

/// Writes the marker (0600, atomically); logs when it cannot. Errors: it was not written
/// (a folder moved or removed whole, a full disk).
pub(crate) fn write_marker(profile: &Profile, d: &Displacement) -> Result<()> {
    let body = serde_json::to_vec_pretty(d).expect("a displacement serialises");
    profile.write_private(DISPLACED_FILE, &body).map_err(|e| {
        tracing::error!(error = %e, "cannot write {DISPLACED_FILE}: the next start will not know the ledger moved");
        LedgerError::Profile(e)
    })?;
    Ok(())
}

/// Removes the marker once the next start has acted on it.
pub(crate) fn remove_marker(profile: &Profile) {
    if let Ok(p) = profile.file(DISPLACED_FILE) {
        let _ = std::fs::remove_file(p);
    }
}

/// Saves a copy of the open ledger as `ledger.rescued-<ms>.sqlite3` (0600) in the profile
/// (`VACUUM INTO`: a read of what this connection sees, the `-wal`'s rows included).
/// Returns its file name, or `None` (logged) when it could not be written.
pub(crate) fn rescue(conn: &Connection, profile: &Profile, now: Millis) -> Option<String> {
    let name = format!("ledger.rescued-{now}.sqlite3");
    let path = profile.file(&name).ok()?;
    // Written under a temporary name and renamed: the copy appears whole or not at all.
    let tmp = profile.file(&format!(".{name}.tmp")).ok()?;
    let _ = std::fs::remove_file(&tmp);
    let saved = conn
        .execute("VACUUM INTO ?1", [tmp.to_string_lossy()])
        .map_err(|e| e.to_string())
        .and_then(|_| {
            crate::platform::tighten_file(&tmp);
            std::fs::rename(&tmp, &path).map_err(|e| e.to_string())
        });
    match saved {
        Ok(()) => Some(name),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            tracing::error!(error = %e, "cannot save a copy of the open ledger");
            None
        }
    }
}

/// The main ledger file moved (removed, renamed, replaced): empties this connection's
/// `-wal` into the file it holds (`wal_checkpoint(TRUNCATE)`). SQLite does not checkpoint
/// a moved file on its own, not at its close and not at a SIGKILL, so the moved file's
/// frames would stay in `ledger.sqlite3-wal` beside the path, and SQLite would replay them
/// onto whatever file is put there next — the rescued copy moved into place as the start
/// advises, or an older backup restored — and damage it beyond salvage. Emptied, the
/// `-wal` holds nothing for another file; a renamed ledger is whole on its own. Logged
/// when it cannot be done (a reader holds the `-wal`).
pub(crate) fn empty_the_wal_into_the_moved_file(conn: &Connection) {
    let done = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
        r.get::<_, i64>(0)
    });
    match done {
        Ok(0) => {}
        Ok(_) => tracing::error!("the moved ledger's ledger.sqlite3-wal could not be emptied (a reader holds it): remove ledger.sqlite3-wal and ledger.sqlite3-shm before putting another file in its place"),
        Err(e) => tracing::error!(error = %e, "the moved ledger's ledger.sqlite3-wal could not be emptied: remove ledger.sqlite3-wal and ledger.sqlite3-shm before putting another file in its place"),
    }
}

/// The refusal of a start that finds no ledger at `path` where `found` shows the profile
/// had one: what was found and what to do.
pub(crate) fn missing_ledger(profile: &Profile, path: &Path, found: &[String]) -> LedgerError {
    let dir = profile.dir().display();
    let rescued = found
        .iter()
        .rev()
        .find(|n| n.starts_with("ledger.rescued-"));
    let wal = found.iter().any(|n| n == "ledger.sqlite3-wal");
    let advice = match (rescued, wal) {
        (Some(r), _) => format!(
            "The owner that lost it saved a copy: `mv {dir}/{r} {}` to continue from it (the gate starts closed).",
            path.display()
        ),
        (None, true) => format!(
            "If you moved or renamed the ledger file, put it back as {} — its newest rows are in ledger.sqlite3-wal beside it, which must stay.",
            path.display()
        ),
        (None, false) => format!(
            "If you moved or renamed the ledger file, put it back as {}.",
            path.display()
        ),
    };
    LedgerError::LedgerMissing(format!(
        "no ledger at {}, but this profile has had one (found: {}): sendledger does not begin a new, empty ledger over it, since every send and Stop it acknowledged would be forgotten. {advice} To begin an empty ledger on purpose, move those files out of {dir} first",
        path.display(),
        found.join(", ")
    ))
}

/// The refusal of a start whose previous owner found SQLite's `-wal` or `-shm` removed or
/// replaced under it and saved a copy of its open ledger that is still in the profile: the
/// main file may lack the rows acknowledged since SQLite's last checkpoint, which are in
/// the copy. `None`: no such marker, or its copy is gone (put in place, or removed on
/// purpose): the start goes on, and closes the gate for the marker.
pub(crate) fn side_file_lost(profile: &Profile, path: &Path) -> Option<LedgerError> {
    let d = read_marker(profile).filter(Displacement::side_file_moved)?;
    let copy = d.rescued.as_ref()?;
    let copy_path = profile.file(copy).ok().filter(|p| p.exists())?;
    Some(LedgerError::LedgerMissing(format!(
        "the previous owner's {} was {} while it ran ({} says so): the rows it acknowledged since SQLite's last checkpoint may be missing from {}, and are in the copy it saved. To continue from the copy (the gate starts closed): `rm -f {p}-wal {p}-shm && mv {} {p}`. To continue from {p} as it is instead, remove the copy first",
        d.file,
        d.how,
        DISPLACED_FILE,
        path.display(),
        copy_path.display(),
        p = path.display(),
    )))
}
