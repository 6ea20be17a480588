//! The page's conversation read, `GET /api/organizations/{org}/chat_conversations/{id}?
//! tree=True&rendering_mode=messages&render_all_tools=true` (fixture:
//! `tests/fixtures/claude/conversation_read.json`): `{uuid, name, project_uuid,
//! current_leaf_message_uuid, chat_messages: [{uuid, sender: "human" | "assistant", index,
//! parent_message_uuid, content: [{type: "text", text} | {type: "thinking", …} | …],
//! text?, stop_reason, created_at}]}`. With `tree=True` every branch is listed (a retry
//! or an edit adds a sibling), so messages are found by uuid, never by position.

use super::create::error_summary;
use super::error::ParseError;
use super::request::opt_id;
use crate::provider::ids::looks_like_id;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Largest conversation read, in bytes.
pub const MAX_READ_BYTES: usize = 64 * 1024 * 1024;
/// Most messages read from one conversation (more are not read).
pub const MAX_MESSAGES: usize = 10_000;

/// Who wrote a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sender {
    /// `human`: the person (or a send).
    Human,
    /// `assistant`: the answer.
    Assistant,
    /// Anything else, kept as given (at most 32 characters).
    Other(String),
}

/// One message of the read.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadMessage {
    /// `uuid`.
    pub uuid: String,
    /// `sender`.
    pub sender: Sender,
    /// `index`, when a number.
    pub index: Option<u64>,
    /// `parent_message_uuid`, when an id.
    pub parent_message_uuid: Option<String>,
    /// The `text` blocks of `content`, concatenated; the legacy `text` string when there
    /// is no `content` array. Thinking blocks are never part of it.
    pub text: String,
    /// `stop_reason` (assistant messages), when given.
    pub stop_reason: Option<String>,
}

impl std::fmt::Debug for ReadMessage {
    /// Everything but the text, shown as its length.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadMessage")
            .field("uuid", &self.uuid)
            .field("sender", &self.sender)
            .field("index", &self.index)
            .field("parent_message_uuid", &self.parent_message_uuid)
            .field("text_bytes", &self.text.len())
            .field("stop_reason", &self.stop_reason)
            .finish()
    }
}

/// What a conversation read shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationRead {
    /// `uuid`: the conversation.
    pub uuid: String,
    /// `project_uuid`: its Project, when it has one.
    pub project_uuid: Option<String>,
    /// `current_leaf_message_uuid`: the leaf of the branch shown.
    pub current_leaf_message_uuid: Option<String>,
    /// The messages with a uuid, in the order given (at most [`MAX_MESSAGES`]).
    pub messages: Vec<ReadMessage>,
    /// Entries passed over (no uuid, not an object).
    pub unreadable: usize,
}

impl ConversationRead {
    /// The message with this uuid.
    pub fn message(&self, uuid: &str) -> Option<&ReadMessage> {
        self.messages.iter().find(|m| m.uuid == uuid)
    }
}

const EXPECTED: &str = "conversation read";

/// Parses a conversation read. An error answer is [`ParseError::ErrorBody`].
pub fn parse_conversation(body: &[u8]) -> Result<ConversationRead, ParseError> {
    let v = ParseError::parse(body, MAX_READ_BYTES)?;
    if let Some(summary) = error_summary(&v) {
        return Err(ParseError::ErrorBody { summary });
    }
    let shape = |missing| ParseError::Shape {
        expected: EXPECTED,
        missing,
    };
    let obj = v.as_object().ok_or(shape("not an object"))?;
    let uuid = opt_id(obj, "uuid")?.ok_or(shape("no `uuid` string"))?;
    let items = obj
        .get("chat_messages")
        .and_then(Value::as_array)
        .ok_or(shape("no `chat_messages` array"))?;
    let mut messages = Vec::new();
    let mut unreadable = 0;
    for item in items.iter().take(MAX_MESSAGES) {
        match message_of(item) {
            Some(m) => messages.push(m),
            None => unreadable += 1,
        }
    }
    Ok(ConversationRead {
        uuid,
        project_uuid: opt_id(obj, "project_uuid").ok().flatten(),
        current_leaf_message_uuid: opt_id(obj, "current_leaf_message_uuid").ok().flatten(),
        messages,
        unreadable,
    })
}

fn message_of(item: &Value) -> Option<ReadMessage> {
    let uuid = item
        .get("uuid")
        .and_then(Value::as_str)
        .filter(|u| looks_like_id(u))?;
    let sender = match item.get("sender").and_then(Value::as_str)? {
        "human" => Sender::Human,
        "assistant" => Sender::Assistant,
        s => Sender::Other(s.chars().take(32).collect()),
    };
    let text = match item.get("content").and_then(Value::as_array) {
        Some(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        None => item
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
    };
    Some(ReadMessage {
        uuid: uuid.to_string(),
        sender,
        index: item.get("index").and_then(Value::as_u64),
        parent_message_uuid: item
            .get("parent_message_uuid")
            .and_then(Value::as_str)
            .filter(|p| looks_like_id(p))
            .map(str::to_string),
        text,
        stop_reason: item
            .get("stop_reason")
            .and_then(Value::as_str)
            .map(|r| r.chars().take(64).collect()),
    })
}
