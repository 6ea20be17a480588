//! `stop`, `resume`, `pair`. Stop is the brake ([`crate::client::brake`]): through the
//! owner when it answers within [`crate::client::STOP_BRIDGE_MS`]; when the owner holds the profile but does not answer, the fence is
//! committed in the ledger file directly, and the answer says which way it went.

use super::backend;
use super::output::{emit, CliError};
use crate::api::{Outcome, Request};
use crate::client::brake::{brake, Braked};
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
    let by = a.by.unwrap_or_else(backend::os_user);
    if let Some(named) = crate::client::remote::named() {
        return remote_stop(named, json, by);
    }
    let profile = backend::profile(profile)?;
    // A mistyped --profile makes a new, empty profile here: say so, or a person believes
    // the real one stopped.
    let new_profile = !profile.dir().join(crate::profile::LEDGER_FILE).exists();
    let braked = brake(&profile, &by)?;
    let Braked { stop, via, why } = &braked;
    emit(json, &braked, || {
        let clicked = match stop.remote_stops.len() {
            0 => "none already clicked".to_string(),
            k => format!("{k} already clicked (its tab is asked to press the page's stop button)"),
        };
        let new_profile = if new_profile {
            format!(
                "; there was no ledger at {} before this Stop, so it stopped nothing else: if you meant another profile, pass its --profile",
                profile.dir().display()
            )
        } else {
            String::new()
        };
        let how = match (*via, why) {
            ("owner", _) => "through the owner".to_string(),
            ("fence", Some(why)) => {
                format!("directly in the ledger file, beside the owner ({why})")
            }
            _ => "in the ledger (no owner is running)".to_string(),
        };
        let reserve = if stop.used_reserve {
            "; the disk is full: the profile's reserve was used to commit it, free some space"
        } else {
            ""
        };
        format!(
            "stopped {how}: {} send(s) stopped before dispatch, {clicked}{reserve}; no new send until `sendledger resume --by WHO`{new_profile}",
            stop.stopped.len(),
        )
    });
    Ok(())
}

/// Stop through an owner named by URL: only through it (with an `all` key). When it cannot
/// be reached, the brake's fallback — the fence committed in the ledger file — needs the
/// owner's machine, and the refusal says so.
fn remote_stop(named: &crate::client::RemoteOwner, json: bool, by: String) -> Result<(), CliError> {
    let client = crate::client::BridgeClient::discover_named()
        .ok_or_else(|| CliError::unexpected("the owner named by URL"))?;
    match client.apply(&Request::Stop { by }) {
        Ok(outcome @ Outcome::Stopped { .. }) => {
            emit(json, &outcome, || {
                format!("stopped through the owner at {}: no new send until a person resumes", named.base)
            });
            Ok(())
        }
        Ok(_) => Err(CliError::unexpected("a stop report")),
        Err(e @ crate::client::ClientError::Refused { .. }) => Err(e.into()),
        Err(e) => Err(CliError::Unreachable(format!(
            "the Stop did not reach the owner at {} ({e}); the brake's fallback, the fence committed in the ledger file, needs the local profile: press Stop on the owner's machine (the tray, the window, or `sendledger stop` there), and check the SSH tunnel",
            named.base
        ))),
    }
}

pub(crate) fn resume(profile: Option<&Path>, json: bool, a: ResumeArgs) -> Result<(), CliError> {
    let outcome = backend::apply(profile, &Request::Resume { by: a.by })?;
    let Outcome::Resumed { resumed } = outcome else {
        return Err(CliError::unexpected("whether sending resumed"));
    };
    emit(json, &outcome, || {
        if resumed {
            "resumed: the extension must lease its tab again (a new epoch)".into()
        } else {
            "not stopped: nothing to resume".into()
        }
    });
    Ok(())
}

pub(crate) fn pair(profile: Option<&Path>, json: bool) -> Result<(), CliError> {
    let client = backend::owner(profile)?.ok_or_else(|| {
        CliError::Unreachable(
            "no owner is running for this profile: start `sendledger serve` (or the tray app), then pair".into(),
        )
    })?;
    let code = client.pairing_code()?;
    emit(json, &code, || {
        format!(
            "pairing code: {}\nenter it in the extension's popup within 5 minutes",
            code.code
        )
    });
    Ok(())
}
