//! The ledger: one SQLite file per profile, one owner process, every transition durable
//! before it is acknowledged.
//!
//! [`Ledger`] is the owner's handle (the only writer); [`LedgerReader`] is a read-only
//! handle that works while another process owns the profile. The ledger knows nothing
//! of HTTP, browsers or chat formats.

mod deadlines;
mod destinations;
mod door;
mod epochs;
mod error;
mod expiry;
mod fence;
mod limit_gate;
pub mod migrations;
mod notifications;
mod placement;
mod read;
mod record;
mod recovery;
mod remote_stop;
mod salvage;
mod sections;
mod sends;
mod state;
mod store;
mod tab_reports;
mod tool_calls;
mod traces;
mod trigger;
mod waiting;
mod writer;

pub use destinations::{PageDestination, MISMATCH_NOTE};
pub use door::{
    fingerprint, key_sha256, ApiKey, DoorQueue, DoorRequest, ATTACH_AFTER_SETTLED_MS, KEY_PREFIX,
    MAX_LIVE_KEYS,
};
pub use epochs::{
    canonical_binding, epoch_of, unbound_epoch, Lease, TabBinding, RELEASED_BEFORE_GRANT,
    STOPPED_EPOCHS_KEPT,
};
pub use error::{LedgerError, Result};
pub use expiry::{Bounds, Expired};
pub use fence::StopReport;
pub use limit_gate::LimitGate;
pub use placement::Displacement;
pub use read::{Glance, ListFilter, Status};
pub use record::{Answer, Event, EventKind, EvidenceKind, Receipt, Send};
pub use recovery::{RecoveryReport, IN_FLIGHT_AT_RESTART, QUEUED_AT_RESTART, RECOVERY_ACTOR};
pub use remote_stop::{said as remote_said, RemotePhase, RemoteStop};
pub use salvage::{SalvageReport, TableSalvage, MAX_MISSES};
pub use sections::{sql as shelf_sql, Shelf, MAX_PAGE};
pub use sends::{
    prepare_text, Decision, FailStage, Grant, LimitHold, PageError, QueueRequest, Resolution,
    Resolved, MAX_NOTE_BYTES, MAX_OP_ID_BYTES,
};
pub use state::SendState;
pub use tab_reports::{TabReport, MAX_TAB_REPORTS};
pub use tool_calls::{Admission, ToolCall, ToolState, TOOL_RECEIPTS_CAP};
pub use traces::{first_page_unreadable, unreadable_first_page, BrokenReference};
pub use waiting::{local_time, Waiting};
pub use writer::Writer;

use crate::clock::{Clock, Millis, SystemClock};
use crate::profile::{OwnerLock, Profile, Reserve};
use rusqlite::{params, Connection, Transaction, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The owner's handle: holds the owner lock and the only writing connection.
pub struct Ledger {
    // Dropped first: SQLite closes its descriptors before the held ones below close.
    conn: Connection,
    path: PathBuf,
    clock: Arc<dyn Clock>,
    reserve: Reserve,
    profile: Profile,
    /// Set once the ledger or lock file is found moved; sticky (placement module).
    displaced: Option<Displacement>,
    /// The monotonic start of each in-flight bound, refreshed after every write.
    deadlines: deadlines::Deadlines,
    held: placement::HeldLedger,
    /// SQLite's `-wal` and `-shm`, checked like the ledger itself.
    sides: placement::SideFiles,
    lock: OwnerLock,
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
        let mut ledger = Self::open_at_version(profile, clock, migrations::CURRENT_VERSION)?;
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
            deadlines: Default::default(),
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
        let mut conn = store::open_writer(path, migrations::CURRENT_VERSION)?;
        let tables = salvage::copy_rows(&damaged, &mut conn).map_err(|e| match e {
            LedgerError::Sqlite(e) => error::from_sqlite(e, path),
            other => other,
        })?;
        let broken = salvage::broken_references(&conn)?;
        Ok((conn, tables, broken))
    }

    /// Opens the ledger migrated only up to `version`, without recovery. For upgrade tests
    /// that need a file at an older schema.
    #[doc(hidden)]
    pub fn open_at_version(profile: &Profile, clock: Arc<dyn Clock>, version: i64) -> Result<Self> {
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
        let conn = store::open_writer(&path, version)?;
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
            deadlines: Default::default(),
            held,
            sides: placement::SideFiles::of(crate::profile::LEDGER_FILE),
            lock,
        })
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
    fn write<T>(&mut self, f: impl FnOnce(&Transaction, Millis) -> Result<T>) -> Result<T> {
        self.check_in_place()?;
        let out = self.write_unchecked(f)?;
        self.check_in_place()?;
        Ok(out)
    }

    fn write_unchecked<T>(
        &mut self,
        f: impl FnOnce(&Transaction, Millis) -> Result<T>,
    ) -> Result<T> {
        let now = self.clock.now_ms();
        let mono = self.clock.mono_ms();
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| error::from_sqlite(e, &path))?;
        let out = f(&tx, now).map_err(|e| match e {
            LedgerError::Sqlite(e) => error::from_sqlite(e, &path),
            other => other,
        })?;
        tx.commit().map_err(|e| error::from_sqlite(e, &path))?;
        self.refresh_deadlines(now, mono);
        Ok(out)
    }

    /// Gives what came into flight its monotonic start (see the `deadlines` module):
    /// `wall` and `mono` are the readings the last write began with.
    fn refresh_deadlines(&mut self, wall: Millis, mono: Millis) {
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
    fn write_braking<T>(
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

    /// Queues a send (idempotent per operation id). Returns the send and whether it is new.
    /// Errors: `PayloadChanged`, `EpochStopped`, `Invalid`.
    pub fn queue(&mut self, req: &QueueRequest, actor: &str) -> Result<(Send, bool)> {
        self.write(|tx, now| sends::queue(tx, req, actor, None, now))
    }

    /// Takes a lease on a tab: a new epoch. Errors: `EpochStopped` while the gate is closed.
    pub fn lease(&mut self, binding: &TabBinding) -> Result<Lease> {
        self.write(|tx, now| {
            let lease = epochs::lease(tx, binding, now)?;
            tab_reports::clear(tx, &binding.tab_id)?;
            sends::move_claims_to(tx, &lease, now)?;
            Ok(lease)
        })
    }

    /// Records what the extension said about a tab that cannot take a send (its
    /// `reported_at` is the ledger's time). Errors: `Invalid` (bounds in [`TabReport`]).
    pub fn report_tab(&mut self, report: TabReport) -> Result<()> {
        self.write(|tx, now| tab_reports::record(tx, &tab_reports::stamped(report, now)))
    }

    /// Forgets a tab's report (the tab closed or took a lease). Returns whether one was kept.
    pub fn clear_tab_report(&mut self, tab_id: &str) -> Result<bool> {
        self.write(|tx, _| tab_reports::clear(tx, tab_id))
    }

    /// The page ended the accepted send's turn with an error: accepted → page_error, with
    /// the page's message as evidence; a usage limit also closes the limit gate — one
    /// transaction. Repeating it is a no-op. Errors: `WrongState`, `Invalid`.
    pub fn page_error(&mut self, op_id: &str, error: &PageError, actor: &str) -> Result<Send> {
        self.write(|tx, now| sends::page_error(tx, op_id, error, actor, now))
    }

    /// The server refused the page's conversation request for the dispatched send
    /// (HTTP `status`): dispatched → page_error with the page's words as evidence; a hold
    /// closes the limit gate — one transaction. Repeating it is a no-op. Errors:
    /// `WrongState`, `Invalid`.
    pub fn refused(
        &mut self,
        op_id: &str,
        status: u16,
        error: &PageError,
        actor: &str,
    ) -> Result<Send> {
        self.write(|tx, now| sends::refused(tx, op_id, (status, error), actor, now))
    }

    /// The limit gate as stored (see [`LimitGate::holds_at`]).
    pub fn limit_gate(&self) -> Result<LimitGate> {
        Ok(limit_gate::get(&self.conn)?)
    }

    /// Records that a person was notified of the limit gate's current closing; `false`
    /// when already notified or open.
    pub fn mark_limit_notified(&mut self) -> Result<bool> {
        self.write(limit_gate::mark_notified)
    }

    /// Ends a lease (the tab closed or navigated away). A send it had claimed is rejected
    /// at once (no grant can be asked under an ended lease, so nothing was clicked);
    /// returns those sends' ids. Errors: `UnknownLease`.
    pub fn end_lease(&mut self, lease_id: &str, reason: &str) -> Result<Vec<String>> {
        self.write(|tx, now| epochs::end_lease(tx, lease_id, reason, now))
    }

    /// Reads a lease.
    pub fn get_lease(&mut self, lease_id: &str) -> Result<Lease> {
        self.write(|tx, _| epochs::get_lease(tx, lease_id))
    }

    /// Claims the next send for `lease_id`; `None` while another send is in flight or
    /// nothing is queued. Errors: `EpochStopped`, `UnknownLease`, `NotGranted` (lease ended).
    pub fn claim_next(&mut self, lease_id: &str) -> Result<Option<Send>> {
        self.write(|tx, now| sends::claim_next(tx, lease_id, now))
    }

    /// The dispatch grant, the tab confirming nothing. `Ok` means `dispatched` is on disk
    /// and the extension may click. Errors: `NotGranted` (not claimed by this lease, or
    /// asked twice; or its destination, which the send named, not confirmed — the send is
    /// then rejected, committed), `EpochStopped`.
    pub fn dispatch(&mut self, op_id: &str, lease_id: &str) -> Result<Send> {
        match self.dispatch_confirmed(op_id, lease_id, None)? {
            Grant::Granted(send) => Ok(send),
            Grant::Refused { reason, .. } => Err(LedgerError::NotGranted(reason)),
        }
    }

    /// The dispatch grant for a tab that confirmed what it shows: granted only when that is
    /// the send's destination, checked in the transaction that writes `dispatched`;
    /// otherwise the send is rejected (nothing was clicked) in that transaction.
    /// Errors: as [`Ledger::dispatch`].
    pub fn dispatch_confirmed(
        &mut self,
        op_id: &str,
        lease_id: &str,
        confirmed: Option<&crate::destination::Confirmation>,
    ) -> Result<Grant> {
        self.write(|tx, now| sends::dispatch(tx, op_id, lease_id, confirmed, now))
    }

    /// Records what the page's own conversation request for the dispatched send `op_id`
    /// named (`conversation`: `None` for a new chat; the model slug), once; a
    /// `destination_mismatch` note when it is not the send's destination. Nothing is
    /// resent. Errors: `UnknownSend`; storage errors (also when the send was never
    /// dispatched: the trigger refuses evidence before the dispatch).
    pub fn record_page_destination(
        &mut self,
        op_id: &str,
        conversation: Option<&str>,
        model: Option<&str>,
    ) -> Result<PageDestination> {
        self.write(|tx, now| destinations::record_page(tx, op_id, (conversation, model), now))
    }

    /// What the page's request for `op_id` named, once observed.
    pub fn page_destination(&self, op_id: &str) -> Result<Option<PageDestination>> {
        destinations::page_of(&self.conn, op_id)
    }

    /// Where the send `op_id` goes, as recorded at queue time; `None` for a send admitted
    /// before destinations were recorded (migration 0011).
    pub fn destination(&self, op_id: &str) -> Result<Option<crate::destination::Destination>> {
        destinations::get(&self.conn, op_id)
    }

    /// A failure the caller witnessed: claimed → rejected, dispatched → uncertain.
    pub fn fail(&mut self, op_id: &str, reason: &str, actor: &str) -> Result<Send> {
        self.write(|tx, now| sends::fail(tx, op_id, reason, actor, now))
    }

    /// Records the native receipt. Errors: `ReceiptBeforeDispatch`, `ReceiptOwnerChanged`,
    /// `ReceiptTaken`, `WrongState`.
    pub fn accept(&mut self, op_id: &str, receipt: &Receipt, actor: &str) -> Result<Send> {
        self.write(|tx, now| sends::accept(tx, op_id, receipt, actor, now))
    }

    /// Records the final answer (accepted → completed).
    pub fn complete(
        &mut self,
        op_id: &str,
        message_id: &str,
        text: &str,
        actor: &str,
    ) -> Result<Send> {
        self.write(|tx, now| sends::complete(tx, op_id, message_id, text, actor, now))
    }

    /// A person's decision on an uncertain send.
    /// On a full disk the profile's reserve is released for it.
    pub fn resolve(&mut self, op_id: &str, resolution: &Resolution) -> Result<Resolved> {
        self.write_braking(|tx, now| sends::resolve(tx, op_id, resolution, now))
            .map(|(r, _)| r)
    }

    /// Queue again a stopped or rejected send, as a new operation linked to it.
    pub fn requeue(&mut self, op_id: &str, by: &str) -> Result<Send> {
        self.write(|tx, now| sends::requeue(tx, op_id, by, now))
    }

    /// Takes back one send before it is clicked: queued or claimed → stopped, by a person
    /// (`by`); the gate stays open and the other sends go on. See [`sends::withdraw`].
    pub fn withdraw(&mut self, op_id: &str, by: &str) -> Result<Send> {
        self.write(|tx, now| sends::withdraw(tx, op_id, by, now))
    }

    /// Stop: fence the current epochs, stop every queued or claimed send, request remote
    /// stops for clicked ones and close the gate — one transaction, committed on return.
    /// On a full disk the profile's reserve is released for it (`used_reserve`).
    pub fn stop(&mut self, by: &str) -> Result<StopReport> {
        sends::validate_note("who stops (--by)", by)?;
        if let Err(LedgerError::Displaced(_)) = self.check_in_place() {
            // The file this owner holds is gone from its path: the Stop is kept in the
            // marker, which the next start turns into a Stop before anything else.
            // Said to be kept only once the marker holding it is written.
            let d = self.displaced.as_mut().expect("displaced");
            let mut asked = d.clone();
            asked
                .stop
                .get_or_insert((by.to_string(), self.clock.now_ms()));
            if placement::write_marker(&self.profile, &asked).is_ok() {
                *d = asked;
            }
            return Err(LedgerError::Displaced(Box::new(d.clone())));
        }
        let (mut report, used) = self.write_braking(|tx, now| fence::stop_in(tx, by, now))?;
        report.used_reserve = used;
        Ok(report)
    }

    /// The brake from outside the owner: commits the same Stop as [`Self::stop`] in the
    /// profile's ledger file without the owner lock, for when the owner holds the profile
    /// but cannot answer. Safe against the owner's transactions (see the `fence` module).
    /// On a full disk the reserve is released for it. Errors: `NoLedger`, `Busy` when the
    /// owner holds the write lock for longer than the busy timeout (5,000 ms), `DiskFull`,
    /// `Corrupt`, `Refused` for a ledger at another schema.
    pub fn stop_from_outside(profile: &Profile, by: &str, clock: &dyn Clock) -> Result<StopReport> {
        sends::validate_note("who stops (--by)", by)?;
        let path = profile.ledger_path()?;
        let mut conn = fence::open_outside(&path)?;
        match fence::commit_stop(&mut conn, &path, by, clock.now_ms()) {
            Err(LedgerError::DiskFull { .. }) => {
                let reserve = Reserve::of(profile)?;
                if !reserve.release().unwrap_or(false) {
                    return Err(LedgerError::DiskFull { path });
                }
                let mut report = fence::commit_stop(&mut conn, &path, by, clock.now_ms())?;
                report.used_reserve = true;
                let _ = reserve.ensure();
                Ok(report)
            }
            other => other,
        }
    }

    /// A Stop asked of a profile whose ledger is missing (no owner runs, and the profile
    /// shows it had a ledger): kept in the profile's displacement marker, so that the start
    /// that finds a ledger again closes the gate before anything else. Errors: `Invalid`.
    pub fn keep_stop_for_next_start(profile: &Profile, by: &str, clock: &dyn Clock) -> Result<()> {
        sends::validate_note("who stops (--by)", by)?;
        let now = clock.now_ms();
        let mut d = placement::read_marker(profile).unwrap_or(Displacement {
            file: crate::profile::LEDGER_FILE.into(),
            how: "missing when a Stop was asked".into(),
            at: now,
            pid: 0,
            rescued: None,
            stop: None,
        });
        d.stop.get_or_insert((by.to_string(), now));
        placement::write_marker(profile, &d)
    }

    /// Resume: a person's decision. Opens the Stop gate under a new generation and ends
    /// old leases, and opens the limit gate. Returns `false` when neither held sends back.
    pub fn resume(&mut self, by: &str) -> Result<bool> {
        sends::validate_note("who resumes (--by)", by)?;
        self.write(|tx, now| {
            let limit = limit_gate::open(tx, by, now)?;
            Ok(epochs::resume(tx, by, now)? || limit)
        })
    }

    /// Open remote stops (pending or dispatched), of every send.
    pub fn remote_stops(&self) -> Result<Vec<RemoteStop>> {
        remote_stop::list_open(&self.conn, None)
    }

    /// Open remote stops of the sends `lease_id` took: the ones its tab may click for.
    pub fn remote_stops_of_lease(&self, lease_id: &str) -> Result<Vec<RemoteStop>> {
        remote_stop::list_open(&self.conn, Some(lease_id))
    }

    /// Moves a remote stop to its next phase, as reported by the lease that took the send
    /// (errors: see [`remote_stop::set_phase`]'s refusals in [`LedgerError`]).
    pub fn remote_stop_phase(
        &mut self,
        lease_id: &str,
        op_id: &str,
        phase: RemotePhase,
        evidence: Option<&str>,
    ) -> Result<()> {
        self.write(|tx, now| remote_stop::set_phase(tx, lease_id, op_id, phase, evidence, now))
    }

    /// Applies the expiry bounds at the current time: each bound measured on the monotonic
    /// clock from when its item came into flight (a wall clock set forward or back moves
    /// none of them); the expiries are recorded at the wall time.
    /// Also makes the brake's reserve again when a full disk used it and there is room now
    /// (while the reserve is missing the owner sweeps at least once a second).
    pub fn expire(&mut self, bounds: &Bounds) -> Result<Expired> {
        if !self.reserve.is_held() && self.reserve.ensure().is_ok() {
            tracing::info!("the brake's reserve is in place again");
        }
        self.refresh_deadlines(self.clock.now_ms(), self.clock.mono_ms());
        let mono = self.clock.mono_ms();
        let due = expiry::Due {
            claims: self.deadlines.due(deadlines::Kind::Claim, bounds, mono),
            receipts: self.deadlines.due(deadlines::Kind::Receipt, bounds, mono),
            answers: self.deadlines.due(deadlines::Kind::Answer, bounds, mono),
            remote_stops: self
                .deadlines
                .due(deadlines::Kind::RemoteStop, bounds, mono),
        };
        self.write(|tx, now| expiry::sweep(tx, bounds, now, &due))
    }

    /// When the next expiry bound falls due, in ms on the custody clock
    /// ([`Self::custody_now_ms`]), or `None` while nothing is in flight. The owner's sweep
    /// sleeps until then or until the next commit. Looks at the ledger first, so an item a
    /// commit beside the owner put in flight counts.
    pub fn next_expiry_at(&mut self, bounds: &Bounds) -> Result<Option<Millis>> {
        self.refresh_deadlines(self.clock.now_ms(), self.clock.mono_ms());
        Ok(self.deadlines.next(bounds))
    }

    /// Whether the brake's reserve is in place (see [`crate::profile::Reserve`]).
    pub fn reserve_held(&self) -> bool {
        self.reserve.is_held()
    }

    /// Uncertain sends unresolved for at least `threshold_ms` and never notified.
    pub fn stale_uncertain(&self, threshold_ms: Millis) -> Result<Vec<Send>> {
        notifications::stale_uncertain(&self.conn, self.clock.now_ms() - threshold_ms)
    }

    /// When the next uncertain send not yet notified becomes stale (`updated_at +
    /// threshold_ms`, ms on this ledger's clock), counting only those not stale yet;
    /// `None` when there is none. The tray app's notification sweep sleeps until then.
    pub fn next_stale_uncertain_at(&self, threshold_ms: Millis) -> Result<Option<Millis>> {
        notifications::next_stale_uncertain_at(&self.conn, self.clock.now_ms(), threshold_ms)
    }

    /// Records that a person was notified about an uncertain send (once).
    pub fn mark_notified(&mut self, op_id: &str) -> Result<bool> {
        self.write(|tx, now| notifications::mark_notified(tx, op_id, now))
    }

    /// Records evidence of `kind` for a person on a send (a note; its state does not
    /// change). Repeating the latest evidence of that kind writes nothing (notes of other
    /// kinds in between, such as a remote stop's, do not count). Returns whether a note
    /// was written.
    pub fn note_evidence(
        &mut self,
        op_id: &str,
        kind: EvidenceKind,
        evidence: &str,
    ) -> Result<bool> {
        sends::validate_note("evidence", evidence)?;
        self.write(|tx, now| {
            let send = sends::load(tx, op_id)?;
            let last: Option<String> = tx
                .query_row(
                    "SELECT evidence FROM events WHERE op_id = ?1 AND kind = 'note' \
                     AND evidence_kind = ?2 ORDER BY id DESC LIMIT 1",
                    params![op_id, kind.as_str()],
                    |r| r.get(0),
                )
                .ok()
                .flatten();
            if last.as_deref() == Some(evidence) {
                return Ok(false);
            }
            sends::note(tx, &send, "owner", (evidence, Some(kind)), now)?;
            Ok(true)
        })
    }

    /// Admits a tool call by its native call id (see [`Admission`]).
    pub fn tool_admit(&mut self, call_id: &str) -> Result<Admission> {
        self.write(|tx, now| tool_calls::admit(tx, call_id, now))
    }

    /// Marks a tool call started: the one gate before its side effect.
    pub fn tool_start(&mut self, call_id: &str) -> Result<ToolCall> {
        self.write(|tx, now| tool_calls::start(tx, call_id, now))
    }

    /// Records a tool call's outcome, once.
    pub fn tool_settle(&mut self, call_id: &str, outcome: &str) -> Result<ToolCall> {
        self.write(|tx, now| tool_calls::settle(tx, call_id, outcome, now))
    }

    /// Archives a settled receipt (frees a place under the cap; the row is kept).
    pub fn tool_archive(&mut self, call_id: &str, by: &str) -> Result<ToolCall> {
        self.write(|tx, now| tool_calls::archive(tx, call_id, by, now))
    }

    /// Reads a tool call.
    pub fn tool_show(&self, call_id: &str) -> Result<Option<ToolCall>> {
        tool_calls::get(&self.conn, call_id)
    }

    /// Reads one send.
    pub fn get(&self, op_id: &str) -> Result<Option<Send>> {
        Ok(read::get(&self.conn, op_id)?)
    }

    /// Lists sends, newest first.
    pub fn list(&self, filter: &ListFilter) -> Result<Vec<Send>> {
        Ok(read::list(&self.conn, filter)?)
    }

    /// A send's audit trail, oldest first.
    pub fn timeline(&self, op_id: &str) -> Result<Vec<Event>> {
        Ok(read::timeline(&self.conn, op_id)?)
    }

    /// The remote stop a Stop asked for on `op_id`'s answer, in whatever phase, if any.
    pub fn remote_stop(&self, op_id: &str) -> Result<Option<RemoteStop>> {
        Ok(remote_stop::of_send(&self.conn, op_id)?)
    }

    /// Audit events after `after_id` (the change feed), at most `limit`.
    pub fn events_since(&self, after_id: i64, limit: u32) -> Result<Vec<Event>> {
        Ok(read::events_since(&self.conn, after_id, limit)?)
    }

    /// The profile at a glance. When this owner's files moved under it, why nothing goes
    /// out says so (the tray's line, the window, `GET /v1/status`).
    pub fn status(&self) -> Result<Status> {
        let now = self.clock.now_ms();
        let mut status = read::status(&self.conn, now)?;
        if let Some(d) = &self.displaced {
            status.waiting_sentence = Some(d.sentence(now));
        }
        Ok(status)
    }

    /// The sends on one part of the queue, read through its index.
    pub fn shelf(&self, shelf: &Shelf) -> Result<Vec<Send>> {
        Ok(sections::read(&self.conn, shelf)?)
    }

    /// The operation that queued `op_id` again, if a person did.
    pub fn queued_again_as(&self, op_id: &str) -> Result<Option<String>> {
        Ok(sections::queued_again_as(&self.conn, op_id)?)
    }

    /// The gate, why nothing goes out, and whether a tab is leased: [`Status`] without
    /// counting every send. When this owner's files moved under it, why nothing goes out
    /// says so.
    pub fn glance(&self) -> Result<Glance> {
        let now = self.clock.now_ms();
        let mut glance = read::glance(&self.conn, now)?;
        if let Some(d) = &self.displaced {
            glance.waiting_sentence = Some(d.sentence(now));
            glance.waiting_words = Some("files moved: see doctor".into());
        }
        Ok(glance)
    }

    /// Why the queued send `send` waits now, if something holds it back.
    pub fn waiting(&self, send: &Send) -> Result<Option<Waiting>> {
        Ok(waiting::for_send(&self.conn, send, self.clock.now_ms())?)
    }

    /// `PRAGMA integrity_check` and `foreign_key_check`; empty when healthy.
    pub fn integrity_problems(&self) -> Result<Vec<String>> {
        integrity_at(&self.conn, &self.path)
    }
}

/// What an owner found moved under it, as it left it in the profile
/// (`ledger.displaced.json`); `None` when no owner did since the last start.
pub fn displacement_of(profile: &Profile) -> Option<Displacement> {
    placement::read_marker(profile)
}

/// Integrity problems of `conn`, with SQLite's failures mapped to what a person can act
/// on (a damaged file is [`LedgerError::Corrupt`] naming `path`).
fn integrity_at(conn: &Connection, path: &Path) -> Result<Vec<String>> {
    integrity(conn).map_err(|e| match e {
        LedgerError::Sqlite(e) => error::from_sqlite(e, path),
        other => other,
    })
}

fn integrity(conn: &Connection) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let mut stmt = conn.prepare("PRAGMA integrity_check")?;
    for row in stmt.query_map([], |r| r.get::<_, String>(0))? {
        let row = row?;
        if row != "ok" {
            problems.push(row);
        }
    }
    let mut stmt = conn.prepare("PRAGMA foreign_key_check")?;
    for row in stmt.query_map([], |r| r.get::<_, String>(0))? {
        problems.push(format!("foreign key broken in table {}", row?));
    }
    Ok(problems)
}

/// A read-only handle: works while another process owns the profile, and takes no lock.
pub struct LedgerReader {
    conn: Connection,
    path: PathBuf,
}

impl LedgerReader {
    /// Opens the profile's ledger read-only. Errors: `NoLedger`, `LedgerMissing` (none, but
    /// the profile shows it had one: what was found and what to do), `NewerSchema`, `Corrupt`.
    pub fn open(profile: &Profile) -> Result<Self> {
        let path = profile.ledger_path()?;
        if !path.exists() {
            let found = profile.signs_of_a_ledger();
            if !found.is_empty() {
                return Err(placement::missing_ledger(profile, &path, &found));
            }
        }
        let conn = store::open_reader(&path)?;
        Ok(Self { conn, path })
    }

    /// The ledger file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads one send.
    pub fn get(&self, op_id: &str) -> Result<Option<Send>> {
        read::get(&self.conn, op_id).map_err(|e| error::from_sqlite(e, &self.path))
    }

    /// Lists sends, newest first.
    pub fn list(&self, filter: &ListFilter) -> Result<Vec<Send>> {
        read::list(&self.conn, filter).map_err(|e| error::from_sqlite(e, &self.path))
    }

    /// A send's audit trail, oldest first.
    pub fn timeline(&self, op_id: &str) -> Result<Vec<Event>> {
        read::timeline(&self.conn, op_id).map_err(|e| error::from_sqlite(e, &self.path))
    }

    /// The remote stop a Stop asked for on `op_id`'s answer, in whatever phase, if any.
    pub fn remote_stop(&self, op_id: &str) -> Result<Option<RemoteStop>> {
        remote_stop::of_send(&self.conn, op_id).map_err(|e| error::from_sqlite(e, &self.path))
    }

    /// What the page's request for `op_id` named (see [`Ledger::page_destination`]).
    pub fn page_destination(&self, op_id: &str) -> Result<Option<PageDestination>> {
        destinations::page_of(&self.conn, op_id)
    }

    /// Where the send `op_id` goes (see [`Ledger::destination`]).
    pub fn destination(&self, op_id: &str) -> Result<Option<crate::destination::Destination>> {
        destinations::get(&self.conn, op_id)
    }

    /// The profile at a glance.
    pub fn status(&self) -> Result<Status> {
        read::status(&self.conn, SystemClock.now_ms())
            .map_err(|e| error::from_sqlite(e, &self.path))
    }

    /// The sends on one part of the queue, read through its index.
    pub fn shelf(&self, shelf: &Shelf) -> Result<Vec<Send>> {
        sections::read(&self.conn, shelf).map_err(|e| error::from_sqlite(e, &self.path))
    }

    /// The operation that queued `op_id` again, if a person did.
    pub fn queued_again_as(&self, op_id: &str) -> Result<Option<String>> {
        sections::queued_again_as(&self.conn, op_id).map_err(|e| error::from_sqlite(e, &self.path))
    }

    /// The gate, why nothing goes out, and whether a tab is leased: [`Status`] without
    /// counting every send.
    pub fn glance(&self) -> Result<Glance> {
        read::glance(&self.conn, SystemClock.now_ms())
            .map_err(|e| error::from_sqlite(e, &self.path))
    }

    /// Why the queued send `send` waits now, if something holds it back.
    pub fn waiting(&self, send: &Send) -> Result<Option<Waiting>> {
        waiting::for_send(&self.conn, send, SystemClock.now_ms())
            .map_err(|e| error::from_sqlite(e, &self.path))
    }

    /// Reads a tool call.
    pub fn tool_show(&self, call_id: &str) -> Result<Option<ToolCall>> {
        tool_calls::get(&self.conn, call_id)
    }

    /// `PRAGMA integrity_check` and `foreign_key_check`; empty when healthy.
    pub fn integrity_problems(&self) -> Result<Vec<String>> {
        integrity_at(&self.conn, &self.path)
    }

    /// The missing rows that rows still refer to (after a salvage: the sends whose rows
    /// were on damaged pages), by key.
    pub fn broken_references(&self) -> Result<Vec<BrokenReference>> {
        traces::broken_references(&self.conn).map_err(|e| error::from_sqlite(e, &self.path))
    }
}
