//! Where a command's work goes: through the live owner's bridge when `bridge.json`
//! names one, else straight into the ledger (taking the owner lock for the command's
//! duration, recovery included) — except a send, which only an owner can serve: with no
//! owner it is refused and nothing is written. Reads use a read-only connection either way.

use super::output::CliError;
use crate::api::{self, Outcome, Request};
use crate::client::BridgeClient;
use crate::ledger::LedgerReader;
use crate::profile::Profile;
use std::path::Path;

pub(crate) fn profile(explicit: Option<&Path>) -> Result<Profile, CliError> {
    Ok(Profile::resolve(explicit)?)
}

/// Applies a change through the live owner, or directly when none runs. With no owner,
/// a request that admits a send is refused ([`crate::ledger::LedgerError::NoOwner`]) before the ledger
/// is even opened, so nothing is written.
pub(crate) fn apply(explicit: Option<&Path>, req: &Request) -> Result<Outcome, CliError> {
    let profile = profile(explicit)?;
    if let Some(client) = BridgeClient::discover(&profile)? {
        return Ok(client.apply(req)?);
    }
    apply_offline(&profile, req)
}

/// Applies a change with the ledger opened by this process ([`api::outside::apply_offline`]).
pub(crate) fn apply_offline(profile: &Profile, req: &Request) -> Result<Outcome, CliError> {
    Ok(api::outside::apply_offline(profile, req)?)
}

/// A read-only view; works while another process owns the profile.
pub(crate) fn reader(explicit: Option<&Path>) -> Result<LedgerReader, CliError> {
    Ok(LedgerReader::open(&profile(explicit)?)?)
}

pub(crate) use crate::person::os_user;
