//! One message object as chatgpt.com shapes it, in every place it appears: a legacy
//! snapshot's `message`, a delta v1 root's `message`, an `input_message` echo, a
//! conversation listing's `mapping[id].message` (fixtures:
//! `tests/fixtures/chatgpt/stream_legacy_answered.sse`, `stream_delta_new_chat.sse`,
//! `listing_mapping.json`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the parser keeps of one message. Strings are copied as sent; absent or
/// `null` fields are `None`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservedMessage {
    /// `id` (opaque; the user message's is the client's own id).
    pub id: String,
    /// `author.role` (older bodies: top-level `role`): `system`, `user`, `assistant`, `tool`, `developer`.
    pub role: String,
    /// `author.name`: the tool's name for `tool` messages (`bio`, `web.run`, …).
    pub author_name: Option<String>,
    /// The parent: a listing node's `parent`, else `metadata.parent_id`.
    pub parent_id: Option<String>,
    /// `recipient`: `all` is the user; anything else is tool traffic.
    pub recipient: Option<String>,
    /// `channel`: `null`, `final`, `commentary`, `analysis`.
    pub channel: Option<String>,
    /// `status`: `in_progress`, `finished_successfully`, `failed`, …
    pub status: Option<String>,
    /// `end_turn`: `true` only on the message that ends the assistant's turn.
    pub end_turn: Option<bool>,
    /// `metadata.is_visually_hidden_from_conversation` is `true`.
    pub hidden: bool,
    /// `content.content_type`: `text`, `multimodal_text`, `code`, `thoughts`, `reasoning_recap`, …
    pub content_type: Option<String>,
    /// The text: string `content.parts` joined with `"\n"` (non-string parts such as
    /// image pointers skipped); else `content.text`; else `content.content`; else empty.
    pub text: String,
    /// `metadata.turn_exchange_id` (older streams: `metadata.working_turn_id`).
    pub turn_exchange_id: Option<String>,
    /// `create_time` (unix seconds, float) in whole milliseconds.
    pub create_time_ms: Option<i64>,
    /// `metadata.finish_details.type`: `stop`, `max_tokens`, `interrupted`.
    pub finish_type: Option<String>,
    /// `metadata.model_slug`: the model the page answered with (assistant messages).
    #[serde(default)]
    pub model_slug: Option<String>,
    /// The asset-pointer parts of `content.parts` (generated images, files), in order, at
    /// most [`super::asset_parts::MAX_READ`] (issue 29's "files out").
    #[serde(default)]
    pub assets: Vec<crate::attachments::AnswerArtifact>,
}

impl std::fmt::Debug for ObservedMessage {
    /// Everything but the text, which is shown as its length (message text is never logged).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObservedMessage")
            .field("id", &self.id)
            .field("role", &self.role)
            .field("author_name", &self.author_name)
            .field("parent_id", &self.parent_id)
            .field("recipient", &self.recipient)
            .field("channel", &self.channel)
            .field("status", &self.status)
            .field("end_turn", &self.end_turn)
            .field("hidden", &self.hidden)
            .field("content_type", &self.content_type)
            .field("text_bytes", &self.text.len())
            .field("turn_exchange_id", &self.turn_exchange_id)
            .field("create_time_ms", &self.create_time_ms)
            .field("finish_type", &self.finish_type)
            .field("model_slug", &self.model_slug)
            .field("assets", &self.assets)
            .finish()
    }
}

/// Content types whose text a person reads as a message.
pub const TEXT_CONTENT_TYPES: [&str; 2] = ["text", "multimodal_text"];

impl ObservedMessage {
    /// Reads a message object; `None` when it has no string `id` or no role.
    pub fn from_value(m: &Value) -> Option<Self> {
        let id = m.get("id")?.as_str()?.to_string();
        let role = m
            .pointer("/author/role")
            .or_else(|| m.get("role"))
            .and_then(Value::as_str)?
            .to_string();
        let meta = m.get("metadata");
        let meta_str = |k: &str| {
            meta.and_then(|x| x.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        Some(ObservedMessage {
            id,
            role,
            author_name: str_at(m, "/author/name"),
            parent_id: meta_str("parent_id"),
            recipient: str_at(m, "/recipient"),
            channel: str_at(m, "/channel"),
            status: str_at(m, "/status"),
            end_turn: m.get("end_turn").and_then(Value::as_bool),
            hidden: meta
                .and_then(|x| x.get("is_visually_hidden_from_conversation"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
            content_type: str_at(m, "/content/content_type"),
            text: m.get("content").map(text_of).unwrap_or_default(),
            turn_exchange_id: meta_str("turn_exchange_id").or_else(|| meta_str("working_turn_id")),
            create_time_ms: m.get("create_time").and_then(seconds_to_ms),
            finish_type: meta
                .and_then(|x| x.pointer("/finish_details/type"))
                .and_then(Value::as_str)
                .map(str::to_string),
            model_slug: meta_str("model_slug"),
            assets: m
                .get("content")
                .map(super::asset_parts::assets_of)
                .unwrap_or_default(),
        })
    }

    /// The answer rule: an assistant message addressed to the user (`recipient`
    /// `all`), not hidden, on channel `null` or `final`, of a text content type, with
    /// `status` `finished_successfully` and `end_turn` `true`. Commentary, analysis,
    /// tool messages, thoughts and reasoning recaps never qualify.
    pub fn is_finished_answer(&self) -> bool {
        self.role == "assistant"
            && self.recipient.as_deref() == Some("all")
            && !self.hidden
            && matches!(self.channel.as_deref(), None | Some("final"))
            && self
                .content_type
                .as_deref()
                .is_some_and(|t| TEXT_CONTENT_TYPES.contains(&t))
            && self.status.as_deref() == Some("finished_successfully")
            && self.end_turn == Some(true)
    }

    /// A user message a person typed: role `user`, text content, not hidden
    /// (custom instructions are `user_editable_context` and hidden).
    pub fn is_visible_user_message(&self) -> bool {
        self.role == "user"
            && !self.hidden
            && self
                .content_type
                .as_deref()
                .is_some_and(|t| TEXT_CONTENT_TYPES.contains(&t))
    }

    /// Folds a later sighting of the same message into this one: fields the later one
    /// has replace, fields it lacks are kept.
    pub(crate) fn merge_later(&mut self, later: ObservedMessage) {
        fn keep<T>(mine: &mut Option<T>, theirs: Option<T>) {
            if theirs.is_some() {
                *mine = theirs;
            }
        }
        self.role = later.role;
        keep(&mut self.author_name, later.author_name);
        keep(&mut self.parent_id, later.parent_id);
        keep(&mut self.recipient, later.recipient);
        keep(&mut self.channel, later.channel);
        keep(&mut self.status, later.status);
        keep(&mut self.end_turn, later.end_turn);
        self.hidden |= later.hidden;
        keep(&mut self.content_type, later.content_type);
        if !later.text.is_empty() {
            self.text = later.text;
        }
        keep(&mut self.turn_exchange_id, later.turn_exchange_id);
        keep(&mut self.create_time_ms, later.create_time_ms);
        keep(&mut self.finish_type, later.finish_type);
        keep(&mut self.model_slug, later.model_slug);
        if !later.assets.is_empty() {
            self.assets = later.assets;
        }
    }
}

fn str_at(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// The text of a `content` object (see [`ObservedMessage::text`]).
pub(crate) fn text_of(content: &Value) -> String {
    if let Some(parts) = content.get("parts").and_then(Value::as_array) {
        let texts: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
        return texts.join("\n");
    }
    ["text", "content"]
        .iter()
        .find_map(|k| content.get(*k).and_then(Value::as_str))
        .unwrap_or_default()
        .to_string()
}

/// Unix seconds (float or integer) to whole milliseconds; `None` if absurd.
pub(crate) fn seconds_to_ms(v: &Value) -> Option<i64> {
    let s = v.as_f64()?;
    let ms = (s * 1000.0).round();
    (ms.is_finite() && ms.abs() < 1e15).then_some(ms as i64)
}
