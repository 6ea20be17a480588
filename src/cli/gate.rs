//! `stop`, `resume`, `pair`.

use super::backend;
use super::client::BridgeClient;
use super::output::{emit, CliError};
use crate::api::Request;
use std::path::Path;

#[derive(Debug, clap::Args)]
pub struct StopArgs {
    /// Who stops (default: the OS user).
    #[arg(long)]
    pub by: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct ResumeArgs {
    /// Who decides to resume (required: it is a person's decision).
    #[arg(long)]
    pub by: String,
}

pub(crate) fn stop(profile: Option<&Path>, json: bool, a: StopArgs) -> Result<(), CliError> {
    let req = Request::Stop {
        by: a.by.unwrap_or_else(backend::os_user),
    };
    let v = serde_json::json!(backend::apply(profile, &req)?);
    emit(json, &v, || {
        let s = &v["stop"];
        let n = |k: &str| s[k].as_array().map(Vec::len).unwrap_or(0);
        format!(
            "stopped: {} send(s) stopped before dispatch, {} already clicked (remote stop pending); no new send until `sendledger resume --by WHO`",
            n("stopped"),
            n("remote_stops")
        )
    });
    Ok(())
}

pub(crate) fn resume(profile: Option<&Path>, json: bool, a: ResumeArgs) -> Result<(), CliError> {
    let v = serde_json::json!(backend::apply(profile, &Request::Resume { by: a.by })?);
    emit(json, &v, || {
        if v["resumed"].as_bool() == Some(true) {
            "resumed: the extension must lease its tab again (a new epoch)".into()
        } else {
            "not stopped: nothing to resume".into()
        }
    });
    Ok(())
}

pub(crate) fn pair(profile: Option<&Path>, json: bool) -> Result<(), CliError> {
    let profile = backend::profile(profile)?;
    let client = BridgeClient::discover(&profile)?.ok_or_else(|| {
        CliError::Unreachable(
            "no owner is running for this profile: start `sendledger serve` (or the tray app), then pair".into(),
        )
    })?;
    let v = client.call("POST", "/v1/pairing-code", &serde_json::json!({}))?;
    emit(json, &v, || {
        format!(
            "pairing code: {}\nenter it in the extension's popup within 5 minutes",
            v["code"].as_str().unwrap_or_default()
        )
    });
    Ok(())
}
