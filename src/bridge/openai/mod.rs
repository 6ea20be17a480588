//! The OpenAI-compatible doors on the loopback bridge: `GET /v1/models`,
//! `GET /v1/models/{id}`, `POST /v1/chat/completions` (streamed or not) and the
//! Responses API (`POST /v1/responses`, `GET /v1/responses/{id}`: [`responses`]), thin
//! translations onto the ledger's sends. Their rules (docs/openai.md): one send per
//! request except any client's own retry, which attaches ([`custody`]); every outcome a retry could
//! duplicate answers `x-should-retry: false` outside 408/409/429/5xx ([`outcome`]);
//! refusals are OpenAI error objects ([`error`]). Auth: the client token or a named key
//! ([`auth`]).

pub(crate) mod answer_feed;
pub(crate) mod auth;
mod completion;
mod custody;
mod door_reply;
pub(crate) mod error;
mod files;
mod outcome;
mod request;
mod responses;
mod stream;
mod wait;

use crate::bridge::BridgeState;
use crate::error_code::ErrorCode;
use axum::extract::{DefaultBodyLimit, Path};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use error::OpenAiError;
use serde_json::{json, Value};

/// Body limit of `POST /v1/chat/completions` and `POST /v1/responses`, in bytes (48 MiB:
/// companions resend the whole history, and the last user message may carry files as
/// base64 data — a 32 MiB file is 43 MiB of it; only the last user message is typed,
/// within the 64 KiB text limit).
pub const COMPLETIONS_LIMIT: usize = 48 * 1024 * 1024;

pub(crate) fn routes() -> Router<BridgeState> {
    Router::new()
        .route("/v1/models", get(models).fallback(method_not_allowed))
        .route("/v1/models/{id}", get(model).fallback(method_not_allowed))
        .route(
            "/v1/chat/completions",
            post(completion::create)
                .layer(DefaultBodyLimit::max(COMPLETIONS_LIMIT))
                .fallback(method_not_allowed),
        )
        .route(
            "/v1/responses",
            post(responses::create)
                .layer(DefaultBodyLimit::max(COMPLETIONS_LIMIT))
                .fallback(method_not_allowed),
        )
        .route(
            "/v1/responses/{id}",
            get(responses::retrieve).fallback(method_not_allowed),
        )
}

/// A door path asked with another method: 405 in the door's error shape, never retried.
async fn method_not_allowed() -> OpenAiError {
    OpenAiError {
        retry: Some(false),
        ..OpenAiError::from(crate::bridge::error::ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::MethodNotAllowed,
            "this path of the OpenAI door does not take that method: `GET /v1/models`, \
             `GET /v1/models/{id}`, `POST /v1/chat/completions`, `POST /v1/responses` and \
             `GET /v1/responses/{id}` (see docs/openai.md)",
        ))
    }
}

fn model_object(id: &str) -> Value {
    json!({ "id": id, "object": "model", "created": 0, "owned_by": "sendledger" })
}

/// The models listed: one per site (`chatgpt-tab`, `claude-tab`), each the page's own
/// model; `claude:<name>` names a claude.ai page model (docs/openai.md).
async fn models() -> Json<Value> {
    let data = [request::MODEL_ID, request::CLAUDE_MODEL_ID].map(model_object);
    Json(json!({ "object": "list", "data": data }))
}

async fn model(Path(id): Path<String>) -> Response {
    if id == request::MODEL_ID || id == request::CLAUDE_MODEL_ID {
        return Json(model_object(&id)).into_response();
    }
    OpenAiError {
        status: StatusCode::NOT_FOUND,
        kind: "invalid_request_error",
        code: "model_not_found",
        param: Some("model"),
        message: format!(
            "the models are {} (a chatgpt.com tab) and {} (a claude.ai tab): the tab answers with whatever model its page has selected",
            request::MODEL_ID,
            request::CLAUDE_MODEL_ID
        ),
        retry: Some(false),
        op_id: None,
        retry_after: None,
    }
    .into_response()
}
