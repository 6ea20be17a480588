//! `stop`, `resume`, `pair`. Stop goes through the owner when it answers within
//! [`STOP_BRIDGE_MS`]; when the owner holds the profile but does not answer, the fence is
//! committed in the ledger file directly, and the answer says which way it went.

use super::backend;
use super::output::{emit, CliError};
use crate::api::Request;
use crate::client::{BridgeClient, ClientError};
use crate::clock::SystemClock;
use crate::ledger::{Ledger, LedgerError};
use crate::profile::{Profile, ProfileError};
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

/// How long `stop` waits for the owner's bridge before it commits the fence in the ledger
/// file itself, in ms.
pub const STOP_BRIDGE_MS: u64 = 2_000;

/// Which way a Stop went (`via` in the JSON answer).
enum Via {
    /// `owner`: through the running owner's bridge.
    Owner,
    /// `direct`: no owner runs; this command opened the ledger as its owner.
    Direct,
    /// `fence`: the owner holds the profile but did not answer; the fence was committed
    /// in the ledger file beside it.
    Fence(String),
}

/// A Stop that got through, and which way.
#[derive(Debug, Clone)]
pub struct Braked {
    /// The stop report (`{"stopped": [..], "remote_stops": [..], "used_reserve"}`).
    pub stop: serde_json::Value,
    /// `owner`, `direct` or `fence` (see [`STOP_BRIDGE_MS`]).
    pub via: &'static str,
    /// Why it did not go through the owner, for `fence`.
    pub why: Option<String>,
}

/// The brake, for every front end that is not the owner (the CLI's `stop`, the queue
/// window): through the live owner within [`STOP_BRIDGE_MS`]; when the owner holds the
/// profile but does not answer, the fence committed in the ledger file beside it; with no
/// owner, the ledger opened as its owner. Errors: a refusal or storage trouble.
pub fn brake(profile: &Profile, by: &str) -> Result<Braked, CliError> {
    let req = Request::Stop { by: by.to_string() };
    let (stop, via) = match through_owner(profile, &req) {
        Ok((v, via)) => (v["stop"].clone(), via),
        Err(Fallback(why)) => {
            let report = Ledger::stop_from_outside(profile, by, &SystemClock)?;
            (serde_json::json!(report), Via::Fence(why))
        }
        Err(Failed(e)) => return Err(e),
    };
    Ok(match via {
        Via::Owner => Braked {
            stop,
            via: "owner",
            why: None,
        },
        Via::Direct => Braked {
            stop,
            via: "direct",
            why: None,
        },
        Via::Fence(why) => Braked {
            stop,
            via: "fence",
            why: Some(why),
        },
    })
}

pub(crate) fn stop(profile: Option<&Path>, json: bool, a: StopArgs) -> Result<(), CliError> {
    let by = a.by.unwrap_or_else(backend::os_user);
    let profile = backend::profile(profile)?;
    // A mistyped --profile makes a new, empty profile here: say so, or a person believes
    // the real one stopped.
    let new_profile = !profile.dir().join(crate::profile::LEDGER_FILE).exists();
    let Braked { stop, via, why } = brake(&profile, &by)?;
    let v = serde_json::json!({ "stop": stop, "via": via, "why": why });
    emit(json, &v, || {
        let n = |k: &str| stop[k].as_array().map(Vec::len).unwrap_or(0);
        let clicked = match n("remote_stops") {
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
        let how = match (via, &why) {
            ("owner", _) => "through the owner".to_string(),
            ("fence", Some(why)) => {
                format!("directly in the ledger file, beside the owner ({why})")
            }
            _ => "in the ledger (no owner is running)".to_string(),
        };
        let reserve = if stop["used_reserve"] == true {
            "; the disk is full: the profile's reserve was used to commit it, free some space"
        } else {
            ""
        };
        format!(
            "stopped {how}: {} send(s) stopped before dispatch, {clicked}{reserve}; no new send until `sendledger resume --by WHO`{new_profile}",
            n("stopped"),
        )
    });
    Ok(())
}

/// Why the Stop did not go through the owner.
enum NotThrough {
    /// The owner holds the profile but cannot answer: commit the fence directly.
    Fallback(String),
    /// A real answer (a refusal, storage trouble): report it.
    Failed(CliError),
}
use NotThrough::{Failed, Fallback};

/// Stop through the live owner within [`STOP_BRIDGE_MS`], else with the ledger opened as
/// its owner when nobody holds the profile.
fn through_owner(profile: &Profile, req: &Request) -> Result<(serde_json::Value, Via), NotThrough> {
    match BridgeClient::discover(profile) {
        Ok(Some(client)) => {
            return match client.with_timeout_ms(STOP_BRIDGE_MS).apply(req) {
                Err(ClientError::Lost(_)) => Err(Fallback(format!(
                    "the owner's bridge refused the connection or did not answer within {STOP_BRIDGE_MS} ms"
                ))),
                other => other
                    .map(|o| (serde_json::json!(o), Via::Owner))
                    .map_err(|e| Failed(e.into())),
            }
        }
        Ok(None) => {}
        Err(ClientError::Lost(why)) => return Err(Fallback(why)),
        Err(e) => return Err(Failed(e.into())),
    }
    match backend::apply_offline(profile, req) {
        Err(CliError::Profile(ProfileError::Owned { owner, .. }))
        | Err(CliError::Ledger(LedgerError::Profile(ProfileError::Owned { owner, .. }))) => {
            Err(Fallback(format!(
                "{owner} holds the profile but its bridge is not listening"
            )))
        }
        Err(CliError::Ledger(LedgerError::LedgerMissing(why))) => {
            Err(Failed(keep_for_next_start(profile, req, why)))
        }
        other => other
            .map(|o| (serde_json::json!(o), Via::Direct))
            .map_err(Failed),
    }
}

/// No owner and no ledger where the profile had one: the Stop is kept for the start that
/// finds a ledger again (docs/custody.md), and the refusal says so.
fn keep_for_next_start(profile: &Profile, req: &Request, why: String) -> CliError {
    let Request::Stop { by } = req else {
        return CliError::Ledger(LedgerError::LedgerMissing(why));
    };
    match Ledger::keep_stop_for_next_start(profile, by, &SystemClock) {
        Ok(()) => CliError::Ledger(LedgerError::LedgerMissing(format!(
            "{why}. The Stop was kept in {}: the start that finds a ledger closes the gate before anything else",
            crate::profile::DISPLACED_FILE
        ))),
        Err(e) => CliError::Ledger(e),
    }
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
