//! `sendledger max-in-flight [N]`: how many sends may be in flight at once across the
//! profile (`max_in_flight` in its `config.json`, 1 to 8; 1 until set). Never two in one
//! conversation or one tab, whatever the number. A running owner follows the file when
//! it changes; a stopped one reads it at its next start.

use super::backend;
use super::output::{emit, CliError};
use crate::profile::in_flight_cap;
use serde_json::json;
use std::path::Path;

/// The arguments.
#[derive(Debug, clap::Args)]
pub struct MaxInFlightArgs {
    /// The new value, 1 to 8; without it, prints the value in force.
    pub n: Option<i64>,
}

pub(crate) fn run(profile: Option<&Path>, json: bool, a: MaxInFlightArgs) -> Result<(), CliError> {
    let profile = backend::profile(profile)?;
    let n = match a.n {
        Some(n) => in_flight_cap::write(&profile, n).map_err(CliError::Usage)?,
        None => in_flight_cap::read(&profile).map_err(CliError::Usage)?,
    };
    emit(json, &json!({ "max_in_flight": n }), || {
        format!("max_in_flight  {n} (never two in one conversation or one tab)")
    });
    Ok(())
}
