//! The brake, for every front end that is not the owner (`sendledger stop`, the window's
//! Stop): through the live owner within [`STOP_BRIDGE_MS`]; when the owner holds the
//! profile but does not answer, the fence committed in the ledger file beside it; with no
//! owner, the Stop applied with the ledger opened as its owner. The two fallbacks are
//! `api::outside`'s: this module itself never opens the ledger.

use super::{BridgeClient, ClientError};
use crate::api::{outside, Outcome, Request};
use crate::ledger::{LedgerError, StopReport};
use crate::profile::{Profile, ProfileError};

/// How long a Stop waits for the owner's bridge before it commits the fence in the ledger
/// file itself, in ms.
pub const STOP_BRIDGE_MS: u64 = 2_000;

/// Which way a Stop went (`via` in the JSON answer).
enum Via {
    /// `owner`: through the running owner's bridge.
    Owner,
    /// `direct`: no owner runs; the ledger was opened as its owner.
    Direct,
    /// `fence`: the owner holds the profile but did not answer; the fence was committed
    /// in the ledger file beside it.
    Fence(String),
}

/// A Stop that got through, and which way (`{"stop", "via", "why"}` in JSON).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Braked {
    /// What the fence covered.
    pub stop: StopReport,
    /// `owner`, `direct` or `fence` (see [`STOP_BRIDGE_MS`]).
    pub via: &'static str,
    /// Why it did not go through the owner, for `fence`.
    pub why: Option<String>,
}

/// Why a Stop did not get through: the owner's answer, or the ledger's.
#[derive(Debug, thiserror::Error)]
pub enum BrakeError {
    /// The owner refused, or its answer was lost after it was reached.
    #[error(transparent)]
    Owner(#[from] ClientError),
    /// The ledger refused or failed (storage trouble, a missing ledger).
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

impl BrakeError {
    /// The stable code.
    pub fn code(&self) -> String {
        match self {
            Self::Owner(e) => e.code().to_string(),
            Self::Ledger(e) => e.code().as_str().to_string(),
        }
    }
}

/// Stops sending on `profile`, decided by `by`. Errors: a refusal or storage trouble.
pub fn brake(profile: &Profile, by: &str) -> Result<Braked, BrakeError> {
    let req = Request::Stop { by: by.to_string() };
    let (stop, via) = match through_owner(profile, &req) {
        Ok((stop, via)) => (stop, via),
        Err(NotThrough::Fallback(why)) => {
            let report = outside::stop_beside_owner(profile, by)?;
            (report, Via::Fence(why))
        }
        Err(NotThrough::Failed(e)) => return Err(e),
    };
    let (via, why) = match via {
        Via::Owner => ("owner", None),
        Via::Direct => ("direct", None),
        Via::Fence(why) => ("fence", Some(why)),
    };
    Ok(Braked { stop, via, why })
}

/// Why the Stop did not go through the owner.
enum NotThrough {
    /// The owner holds the profile but cannot answer: commit the fence directly.
    Fallback(String),
    /// A real answer (a refusal, storage trouble): report it.
    Failed(BrakeError),
}

/// Stop through the live owner within [`STOP_BRIDGE_MS`], else with the ledger opened as
/// its owner when nobody holds the profile.
fn through_owner(profile: &Profile, req: &Request) -> Result<(StopReport, Via), NotThrough> {
    use NotThrough::{Failed, Fallback};
    match BridgeClient::discover(profile) {
        Ok(Some(client)) => {
            return match client.with_timeout_ms(STOP_BRIDGE_MS).apply(req) {
                Err(ClientError::Lost(_) | ClientError::NoOwner) => Err(Fallback(format!(
                    "the owner's bridge refused the connection or did not answer within {STOP_BRIDGE_MS} ms"
                ))),
                other => other
                    .map_err(|e| Failed(e.into()))
                    .and_then(|o| stopped(o, Via::Owner)),
            }
        }
        Ok(None) => {}
        Err(ClientError::Lost(why)) => return Err(Fallback(why)),
        Err(e) => return Err(Failed(e.into())),
    }
    match outside::apply_offline(profile, req) {
        Err(LedgerError::Profile(ProfileError::Owned { owner, .. })) => Err(Fallback(format!(
            "{owner} holds the profile but its bridge is not listening"
        ))),
        Err(LedgerError::LedgerMissing(why)) => {
            Err(Failed(keep_for_next_start(profile, req, why).into()))
        }
        other => other
            .map_err(|e| Failed(e.into()))
            .and_then(|o| stopped(o, Via::Direct)),
    }
}

/// The Stop's report out of its outcome; any other outcome is an answer this build does
/// not know.
fn stopped(outcome: Outcome, via: Via) -> Result<(StopReport, Via), NotThrough> {
    match outcome {
        Outcome::Stopped { stop } => Ok((stop, via)),
        _ => Err(NotThrough::Failed(BrakeError::Owner(ClientError::Lost(
            "the owner answered a Stop with something other than a stop report: are the app and the CLI the same version? (`sendledger status` says whether sending is stopped)".into(),
        )))),
    }
}

/// No owner and no ledger where the profile had one: the Stop is kept for the start that
/// finds a ledger again (docs/custody.md), and the refusal says so.
fn keep_for_next_start(profile: &Profile, req: &Request, why: String) -> LedgerError {
    let Request::Stop { by } = req else {
        return LedgerError::LedgerMissing(why);
    };
    match outside::keep_stop_for_next_start(profile, by) {
        Ok(()) => LedgerError::LedgerMissing(format!(
            "{why}. The Stop was kept in {}: the start that finds a ledger closes the gate before anything else",
            crate::profile::DISPLACED_FILE
        )),
        Err(e) => e,
    }
}
