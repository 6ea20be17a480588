//! Which send a request is: the rules that make the SDKs' own retries attach instead of
//! duplicating (docs/openai.md, "Retries").
//!
//! 1. `Idempotency-Key: K` — the operation id is `K`. The same client and body again is
//!    the same send; another body (or client) under `K` is refused (422).
//! 2. No key, `x-stainless-retry-count` ≥ 1 — an SDK's automatic retry: the newest send
//!    the door queued for the same client and the same body within [`ATTACH_WINDOW_MS`]
//!    is the one it repeats (the fingerprint is in the ledger: it survives a restart).
//!    None found: the first attempt never reached the owner, so this is a new send.
//! 3. Otherwise (a first attempt: count 0 or absent) — always a new send: "yes" twice is
//!    two messages.

use super::auth::Caller;
use super::error::OpenAiError;
use super::request::ChatRequest;
use crate::bridge::error::ApiError;
use crate::bridge::BridgeState;
use crate::clock::Millis;
use crate::ledger::{fingerprint, DoorQueue, LedgerError, QueueRequest};
use axum::http::{HeaderMap, StatusCode};

/// How far back an automatic retry finds the attempt it repeats, in ms (45 min: three
/// attempts of the SDKs' default 600 s timeout, with their back-off).
pub(crate) const ATTACH_WINDOW_MS: Millis = 45 * 60_000;
/// The SDKs' attempt counter (0 on the first attempt).
pub(crate) const RETRY_COUNT_HEADER: &str = "x-stainless-retry-count";
/// The caller's idempotency key: the operation id.
pub(crate) const IDEMPOTENCY_HEADER: &str = "idempotency-key";

/// The send a request is about.
#[derive(Debug, Clone)]
pub(crate) struct Admitted {
    /// Its operation id.
    pub op_id: String,
    /// Whether the request attached to an existing send (a retry) rather than queuing.
    pub attached: bool,
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, OpenAiError> {
    headers
        .get(name)
        .map(|v| {
            v.to_str().map(str::trim).map_err(|_| {
                OpenAiError::invalid(
                    "invalid_header",
                    None,
                    format!("the {name} header must be printable ASCII"),
                )
            })
        })
        .transpose()
}

fn retry_count(headers: &HeaderMap) -> Result<u32, OpenAiError> {
    match header(headers, RETRY_COUNT_HEADER)? {
        None => Ok(0),
        Some(v) => v.parse::<u32>().map_err(|_| {
            OpenAiError::invalid(
                "invalid_header",
                None,
                format!("{RETRY_COUNT_HEADER} must be a whole number"),
            )
        }),
    }
}

/// Finds or queues the send for `req` (see the module's rules).
pub(crate) async fn admit(
    st: &BridgeState,
    caller: &Caller,
    req: &ChatRequest,
    headers: &HeaderMap,
) -> Result<Admitted, OpenAiError> {
    let key = header(headers, IDEMPOTENCY_HEADER)?.map(str::to_string);
    let retry = retry_count(headers)?;
    let client = caller.client();
    if key.is_none() && retry >= 1 {
        let fp = fingerprint(&client, &req.body_sha256);
        let since = st.now() - ATTACH_WINDOW_MS;
        let found = st
            .ledger()
            .call(move |l| l.door_retry_of(&fp, since))
            .await
            .map_err(|e| OpenAiError::from(ApiError::from(e)))?;
        if let Some(op_id) = found {
            return Ok(Admitted {
                op_id,
                attached: true,
            });
        }
    }
    let q = DoorQueue {
        send: QueueRequest {
            op_id: Some(
                key.clone()
                    .unwrap_or_else(|| format!("oai-{}", uuid::Uuid::new_v4())),
            ),
            text: req.text.clone(),
            conversation_id: req.conversation_id.clone(),
        },
        client,
        body_sha256: req.body_sha256.clone(),
        keyed: key.is_some(),
    };
    let (send, created) = st
        .ledger()
        .call(move |l| l.door_queue(&q))
        .await
        .map_err(queue_refusal)?;
    Ok(Admitted {
        op_id: send.op_id,
        attached: !created,
    })
}

fn queue_refusal(e: LedgerError) -> OpenAiError {
    match &e {
        LedgerError::IdempotencyKeyReused(op) => OpenAiError {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            kind: "invalid_request_error",
            code: "idempotency_key_reused",
            param: None,
            message: e.to_string(),
            retry: Some(false),
            op_id: Some(op.clone()),
        },
        LedgerError::EpochStopped => OpenAiError {
            status: StatusCode::LOCKED,
            kind: "sendledger_error",
            code: "stopped",
            param: None,
            message: "a person pressed Stop in sendledger: nothing was queued or clicked; do not retry until they resume it there".into(),
            retry: Some(false),
            op_id: None,
        },
        LedgerError::Invalid(m) => OpenAiError::invalid("invalid_value", Some("messages"), m.clone()),
        _ => ApiError::from(e).into(),
    }
}
