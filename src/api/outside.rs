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
/// owner runs. A setting changes `config.json` alone, the ledger unopened
/// ([`super::settings`]).
pub fn apply_offline(profile: &Profile, req: &Request) -> Result<Outcome, LedgerError> {
    if let Some(no) = req.offline_refusal() {
        return Err(no);
    }
    if super::settings::is_setting(req) {
        return super::settings::apply_offline(profile, req);
    }
    let ledger_path = profile.ledger_path()?;
    let makes_one = matches!(req, Request::Stop { .. } | Request::KeyCreate { .. });
    if !ledger_path.exists() && !makes_one {
        return Err(LedgerError::NoLedger(ledger_path));
    }
    let mut ledger = open(profile)?;
    apply_as(Caller::Offline, &mut ledger, req)
}

/// The ledger opened by a command while no owner runs (recovery included). A profile this
/// makes — `sendledger keys create` before any owner ran — gets [`crate::profile::discovery::DEFAULT_PORT`]
/// written into its `config.json` first, as an owner's first start would: without it the
/// profile would read as one made before the default port moved, and keep the old port.
/// Errors: as [`Ledger::open`]; `config.json` not writable.
pub fn open(profile: &Profile) -> Result<Ledger, LedgerError> {
    crate::profile::discovery::pin_new_profile_port(profile).map_err(|e| {
        LedgerError::Refused(format!(
            "the new profile's port could not be written into config.json ({e}): check that the profile folder is yours and writable"
        ))
    })?;
    Ok(Ledger::open(profile, Arc::new(SystemClock))?.0)
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
