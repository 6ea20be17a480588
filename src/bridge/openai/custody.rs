//! Which send a request is: the rules that make any client's own retries attach instead
//! of duplicating (docs/openai.md, "Retries attach"), for the chat and the Responses door.
//!
//! 1. `Idempotency-Key: K` — the operation id is `K`. The same client and body again is
//!    the same send; another body (or client) under `K` is refused (422).
//! 2. No key — the same client and the same body as a send a door queued is that send
//!    while it is not settled and for `ATTACH_AFTER_SETTLED_MS` after (the ledger's
//!    attach rule, decided in the transaction that would queue: two racing identical
//!    requests are one send). Whatever headers the request carries: no retry marker of
//!    one SDK family is needed. Otherwise a new send.

use super::auth::Caller;
use super::error::OpenAiError;
use crate::bridge::error::ApiError;
use crate::bridge::BridgeState;
use crate::ledger::{DoorQueue, LedgerError, QueueRequest};
use axum::http::{HeaderMap, StatusCode};

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

/// What a door asks to be sent: the chat door's and the Responses door's requests alike.
#[derive(Debug, Clone)]
pub(crate) struct Ask {
    /// The text to type (checked and normalised by the ledger).
    pub text: String,
    /// The conversation it names, if any.
    pub conversation_id: Option<String>,
    /// SHA-256 (hex) of the body as parsed JSON with sorted keys: the retry fingerprint's
    /// half that is the request.
    pub body_sha256: String,
}

/// Finds or queues the send for `req` (see the module's rules).
pub(crate) async fn admit(
    st: &BridgeState,
    caller: &Caller,
    req: &Ask,
    headers: &HeaderMap,
) -> Result<Admitted, OpenAiError> {
    let key = header(headers, IDEMPOTENCY_HEADER)?.map(str::to_string);
    let client = caller.client();
    let q = DoorQueue {
        send: QueueRequest {
            op_id: Some(
                key.clone()
                    .unwrap_or_else(|| format!("oai-{}", uuid::Uuid::new_v4())),
            ),
            text: req.text.clone(),
            conversation_id: req.conversation_id.clone(),
            ..Default::default()
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
