//! The JSON body the page POSTs to `…/chat_conversations/{conversation}/completion`
//! (fixtures: `tests/fixtures/claude/request_follow_up.json`, `request_new_chat.json`,
//! `request_project.json`; the retry's body: `request_retry.json`).
//!
//! The page chooses the ids of the person's message and of the answer before it sends
//! (`turn_message_uuids: {human_message_uuid, assistant_message_uuid}`); `prompt` is the
//! composer's text; `parent_message_uuid` the message it follows; a new chat carries
//! `create_conversation_params`. Unknown fields are ignored.

use super::error::ParseError;
use crate::attachments::PageFile;
use crate::provider::ids::looks_like_id;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Largest request body read, in bytes (pasted attachments travel inside it as text).
pub const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;
/// Most entries read from `files` (a send carries at most 10).
pub const MAX_FILES: usize = 64;
/// Longest model name kept, in characters.
pub const MAX_MODEL_CHARS: usize = 100;

const EXPECTED: &str = "completion request";

/// What `create_conversation_params` says of the chat the request starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewChat {
    /// `model`, when given.
    pub model: Option<String>,
    /// `project_uuid`, when the chat starts inside a Project.
    pub project_uuid: Option<String>,
    /// `is_temporary` (an incognito chat); `false` when absent.
    pub is_temporary: bool,
}

/// What the page asked claude.ai to do.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionRequest {
    /// `turn_message_uuids.human_message_uuid`: the person's message, chosen by the page.
    pub human_message_uuid: String,
    /// `turn_message_uuids.assistant_message_uuid`: the answer, chosen by the page.
    pub assistant_message_uuid: String,
    /// `parent_message_uuid`: the message this one follows; `None` when absent.
    pub parent_message_uuid: Option<String>,
    /// `prompt`, as sent. Not normalised: compare with [`crate::send_text::normalise`].
    pub prompt: String,
    /// `model`, when given (at most [`MAX_MODEL_CHARS`] characters, else `None`).
    pub model: Option<String>,
    /// `files`: uploaded files by their uuid (strings, or objects with `file_uuid` /
    /// `uuid` and `file_name`, `file_size`), at most [`MAX_FILES`].
    pub files: Vec<PageFile>,
    /// How many `attachments` (pasted text, with its content inline) the request carries.
    pub pasted_attachments: usize,
    /// `create_conversation_params`: present when the request starts a new chat.
    pub new_chat: Option<NewChat>,
}

impl std::fmt::Debug for CompletionRequest {
    /// Everything but the prompt, shown as its length.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompletionRequest")
            .field("human_message_uuid", &self.human_message_uuid)
            .field("assistant_message_uuid", &self.assistant_message_uuid)
            .field("parent_message_uuid", &self.parent_message_uuid)
            .field("prompt_bytes", &self.prompt.len())
            .field("model", &self.model)
            .field("files", &self.files.len())
            .field("pasted_attachments", &self.pasted_attachments)
            .field("new_chat", &self.new_chat)
            .finish()
    }
}

/// Parses a completion request body. It must be an object with a `prompt` string and
/// `turn_message_uuids` holding both ids ([`ParseError::NoTurnUuids`] otherwise).
pub fn parse_completion(body: &[u8]) -> Result<CompletionRequest, ParseError> {
    let v = ParseError::parse(body, MAX_BODY_BYTES)?;
    let shape = |missing| ParseError::Shape {
        expected: EXPECTED,
        missing,
    };
    let obj = v.as_object().ok_or(shape("not an object"))?;
    let prompt = obj
        .get("prompt")
        .and_then(Value::as_str)
        .ok_or(shape("no `prompt` string"))?;
    let (human, assistant) = turn_uuids(obj)?;
    Ok(CompletionRequest {
        human_message_uuid: human,
        assistant_message_uuid: assistant,
        parent_message_uuid: opt_id(obj, "parent_message_uuid")?,
        prompt: prompt.to_string(),
        model: model_of(obj.get("model")),
        files: files_of(obj.get("files")),
        pasted_attachments: obj
            .get("attachments")
            .and_then(Value::as_array)
            .map_or(0, Vec::len),
        new_chat: obj
            .get("create_conversation_params")
            .and_then(Value::as_object)
            .map(new_chat_of)
            .transpose()?,
    })
}

/// Both ids of `turn_message_uuids`, each checked for an id's shape.
fn turn_uuids(obj: &Map<String, Value>) -> Result<(String, String), ParseError> {
    let uuids = obj
        .get("turn_message_uuids")
        .and_then(Value::as_object)
        .ok_or(ParseError::NoTurnUuids)?;
    let one = |key: &str, field| match uuids.get(key) {
        Some(Value::String(s)) if looks_like_id(s) => Ok(s.clone()),
        Some(Value::String(_)) => Err(ParseError::BadId { field }),
        _ => Err(ParseError::NoTurnUuids),
    };
    Ok((
        one(
            "human_message_uuid",
            "turn_message_uuids.human_message_uuid",
        )?,
        one(
            "assistant_message_uuid",
            "turn_message_uuids.assistant_message_uuid",
        )?,
    ))
}

/// An optional id field: absent or null is `None`; anything but an id is an error.
pub(crate) fn opt_id(
    obj: &Map<String, Value>,
    key: &'static str,
) -> Result<Option<String>, ParseError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if looks_like_id(s) => Ok(Some(s.clone())),
        Some(_) => Err(ParseError::BadId { field: key }),
    }
}

/// A model name within the bound.
pub(crate) fn model_of(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .filter(|m| !m.is_empty() && m.chars().count() <= MAX_MODEL_CHARS)
        .map(str::to_string)
}

fn new_chat_of(p: &Map<String, Value>) -> Result<NewChat, ParseError> {
    Ok(NewChat {
        model: model_of(p.get("model")),
        project_uuid: opt_id(p, "project_uuid")?,
        is_temporary: p.get("is_temporary").and_then(Value::as_bool) == Some(true),
    })
}

/// The files of `files`: an id string, or an object naming its uuid.
fn files_of(v: Option<&Value>) -> Vec<PageFile> {
    let Some(items) = v.and_then(Value::as_array) else {
        return Vec::new();
    };
    let mut out: Vec<PageFile> = Vec::new();
    for item in items.iter().take(MAX_FILES) {
        let file = match item {
            Value::String(id) => bounded(id).map(|file_id| PageFile {
                file_id,
                name: None,
                size: None,
            }),
            Value::Object(o) => ["file_uuid", "uuid"]
                .iter()
                .find_map(|k| o.get(*k).and_then(Value::as_str))
                .and_then(bounded)
                .map(|file_id| PageFile {
                    file_id,
                    name: o
                        .get("file_name")
                        .and_then(Value::as_str)
                        .map(|n| n.chars().take(255).collect()),
                    size: o.get("file_size").and_then(Value::as_u64),
                }),
            _ => None,
        };
        if let Some(f) = file.filter(|f| !out.iter().any(|o| o.file_id == f.file_id)) {
            out.push(f);
        }
    }
    out
}

fn bounded(id: &str) -> Option<String> {
    let ok = !id.is_empty()
        && id.len() <= crate::attachments::page::MAX_FILE_ID_BYTES
        && !id.chars().any(char::is_control);
    ok.then(|| id.to_string())
}
