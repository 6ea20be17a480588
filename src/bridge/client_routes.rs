//! Client-scope routes (CLI, companions). Changes go through [`crate::api::apply`].

use super::body::{Body, SEND_LIMIT};
use super::error::ApiError;
use super::events;
use super::BridgeState;
use crate::api::{self, Request};
use crate::ledger::{Decision, LedgerError, ListFilter, QueueRequest, Resolution, SendState};
use axum::extract::{DefaultBodyLimit, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

type Answer = Result<(StatusCode, Json<Value>), ApiError>;

pub(super) fn routes() -> Router<BridgeState> {
    Router::new()
        .route(
            "/v1/sends",
            post(queue)
                .layer(DefaultBodyLimit::max(SEND_LIMIT))
                .get(list),
        )
        .route("/v1/sends/{op_id}", get(show))
        .route("/v1/sends/{op_id}/resolve", post(resolve))
        .route("/v1/sends/{op_id}/requeue", post(requeue))
        .route("/v1/events", get(events::stream))
        .route("/v1/stop", post(stop))
        .route("/v1/resume", post(resume))
        .route("/v1/tools/{call_id}", get(tool_show))
        .route("/v1/tools/{call_id}/admit", post(tool_admit))
        .route("/v1/tools/{call_id}/start", post(tool_start))
        .route("/v1/tools/{call_id}/settle", post(tool_settle))
        .route("/v1/tools/{call_id}/archive", post(tool_archive))
        .route("/v1/status", get(status))
        .route("/v1/pairing-code", post(pairing_code))
        .layer(DefaultBodyLimit::max(super::body::DEFAULT_LIMIT))
}

async fn run(st: &BridgeState, req: Request) -> Result<Value, ApiError> {
    Ok(st.ledger().call(move |l| api::apply(l, &req)).await?)
}

fn ok(v: Value) -> Answer {
    Ok((StatusCode::OK, Json(v)))
}

async fn queue(State(st): State<BridgeState>, Body(send): Body<QueueRequest>) -> Answer {
    let v = run(
        &st,
        Request::Queue {
            send,
            actor: "client".into(),
        },
    )
    .await?;
    let status = if v["created"] == json!(true) {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(v)))
}

async fn show(State(st): State<BridgeState>, Path(op_id): Path<String>) -> Answer {
    let v = st
        .ledger()
        .call(move |l| -> Result<Value, LedgerError> {
            let send = l
                .get(&op_id)?
                .ok_or_else(|| LedgerError::UnknownSend(op_id.clone()))?;
            let waiting = l.waiting(&send)?.map(|w| w.sentence(l.now_ms()));
            Ok(json!({ "send": send, "timeline": l.timeline(&op_id)?, "waiting": waiting }))
        })
        .await?;
    ok(v)
}

async fn list(State(st): State<BridgeState>, RawQuery(q): RawQuery) -> Answer {
    let mut filter = ListFilter::default();
    for pair in q.unwrap_or_default().split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "state" => filter.states.push(
                v.parse::<SendState>()
                    .map_err(|m| ApiError::new(StatusCode::BAD_REQUEST, "malformed", m))?,
            ),
            "limit" => {
                filter.limit = Some(v.parse().map_err(|_| {
                    ApiError::new(
                        StatusCode::BAD_REQUEST,
                        "malformed",
                        "limit must be a whole number",
                    )
                })?)
            }
            _ => {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "malformed",
                    format!("unknown query parameter {k:?}: use state and limit"),
                ))
            }
        }
    }
    let sends = st.ledger().call(move |l| l.list(&filter)).await?;
    ok(json!({ "sends": sends }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct By {
    by: String,
}

async fn stop(State(st): State<BridgeState>, Body(b): Body<By>) -> Answer {
    ok(run(&st, Request::Stop { by: b.by }).await?)
}

async fn resume(State(st): State<BridgeState>, Body(b): Body<By>) -> Answer {
    ok(run(&st, Request::Resume { by: b.by }).await?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResolveBody {
    decision: Decision,
    by: String,
    evidence: String,
}

async fn resolve(
    State(st): State<BridgeState>,
    Path(op_id): Path<String>,
    Body(b): Body<ResolveBody>,
) -> Answer {
    let resolution = Resolution {
        decision: b.decision,
        by: b.by,
        evidence: b.evidence,
    };
    ok(run(&st, Request::Resolve { op_id, resolution }).await?)
}

async fn requeue(
    State(st): State<BridgeState>,
    Path(op_id): Path<String>,
    Body(b): Body<By>,
) -> Answer {
    ok(run(&st, Request::Requeue { op_id, by: b.by }).await?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Outcome {
    outcome: String,
}

async fn tool_admit(
    State(st): State<BridgeState>,
    Path(call_id): Path<String>,
    Body(_): Body<Empty>,
) -> Answer {
    ok(run(&st, Request::ToolAdmit { call_id }).await?)
}

async fn tool_start(
    State(st): State<BridgeState>,
    Path(call_id): Path<String>,
    Body(_): Body<Empty>,
) -> Answer {
    ok(run(&st, Request::ToolStart { call_id }).await?)
}

async fn tool_settle(
    State(st): State<BridgeState>,
    Path(call_id): Path<String>,
    Body(b): Body<Outcome>,
) -> Answer {
    ok(run(
        &st,
        Request::ToolSettle {
            call_id,
            outcome: b.outcome,
        },
    )
    .await?)
}

async fn tool_archive(
    State(st): State<BridgeState>,
    Path(call_id): Path<String>,
    Body(b): Body<By>,
) -> Answer {
    ok(run(&st, Request::ToolArchive { call_id, by: b.by }).await?)
}

async fn tool_show(State(st): State<BridgeState>, Path(call_id): Path<String>) -> Answer {
    let call = st
        .ledger()
        .call(move |l| {
            l.tool_show(&call_id)?
                .ok_or(LedgerError::UnknownToolCall(call_id))
        })
        .await?;
    ok(json!({ "tool_call": call }))
}

async fn status(State(st): State<BridgeState>) -> Answer {
    let status = st.ledger().call(|l| l.status()).await?;
    let owner = crate::profile::OwnerInfo::current();
    ok(json!({ "status": status, "owner": owner }))
}

async fn pairing_code(State(st): State<BridgeState>, Body(_): Body<Empty>) -> Answer {
    ok(json!(st.new_pairing_code()))
}
