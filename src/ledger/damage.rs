//! The damage gate: nothing is written to a ledger file known to be damaged, nor to one not
//! yet known whole. A file up to [`inline_limit`] is checked whole (`PRAGMA quick_check`)
//! before its first write; a larger one the owner opens is checked right after its start,
//! on a connection of its own ([`Gate::check_in_background`]), every write refused
//! `Checking` until it passes. Damage found then, or met by SQLite at any later moment,
//! closes the gate for good: every write is refused `Damaged` (docs/custody.md "A damaged
//! ledger"; the cost of the check: docs/performance.md).

use super::error::{LedgerError, Result};
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

/// Largest ledger file checked before the owner listens, in bytes (32 MiB: about 3×10⁴
/// sends, ~0.2 s). Test-only override: `SENDLEDGER_INLINE_CHECK_BYTES`.
pub const INLINE_CHECK_BYTES: u64 = 32 * 1024 * 1024;

/// [`INLINE_CHECK_BYTES`], or the test-only override. `doctor` checks a file this large
/// or smaller whole by default, a larger one only with `--full` (issue 39).
pub fn inline_limit() -> u64 {
    std::env::var("SENDLEDGER_INLINE_CHECK_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(INLINE_CHECK_BYTES)
}

/// Checked whole (at open, or after the start).
const CHECKED: u8 = 0;
/// Not checked yet: the owner's own start (migrations, recovery) writes; no client yet.
const UNCHECKED: u8 = 1;
/// Being checked after the start: every write is refused until it passes.
const CHECKING: u8 = 2;

/// Whether the file is known whole, and what damage closed it, if any.
#[derive(Debug)]
pub(crate) struct Gate {
    state: AtomicU8,
    damaged: OnceLock<String>,
}

impl Default for Gate {
    fn default() -> Self {
        Self::new(true)
    }
}

impl Gate {
    /// A gate for a file checked whole already (`checked`) or still to be checked (writes
    /// pass until [`Gate::check_in_background`] starts).
    pub(crate) fn new(checked: bool) -> Self {
        Self {
            state: AtomicU8::new(if checked { CHECKED } else { UNCHECKED }),
            damaged: OnceLock::new(),
        }
    }

    /// Closes the gate for good: SQLite found `path` damaged (`detail`).
    pub(crate) fn close(&self, path: &Path, detail: &str) {
        if self.damaged.set(detail.to_string()).is_ok() {
            tracing::error!(file = %path.display(), "SQLite found the ledger damaged: writes are refused until `sendledger salvage`");
        }
    }

    /// `e`, and when it says the file is damaged (`Corrupt`: SQLite's `SQLITE_CORRUPT` or
    /// `SQLITE_NOTADB` while the owner runs) the gate closed for good: the error becomes
    /// [`LedgerError::Damaged`], and so is every later write.
    pub(crate) fn noted(&self, e: LedgerError) -> LedgerError {
        match e {
            LedgerError::Corrupt { path, detail } => {
                self.close(&path, &detail);
                LedgerError::Damaged { path, detail }
            }
            other => other,
        }
    }

    /// `Ok` when a write to `path` may be made. Errors: `Damaged`, `Checking`.
    pub(crate) fn open_for_writes(&self, path: &Path) -> Result<()> {
        if let Some(detail) = self.damaged.get() {
            let (path, detail) = (path.into(), detail.clone());
            return Err(LedgerError::Damaged { path, detail });
        }
        if self.state.load(Ordering::Acquire) == CHECKING {
            let mb = std::fs::metadata(path).map_or(0, |m| m.len() / 1_000_000);
            return Err(LedgerError::Checking {
                path: path.into(),
                mb,
            });
        }
        Ok(())
    }

    /// Checks `path` whole on a read-only connection of its own, in a thread; opens the gate
    /// when it passes, closes it for good when not. Nothing to do for a checked file.
    pub(crate) fn check_in_background(self: &Arc<Self>, path: PathBuf) {
        let started =
            self.state
                .compare_exchange(UNCHECKED, CHECKING, Ordering::AcqRel, Ordering::Acquire);
        if started.is_err() {
            return;
        }
        let gate = self.clone();
        std::thread::spawn(move || {
            let found = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)
                .map_err(|e| super::error::from_sqlite(e, &path))
                .and_then(|conn| super::store::whole(&conn, &path));
            match found {
                Ok(()) => tracing::info!("the ledger file was checked whole after the start"),
                Err(LedgerError::Corrupt { detail, .. }) => gate.close(&path, &detail),
                Err(e) => gate.close(&path, &format!("it could not be checked: {e}")),
            }
            gate.state.store(CHECKED, Ordering::Release);
        });
    }
}
