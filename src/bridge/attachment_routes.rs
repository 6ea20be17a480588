//! The attachment routes (issue 29, docs/bridge-api.md "Attachments"):
//! `POST /v1/attachments?name=NAME` (client scope) stores a file's raw bytes in the
//! profile's content-addressed store and records it; `GET /v1/ext/attachments/{sha256}
//! ?lease_id=LEASE` (extension scope) hands a file's bytes to the tab while that lease
//! holds claimed the send that carries it. Neither logs a file's bytes or its name.

use super::error::ApiError;
use super::BridgeState;
use crate::attachments::{self as files, Attachment, Store, StoreError};
use crate::error_code::ErrorCode;
use crate::ledger::{LedgerError, LedgerRead, Send};
use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;
use std::time::Duration;

/// How long a file's body may take to arrive after its request head, in ms.
pub const UPLOAD_TIMEOUT_MS: u64 = 30_000;

pub(super) fn routes() -> Router<BridgeState> {
    Router::new()
        .route("/v1/attachments", post(upload))
        .route("/v1/ext/attachments/{sha256}", get(fetch))
}

#[derive(Deserialize)]
struct UploadQuery {
    name: Option<String>,
}

pub(super) fn too_large(size: Option<u64>) -> ApiError {
    let size = size
        .map(|s| format!("{s} bytes"))
        .unwrap_or("larger".into());
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::AttachmentTooLarge,
        format!(
            "the file is {size}; an attachment is at most {} bytes (32 MiB): send a smaller file",
            files::MAX_FILE_BYTES
        ),
    )
}

fn invalid(why: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::Invalid, why)
}

/// A refusal of the store, as the bridge answers it.
pub(super) fn store_refusal(e: StoreError) -> ApiError {
    let (status, code) = match &e {
        StoreError::TooLarge { size, .. } => return too_large(Some(*size)),
        StoreError::Empty => (StatusCode::BAD_REQUEST, ErrorCode::Invalid),
        StoreError::Full { .. } => (
            StatusCode::INSUFFICIENT_STORAGE,
            ErrorCode::AttachmentStoreFull,
        ),
        StoreError::Missing(_) | StoreError::Corrupt(_) => {
            (StatusCode::NOT_FOUND, ErrorCode::UnknownAttachment)
        }
        StoreError::Io { .. } => (StatusCode::SERVICE_UNAVAILABLE, ErrorCode::Storage),
    };
    ApiError::new(status, code, e.to_string())
}

/// The name and MIME type of an upload, checked.
fn described(q: Option<UploadQuery>, headers: &HeaderMap) -> Result<(String, String), ApiError> {
    let name = q.and_then(|q| q.name).ok_or_else(|| {
        invalid("name the file: POST /v1/attachments?name=<the file's name> (URL-encoded)")
    })?;
    files::check_name(&name).map_err(invalid)?;
    let mime = match headers.get(header::CONTENT_TYPE) {
        None => files::bounds::DEFAULT_MIME.to_string(),
        Some(v) => v
            .to_str()
            .map_err(|_| {
                invalid("the content-type is not readable text: send the file's MIME type")
            })?
            .trim()
            .to_string(),
    };
    files::check_mime(&mime).map_err(invalid)?;
    Ok((name, mime))
}

/// Reads the whole body, at most [`files::MAX_FILE_BYTES`], within [`UPLOAD_TIMEOUT_MS`];
/// past the bound, `too_large(the declared size)` answers.
pub(super) async fn read_body(
    headers: &HeaderMap,
    body: Body,
    too_large: fn(Option<u64>) -> ApiError,
) -> Result<Bytes, ApiError> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > files::MAX_FILE_BYTES) {
        return Err(too_large(declared));
    }
    let read = axum::body::to_bytes(body, files::MAX_FILE_BYTES as usize);
    let within = tokio::time::timeout(Duration::from_millis(UPLOAD_TIMEOUT_MS), read);
    match within.await {
        Err(_) => Err(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            ErrorCode::TooSlow,
            format!("the file did not arrive within {UPLOAD_TIMEOUT_MS} ms of the request head: send it whole, at once"),
        )),
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) if over_limit(&e) => Err(too_large(None)),
        Ok(Err(_)) => Err(invalid("the file's bytes could not be read: send them again")),
    }
}

fn over_limit(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if s.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = s.source();
    }
    false
}

/// `POST /v1/attachments?name=NAME`: 201 with the stored file, or 200 when the same
/// bytes were stored already.
async fn upload(
    State(st): State<BridgeState>,
    q: Result<Query<UploadQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let (name, mime) = described(q.ok().map(|q| q.0), &headers)?;
    let bytes = read_body(&headers, body, too_large).await?;
    let store = Store::new(st.profile().dir());
    let size = bytes.len() as u64;
    let (sha256, new) = tokio::task::spawn_blocking(move || store.put(&bytes))
        .await
        .map_err(|_| invalid("the upload was interrupted: send it again"))?
        .map_err(store_refusal)?;
    let a = Attachment {
        sha256,
        name,
        mime,
        size,
    };
    let rec = a.clone();
    st.ledger().call(move |l| l.record_upload(&rec)).await?;
    tracing::info!(sha256 = %a.sha256, size, new, "attachment stored");
    let status = if new {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(json!({ "attachment": a }))))
}

#[derive(Deserialize)]
struct FetchQuery {
    lease_id: String,
}

/// The send `lease_id` holds claimed, if it carries `sha`: that file's record.
fn claimed_file(
    l: &mut crate::ledger::Ledger,
    lease_id: &str,
    sha: &str,
) -> Result<(Send, Attachment), ApiError> {
    if l.get_lease(lease_id)?.ended_at.is_some() {
        return Err(LedgerError::LeaseEnded(lease_id.into()).into());
    }
    let send = l.claimed_by(lease_id)?.ok_or_else(|| {
        ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::NotGranted,
            format!("lease {lease_id} holds no claimed send: a file is handed only while its send is claimed, before the grant"),
        )
    })?;
    let file = l
        .attachments_of(&send.op_id)?
        .into_iter()
        .find(|a| a.file.sha256 == sha)
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                ErrorCode::UnknownAttachment,
                format!("send {} does not carry attachment {sha}: fetch only the files its hand-out lists", send.op_id),
            )
        })?;
    Ok((send, file.file))
}

/// `GET /v1/ext/attachments/{sha256}?lease_id=LEASE`: the file's bytes, checked against
/// its address. A file missing or damaged fails its send before dispatch (nothing was
/// typed or clicked) and answers 409 with why.
async fn fetch(
    State(st): State<BridgeState>,
    Path(sha): Path<String>,
    Query(q): Query<FetchQuery>,
) -> Result<Response, ApiError> {
    let lease_id = q.lease_id.clone();
    let sha_for = sha.clone();
    let (send, file) = st
        .ledger()
        .call(move |l| claimed_file(l, &lease_id, &sha_for))
        .await?;
    let store = Store::new(st.profile().dir());
    let read = tokio::task::spawn_blocking(move || store.read(&sha)).await;
    let bytes = match read {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(e)) => return Err(fail_send(&st, &send.op_id, &q.lease_id, e).await),
        Err(_) => return Err(invalid("the file could not be read: ask again")),
    };
    tracing::info!(op = %send.op_id, sha256 = %file.sha256, size = file.size, "attachment handed to the tab");
    Ok(([(header::CONTENT_TYPE, file.mime)], bytes).into_response())
}

/// The file of the claimed send `op_id` is missing or damaged: the send fails before
/// dispatch, committed; the answer says why.
async fn fail_send(st: &BridgeState, op_id: &str, lease_id: &str, e: StoreError) -> ApiError {
    let why = format!("failed before dispatch: {e}; nothing was typed or clicked");
    let (op, lease, reason) = (op_id.to_string(), lease_id.to_string(), why.clone());
    let failed = st
        .ledger()
        .call(move |l| {
            if l.claimed_by(&lease)?.is_some_and(|s| s.op_id == op) {
                l.fail(&op, &reason, "owner")?;
            }
            Ok::<_, LedgerError>(())
        })
        .await;
    st.ledger().poke();
    if let Err(e) = failed {
        return e.into();
    }
    ApiError::new(StatusCode::CONFLICT, ErrorCode::NotGranted, why)
}
