//! The acts of a client when no owner answers, made on the ledger file by the calling
//! process: a request applied with the ledger opened as its owner (nobody holds the
//! profile), and the brake's two fallbacks — the fence committed beside an owner that does
//! not answer, and a Stop kept for the next start when the ledger is missing.

use super::{apply_as, Caller, Outcome, Request};
use crate::clock::SystemClock;
use crate::ledger::{Ledger, LedgerError, StopReport};
use crate::profile::Profile;
use std::sync::Arc;

/// Applies `req` with the ledger opened by this process (no owner running): takes the
/// owner lock for the call's duration, recovery included. A request that admits a send
/// is refused (`no_owner`) before the ledger is opened; a decision, a tool receipt or a
/// resume on a profile with no ledger is `no_ledger` (a mistyped profile is not made into
/// a new empty ledger). Stop always gets through, and a key may be made before the first
/// owner runs.
pub fn apply_offline(profile: &Profile, req: &Request) -> Result<Outcome, LedgerError> {
    if let Some(no) = req.offline_refusal() {
        return Err(no);
    }
    let ledger_path = profile.ledger_path()?;
    let makes_one = matches!(req, Request::Stop { .. } | Request::KeyCreate { .. });
    if !ledger_path.exists() && !makes_one {
        return Err(LedgerError::NoLedger(ledger_path));
    }
    let (mut ledger, _recovered) = Ledger::open(profile, Arc::new(SystemClock))?;
    apply_as(Caller::Offline, &mut ledger, req)
}

/// The Stop committed in the ledger file beside an owner that holds the profile but does
/// not answer ([`Ledger::stop_from_outside`]).
pub fn stop_beside_owner(profile: &Profile, by: &str) -> Result<StopReport, LedgerError> {
    Ledger::stop_from_outside(profile, by, &SystemClock)
}

/// A Stop kept for the start that finds a ledger again ([`Ledger::keep_stop_for_next_start`]).
pub fn keep_stop_for_next_start(profile: &Profile, by: &str) -> Result<(), LedgerError> {
    Ledger::keep_stop_for_next_start(profile, by, &SystemClock)
}
