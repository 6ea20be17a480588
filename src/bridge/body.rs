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
        serde_json::from_slice(&bytes).map(Body).map_err(|e| {
            // serde_json files some schema mismatches (`null` for a phase) as syntax: the
            // JSON is valid when it parses as any value.
            let valid = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok();
            let what = if valid {
                "does not match this route's schema"
            } else {
                "is not valid JSON"
            };
            ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::Malformed,
                format!(
                    "the body {what} (line {}, column {}): check it against docs/bridge-api.md",
                    e.line(),
                    e.column()
                ),
            )
        })
    }
}
