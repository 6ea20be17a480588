//! Where a command's work goes: through the live owner's bridge when `bridge.json`
//! names one, else straight into the ledger (taking the owner lock for the command's
//! duration, recovery included) — except a send, which only an owner can serve: with no
//! owner it is refused and nothing is written. Reads use a read-only connection either way.

use super::output::CliError;
use crate::api::{self, Caller, Outcome, Request};
use crate::client::BridgeClient;
use crate::clock::SystemClock;
use crate::ledger::{Ledger, LedgerError, LedgerReader};
use crate::profile::Profile;
use std::path::Path;
use std::sync::Arc;

pub(crate) fn profile(explicit: Option<&Path>) -> Result<Profile, CliError> {
    Ok(Profile::resolve(explicit)?)
}

/// Applies a change through the live owner, or directly when none runs. With no owner,
/// a request that admits a send is refused ([`LedgerError::NoOwner`]) before the ledger
/// is even opened, so nothing is written.
pub(crate) fn apply(explicit: Option<&Path>, req: &Request) -> Result<Outcome, CliError> {
    let profile = profile(explicit)?;
    if let Some(client) = BridgeClient::discover(&profile)? {
        return Ok(client.apply(req)?);
    }
    apply_offline(&profile, req)
}

/// Applies a change with the ledger opened by this process (no owner running): takes the
/// owner lock for the command's duration, recovery included.
pub(crate) fn apply_offline(profile: &Profile, req: &Request) -> Result<Outcome, CliError> {
    if let Some(no) = req.offline_refusal() {
        return Err(no.into());
    }
    // A decision, a tool receipt or a resume needs the sends of a ledger that exists: a
    // mistyped --profile is said as such, not made into a new empty ledger. Stop always
    // gets through (it says when there was no ledger), and a key may be made before the
    // first owner runs.
    let ledger_path = profile.ledger_path()?;
    let makes_one = matches!(req, Request::Stop { .. } | Request::KeyCreate { .. });
    if !ledger_path.exists() && !makes_one {
        return Err(LedgerError::NoLedger(ledger_path).into());
    }
    let (mut ledger, _recovered) = Ledger::open(profile, Arc::new(SystemClock))?;
    Ok(api::apply_as(Caller::Offline, &mut ledger, req)?)
}

/// A read-only view; works while another process owns the profile.
pub(crate) fn reader(explicit: Option<&Path>) -> Result<LedgerReader, CliError> {
    Ok(LedgerReader::open(&profile(explicit)?)?)
}

pub(crate) use crate::person::os_user;
