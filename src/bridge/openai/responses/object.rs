//! The Responses API's `response` object for one send (OpenAI's API reference, "The
//! response object"): `id` is `resp_<op id>`, `status` the send's standing in the
//! Responses API's words, `output` one assistant message with the page's final answer.
//!
//! | standing (crate::verdict) | `status` | `error` |
//! | --- | --- | --- |
//! | pending, queued | `queued` | null |
//! | pending, on its way | `in_progress` | null |
//! | answered | `completed` | null |
//! | stopped | `cancelled` | `{code: "stopped", message}` |
//! | every other | `failed` | `{code, message}` (the chat door's code and sentence) |
//!
//! `usage` is null: the page does not say, and the SDKs type it as optional.

use super::super::error::OpenAiError;
use crate::ledger::{Send, SendState};
use serde_json::{json, Value};

/// Prefix of a response id; the rest is the operation id.
pub(crate) const RESPONSE_ID_PREFIX: &str = "resp_";

/// The response id of send `op_id`.
pub(crate) fn response_id(op_id: &str) -> String {
    format!("{RESPONSE_ID_PREFIX}{op_id}")
}

/// The operation id a response id names, if it is one.
pub(crate) fn op_id_of(response_id: &str) -> Option<&str> {
    response_id
        .strip_prefix(RESPONSE_ID_PREFIX)
        .filter(|op| !op.is_empty())
}

/// Where the object stands: on its way, answered, or failed with the door's error.
pub(crate) enum Stand<'a> {
    /// Not settled: `queued` or `in_progress`.
    Pending(SendState),
    /// The page's final answer.
    Completed(&'a str),
    /// Settled without an answer: the chat door's error for it.
    Failed(&'a OpenAiError),
}

/// The message item of an answer (`output[0]`), with `text` so far; `done`: completed.
pub(crate) fn message_item(op_id: &str, text: &str, done: bool) -> Value {
    json!({
        "type": "message",
        "id": format!("msg_{op_id}"),
        "status": if done { "completed" } else { "in_progress" },
        "role": "assistant",
        "content": if done || !text.is_empty() { vec![output_text(text)] } else { vec![] },
    })
}

/// An `output_text` content part.
pub(crate) fn output_text(text: &str) -> Value {
    json!({ "type": "output_text", "text": text, "annotations": [], "logprobs": [] })
}

/// `object` with the `destination_mismatch` sentence in its `metadata`
/// (`sendledger_destination_mismatch`), when there is one: the page's request did not go
/// where the send was meant to go.
pub(crate) fn with_mismatch(mut object: Value, mismatch: Option<&str>) -> Value {
    if let Some(m) = mismatch {
        object["metadata"] = json!({ super::super::door_reply::MISMATCH_METADATA: m });
    }
    object
}

/// The response object of `send` standing at `stand`, with the page's `model` slug.
pub(crate) fn object(send: &Send, stand: Stand, model: &str, background: bool) -> Value {
    let (status, output, error) = match stand {
        Stand::Pending(SendState::Queued) => ("queued", vec![], Value::Null),
        Stand::Pending(_) => ("in_progress", vec![], Value::Null),
        Stand::Completed(text) => (
            "completed",
            vec![message_item(&send.op_id, text, true)],
            Value::Null,
        ),
        Stand::Failed(e) => (
            if e.code == "stopped" {
                "cancelled"
            } else {
                "failed"
            },
            vec![],
            json!({ "code": e.code, "message": e.message }),
        ),
    };
    json!({
        "id": response_id(&send.op_id),
        "object": "response",
        "created_at": send.created_at / 1000,
        "status": status,
        "background": background,
        "error": error,
        "incomplete_details": null,
        "instructions": null,
        "max_output_tokens": null,
        "metadata": {},
        "model": model,
        "output": output,
        "parallel_tool_calls": false,
        "previous_response_id": null,
        "reasoning": { "effort": null, "summary": null },
        "store": true,
        "temperature": null,
        "text": { "format": { "type": "text" } },
        "tool_choice": "auto",
        "tools": [],
        "top_p": null,
        "truncation": "disabled",
        "usage": null,
        "user": null,
    })
}
