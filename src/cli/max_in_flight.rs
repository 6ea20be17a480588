//! `sendledger max-in-flight [N]`: how many sends may be in flight at once across the
//! profile (`max_in_flight` in its `config.json`, 1 to 8; 1 until set). Never two in one
//! conversation or one tab, whatever the number. Setting it is the act `SetMaxInFlight`:
//! the running owner applies it at once, else this process writes `config.json` and the
//! next owner takes it at start.

use super::backend;
use super::output::{emit, CliError};
use crate::api::{Outcome, Request};
use crate::profile::{config, Config};
use serde_json::json;
use std::path::Path;

/// The arguments.
#[derive(Debug, clap::Args)]
pub struct MaxInFlightArgs {
    /// The new value, 1 to 8; without it, prints the value in force.
    pub n: Option<i64>,
}

pub(crate) fn run(profile: Option<&Path>, json: bool, a: MaxInFlightArgs) -> Result<(), CliError> {
    let n = match a.n {
        Some(n) => {
            config::check_max_in_flight(n).map_err(CliError::Usage)?;
            set(profile, n)?
        }
        None => Config::load(&backend::profile(profile)?)
            .map_err(CliError::Usage)?
            .max_in_flight(),
    };
    emit(json, &json!({ "max_in_flight": n }), || {
        format!("max_in_flight  {n} (never two in one conversation or one tab)")
    });
    Ok(())
}

/// `max_in_flight` = `n`, by the act `SetMaxInFlight`: the value now in force.
fn set(profile: Option<&Path>, n: i64) -> Result<u32, CliError> {
    match backend::apply(profile, &Request::SetMaxInFlight { max_in_flight: n })? {
        Outcome::MaxInFlightSet { max_in_flight } => Ok(max_in_flight),
        _ => Err(CliError::Usage("the owner answered another act".into())),
    }
}
