//! Request bodies: read within the route's size limit, [`BODY_TIMEOUT_MS`] and the JSON depth bound
//! ([`crate::json_depth::MAX_DEPTH`]), parsed with serde, refused with `{code, message}`
//! — and the message never echoes the body (it may hold a send's text).

use super::error::ApiError;
use crate::error_code::ErrorCode;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;
use std::time::Duration;

/// Default body limit, in bytes (16 KiB).
pub const DEFAULT_LIMIT: usize = 16 * 1024;
/// Limit for `POST /v1/sends`, in bytes (400 KiB). The text's own limit
/// ([`crate::send_text::MAX_TEXT_BYTES`], 64 KiB) is on the decoded text, whatever its
/// escaping: JSON may spell each byte of it as `\u00XX` (six bytes), and an emoji as
/// two `\uXXXX` escapes (twelve bytes for four), so the body may be up to six times the
/// text, plus its other fields.
pub const SEND_LIMIT: usize = 6 * crate::send_text::MAX_TEXT_BYTES + 16 * 1024;
/// Limit for `POST /v1/ext/observations`, in bytes (8 MiB): the page's own read of a long
/// conversation (`GET /backend-api/conversation/{id}`, every message of the thread in one
/// JSON body) is forwarded whole, and an answer cut by a reload is harvested from it.
pub const OBSERVATION_LIMIT: usize = 8 * 1024 * 1024;

/// How long a body may take to arrive after its request head, in ms (a loopback client
/// sends 1 MiB in well under a millisecond; the time is what a byte-a-second body holds).
pub const BODY_TIMEOUT_MS: u64 = 5_000;

/// A JSON body of type `T`.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let read = Bytes::from_request(req, state);
        let late = || {
            ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                ErrorCode::TooSlow,
                format!("the body did not arrive within {BODY_TIMEOUT_MS} ms of the request head: send it whole, at once"),
            )
        };
        let within = tokio::time::timeout(Duration::from_millis(BODY_TIMEOUT_MS), read);
        let bytes = within.await.map_err(|_| late())?.map_err(|r| {
            if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    ErrorCode::TooLarge,
                    "the body is larger than this route accepts (16 KiB; 400 KiB for a send; 8 MiB for observations — docs/bridge-api.md): send less",
                )
            } else {
                ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::Malformed, "the body could not be read")
            }
        })?;
        crate::json_depth::check_text(&bytes).map_err(|e| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::Malformed,
                format!("the body is not read: {e}; no route takes that (docs/bridge-api.md)"),
            )
        })?;
        // Every route's body is an object: serde would also take a struct's fields as an
        // array in order (`["lease", "dispatched"]`), which no client means.
        let first = bytes.iter().find(|b| !b" \t\r\n".contains(b));
        if first.is_some_and(|b| *b != b'{') {
            let message = if bytes.starts_with(b"\xEF\xBB\xBF") {
                "the body starts with a byte-order mark, which JSON does not allow: send the object without it"
            } else {
                "the body must be a JSON object ({...}): check it against docs/bridge-api.md"
            };
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::Malformed,
                message,
            ));
        }
        crate::body_schema::from_slice(&bytes)
            .map(Body)
            .map_err(|e| refused(&e))
    }
}

/// The 400 for a body that does not fit its route: the field, what it must be, and the
/// bound of a field that has one ([`bound`]).
pub fn refused(e: &crate::body_schema::SchemaRefusal) -> ApiError {
    let bound = e
        .path
        .rsplit('.')
        .next()
        .and_then(bound)
        .filter(|_| !e.sentence.starts_with("unknown field"))
        .map(|b| format!(" ({b})"))
        .unwrap_or_default();
    ApiError::new(
        StatusCode::BAD_REQUEST,
        ErrorCode::Malformed,
        format!(
            "the body was not read: {}{bound}; nothing was changed: check it against docs/bridge-api.md",
            e.sentence
        ),
    )
}

/// The shape and bound of the fields a client writes most (a send's), for a refusal.
fn bound(field: &str) -> Option<String> {
    use crate::destination::{MAX_ID_BYTES, MAX_MODEL_BYTES};
    use crate::ledger::MAX_OP_ID_BYTES;
    let text_kib = crate::send_text::MAX_TEXT_BYTES / 1024;
    Some(match field {
        "op_id" => format!("1 to {MAX_OP_ID_BYTES} letters, digits or . _ : -"),
        "text" => format!("a string of 1 byte to {text_kib} KiB"),
        "conversation_id" | "project_id" => {
            format!("a string: an id or its chatgpt.com URL, at most {MAX_ID_BYTES} bytes as an id")
        }
        "new_chat" => "true or false".into(),
        "model" | "effort" => {
            format!("a string of 1 to {MAX_MODEL_BYTES} letters, digits or . _ -")
        }
        "attachments" => "an array of at most 10 sha256 strings from POST /v1/attachments".into(),
        _ => return None,
    })
}
