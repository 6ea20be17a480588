//! The POST body of `/backend-api/conversation` and `/backend-api/f/conversation`
//! (fixtures: `tests/fixtures/chatgpt/request_new_chat_f.json`,
//! `request_follow_up_legacy.json`, `request_variant.json`,
//! `request_old_top_level_role.json`).

use super::error::ParseError;
use super::message::text_of;
use crate::provider::ids::looks_like_id;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The request's `action`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// `"next"`: a new user turn — the only action a send produces.
    Next,
    /// `"variant"`: regenerate; re-sends an existing user message with its old id.
    Variant,
    /// `"continue"`: continue generating after a `max_tokens` stop.
    Continue,
    /// Any other action string, kept as sent.
    Other(String),
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Action::Next => "next",
            Action::Variant => "variant",
            Action::Continue => "continue",
            Action::Other(s) => s,
        })
    }
}

/// What the page asked chatgpt.com to do.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationRequest {
    /// `action`.
    pub action: Action,
    /// `messages[i].id` of the one message whose role is `user` (client-generated).
    pub user_message_id: String,
    /// That message's string `content.parts` joined with `"\n"` (the page sends the
    /// composer's text as one part; image pointers and other non-string parts are
    /// skipped). Not normalised: compare with [`crate::send_text::normalise`].
    pub text: String,
    /// `conversation_id`; `None` (absent or null) for a new chat.
    pub conversation_id: Option<String>,
    /// `parent_message_id`: `client-created-root` for a new chat since 2025, a client
    /// UUID before, the current leaf for a follow-up.
    pub parent_message_id: Option<String>,
    /// `model` slug (`auto`, `gpt-5-5-thinking`, …).
    pub model: Option<String>,
    /// The files the user message carries (its `metadata.attachments` and asset pointer
    /// parts; [`super::attachments::files_of`]); empty for a text-only message.
    pub attachments: Vec<crate::attachments::PageFile>,
}

impl std::fmt::Debug for ConversationRequest {
    /// Everything but the text, shown as its length.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConversationRequest")
            .field("action", &self.action)
            .field("user_message_id", &self.user_message_id)
            .field("text_bytes", &self.text.len())
            .field("conversation_id", &self.conversation_id)
            .field("parent_message_id", &self.parent_message_id)
            .field("model", &self.model)
            .field("attachments", &self.attachments.len())
            .finish()
    }
}

const EXPECTED: &str = "conversation request";

/// Parses a conversation request body (UTF-8 JSON). Unknown fields are ignored; the
/// body must hold an `action` string and exactly one user message with an id.
pub fn parse_request(body: &[u8]) -> Result<ConversationRequest, ParseError> {
    let v: Value = ParseError::parse(body)?;
    let shape = |missing| ParseError::Shape {
        expected: EXPECTED,
        missing,
    };
    let obj = v.as_object().ok_or(shape("not an object"))?;
    let action = match obj
        .get("action")
        .and_then(Value::as_str)
        .ok_or(shape("no `action` string"))?
    {
        "next" => Action::Next,
        "variant" => Action::Variant,
        "continue" => Action::Continue,
        other => Action::Other(other.to_string()),
    };
    let messages = match obj.get("messages") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(a)) => a.as_slice(),
        Some(_) => return Err(shape("`messages` is not an array")),
    };
    let users: Vec<&Value> = messages
        .iter()
        .filter(|m| role_of(m) == Some("user"))
        .collect();
    let user = match users.as_slice() {
        [] => {
            return Err(ParseError::NoUserMessage {
                action: action.to_string(),
            })
        }
        [one] => *one,
        many => return Err(ParseError::SeveralUserMessages { count: many.len() }),
    };
    let user_message_id = user
        .get("id")
        .and_then(Value::as_str)
        .ok_or(shape("the user message has no `id` string"))?;
    if !looks_like_id(user_message_id) {
        return Err(ParseError::BadId {
            field: "messages[].id",
        });
    }
    let opt_id = |key: &str, field: &'static str| -> Result<Option<String>, ParseError> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if looks_like_id(s) => Ok(Some(s.clone())),
            Some(_) => Err(ParseError::BadId { field }),
        }
    };
    Ok(ConversationRequest {
        action,
        user_message_id: user_message_id.to_string(),
        text: user.get("content").map(text_of).unwrap_or_default(),
        conversation_id: opt_id("conversation_id", "conversation_id")?,
        parent_message_id: opt_id("parent_message_id", "parent_message_id")?,
        model: obj.get("model").and_then(Value::as_str).map(str::to_string),
        attachments: super::attachments::files_of(user),
    })
}

fn role_of(m: &Value) -> Option<&str> {
    m.pointer("/author/role")
        .or_else(|| m.get("role"))
        .and_then(Value::as_str)
}
