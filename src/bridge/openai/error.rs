//! The door's refusals and failures as OpenAI error objects:
//! `{"error": {"message", "type", "param", "code"}}`, with `x-should-retry` set whenever
//! a retry could duplicate a send or cannot help. Statuses stay outside the set the SDKs
//! retry on their own (408, 409, 429, 5xx) for every outcome a retry could duplicate.

use crate::bridge::error::ApiError;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

/// Header naming the send an answer is about.
pub(crate) const OPERATION_HEADER: &str = "x-sendledger-operation-id";

/// One OpenAI error answer.
#[derive(Debug, Clone)]
pub(crate) struct OpenAiError {
    /// HTTP status.
    pub status: StatusCode,
    /// `error.type`: `invalid_request_error`, `authentication_error`, `permission_error`,
    /// `sendledger_error` (an outcome of custody, not of the request).
    pub kind: &'static str,
    /// `error.code`: stable, machine-readable (docs/openai.md).
    pub code: &'static str,
    /// `error.param`: the request field at fault, if one.
    pub param: Option<&'static str>,
    /// A sentence a person can act on (never message text).
    pub message: String,
    /// `x-should-retry`: `Some(false)` on every outcome a retry could duplicate.
    pub retry: Option<bool>,
    /// The send it is about (also in [`OPERATION_HEADER`]).
    pub op_id: Option<String>,
    /// `Retry-After` in seconds: for a send the page refused with the account's usage
    /// limit or *too many requests*, the time until the limit gate opens (or
    /// [`crate::ledger::UNKNOWN_RESET_S`]); with `x-should-retry: false`, so the SDKs do not
    /// retry at all and a framework reading `Retry-After` waits at least that long.
    pub retry_after: Option<u64>,
}

impl OpenAiError {
    /// A refusal of the request itself (400, never retried).
    pub(crate) fn invalid(
        code: &'static str,
        param: Option<&'static str>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            kind: "invalid_request_error",
            code,
            param,
            message: message.into(),
            retry: Some(false),
            op_id: None,
            retry_after: None,
        }
    }

    /// An outcome of custody for send `op_id`: `status`, never retried.
    pub(crate) fn custody(
        status: StatusCode,
        code: &'static str,
        op_id: &str,
        message: impl Into<String>,
    ) -> Self {
        Self {
            status,
            kind: "sendledger_error",
            code,
            param: None,
            message: message.into(),
            retry: Some(false),
            op_id: Some(op_id.to_string()),
            retry_after: None,
        }
    }

    /// The `{"error": {...}}` object (also the body of a stream's error event).
    pub(crate) fn body(&self) -> Value {
        json!({ "error": {
            "message": self.message,
            "type": self.kind,
            "param": self.param,
            "code": self.code,
        }})
    }
}

impl IntoResponse for OpenAiError {
    fn into_response(self) -> Response {
        let mut res = (self.status, Json(self.body())).into_response();
        let h = res.headers_mut();
        if let Some(retry) = self.retry {
            h.insert(
                "x-should-retry",
                HeaderValue::from_static(if retry { "true" } else { "false" }),
            );
        }
        if let Some(s) = self.retry_after {
            h.insert(axum::http::header::RETRY_AFTER, HeaderValue::from(s));
        }
        if let Some(v) = self
            .op_id
            .as_deref()
            .and_then(|id| HeaderValue::from_str(id).ok())
        {
            h.insert(OPERATION_HEADER, v);
        }
        res
    }
}

/// The bridge's own refusals (Host, Origin, token, body) in the door's shape. Storage
/// trouble before anything was queued may be retried; nothing else is.
impl From<ApiError> for OpenAiError {
    fn from(e: ApiError) -> Self {
        let kind = match e.status {
            StatusCode::UNAUTHORIZED => "authentication_error",
            StatusCode::FORBIDDEN | StatusCode::MISDIRECTED_REQUEST => "permission_error",
            s if s.is_server_error() => "sendledger_error",
            _ => "invalid_request_error",
        };
        Self {
            status: e.status,
            kind,
            code: e.code.as_str(),
            param: None,
            message: e.message,
            retry: Some(
                e.status.is_server_error() && e.code != crate::error_code::ErrorCode::Internal,
            ),
            op_id: None,
            retry_after: None,
        }
    }
}

pub(crate) fn bad(
    code: &'static str,
    param: &'static str,
    message: impl Into<String>,
) -> OpenAiError {
    OpenAiError::invalid(code, Some(param), message)
}
