//! The call that creates a conversation, `POST /api/organizations/{org}/chat_conversations`
//! (fixtures: `tests/fixtures/claude/create_call.json`, `create_call_project.json`,
//! `created.json`). Its body names the new conversation's uuid, chosen by the page
//! (`{uuid, name, project_uuid?, model?, is_temporary?}`); the answer (201) echoes it.
//! A new chat may also be started by the completion request itself
//! (`create_conversation_params`, [`super::request::NewChat`]); then the conversation's
//! uuid is the one in the completion's path.

use super::error::ParseError;
use super::request::{model_of, opt_id};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Largest create call or answer read, in bytes.
pub const MAX_CREATE_BYTES: usize = 1024 * 1024;

/// A conversation the page created, as the call's body or its answer names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewConversation {
    /// `uuid`: the conversation's id.
    pub uuid: String,
    /// `project_uuid`: the Project it belongs to, when it does.
    pub project_uuid: Option<String>,
    /// `model`, when given.
    pub model: Option<String>,
    /// `is_temporary`; `false` when absent.
    pub is_temporary: bool,
}

/// Reads the create call's body or its answer (same shape: an object with a `uuid`).
/// An error answer (`{"type":"error","error":{"message":…}}`) is [`ParseError::ErrorBody`].
pub fn parse_new_conversation(body: &[u8]) -> Result<NewConversation, ParseError> {
    let v = ParseError::parse(body, MAX_CREATE_BYTES)?;
    let shape = |missing| ParseError::Shape {
        expected: "conversation creation",
        missing,
    };
    let obj = v.as_object().ok_or(shape("not an object"))?;
    if let Some(summary) = error_summary(&v) {
        return Err(ParseError::ErrorBody { summary });
    }
    let uuid = opt_id(obj, "uuid")?.ok_or(shape("no `uuid` string"))?;
    Ok(NewConversation {
        uuid,
        project_uuid: opt_id(obj, "project_uuid")?,
        model: model_of(obj.get("model")),
        is_temporary: obj.get("is_temporary").and_then(Value::as_bool) == Some(true),
    })
}

/// The words of claude.ai's error answer `{"type":"error","error":{"type","message"}}`,
/// at most 300 characters; `None` when `v` is not one.
pub(crate) fn error_summary(v: &Value) -> Option<String> {
    if v.get("type").and_then(Value::as_str) != Some("error") {
        return None;
    }
    let e = v.get("error");
    let words = e
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .or_else(|| e.and_then(|e| e.get("type")).and_then(Value::as_str))
        .unwrap_or("an error without words");
    Some(words.chars().take(300).collect())
}
