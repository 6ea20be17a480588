//! The brake's acts on [`Ledger`]: Stop (from the owner, from outside it, or kept for
//! the next start when the ledger is missing) and a person's Resume. The fence itself is
//! the `fence` module's.

use super::displacement::Displacement;
use super::error::{LedgerError, Result};
use super::fence::{self, StopReport};
use super::handle::Ledger;
use super::{epochs, limit_gate, page_gate, placement, sends};
use crate::clock::Clock;
use crate::profile::{Profile, Reserve};

impl Ledger {
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
    /// old leases, and opens the limit gate and the page-changed gate. Returns `false`
    /// when none held sends back.
    pub fn resume(&mut self, by: &str) -> Result<bool> {
        sends::validate_note("who resumes (--by)", by)?;
        self.write(|tx, now| {
            let limit = limit_gate::open(tx, by, now)?;
            let page = page_gate::open(tx, by, now)?;
            Ok(epochs::resume(tx, by, now)? || limit || page)
        })
    }
}
