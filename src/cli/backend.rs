//! Where a command's work goes: through the live owner's bridge when `bridge.json`
//! names one, else straight into the ledger (taking the owner lock for the command's
//! duration, recovery included). Reads use a read-only connection either way.

use super::client::BridgeClient;
use super::output::CliError;
use crate::api::{self, Outcome, Request};
use crate::clock::SystemClock;
use crate::ledger::{Ledger, LedgerReader};
use crate::profile::Profile;
use std::path::Path;
use std::sync::Arc;

pub(crate) fn profile(explicit: Option<&Path>) -> Result<Profile, CliError> {
    Ok(Profile::resolve(explicit)?)
}

/// Applies a change through the live owner, or directly when none runs.
pub(crate) fn apply(explicit: Option<&Path>, req: &Request) -> Result<Outcome, CliError> {
    let profile = profile(explicit)?;
    if let Some(client) = BridgeClient::discover(&profile)? {
        return client.apply(req);
    }
    let (mut ledger, _recovered) = Ledger::open(&profile, Arc::new(SystemClock))?;
    let answer = api::apply(&mut ledger, req)?;
    if matches!(req, Request::Queue { .. }) {
        eprintln!(
            "note: no owner is running, so this send is only recorded, not handed to a browser; \
             the next command or owner that opens the ledger rejects it as \"never left the host\". \
             Start `sendledger serve` (or the tray app) first, then `sendledger requeue ID` it."
        );
    }
    Ok(answer)
}

/// A read-only view; works while another process owns the profile.
pub(crate) fn reader(explicit: Option<&Path>) -> Result<LedgerReader, CliError> {
    Ok(LedgerReader::open(&profile(explicit)?)?)
}

/// The OS user name, the default "who" of a person's decision.
pub(crate) fn os_user() -> String {
    std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "person".into())
}
