//! A key revoked while one of its calls is open ends that call at once, with a refusal
//! (issue 38): a held request (a wait, a non-streamed door answer) is answered 401 instead,
//! and an event stream already under way gets one last `error` event and ends. What the
//! key queued stays queued: custody is the ledger's, and the send goes on (or waits for a
//! person) exactly as if its client had gone away. Woken by commits (a revocation is one),
//! never by a timer; each wake reads whether the key is still live.

use super::BridgeState;
use axum::body::{Body, Bytes};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde_json::json;
use std::future::Future;

/// The key a call was let in by: its name (for the sentence) and the SHA-256 of its secret.
#[derive(Debug, Clone)]
pub(crate) struct OpenedBy {
    /// The key's name.
    pub name: String,
    /// Lowercase hex SHA-256 of its secret.
    pub sha256: String,
    /// Whether the call is one of the OpenAI-compatible doors' (its refusal is then an
    /// OpenAI error object).
    pub door: bool,
}

impl OpenedBy {
    fn sentence(&self) -> String {
        format!(
            "key {} was revoked while this call was open, so it ended here: anything it queued stays in the owner's queue (never sent twice); ask the person at the owner's machine for a new key",
            self.name
        )
    }

    fn refusal(&self) -> Response {
        if self.door {
            let e = super::openai::error::OpenAiError {
                status: StatusCode::UNAUTHORIZED,
                kind: "authentication_error",
                code: "invalid_api_key",
                param: None,
                message: self.sentence(),
                retry: Some(false),
                op_id: None,
                retry_after: None,
            };
            return e.into_response();
        }
        super::error::ApiError::new(
            StatusCode::UNAUTHORIZED,
            crate::error_code::ErrorCode::Unauthorized,
            self.sentence(),
        )
        .into_response()
    }

    /// The last event of a stream the revocation ended: `event: error`, its data both an
    /// OpenAI error object and the bridge's `{code, message}`.
    fn last_event(&self) -> Bytes {
        let code = if self.door {
            "invalid_api_key"
        } else {
            "unauthorized"
        };
        let message = self.sentence();
        let data = json!({
            "type": "error",
            "code": code,
            "message": message,
            "error": { "type": "authentication_error", "code": code, "message": message, "param": null },
        });
        Bytes::from(format!("event: error\ndata: {data}\n\n"))
    }
}

/// Resolves once the key with SHA-256 `sha256` is no longer live. Registered for the next
/// commit before each read, so a revocation committed between the two is not missed; a
/// read that fails keeps waiting (the call is not ended on a guess).
fn revoked(st: &BridgeState, sha256: String) -> impl Future<Output = ()> + Send + 'static {
    let writer = st.ledger().clone();
    let mut writes = writer.watch_writes();
    async move {
        loop {
            let sha = sha256.clone();
            if let Ok(false) = writer.call(move |l| l.key_live(&sha)).await {
                return;
            }
            if writes.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }
}

/// Runs `call` (the route, let in by key `by`) until it answers or the key is revoked;
/// an event stream it answers is followed the same way to its end.
pub(crate) async fn until_revoked(
    st: &BridgeState,
    by: OpenedBy,
    call: impl Future<Output = Response>,
) -> Response {
    let gone = Box::pin(revoked(st, by.sha256.clone()));
    let mut gone = gone;
    let resp = tokio::select! {
        r = call => r,
        () = &mut gone => return by.refusal(),
    };
    let streams = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !streams {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let state = (Some(body.into_data_stream()), gone, by);
    let ended = futures_util::stream::unfold(state, |(body, mut gone, by)| async move {
        let mut data = body?;
        tokio::select! {
            chunk = data.next() => chunk.map(|c| (c, (Some(data), gone, by))),
            () = &mut gone => {
                let last = by.last_event();
                Some((Ok(last), (None, gone, by)))
            }
        }
    });
    Response::from_parts(parts, Body::from_stream(ended))
}
