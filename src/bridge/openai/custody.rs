//! Which send a request is: the rules that make any client's own retries attach instead
//! of duplicating (docs/openai.md, "Retries attach"), for the chat and the Responses door.
//!
//! 1. `Idempotency-Key: K` — the operation id is `K`. The same client and body again is
//!    the same send; another body (or client) under `K` is refused (422).
//! 2. No key — the same client and the same identity ([`Ask::identity_sha256`]: the
//!    history and the conversation, not the fields the tab ignores) as a send a door
//!    queued is that send while it is not settled and for `ATTACH_AFTER_SETTLED_MS` after
//!    (the ledger's attach rule, decided in the transaction that would queue: two racing
//!    identical requests are one send). Whatever headers the request carries: no retry
//!    marker of one SDK family is needed. Otherwise a new send.

use super::auth::Caller;
use super::error::OpenAiError;
use crate::bridge::error::ApiError;
use crate::bridge::BridgeState;
use crate::ledger::{DoorQueue, LedgerError, QueueRequest};
use axum::http::{HeaderMap, StatusCode};
use sha2::{Digest, Sha256};

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
    /// The conversation it names, if any (resolved, e.g. from `previous_response_id`,
    /// before it is admitted).
    pub conversation_id: Option<String>,
    /// The rest of where it goes ([`super::request::place`]): a Project's new chat or a
    /// new chat, and the page's model slug and effort it asks for.
    pub place: Place,
    /// SHA-256 (hex) of what the request carries that makes it this message: the door's
    /// name and its history (`messages`, or `input` and `instructions`), as JSON with
    /// sorted keys. Not the fields the tab does not honour (model, sampling, `stream`,
    /// `background`, …): a client that falls back to another model, or retries without
    /// streaming, asks for the same message.
    pub history_sha256: String,
    /// The files the message carries (images, documents), in order; stored and made the
    /// send's attachments when it is admitted. Already part of `history_sha256` (they are
    /// in the history), so a retry carrying them again is the same send.
    pub files: Vec<super::files::InlineFile>,
}

impl Ask {
    /// SHA-256 (hex) of the request's identity: its history and the place it resolves
    /// to — conversation, Project or new chat (the same words for another place are another
    /// message). Not the model or effort: a framework that falls back to another model
    /// asks for the same message, and attaches to the send it repeats.
    pub(crate) fn identity_sha256(&self) -> String {
        let mut h = Sha256::new();
        h.update(self.history_sha256.as_bytes());
        h.update([0u8]);
        h.update(self.conversation_id.as_deref().unwrap_or("").as_bytes());
        // Asks that name no Project and no new chat hash as before this field existed, so
        // a retry across an upgrade still attaches.
        if let Some(p) = &self.place.project_id {
            h.update(b"\0project\0");
            h.update(p.as_bytes());
        }
        if self.place.new_chat {
            h.update(b"\0new_chat");
        }
        format!("{:x}", h.finalize())
    }
}

/// Finds or queues the send for `req` (see the module's rules).
pub(crate) async fn admit(
    st: &BridgeState,
    caller: &Caller,
    req: &Ask,
    headers: &HeaderMap,
) -> Result<Admitted, OpenAiError> {
    let key = header(headers, IDEMPOTENCY_HEADER)?.map(str::to_string);
    // A text the ledger would refuse is refused before any file is stored: a refusal
    // writes nothing.
    crate::ledger::prepare_text(&req.text).map_err(queue_refusal)?;
    let attachments = super::files::store_all(st, &req.files).await?;
    let q = DoorQueue {
        send: QueueRequest {
            op_id: Some(
                key.clone()
                    .unwrap_or_else(|| format!("oai-{}", uuid::Uuid::new_v4())),
            ),
            text: req.text.clone(),
            site: req.place.site,
            conversation_id: req.conversation_id.clone(),
            project_id: req.place.project_id.clone(),
            new_chat: req.place.new_chat,
            model: req.place.model.clone(),
            effort: req.place.effort.clone(),
            attachments,
        },
        client: caller.identity(),
        actor: format!("openai:{}", caller.client()),
        body_sha256: req.identity_sha256(),
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
            retry_after: None,
        },
        LedgerError::EpochStopped => OpenAiError {
            status: StatusCode::LOCKED,
            kind: "sendledger_error",
            code: "stopped",
            param: None,
            message: "a person pressed Stop in sendledger: nothing was queued or clicked; do not retry until they resume it there".into(),
            retry: Some(false),
            op_id: None,
            retry_after: None,
        },
        LedgerError::Invalid(m) => OpenAiError::invalid("invalid_value", None, m.clone()),
        _ => ApiError::from(e).into(),
    }
}

/// Where a request asks its send to go, besides the conversation (`request::conversation`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Place {
    /// `metadata.project_id`: a new chat inside this ChatGPT Project (`g-p-…` or its URL).
    pub project_id: Option<String>,
    /// `metadata.new_chat` `"true"`: a new chat.
    pub new_chat: bool,
    /// `model` unless it is `MODEL_ID` or `CLAUDE_MODEL_ID`: the page's model slug the
    /// tab must confirm (after `claude:` for claude.ai).
    pub model: Option<String>,
    /// `metadata.effort`: the thinking effort the page must show.
    pub effort: Option<String>,
    /// The site `model` names: claude.ai for `CLAUDE_MODEL_ID` or a `claude:` name;
    /// `None` (chatgpt.com, or the site a conversation URL names) otherwise.
    pub site: Option<crate::site::Site>,
}
