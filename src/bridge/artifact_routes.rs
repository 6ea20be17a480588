//! An answer's generated files ("files out", issue 29; docs/bridge-api.md "Artifacts"):
//! - `GET /v1/ext/artifacts?lease_id=L&wait_ms=N` (extension scope, long-poll ≤ 25 s):
//!   the artifacts still wanted, oldest first, at most 10;
//! - `POST /v1/ext/artifacts/{op_id}/{n}?lease_id=L&name=NAME` (raw bytes, their
//!   content-type): the bytes the tab fetched through the page's own download route,
//!   stored once in the attachment store and recorded;
//! - `POST /v1/ext/artifacts/{op_id}/{n}/unavailable` `{lease_id, words}`: it cannot be
//!   fetched, in the page's words;
//! - `GET /v1/sends/{op_id}/artifacts?wait_ms=N` (client scope, ≤ 60 s): the send's
//!   artifacts, at once when none is wanted any more, else at the wait's end;
//! - `GET /v1/sends/{op_id}/artifacts/{n}` (client scope): the stored bytes.
//!
//! Bytes are taken only for a wanted artifact; a refusal writes nothing (but a full store,
//! which ends the artifact unavailable, in the owner's words). Never logs bytes or names.

use super::attachment_routes::{read_body, store_refusal};
use super::body::{self, Body as JsonBody};
use super::error::ApiError;
use super::hand_out::{long_poll, MAX_WAIT_MS};
use super::observations::hear;
use super::BridgeState;
use crate::attachments::{self as files, artifact, sha256_hex, Attachment, Store, StoreError};
use crate::error_code::ErrorCode;
use crate::ledger::{Artifact, ArtifactState, LedgerRead};
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::Duration;

/// Most wanted artifacts one answer of `GET /v1/ext/artifacts` lists.
pub const MAX_LISTED: u32 = 10;

pub(super) fn routes() -> Router<BridgeState> {
    Router::new()
        .route("/v1/ext/artifacts", get(wanted))
        .route("/v1/ext/artifacts/{op_id}/{n}", post(upload))
        .route(
            "/v1/ext/artifacts/{op_id}/{n}/unavailable",
            post(unavailable).layer(DefaultBodyLimit::max(body::DEFAULT_LIMIT)),
        )
        .route("/v1/sends/{op_id}/artifacts", get(settled))
        .route("/v1/sends/{op_id}/artifacts/{n}", get(download))
}

type Answer = Result<(StatusCode, Json<Value>), ApiError>;

#[derive(Deserialize)]
struct WantedQuery {
    lease_id: String,
    #[serde(default)]
    wait_ms: Option<u64>,
    /// The conversation the tab shows: only its artifacts are listed, so stale ones of
    /// conversations no tab shows never crowd the list nor answer the long-poll at once.
    #[serde(default)]
    conversation_id: Option<String>,
}

/// `GET /v1/ext/artifacts[?conversation_id=C]`: at once when any is wanted (of `C`, when
/// named), else at the wait's end with `[]`.
async fn wanted(State(st): State<BridgeState>, Query(q): Query<WantedQuery>) -> Answer {
    let wait = Duration::from_millis(q.wait_ms.unwrap_or(0).min(MAX_WAIT_MS));
    let list = long_poll(&st, wait, || {
        let (st, lease_id, shown) = (st.clone(), q.lease_id.clone(), q.conversation_id.clone());
        async move {
            hear(&st, &lease_id).await?;
            let list = st
                .ledger()
                .call(move |l| l.wanted_artifacts(MAX_LISTED, shown.as_deref()))
                .await?;
            let any = !list.is_empty();
            Ok((list, any))
        }
    })
    .await?;
    Ok((StatusCode::OK, Json(json!({ "artifacts": list }))))
}

/// Longest wait of `GET /v1/sends/{op_id}/artifacts`, in ms.
pub const MAX_SETTLE_WAIT_MS: u64 = 60_000;

#[derive(Deserialize)]
struct SettledQuery {
    #[serde(default)]
    wait_ms: Option<u64>,
}

/// `GET /v1/sends/{op_id}/artifacts?wait_ms=N`: the send's artifacts once none is wanted,
/// or as they are at the wait's end. Errors: `unknown_send`.
async fn settled(
    State(st): State<BridgeState>,
    Path(op_id): Path<String>,
    Query(q): Query<SettledQuery>,
) -> Answer {
    let wait = Duration::from_millis(q.wait_ms.unwrap_or(0).min(MAX_SETTLE_WAIT_MS));
    let list = long_poll(&st, wait, || {
        let (st, op) = (st.clone(), op_id.clone());
        async move {
            let list = st
                .ledger()
                .call(move |l| {
                    l.get(&op)?
                        .ok_or_else(|| crate::ledger::LedgerError::UnknownSend(op.clone()))?;
                    l.artifacts(&op)
                })
                .await?;
            let done = list.iter().all(|a| a.state != ArtifactState::Wanted);
            Ok((list, done))
        }
    })
    .await?;
    Ok((StatusCode::OK, Json(json!({ "artifacts": list }))))
}

fn artifact_too_large(size: Option<u64>) -> ApiError {
    let size = size.map_or("larger".into(), |s| format!("{s} bytes"));
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::ArtifactTooLarge,
        format!(
            "the generated file is {size}; the owner keeps at most {} bytes (32 MiB) a file: report it unavailable with POST …/unavailable, and open the conversation in ChatGPT to see it",
            files::MAX_FILE_BYTES
        ),
    )
}

#[derive(Deserialize)]
struct UploadQuery {
    lease_id: String,
    #[serde(default)]
    name: Option<String>,
}

/// The MIME type the bytes came with (their content-type), else `application/octet-stream`.
fn mime_of(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_string())
        .filter(|m| files::check_mime(m).is_ok())
        .unwrap_or_else(|| files::bounds::DEFAULT_MIME.into())
}

fn stored_json(op_id: &str, a: &Artifact) -> Value {
    json!({ "artifact": {
        "op_id": op_id, "n": a.n, "sha256": a.sha256, "name": a.name, "mime": a.mime, "size": a.size,
    }})
}

/// `POST /v1/ext/artifacts/{op_id}/{n}`: 201 stored now, 200 stored with these bytes already.
async fn upload(
    State(st): State<BridgeState>,
    Path((op_id, n)): Path<(String, u32)>,
    Query(q): Query<UploadQuery>,
    headers: HeaderMap,
    body: Body,
) -> Answer {
    hear(&st, &q.lease_id).await?;
    let bytes = read_body(&headers, body, artifact_too_large).await?;
    let sha = sha256_hex(&bytes);
    let (op, s) = (op_id.clone(), sha.clone());
    let known = st
        .ledger()
        .call(move |l| l.artifact_admits(&op, n, &s))
        .await?;
    if let Some(kept) = known {
        return Ok((StatusCode::OK, Json(stored_json(&op_id, &kept))));
    }
    let (op, file_id) = (op_id.clone(), n);
    let file_id = st
        .ledger()
        .call(move |l| l.artifact(&op, file_id))
        .await?
        .file_id;
    let mime = mime_of(&headers);
    let name = q
        .name
        .filter(|n| files::check_name(n).is_ok())
        .unwrap_or_else(|| artifact::default_name(&file_id, &mime));
    let store = Store::new(st.profile().dir());
    let size = bytes.len() as u64;
    let put = tokio::task::spawn_blocking(move || store.put(&bytes))
        .await
        .map_err(|_| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::Invalid,
                "the upload was interrupted: send it again",
            )
        })?;
    match put {
        Ok(_) => {}
        Err(e @ StoreError::Full { .. }) => return Err(store_full(&st, &op_id, n, e).await),
        Err(StoreError::TooLarge { size, .. }) => return Err(artifact_too_large(Some(size))),
        Err(e) => return Err(store_refusal(e)),
    }
    let file = Attachment {
        sha256: sha,
        name,
        mime,
        size,
    };
    let op = op_id.clone();
    let (a, new) = st
        .ledger()
        .call(move |l| l.store_artifact(&op, n, &file))
        .await?;
    st.ledger().poke();
    tracing::info!(op = %op_id, n, sha256 = ?a.sha256, size, new, "artifact stored");
    let status = if new {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(stored_json(&op_id, &a))))
}

/// The store is full: the artifact ends unavailable in the owner's words; 507 says why.
async fn store_full(st: &BridgeState, op_id: &str, n: u32, e: StoreError) -> ApiError {
    let words = format!("the owner's file store is full (2 GiB): {e}")
        .chars()
        .take(artifact::MAX_WORDS_CHARS)
        .collect::<String>();
    let op = op_id.to_string();
    let ended = st
        .ledger()
        .call(move |l| l.artifact_unavailable(&op, n, &words))
        .await;
    st.ledger().poke();
    if let Err(e) = ended {
        return e.into();
    }
    store_refusal(e)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UnavailableBody {
    lease_id: String,
    words: String,
}

/// `POST /v1/ext/artifacts/{op_id}/{n}/unavailable`: wanted → unavailable with the words.
async fn unavailable(
    State(st): State<BridgeState>,
    Path((op_id, n)): Path<(String, u32)>,
    JsonBody(b): JsonBody<UnavailableBody>,
) -> Answer {
    hear(&st, &b.lease_id).await?;
    let op = op_id.clone();
    let a = st
        .ledger()
        .call(move |l| {
            l.artifact_unavailable(&op, n, &b.words)?;
            l.artifact(&op, n)
        })
        .await?;
    st.ledger().poke();
    tracing::info!(op = %op_id, n, "artifact unavailable");
    Ok((StatusCode::OK, Json(json!({ "artifact": a }))))
}

/// `filename="…"` (ASCII, quotes and backslashes replaced) and `filename*=UTF-8''…`.
fn disposition(name: &str) -> String {
    let ascii: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let encoded = percent_encoding::utf8_percent_encode(name, percent_encoding::NON_ALPHANUMERIC);
    format!("attachment; filename=\"{ascii}\"; filename*=UTF-8''{encoded}")
}

fn not_there(code: ErrorCode, why: String) -> ApiError {
    let status = match code {
        ErrorCode::ArtifactPending => StatusCode::CONFLICT,
        _ => StatusCode::GONE,
    };
    ApiError::new(status, code, why)
}

/// `GET /v1/sends/{op_id}/artifacts/{n}`: the stored bytes; 409 `artifact_pending` while
/// wanted, 410 `artifact_unavailable` with its words (or when its bytes were deleted).
async fn download(
    State(st): State<BridgeState>,
    Path((op_id, n)): Path<(String, u32)>,
) -> Result<Response, ApiError> {
    let op = op_id.clone();
    let (a, send) = st
        .ledger()
        .call(move |l| Ok::<_, crate::ledger::LedgerError>((l.artifact(&op, n)?, l.get(&op)?)))
        .await?;
    let conversation = send
        .and_then(|s| s.receipt)
        .map(|r| r.conversation_id)
        .unwrap_or_default();
    match a.state {
        ArtifactState::Wanted => return Err(not_there(ErrorCode::ArtifactPending, format!(
            "artifact {n} of send {op_id} is not fetched yet: the extension's tab fetches it while it shows conversation {conversation}; open that conversation in ChatGPT and ask again (it ends unavailable 15 minutes after the answer)"
        ))),
        ArtifactState::Unavailable => return Err(not_there(ErrorCode::ArtifactUnavailable, format!(
            "artifact {n} of send {op_id} could not be fetched: {}",
            a.words.unwrap_or_default()
        ))),
        ArtifactState::Stored if a.bytes_deleted => return Err(not_there(ErrorCode::ArtifactUnavailable, format!(
            "artifact {n} of send {op_id}: its bytes were deleted 30 days after the send ended; open conversation {conversation} in ChatGPT to see it"
        ))),
        ArtifactState::Stored => {}
    }
    let sha = a.sha256.clone().unwrap_or_default();
    let store = Store::new(st.profile().dir());
    let bytes = tokio::task::spawn_blocking(move || store.read(&sha))
        .await
        .map_err(|_| {
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::Storage,
                "the file could not be read: ask again",
            )
        })?
        .map_err(|e| match e {
            StoreError::Missing(_) | StoreError::Corrupt(_) => {
                not_there(ErrorCode::ArtifactUnavailable, e.to_string())
            }
            other => store_refusal(other),
        })?;
    let mime = a.mime.unwrap_or_else(|| files::bounds::DEFAULT_MIME.into());
    let name = a.name.unwrap_or_else(|| a.file_id.clone());
    Ok((
        [
            (header::CONTENT_TYPE, mime),
            (header::CONTENT_DISPOSITION, disposition(&name)),
        ],
        bytes,
    )
        .into_response())
}
