//! The bridge's error answer: `{"code": "...", "message": "..."}` with an HTTP status.

use crate::error_code::ErrorCode;
use crate::ledger::LedgerError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// The code of a refusal, carried on its response for the refusal log (ids and codes only).
#[derive(Debug, Clone, Copy)]
pub struct RefusalCode(pub ErrorCode);

/// A refusal or failure, answered as JSON.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Stable machine code (see docs/bridge-api.md).
    pub code: ErrorCode,
    /// A sentence a person can act on.
    pub message: String,
}

impl ApiError {
    /// A new error.
    pub fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "code": self.code, "message": self.message });
        let mut res = (self.status, Json(body)).into_response();
        res.extensions_mut().insert(RefusalCode(self.code));
        res
    }
}

impl From<LedgerError> for ApiError {
    fn from(e: LedgerError) -> Self {
        let status = crate::api::ErrorClass::of(e.code()).http_status();
        Self::new(
            StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            e.code(),
            e.to_string(),
        )
    }
}
