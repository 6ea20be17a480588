//! Extension-scope routes: lease a tab, take the next send (long-poll), ask for the
//! dispatch grant, report failures, forward observations, and run remote stops.
//!
//! **Architecture Invariant**: `POST /v1/ext/dispatch` answers `granted` only after the
//! ledger committed `dispatched` (the answer is built from the committed row).

use super::body::{Body, OBSERVATION_LIMIT};
use super::error::ApiError;
pub use super::hand_out::MAX_WAIT_MS;
use super::hand_out::{handed, long_poll, take_with_files};
use super::observations::{self, Observation};
use super::BridgeState;
use crate::destination::Confirmation;
use crate::error_code::ErrorCode;
use crate::ledger::LedgerRead;
use crate::ledger::{
    FailStage, Grant, LedgerError, RemotePhase, Send, SendState, TabBinding, TabReport,
};
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::Duration;

type Answer = Result<Json<Value>, ApiError>;

pub(super) fn routes() -> Router<BridgeState> {
    Router::new()
        .route("/v1/pair", post(pair))
        .route("/v1/ext/lease", post(lease))
        .route("/v1/ext/next", post(next))
        .route("/v1/ext/dispatch", post(dispatch))
        .route("/v1/ext/fail", post(fail))
        .route(
            "/v1/ext/observations",
            post(observe).layer(DefaultBodyLimit::max(OBSERVATION_LIMIT)),
        )
        .route("/v1/ext/remote-stops", get(remote_stops))
        .route("/v1/ext/remote-stops/{op_id}", post(remote_stop_phase))
        .route("/v1/ext/release", post(release))
        .route("/v1/ext/tab-report", post(tab_report))
        .route(
            "/v1/ext/default-destination",
            get(default_destination).put(set_default_destination),
        )
}

/// The profile's default destination, where a send naming none goes (the popup shows it):
/// the ledger's copy, what the next send naming none takes.
async fn default_destination(State(st): State<BridgeState>) -> Answer {
    let d = st
        .ledger()
        .call(|l| l.default_destination(crate::site::Site::default()))
        .await?;
    Ok(Json(
        json!({ "default_destination": d, "words": d.words() }),
    ))
}

/// Sets the default destination from the popup (the fields of a send's place: at most one
/// of `conversation_id`, `project_id`, `new_chat`, plus `model`, `effort`): the act
/// [`crate::api::Request::SetDefaultDestination`], as the CLI and the window send it. A
/// refusal writes nothing and says why. Queued sends keep the destination they recorded.
async fn set_default_destination(
    State(st): State<BridgeState>,
    Body(named): Body<crate::destination::Named>,
) -> Answer {
    let req = crate::api::Request::SetDefaultDestination {
        site: named.site.unwrap_or_default(),
        destination: named,
    };
    let outcome = st
        .ledger()
        .call(move |l| crate::api::apply(l, &req))
        .await?;
    tracing::info!("the extension's popup set the default destination");
    Ok(Json(json!(outcome)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TabReportBody {
    tab_id: String,
    /// Why the tab cannot take a send; absent or null: the tab is fine again (or closed).
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    path: Option<String>,
}

/// A tab that cannot take a send (no composer after the wait), or `reason: null` when it
/// can again or closed. Kept in the ledger so every reader can say why nothing goes out.
async fn tab_report(State(st): State<BridgeState>, Body(b): Body<TabReportBody>) -> Answer {
    let kept = st
        .ledger()
        .call(move |l| match b.reason {
            Some(reason) => {
                tracing::info!(tab = %b.tab_id, %reason, "extension report: the tab cannot take a send");
                l.report_tab(TabReport {
                    tab_id: b.tab_id,
                    reason,
                    path: b.path,
                    reported_at: 0,
                })
                .map(|()| true)
            }
            None => l.clear_tab_report(&b.tab_id).map(|_| false),
        })
        .await?;
    st.ledger().poke();
    Ok(Json(json!({ "kept": kept })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PairBody {
    code: String,
}

async fn pair(
    State(st): State<BridgeState>,
    headers: axum::http::HeaderMap,
    Body(b): Body<PairBody>,
) -> Answer {
    let origin = headers
        .get("origin")
        .and_then(|o| o.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let token = st.pair(&b.code, &origin)?;
    Ok(Json(json!({ "token": token })))
}

/// `POST /v1/ext/lease`: `{lease_id, epoch, moved_claims}` — `moved_claims` the op ids of
/// the claims this lease took over from the tab's ended leases (docs/bridge-api.md).
async fn lease(State(st): State<BridgeState>, Body(binding): Body<TabBinding>) -> Answer {
    let (lease, moved) = st
        .ledger()
        .call(move |l| l.lease_taking_claims(&binding))
        .await?;
    st.ledger().poke();
    Ok(Json(
        json!({ "lease_id": lease.lease_id, "epoch": lease.epoch, "moved_claims": moved }),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NextBody {
    /// One tab's lease (an extension before issue 39: one poll per tab).
    #[serde(default)]
    lease_id: Option<String>,
    /// Many tabs waiting for a send, in one poll (ext_poll.rs).
    #[serde(default)]
    lease_ids: Option<Vec<String>>,
    /// Many tabs waiting for a remote stop, in the same poll (ext_poll.rs).
    #[serde(default)]
    stop_lease_ids: Option<Vec<String>>,
    #[serde(default)]
    wait_ms: Option<u64>,
}

/// `POST /v1/ext/next`: one lease (`lease_id`) or many (`lease_ids`, `stop_lease_ids`:
/// ext_poll.rs), never both.
async fn next(State(st): State<BridgeState>, Body(b): Body<NextBody>) -> Answer {
    match (b.lease_id, b.lease_ids, b.stop_lease_ids) {
        (Some(lease_id), None, None) => next_one(st, lease_id, b.wait_ms).await,
        (None, many, stops) if many.is_some() || stops.is_some() => {
            let poll = super::ext_poll::Poll::new(
                many.unwrap_or_default(),
                stops.unwrap_or_default(),
                b.wait_ms,
            )?;
            Ok(Json(super::ext_poll::answer(&st, poll).await?))
        }
        _ => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::Malformed,
            "name one tab's `lease_id`, or many tabs' `lease_ids` and `stop_lease_ids`, not both",
        )),
    }
}

async fn next_one(st: BridgeState, lease_id: String, wait_ms: Option<u64>) -> Answer {
    let wait = Duration::from_millis(wait_ms.unwrap_or(MAX_WAIT_MS).min(MAX_WAIT_MS));
    let one = lease_id.clone();
    let tab = st
        .ledger()
        .call(move |l| l.get_lease(&lease_id).map(|x| x.binding.tab_id))
        .await
        .ok();
    let handed_out = long_poll(&st, wait, || {
        let (st, lease_id, tab) = (st.clone(), one.clone(), tab.clone());
        async move {
            // A person's Check this page for this tab goes first: it types nothing.
            if let Some(ask) = tab.and_then(|t| st.asks().hand_out(&t)) {
                return Ok((Err(ask), true));
            }
            let store = crate::attachments::Store::new(st.profile().dir());
            let send = st
                .ledger()
                .call(move |l| take_with_files(l, &lease_id, &store))
                .await?;
            let done = send.is_some();
            Ok((Ok(send), done))
        }
    })
    .await?;
    // Nothing within the wait, or the owner is shutting down: nothing handed out.
    Ok(Json(match handed_out {
        Ok(send) => json!({ "send": send.as_ref().map(handed) }),
        Err(ask) => json!({ "send": null, "page_check": ask }),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DispatchBody {
    lease_id: String,
    op_id: String,
    /// What the tab showed (conversation or new chat, Project, model, effort); absent
    /// from an extension that predates confirmations.
    #[serde(default)]
    confirmed: Option<Confirmation>,
}

async fn dispatch(State(st): State<BridgeState>, Body(b): Body<DispatchBody>) -> Answer {
    let (op_id, lease_id) = (b.op_id.clone(), b.lease_id.clone());
    let grant = st
        .ledger()
        .call(move |l| {
            l.hear_lease(&lease_id);
            l.dispatch_confirmed(&op_id, &lease_id, b.confirmed.as_ref())
        })
        .await?;
    // A refused grant rejected the send (committed): its reason, and why by code.
    let (code, reason) = match grant {
        Grant::Granted(send) => return granted(send),
        Grant::Refused { reason, .. } => (ErrorCode::DestinationNotConfirmed, reason),
        Grant::Held { reason, .. } | Grant::Expired { reason, .. } => {
            (ErrorCode::NotGranted, reason)
        }
        Grant::Mismatch { reason, .. } => (ErrorCode::AttachmentMismatch, reason),
    };
    st.ledger().poke();
    Err(ApiError::new(StatusCode::CONFLICT, code, reason))
}

/// The answer to a granted send: `dispatched` is committed.
fn granted(send: Send) -> Answer {
    debug_assert_eq!(
        send.state,
        SendState::Dispatched,
        "granted only from the committed row"
    );
    Ok(Json(
        json!({ "granted": true, "dispatched_at": send.dispatched_at }),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FailBody {
    lease_id: String,
    op_id: String,
    stage: FailStage,
    reason: String,
    /// The page fact that did not hold, when the tab failed the send on one (issue 35).
    #[serde(default)]
    page_fact: Option<super::page_fact::PageFact>,
}

fn owned_by(l: &crate::ledger::Ledger, op_id: &str, lease_id: &str) -> Result<(), LedgerError> {
    let send = l
        .get(op_id)?
        .ok_or_else(|| LedgerError::UnknownSend(op_id.into()))?;
    if send.lease_id.as_deref() != Some(lease_id) {
        return Err(LedgerError::NotGranted(format!(
            "send {op_id} was not handed to lease {lease_id}"
        )));
    }
    Ok(())
}

async fn fail(State(st): State<BridgeState>, Body(mut b): Body<FailBody>) -> Answer {
    let reason = match b.stage {
        FailStage::BeforeDispatch => format!("failed before dispatch: {}", b.reason),
        FailStage::AfterDispatch => format!("failed after dispatch: {}", b.reason),
    };
    if let Some(fact) = &b.page_fact {
        fact.check()
            .map_err(|m| ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::Invalid, m))?;
    }
    let fact = b.page_fact.as_ref().map(|f| f.id.as_str());
    tracing::info!(op = %b.op_id, lease = %b.lease_id, stage = ?b.stage, page_fact = ?fact, "extension report: the send failed in the tab");
    // A fact every send needs closes the page gate in the same transaction (queued sends
    // wait for a person); any other fact fails only this send.
    let every = b
        .page_fact
        .take_if(|f| f.needs == super::page_fact::Needs::Every);
    let send = st
        .ledger()
        .call(move |l| {
            owned_by(l, &b.op_id, &b.lease_id)?;
            match &every {
                Some(f) => {
                    let lease = Some(b.lease_id.as_str());
                    l.fail_page_changed(&b.op_id, &reason, &f.id, lease, "extension")
                }
                None => l.fail(&b.op_id, &reason, "extension"),
            }
        })
        .await?;
    Ok(Json(json!({ "send": send })))
}

async fn observe(State(st): State<BridgeState>, Body(o): Body<Observation>) -> Answer {
    let applied = observations::apply(&st, o).await?;
    Ok(Json(json!({ "applied": applied })))
}

#[derive(Deserialize)]
struct RemoteStopQuery {
    lease_id: String,
    /// Long-poll: wait up to this many ms (≤ 25,000) for a pending remote stop.
    #[serde(default)]
    wait_ms: Option<u64>,
}

async fn remote_stops(State(st): State<BridgeState>, Query(q): Query<RemoteStopQuery>) -> Answer {
    let wait = Duration::from_millis(q.wait_ms.unwrap_or(0).min(MAX_WAIT_MS));
    let stops = long_poll(&st, wait, || {
        let (st, lease_id) = (st.clone(), q.lease_id.clone());
        async move {
            let stops = st
                .ledger()
                .call(move |l| {
                    l.hear_lease(&lease_id);
                    l.get_lease(&lease_id)?;
                    l.remote_stops_of_lease(&lease_id)
                })
                .await?;
            let pending = stops.iter().any(|s| s.phase == RemotePhase::Pending);
            Ok((stops, pending))
        }
    })
    .await?;
    Ok(Json(json!({ "remote_stops": stops })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PhaseBody {
    lease_id: String,
    phase: RemotePhase,
    #[serde(default)]
    evidence: Option<String>,
}

async fn remote_stop_phase(
    State(st): State<BridgeState>,
    Path(op_id): Path<String>,
    Body(b): Body<PhaseBody>,
) -> Answer {
    if b.phase == RemotePhase::Pending {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::Malformed,
            "phase must be dispatched, confirmed or uncertain",
        ));
    }
    st.ledger()
        .call(move |l| {
            l.get_lease(&b.lease_id)?;
            l.remote_stop_phase(&b.lease_id, &op_id, b.phase, b.evidence.as_deref())
        })
        .await?;
    Ok(Json(json!({})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReleaseBody {
    lease_id: String,
    #[serde(default)]
    reason: Option<String>,
}

async fn release(State(st): State<BridgeState>, Body(b): Body<ReleaseBody>) -> Answer {
    let reason = b
        .reason
        .unwrap_or_else(|| "released by the extension".into());
    st.ledger()
        .call(move |l| l.end_lease(&b.lease_id, &reason))
        .await?;
    Ok(Json(json!({})))
}
