//! Client-scope routes (CLI, companions). Changes go through [`crate::api::apply`].

use super::body::{Body, SEND_LIMIT};
use super::error::ApiError;
use super::events;
use super::queue_feed::{self, MAX_ROWS_ASKED};
use super::BridgeState;
use crate::api::{self, OperationId, Request};
use crate::error_code::ErrorCode;
use crate::ledger::LedgerRead;
use crate::ledger::{Decision, LedgerError, ListFilter, QueueRequest, Resolution, SendState};
use axum::extract::{DefaultBodyLimit, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::routing::{get, post, put};
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
        .route("/v1/sends/{op_id}/wait", get(wait))
        .route("/v1/queue", get(queue_view))
        .route("/v1/queue/feed", get(queue_feed::stream))
        .route("/v1/queue/rows", post(queue_rows))
        .route("/v1/queue/history", get(queue_history))
        .route("/v1/queue/stopped", get(queue_stopped))
        .route("/v1/sends/{op_id}/resolve", post(resolve))
        .route("/v1/sends/{op_id}/requeue", post(requeue))
        .route("/v1/sends/{op_id}/withdraw", post(withdraw))
        .route("/v1/sends/{op_id}/notified", post(notified))
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
        .route("/v1/keys", post(key_create).get(key_list))
        .route("/v1/keys/{name}/revoke", post(key_revoke))
        .route("/v1/retention", post(set_retention).get(retention))
        .route("/v1/settings/max-in-flight", put(set_max_in_flight))
        .route(
            "/v1/settings/default-destination",
            put(set_default_destination),
        )
        .layer(DefaultBodyLimit::max(super::body::DEFAULT_LIMIT))
}

async fn run(st: &BridgeState, req: Request) -> Result<Value, ApiError> {
    let outcome = st.ledger().call(move |l| api::apply(l, &req)).await?;
    Ok(json!(outcome))
}

fn ok(v: Value) -> Answer {
    Ok((StatusCode::OK, Json(v)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MaxInFlightBody {
    max_in_flight: i64,
}

/// `max_in_flight` (1 to 8), the act [`Request::SetMaxInFlight`].
async fn set_max_in_flight(
    State(st): State<BridgeState>,
    Body(b): Body<MaxInFlightBody>,
) -> Answer {
    ok(run(
        &st,
        Request::SetMaxInFlight {
            max_in_flight: b.max_in_flight,
        },
    )
    .await?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DefaultDestinationBody {
    #[serde(default)]
    site: crate::site::Site,
    destination: crate::destination::Named,
}

/// The default destination of a site, the act [`Request::SetDefaultDestination`].
async fn set_default_destination(
    State(st): State<BridgeState>,
    Body(b): Body<DefaultDestinationBody>,
) -> Answer {
    let req = Request::SetDefaultDestination {
        site: b.site,
        destination: b.destination,
    };
    ok(run(&st, req).await?)
}

/// `POST /v1/sends`: queued as the named key's (`key:<name>`) when a key let the call
/// in, else as `client` (the profile's own token: the CLI, the MCP server, a script).
async fn queue(
    State(st): State<BridgeState>,
    key: Option<axum::Extension<super::auth::KeyName>>,
    Body(send): Body<QueueRequest>,
) -> Answer {
    let actor = key.map_or_else(|| "client".to_string(), |k| format!("key:{}", k.0 .0));
    let v = run(&st, Request::Queue { send, actor }).await?;
    let status = if v["created"] == json!(true) {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(v)))
}

async fn show(State(st): State<BridgeState>, Path(op_id): Path<String>) -> Answer {
    let op_id = OperationId::from(op_id);
    let view = st.ledger().call(move |l| api::show(l, &op_id)).await?;
    ok(json!(view))
}

/// `GET /v1/queue`: every section of the queue as a person sees it (api::queue).
async fn queue_view(State(st): State<BridgeState>) -> Answer {
    let view = st.ledger().call(|l| api::queue::queue_view(l)).await?;
    ok(json!(view))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RowsBody {
    op_ids: Vec<String>,
}

/// `POST /v1/queue/rows {"op_ids": [..]}` → `{"rows": [Row]}`: those sends' rows (and the
/// sends they queue again) as the queue view shows them; unknown ids are left out. At most
/// [`MAX_ROWS_ASKED`] ids.
async fn queue_rows(State(st): State<BridgeState>, Body(b): Body<RowsBody>) -> Answer {
    if b.op_ids.len() > MAX_ROWS_ASKED {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::TooMany,
            format!(
                "at most {MAX_ROWS_ASKED} operation ids may be read at once; this asked for {}: ask in smaller batches",
                b.op_ids.len()
            ),
        ));
    }
    let ids = b.op_ids.into_iter().collect();
    let rows = st.ledger().call(move |l| api::queue::rows(l, ids)).await?;
    ok(json!({ "rows": rows }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HistoryQuery {
    before: Option<String>,
    limit: Option<u32>,
}

/// `GET /v1/queue/history?before=OP_ID&limit=N` → `{"rows": [Row], "next": OP_ID|null}`:
/// settled sends queued before `before` (none: from the newest), newest first, at most
/// `limit` (1..=[`api::queue::MAX_HISTORY_PAGE`], default [`api::queue::HISTORY_ROWS`]).
async fn queue_history(
    State(st): State<BridgeState>,
    axum::extract::Query(q): axum::extract::Query<HistoryQuery>,
) -> Answer {
    paged(st, q, api::queue::history_page).await
}

/// `GET /v1/queue/stopped?before=OP_ID&limit=N` → `{"rows": [Row], "next": OP_ID|null}`:
/// stopped or rejected sends, paged as History is (issue 39: the queue view holds the
/// newest [`api::queue::STOPPED_ROWS`]).
async fn queue_stopped(
    State(st): State<BridgeState>,
    axum::extract::Query(q): axum::extract::Query<HistoryQuery>,
) -> Answer {
    paged(st, q, api::queue::stopped_page).await
}

type PageFn = fn(
    &crate::ledger::Ledger,
    Option<String>,
    u32,
) -> crate::ledger::Result<api::queue::HistoryPage>;

async fn paged(st: BridgeState, q: HistoryQuery, page: PageFn) -> Answer {
    let limit = q.limit.unwrap_or(api::queue::HISTORY_ROWS as u32);
    if limit == 0 || limit > api::queue::MAX_HISTORY_PAGE {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::Malformed,
            format!(
                "limit must be between 1 and {}: ask for the next page with before",
                api::queue::MAX_HISTORY_PAGE
            ),
        ));
    }
    if q.before
        .as_ref()
        .is_some_and(|b| b.len() > crate::ledger::MAX_OP_ID_BYTES)
    {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::Malformed,
            "before must be an operation id (at most 128 bytes)",
        ));
    }
    let page = st.ledger().call(move |l| page(l, q.before, limit)).await?;
    ok(json!(page))
}

/// The longest a client may ask `wait` to hold its request, in ms.
pub const WAIT_MAX_MS: u64 = 60_000;
/// `wait`'s bound when the client names none, in ms.
pub const WAIT_DEFAULT_MS: u64 = 30_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WaitQuery {
    from: SendState,
    timeout_ms: Option<u64>,
}

/// `GET /v1/sends/{op_id}/wait?from=STATE&timeout_ms=N`: answers once the send's committed
/// state is no longer `from` (`changed: true`), or at the bound or shutdown (`changed:
/// false`), with the send and its timeline as `show` answers them.
async fn wait(
    State(st): State<BridgeState>,
    Path(op_id): Path<String>,
    axum::extract::Query(q): axum::extract::Query<WaitQuery>,
) -> Answer {
    let timeout_ms = q.timeout_ms.unwrap_or(WAIT_DEFAULT_MS);
    if timeout_ms > WAIT_MAX_MS {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::Malformed,
            format!("timeout_ms may be at most {WAIT_MAX_MS}: ask again after the answer"),
        ));
    }
    let closing = st.closing();
    tokio::select! {
        w = st.ledger().wait_for_change(&op_id, q.from, timeout_ms) => { w?; }
        _ = closing => {}
    };
    let op_id = OperationId::from(op_id);
    let view = st.ledger().call(move |l| api::show(l, &op_id)).await?;
    let changed = view.send.state != q.from;
    ok(
        json!({ "send": view.send, "timeline": view.timeline, "changed": changed, "retry_after": view.retry_after }),
    )
}

async fn list(State(st): State<BridgeState>, RawQuery(q): RawQuery) -> Answer {
    let mut filter = ListFilter::default();
    for pair in q.unwrap_or_default().split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "state" => filter
                .states
                .push(v.parse::<SendState>().map_err(|m| {
                    ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::Malformed, m)
                })?),
            "limit" => {
                filter.limit = Some(v.parse().map_err(|_| {
                    ApiError::new(
                        StatusCode::BAD_REQUEST,
                        ErrorCode::Malformed,
                        "limit must be a whole number",
                    )
                })?)
            }
            _ => {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    ErrorCode::Malformed,
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
struct RetentionBody {
    days: Option<u32>,
    by: String,
}

/// `POST /v1/retention` `{"days": N | null, "by": WHO}` → `{"retention": Retention}`.
async fn set_retention(State(st): State<BridgeState>, Body(b): Body<RetentionBody>) -> Answer {
    let req = Request::SetRetention {
        days: b.days,
        by: b.by,
    };
    ok(run(&st, req).await?)
}

/// `GET /v1/retention` → `{"retention": Retention}`.
async fn retention(State(st): State<BridgeState>) -> Answer {
    let r = st
        .ledger()
        .call(|l| crate::ledger::LedgerRead::retention(l))
        .await?;
    ok(json!({ "retention": r }))
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
    ok(run(
        &st,
        Request::Resolve {
            op_id: op_id.into(),
            resolution,
        },
    )
    .await?)
}

async fn requeue(
    State(st): State<BridgeState>,
    Path(op_id): Path<String>,
    Body(b): Body<By>,
) -> Answer {
    ok(run(
        &st,
        Request::Requeue {
            op_id: op_id.into(),
            by: b.by,
        },
    )
    .await?)
}

/// `POST /v1/sends/{op_id}/withdraw {"by"}` → `{"send": Send}`: a person takes back one
/// send before it is clicked (queued or claimed → stopped).
async fn withdraw(
    State(st): State<BridgeState>,
    Path(op_id): Path<String>,
    Body(b): Body<By>,
) -> Answer {
    ok(run(
        &st,
        Request::Withdraw {
            op_id: op_id.into(),
            by: b.by,
        },
    )
    .await?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

async fn notified(
    State(st): State<BridgeState>,
    Path(op_id): Path<String>,
    Body(_): Body<Empty>,
) -> Answer {
    ok(run(
        &st,
        Request::MarkNotified {
            op_id: op_id.into(),
        },
    )
    .await?)
}

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
    ok(run(
        &st,
        Request::ToolAdmit {
            call_id: call_id.into(),
        },
    )
    .await?)
}

async fn tool_start(
    State(st): State<BridgeState>,
    Path(call_id): Path<String>,
    Body(_): Body<Empty>,
) -> Answer {
    ok(run(
        &st,
        Request::ToolStart {
            call_id: call_id.into(),
        },
    )
    .await?)
}

async fn tool_settle(
    State(st): State<BridgeState>,
    Path(call_id): Path<String>,
    Body(b): Body<Outcome>,
) -> Answer {
    ok(run(
        &st,
        Request::ToolSettle {
            call_id: call_id.into(),
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
    ok(run(
        &st,
        Request::ToolArchive {
            call_id: call_id.into(),
            by: b.by,
        },
    )
    .await?)
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyBody {
    name: String,
    #[serde(default = "send_scope")]
    scope: crate::ledger::KeyScope,
    by: String,
}

/// A key made without naming its scope opens sends and reads (as `keys create` without
/// `--scope`).
fn send_scope() -> crate::ledger::KeyScope {
    crate::ledger::KeyScope::Send
}

/// `POST /v1/keys {"name","scope"?,"by"}` → 201 `{"key", "secret"}` (the secret's only
/// showing); `scope` is `send` (the default) or `all`.
async fn key_create(State(st): State<BridgeState>, Body(b): Body<KeyBody>) -> Answer {
    let v = run(
        &st,
        Request::KeyCreate {
            name: b.name,
            scope: b.scope,
            by: b.by,
        },
    )
    .await?;
    Ok((StatusCode::CREATED, Json(v)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RevokeBody {
    by: String,
    #[serde(default)]
    key_sha256: Option<String>,
}

/// `POST /v1/keys/{name}/revoke {"by", "key_sha256"?}` → `{"key"}` as revoked; with
/// `key_sha256`, only that key.
async fn key_revoke(
    State(st): State<BridgeState>,
    Path(name): Path<String>,
    Body(b): Body<RevokeBody>,
) -> Answer {
    let req = Request::KeyRevoke {
        name,
        by: b.by,
        key_sha256: b.key_sha256,
    };
    ok(run(&st, req).await?)
}

/// `GET /v1/keys` → `{"keys": [...]}`, newest first, never a secret.
async fn key_list(State(st): State<BridgeState>) -> Answer {
    let keys = st.ledger().call(|l| api::keys(l)).await?;
    ok(json!({ "keys": keys }))
}
