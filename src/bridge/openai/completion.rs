//! `POST /v1/chat/completions`: admit the request (queue or attach), then answer —
//! non-streamed once the send settles, or streamed at once with deltas as the page
//! types. Shapes: docs/openai.md.

use super::auth::Caller;
use super::custody::{self, Admitted};
use super::door_reply::{completion_id, door_headers, mismatch_header, mismatch_of, model_of};
use super::error::OpenAiError;
use super::outcome::Outcome;
use super::request;
use super::stream;
use super::wait::{Step, Waiter};
use crate::bridge::BridgeState;
use crate::ledger::LedgerRead;
use crate::ledger::Send;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::{json, Value};

fn completion(send: &Send, text: &str, model: &str) -> Value {
    json!({
        "id": completion_id(&send.op_id),
        "object": "chat.completion",
        "created": send.created_at / 1000,
        "model": model,
        "choices": [{
            "index": 0,
            "message": { "role": "assistant", "content": text, "refusal": null },
            "finish_reason": "stop",
            "logprobs": null,
        }],
        "usage": null,
        "system_fingerprint": null,
    })
}

pub(crate) async fn create(
    State(st): State<BridgeState>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let body = match body {
        Ok(b) => b,
        Err(r) => return too_large(r).into_response(),
    };
    let req = match request::parse(&body, &headers) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    let admitted = match custody::admit(&st, &caller, &req.ask, &headers).await {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    tracing::info!(op_id = %admitted.op_id, attached = admitted.attached, stream = req.stream, client = %caller.client(), "openai door request");
    if req.stream {
        if let Some(mut refused) = settled_failure(&st, &admitted).await {
            door_headers(refused.headers_mut(), &req.ignored, &admitted);
            return refused;
        }
        return stream::answer(st, req, admitted);
    }
    let mut res = settle(&st, &admitted).await;
    door_headers(res.headers_mut(), &req.ignored, &admitted);
    res
}

/// A body that could not be read (over the limit, cut off): its status, never retried.
pub(crate) fn too_large(r: BytesRejection) -> OpenAiError {
    let mut e = OpenAiError::invalid(
        "body_unreadable",
        None,
        format!("the body could not be read: keep it under {} bytes (only the last user message is typed)", super::COMPLETIONS_LIMIT),
    );
    e.status = r.status();
    e
}

/// A streamed request that attached to a send already settled without an answer: its
/// no-retry error up front (a status and `x-should-retry: false` that every client
/// reads), not a 200 stream whose first event is the failure.
pub(crate) async fn settled_failure(st: &BridgeState, admitted: &Admitted) -> Option<Response> {
    if !admitted.attached {
        return None;
    }
    let id = admitted.op_id.clone();
    let send = st
        .ledger()
        .call(move |l| {
            let newest = l.newest_copy(&id)?;
            let hold = l.retry_after(&newest)?;
            Ok::<_, crate::ledger::LedgerError>(l.get(&newest)?.map(|s| (s, hold)))
        })
        .await
        .ok()
        .flatten()?;
    let (send, hold) = send;
    match super::outcome::of_held(&send, hold) {
        Outcome::Failed(e) => Some(e.into_response()),
        _ => None,
    }
}

/// Waits (held: at most the hold) for the send to settle: its row, the page's final
/// answer and model, or the no-retry error it settled in.
pub(crate) async fn answered(
    st: &BridgeState,
    op_id: &str,
) -> Result<(Box<Send>, String, String), OpenAiError> {
    let mut waiter = Waiter::held(st, op_id);
    let mut streamed_model = None;
    loop {
        match waiter.next().await {
            Step::Text(_, model) => streamed_model = model.or(streamed_model),
            Step::Settled(Outcome::Answered { text }, Some(send)) => {
                let model = model_of(st, &send.op_id, streamed_model.as_deref()).await;
                return Ok((send, text, model));
            }
            Step::Settled(Outcome::Failed(e), _) => return Err(e),
            Step::Settled(_, _) => {
                return Err(OpenAiError::custody(
                    axum::http::StatusCode::FAILED_DEPENDENCY,
                    "internal",
                    op_id,
                    "the door lost track of this send: do not retry; look at it in sendledger",
                ))
            }
        }
    }
}

/// Waits for the send to settle and answers a `chat.completion` or a no-retry error.
/// A completed answer's `model` is the page's slug; when the page's request was not the
/// send's destination, [`MISMATCH_HEADER`] says so.
async fn settle(st: &BridgeState, admitted: &Admitted) -> Response {
    match answered(st, &admitted.op_id).await {
        Ok((send, text, model)) => {
            let mut res = Json(completion(&send, &text, &model)).into_response();
            let mismatch = mismatch_of(st, &send.op_id).await;
            mismatch_header(res.headers_mut(), mismatch.as_deref());
            res
        }
        Err(e) => e.into_response(),
    }
}
