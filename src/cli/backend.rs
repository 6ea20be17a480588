//! Where a command's work goes: through the live owner's bridge when `bridge.json`
//! names one, else straight into the ledger (taking the owner lock for the command's
//! duration, recovery included) — except a send, which only an owner can serve: with no
//! owner it is refused and nothing is written. Reads use a read-only connection either way.

use super::output::CliError;
use crate::api::{self, Outcome, Request};
use crate::client::{remote, BridgeClient};
use crate::ledger::LedgerReader;
use crate::profile::Profile;
use std::path::Path;

/// The profile this command works on. Refused when the owner was named by URL
/// ([`crate::client::remote`]): such a command needs this machine's own profile, and a
/// remote client never opens (nor makes) one.
pub(crate) fn profile(explicit: Option<&Path>) -> Result<Profile, CliError> {
    remote::refuse_local("this command")?;
    Ok(Profile::resolve(explicit)?)
}

/// The owner's bridge: the owner named by URL, else the profile's live owner; `None` when
/// no owner runs for the profile.
pub(crate) fn owner(explicit: Option<&Path>) -> Result<Option<BridgeClient>, CliError> {
    if remote::named().is_some() {
        return Ok(BridgeClient::discover_named());
    }
    Ok(BridgeClient::discover(&profile(explicit)?)?)
}

/// Applies a change through the live owner, or directly when none runs. With no owner,
/// a request that admits a send is refused ([`crate::ledger::LedgerError::NoOwner`]) before the ledger
/// is even opened, so nothing is written. An owner named by URL is the only way: nothing
/// is applied here then.
pub(crate) fn apply(explicit: Option<&Path>, req: &Request) -> Result<Outcome, CliError> {
    if let Some(client) = owner(explicit)? {
        return Ok(client.apply(req)?);
    }
    apply_offline(&profile(explicit)?, req)
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
