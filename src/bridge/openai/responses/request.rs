//! Reading a `POST /v1/responses` body (the OpenAI Responses API, as the official SDKs'
//! `responses.create` and the Vercel AI SDK's default OpenAI provider send it) into what
//! the tab can do: type the last user input's text. As with the chat door, what the tab
//! cannot honour as asked is refused (image and file inputs, tools, a structured text
//! format, a last input that is not the user's) and the rest is named in
//! `x-sendledger-ignored` (`instructions`, the model, sampling, `store`, …).
//!
//! Input shapes read (OpenAI's API reference, "Create a model response", `input`): a
//! string; or a list of items whose last is a user message `{"role": "user", "content":
//! "…"}` or `{"type": "message", "role": "user", "content": [{"type": "input_text",
//! "text": "…"}]}`.

use super::super::custody::Ask;
use super::super::error::OpenAiError;
use super::super::files::InlineFile;
use super::super::request::{
    bad, conversation, flag, ignored_fields, json_object, json_sha256, message_text, place,
    refuse_unhonourable, MAX_MESSAGES,
};
use axum::http::HeaderMap;
use serde_json::{Map, Value};

/// What the Responses door makes of a request.
#[derive(Debug, Clone)]
pub(crate) struct ResponsesRequest {
    /// What is to be sent.
    pub ask: Ask,
    /// `stream: true`.
    pub stream: bool,
    /// `background: true`: answered at once, followed by id.
    pub background: bool,
    /// `previous_response_id`, when given (the conversation it names is resolved later).
    pub previous: Option<String>,
    /// What was not honoured (for `x-sendledger-ignored`).
    pub ignored: Vec<String>,
}

/// Fields this door reads itself.
const READ: &[&str] = &[
    "input",
    "model",
    "stream",
    "background",
    "previous_response_id",
    "conversation",
    "metadata",
    "tools",
    "tool_choice",
    "text",
];

/// Parses and checks a body. Errors: 400 OpenAI error objects naming the field.
pub(crate) fn parse(bytes: &[u8], headers: &HeaderMap) -> Result<ResponsesRequest, OpenAiError> {
    let value = json_object(bytes)?;
    let body = value.as_object().expect("an object");
    refuse_unhonourable(body)?;
    let format = body.get("text").and_then(|t| t.get("format"));
    if format.is_some_and(|f| !f.is_null() && f.get("type").is_none_or(|t| t != "text")) {
        return Err(bad(
            "response_format_unsupported",
            "text",
            "the tab answers in text: remove text.format",
        ));
    }
    let (text, files) = input_text(body.get("input"))?;
    let previous = match body.get("previous_response_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.is_empty() && s.len() <= 200 => Some(s.clone()),
        Some(_) => {
            return Err(bad(
                "invalid_type",
                "previous_response_id",
                "previous_response_id must be a response id (resp_…)",
            ))
        }
    };
    Ok(ResponsesRequest {
        ask: Ask {
            text,
            conversation_id: responses_conversation(body, headers)?,
            place: place(body)?,
            history_sha256: json_sha256(&serde_json::json!({
                "door": "responses",
                "input": body.get("input"),
                "instructions": body.get("instructions"),
            })),
            files,
        },
        stream: flag(body, "stream")?,
        background: flag(body, "background")?,
        previous,
        ignored: ignored_fields(body, READ),
    })
}

/// The conversation: the chat door's ([`conversation`]), or the Responses API's
/// `conversation` parameter (a ChatGPT conversation id or URL, as a string or `{"id"}`).
/// Errors: 400 `invalid_type`; `conflicting_conversation` when they differ.
fn responses_conversation(
    body: &Map<String, Value>,
    headers: &HeaderMap,
) -> Result<Option<String>, OpenAiError> {
    let named = conversation(body, headers)?;
    let param = match body.get("conversation") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_str()
                .or_else(|| v.get("id").and_then(Value::as_str))
                .filter(|s| !s.is_empty())
                .ok_or_else(|| {
                    bad(
                        "invalid_type",
                        "conversation",
                        "conversation must be a ChatGPT conversation id or URL, or {\"id\": …}",
                    )
                })?
                .to_string(),
        ),
    };
    match (named, param) {
        (Some(a), Some(b)) if a != b => Err(bad(
            "conflicting_conversation",
            "conversation",
            "conversation and metadata.conversation_id (or the x-sendledger-conversation header) name different conversations: give one",
        )),
        (a, b) => Ok(a.or(b)),
    }
}

fn input_text(input: Option<&Value>) -> Result<(String, Vec<InlineFile>), OpenAiError> {
    match input {
        Some(Value::String(s)) => Ok((s.clone(), Vec::new())),
        Some(Value::Array(items)) if !items.is_empty() => {
            if items.len() > MAX_MESSAGES {
                return Err(bad("too_many_messages", "input", format!("more than {MAX_MESSAGES} input items: send only the recent ones (only the last user input is typed)")));
            }
            last_user_input(items.last().and_then(Value::as_object))
        }
        _ => Err(bad(
            "missing_input",
            "input",
            "input must be a string or a non-empty list ending with the user's message",
        )),
    }
}

fn last_user_input(
    item: Option<&Map<String, Value>>,
) -> Result<(String, Vec<InlineFile>), OpenAiError> {
    let item = item.ok_or_else(|| bad("invalid_type", "input", "input items must be objects"))?;
    let kind = item
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("message");
    let role = item.get("role").and_then(Value::as_str);
    if kind != "message" || role != Some("user") {
        return Err(bad(
            "last_input_not_user",
            "input",
            format!(
                "the last input is {}, not the user's message: sendledger types the last user message into the tab, so end input with it",
                role.unwrap_or(kind)
            ),
        ));
    }
    message_text(item.get("content"), &["input_text", "text"], "input")
}
