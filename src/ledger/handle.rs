//! The owner's handle ([`Ledger`]): the owner lock, the only writing connection, the
//! write that commits before it returns, and the check that the files it holds are still
//! the ones at their paths (the `placement` module). Its acts are in `acts`, `stop_resume` and
//! `upkeep`; its reads are [`super::LedgerRead`]'s.

use super::deadlines;
use super::displacement::Displacement;
use super::error::{self, LedgerError, Result};
use super::local_time::local_time;
use super::migrations;
use super::placement;
use super::recovery::{self, RecoveryReport};
use super::store;
use crate::clock::{Clock, Millis};
use crate::profile::{OwnerLock, Profile, Reserve};
use rusqlite::{Connection, Transaction, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The owner's handle: holds the owner lock and the only writing connection.
pub struct Ledger {
    // Dropped first: SQLite closes its descriptors before the held ones below close.
    pub(super) conn: Connection,
    pub(super) path: PathBuf,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) reserve: Reserve,
    pub(super) profile: Profile,
    /// Set once the ledger or lock file is found moved; sticky (placement module).
    pub(super) displaced: Option<Displacement>,
    /// Set the first time SQLite says the file is damaged (`SQLITE_CORRUPT`, "malformed")
    /// while the owner runs; sticky: every later write is refused `Damaged`, nothing new
    /// is acknowledged from a file known to be damaged.
    pub(super) damaged: Arc<super::damage::Gate>,
    /// The monotonic start of each in-flight bound, refreshed after every write.
    pub(super) deadlines: deadlines::Deadlines,
    /// The bounds the owner's sweep applies ([`Ledger::set_bounds`]); the grant refuses a
    /// claim past `claim_ms` by them, on the same clock.
    pub(super) bounds: super::expiry::Bounds,
    pub(super) held: placement::HeldLedger,
    /// SQLite's `-wal` and `-shm`, checked like the ledger itself.
    pub(super) sides: placement::SideFiles,
    pub(super) lock: OwnerLock,
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger").field("path", &self.path).finish()
    }
}

impl Ledger {
    /// Takes the profile (owner lock), opens or creates the ledger, migrates it, and runs
    /// recovery before returning. Errors: [`LedgerError::Profile`] naming the owner's pid
    /// when another process holds it; `NewerSchema`, `MigrationEdited`, `Corrupt`, `DiskFull`.
    pub fn open(profile: &Profile, clock: Arc<dyn Clock>) -> Result<(Self, RecoveryReport)> {
        Self::open_checking(profile, clock, false)
    }

    /// [`Ledger::open`] for the owner: a file larger than [`super::damage::inline_limit`] is
    /// not checked whole before it opens (seconds at 10⁵–10⁶ sends) but right after, by
    /// [`Ledger::check_whole_in_background`], with every write refused until it passes.
    pub fn open_for_owner(
        profile: &Profile,
        clock: Arc<dyn Clock>,
    ) -> Result<(Self, RecoveryReport)> {
        Self::open_checking(profile, clock, true)
    }

    fn open_checking(
        profile: &Profile,
        clock: Arc<dyn Clock>,
        defer_large: bool,
    ) -> Result<(Self, RecoveryReport)> {
        let version = migrations::CURRENT_VERSION;
        let mut ledger = Self::open_at(profile, clock, version, defer_large)?;
        let report = ledger.write(recovery::recover)?;
        ledger.close_gate_after_displacement()?;
        Ok((ledger, report))
    }

    /// After recovery: when the previous owner left [`Displacement`]'s marker because its
    /// ledger moved (or a Stop was asked after the moment), commits a Stop that says so,
    /// then removes the marker. The gate stays closed until a person has looked.
    fn close_gate_after_displacement(&mut self) -> Result<()> {
        let Some(d) = placement::read_marker(&self.profile) else {
            return Ok(());
        };
        if d.ledger_moved() || d.stop.is_some() {
            let who = d
                .stop
                .as_ref()
                .map_or("nobody".to_string(), |(by, _)| by.clone());
            let copy = d.rescued.as_ref().map_or(String::new(), |r| {
                format!("; every send it had acknowledged until then is in the copy it saved, {r}")
            });
            tracing::warn!(file = %d.file, how = %d.how, copy = d.rescued.as_deref().unwrap_or("none"), "the previous owner's ledger file moved under it: the gate is closed");
            self.stop(&format!(
                "owner: the previous owner's {} was {} at {} (Stop asked since: {who}); sends acknowledged after that may be missing here{copy} — look at the history before `sendledger resume`",
                d.file,
                d.how,
                local_time(d.at, self.now_ms())
            ))?;
        }
        placement::remove_marker(&self.profile);
        Ok(())
    }

    /// Opens the ledger migrated only up to `version`, without recovery. For upgrade tests
    /// that need a file at an older schema.
    #[doc(hidden)]
    pub fn open_at_version(profile: &Profile, clock: Arc<dyn Clock>, version: i64) -> Result<Self> {
        Self::open_at(profile, clock, version, false)
    }

    fn open_at(
        profile: &Profile,
        clock: Arc<dyn Clock>,
        version: i64,
        defer_large: bool,
    ) -> Result<Self> {
        let lock = profile.lock_owner()?;
        let path = profile.ledger_path()?;
        if !path.exists() {
            let found = profile.signs_of_a_ledger();
            if !found.is_empty() {
                return Err(placement::missing_ledger(profile, &path, &found));
            }
        }
        if let Some(refusal) = placement::side_file_lost(profile, &path) {
            return Err(refusal);
        }
        // The lock is proven held on the current lock file (`lock_owner`) and the ledger
        // file itself is held before SQLite opens it: no recovery runs on a live ledger.
        let held = placement::HeldLedger::take(&path)?;
        let size = std::fs::metadata(&path).map_or(0, |m| m.len());
        let checked = !defer_large || size <= super::damage::inline_limit();
        let conn = store::open_writer(&path, version, checked)?;
        let reserve = Reserve::of(profile)?;
        if let Err(e) = reserve.ensure() {
            tracing::warn!(error = %e, "the brake's reserve could not be made; a Stop on a full disk may fail");
        }
        Ok(Self {
            conn,
            path,
            clock,
            reserve,
            profile: profile.clone(),
            displaced: None,
            damaged: Arc::new(super::damage::Gate::new(checked)),
            deadlines: Default::default(),
            bounds: Default::default(),
            held,
            sides: placement::SideFiles::of(crate::profile::LEDGER_FILE),
            lock,
        })
    }

    /// Checks the whole file now, in a thread, when [`Ledger::open_for_owner`] left it
    /// unchecked (a large file); every write is refused `Checking` until it passes, and
    /// `Damaged` for good when it does not.
    pub fn check_whole_in_background(&self) {
        self.damaged.check_in_background(self.path.clone());
    }

    /// The raw connection, for tests that check what SQL itself refuses.
    #[doc(hidden)]
    pub fn raw_connection(&self) -> &Connection {
        &self.conn
    }

    /// The ledger file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// SQLite's `PRAGMA data_version`: changes when another connection (another process)
    /// has committed since this connection last looked; 0 when it cannot be read.
    pub(crate) fn data_version(&self) -> i64 {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .unwrap_or(0)
    }

    /// The clock this ledger stamps transitions with.
    pub fn now_ms(&self) -> Millis {
        self.clock.now_ms()
    }

    /// Runs `f` in one immediate transaction stamped with the current time; commits before
    /// returning, so a returned `Ok` is on disk (`synchronous=FULL`).
    ///
    /// Refused with [`LedgerError::Displaced`] when the ledger or lock file is no longer the
    /// one at its path — checked before the transaction and again after its commit (a
    /// commit that landed in a file removed meanwhile is not acknowledged).
    pub(super) fn write<T>(
        &mut self,
        f: impl FnOnce(&Transaction, Millis) -> Result<T>,
    ) -> Result<T> {
        self.check_in_place()?;
        let out = self.write_unchecked(f)?;
        self.check_in_place()?;
        Ok(out)
    }

    pub(super) fn write_unchecked<T>(
        &mut self,
        f: impl FnOnce(&Transaction, Millis) -> Result<T>,
    ) -> Result<T> {
        let now = self.clock.now_ms();
        let mono = self.clock.mono_ms();
        let path = self.path.clone();
        let damaged = &self.damaged;
        damaged.open_for_writes(&path)?;
        let sql = |e| damaged.noted(error::from_sqlite(e, &path));
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        let out = f(&tx, now).map_err(|e| match e {
            LedgerError::Sqlite(e) => sql(e),
            other => damaged.noted(other),
        })?;
        tx.commit().map_err(sql)?;
        self.refresh_deadlines(now, mono);
        Ok(out)
    }

    /// Gives what came into flight its monotonic start (see the `deadlines` module):
    /// `wall` and `mono` are the readings the last write began with.
    pub(super) fn refresh_deadlines(&mut self, wall: Millis, mono: Millis) {
        if let Err(e) = self.deadlines.refresh(&self.conn, wall, mono) {
            tracing::warn!(error = %e, "cannot read what is in flight; expiry bounds wait for the next write");
        }
    }

    /// Now on the clock custody bounds are measured on (monotonic, ms; only differences
    /// mean anything): what [`Self::next_expiry_at`] is on.
    pub fn custody_now_ms(&self) -> Millis {
        self.clock.mono_ms()
    }

    /// [`Self::write`] for the brake (a Stop, a person's decision): when the disk is full,
    /// releases the profile's reserve, commits, then makes the reserve again. Returns
    /// whether the reserve was used.
    pub(super) fn write_braking<T>(
        &mut self,
        f: impl Fn(&Transaction, Millis) -> Result<T>,
    ) -> Result<(T, bool)> {
        match self.write(&f) {
            Err(LedgerError::DiskFull { .. }) if self.reserve.release().unwrap_or(false) => {
                tracing::warn!("the disk is full: the reserve was released for the brake");
                let out = self.write(&f);
                if let Err(e) = self.reserve.ensure() {
                    tracing::warn!(error = %e, "the reserve could not be made again yet");
                }
                Ok((out?, true))
            }
            other => Ok((other?, false)),
        }
    }

    /// Checks that the ledger and lock files this owner holds are the ones at their paths.
    /// The first time one is not: logs it, saves a copy of the open ledger (when the
    /// ledger moved) and writes the profile's [`Displacement`] marker; from then on every
    /// call answers [`LedgerError::Displaced`] (sticky: the owner must be restarted).
    pub fn check_in_place(&mut self) -> Result<()> {
        if self.displaced.is_none() {
            let ledger = placement::how_moved(&self.path, self.held.is_in_place());
            let lock = placement::how_moved(self.lock.path(), self.lock.is_in_place());
            let (file, how) = match (ledger, lock) {
                (Some(how), _) => (crate::profile::LEDGER_FILE.to_string(), how),
                (None, Some(how)) => (crate::profile::LOCK_FILE.to_string(), how),
                (None, None) => match self.path.parent().and_then(|d| self.sides.moved(d)) {
                    Some(moved) => moved,
                    None => return Ok(()),
                },
            };
            self.on_displaced(&file, how);
        }
        let d = self.displaced.clone().expect("set above");
        Err(LedgerError::Displaced(Box::new(d)))
    }

    fn on_displaced(&mut self, file: &str, how: String) {
        let now = self.clock.now_ms();
        let rescued = file
            .starts_with(crate::profile::LEDGER_FILE)
            .then(|| placement::rescue(&self.conn, &self.profile, now))
            .flatten();
        if file == crate::profile::LEDGER_FILE {
            placement::empty_the_wal_into_the_moved_file(&self.conn);
        }
        let d = Displacement {
            file: file.into(),
            how,
            at: now,
            pid: std::process::id(),
            rescued,
            stop: None,
        };
        let _ = placement::write_marker(&self.profile, &d); // logged; the owner is displaced either way
        tracing::error!(file, how = %d.how, copy = d.rescued.as_deref().unwrap_or("none"), profile = %self.profile.dir().display(), "a file this owner holds custody in was {}: it acknowledges nothing more; quit it and start it again", d.how);
        self.displaced = Some(d);
    }

    /// What moved under this owner, if anything did (see [`Self::check_in_place`]).
    pub fn displacement(&self) -> Option<&Displacement> {
        self.displaced.as_ref()
    }

    /// Whether the brake's reserve is in place (see [`crate::profile::Reserve`]).
    pub fn reserve_held(&self) -> bool {
        self.reserve.is_held()
    }
}

/// What an owner found moved under it, as it left it in the profile
/// (`ledger.displaced.json`); `None` when no owner did since the last start.
pub fn displacement_of(profile: &Profile) -> Option<Displacement> {
    placement::read_marker(profile)
}
