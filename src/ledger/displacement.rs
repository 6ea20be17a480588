//! What an owner found moved under it ([`Displacement`]), as it keeps it in the
//! profile's [`DISPLACED_FILE`] and says it in every refusal (the `placement` module
//! notices it).

use super::local_time::local_time;
use crate::clock::Millis;
use crate::profile::{DISPLACED_FILE, LEDGER_FILE};
use serde::{Deserialize, Serialize};

/// What happened to a file the owner held custody in, kept in [`DISPLACED_FILE`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Displacement {
    /// Which file: `ledger.sqlite3` or `owner.lock`.
    pub file: String,
    /// "removed or renamed", "replaced by another file", or "unreadable (…)".
    pub how: String,
    /// When the owner noticed (ms, wall clock).
    pub at: Millis,
    /// The owner that noticed.
    pub pid: u32,
    /// The copy of the open ledger the owner saved in the profile (file name), if any.
    pub rescued: Option<String>,
    /// A Stop asked after the moment: who, and when (ms).
    pub stop: Option<(String, Millis)>,
}

impl Displacement {
    /// Whether the ledger itself (not only the lock) is no longer at its path.
    pub fn ledger_moved(&self) -> bool {
        self.file.starts_with(LEDGER_FILE)
    }

    /// Whether it was SQLite's `-wal` or `-shm` that moved: the main file is still at its
    /// path, but the newest rows may be only in the rescued copy.
    pub fn side_file_moved(&self) -> bool {
        self.file.starts_with(LEDGER_FILE) && self.file != LEDGER_FILE
    }

    /// The refusal every write gets from a displaced owner.
    pub fn sentence(&self, now: Millis) -> String {
        let mut s = format!(
            "this owner's {} was {} at {} (something changed the profile's folder under it): it no longer acknowledges anything, so nothing was written",
            self.file,
            self.how,
            local_time(self.at, now)
        );
        if let Some(r) = &self.rescued {
            s.push_str(&format!("; it saved a copy of its open ledger as {r}"));
        }
        if self.stop.is_some() {
            s.push_str(&format!("; the Stop was kept in {DISPLACED_FILE}: this owner grants nothing more, and the next start closes the gate before anything else"));
        }
        s.push_str("; quit this owner (the app's Quit, or stop `sendledger serve`) and start it again: the start says what it finds and what to do");
        s
    }
}
