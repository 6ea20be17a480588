//! [`Ledger::salvage`]: a damaged ledger rebuilt into a fresh one from every row SQLite
//! can still read (the row copying is the `salvage` module's).

use super::error::{self, LedgerError, Result};
use super::handle::Ledger;
use super::placement;
use super::recovery;
use super::salvage::{self, SalvageReport, TableSalvage};
use super::{migrations, sends, store, traces};
use crate::clock::Clock;
use crate::profile::{Profile, Reserve};
use rusqlite::Connection;
use std::path::Path;
use std::sync::Arc;

impl Ledger {
    /// Salvages the profile's damaged ledger (see the `salvage` module): takes the profile,
    /// renames the damaged file aside untouched, builds a fresh ledger from every row
    /// SQLite can still read, runs recovery on it (nothing in flight stays in flight;
    /// those sends get a note) and closes the gate, recording who: `salvage`. On a failure
    /// before the fresh ledger is complete, the damaged file is put back where it was.
    /// Errors: `Profile` (owned by a running owner: stop it first), `NoLedger`, `Refused`
    /// (another schema), storage errors.
    pub fn salvage(profile: &Profile, clock: Arc<dyn Clock>) -> Result<(Self, SalvageReport)> {
        let lock = profile.lock_owner()?;
        let path = profile.ledger_path()?;
        if !path.exists() {
            return Err(LedgerError::NoLedger(path));
        }
        // No owner whose owner.lock was removed may still hold the damaged file.
        drop(placement::HeldLedger::take(&path)?);
        let aside = salvage::move_aside(&path, clock.now_ms())?;
        let scratch = profile.file(".salvage-scratch.sqlite3")?;
        let built = Self::rebuild(&path, &aside, &scratch);
        salvage::remove_scratch(&scratch);
        let (conn, tables, broken_references) = match built {
            Ok(b) => b,
            Err(e) => {
                salvage::remove_scratch(&path);
                let _ = salvage::move_aside_back(&aside, &path);
                return Err(e);
            }
        };
        let mut ledger = Self {
            conn,
            path: path.clone(),
            clock,
            reserve: Reserve::of(profile)?,
            profile: profile.clone(),
            displaced: None,
            damaged: Default::default(),
            deadlines: Default::default(),
            bounds: Default::default(),
            held: placement::HeldLedger::take(&path)?,
            sides: Default::default(),
            lock,
        };
        let recovered = ledger.write(recovery::recover)?;
        let name = aside.file_name().unwrap_or_default().to_string_lossy();
        let note = format!(
            "salvaged from {name}: it was in flight in the damaged ledger; check the conversation before deciding"
        );
        ledger.write(|tx, now| {
            for op_id in &recovered.uncertain {
                let send = sends::load(tx, op_id)?;
                sends::note(tx, &send, "salvage", (&note, None), now)?;
            }
            Ok(())
        })?;
        ledger.stop(&format!(
            "salvage: rebuilt from {name}; look at the history before `sendledger resume`"
        ))?;
        let report = SalvageReport {
            damaged: aside,
            ledger: path,
            tables,
            broken_references,
            uncertain: recovered.uncertain,
            rejected: recovered.rejected,
        };
        Ok((ledger, report))
    }

    /// The fresh ledger at `path`, filled from the scratch copy of `aside`.
    fn rebuild(
        path: &Path,
        aside: &Path,
        scratch: &Path,
    ) -> Result<(Connection, Vec<TableSalvage>, u64)> {
        let unreadable = |e| match e {
            LedgerError::Corrupt { .. } => traces::unreadable_first_page(path),
            other => other,
        };
        let damaged = salvage::open_scratch(aside, scratch).map_err(unreadable)?;
        salvage::check_schema(&damaged, aside).map_err(unreadable)?;
        let mut conn = store::open_writer(path, migrations::CURRENT_VERSION, true)?;
        let tables = salvage::copy_rows(&damaged, &mut conn).map_err(|e| match e {
            LedgerError::Sqlite(e) => error::from_sqlite(e, path),
            other => other,
        })?;
        let broken = salvage::broken_references(&conn)?;
        Ok((conn, tables, broken))
    }
}
