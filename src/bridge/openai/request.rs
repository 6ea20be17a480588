//! Reading a `POST /v1/chat/completions` body into the one thing the tab can do: type
//! the last user message's text, with its images and files ([`super::files`]). Everything
//! else is either refused (what the tab cannot honour as asked: audio, tools, several choices, a structured format, a last
//! message that is not the user's) or named in the `x-sendledger-ignored` answer header
//! (system messages, sampling parameters): nothing is dropped silently. Where the send
//! goes is read by [`place`]: the conversation, a Project or a new chat, and the model
//! (any name but [`MODEL_ID`] is the page's slug, which the tab must confirm).
//! Earlier messages are not typed again: the tab holds its own context.

use super::custody::{Ask, Place};
pub(crate) use super::error::bad;
use super::error::OpenAiError;
use super::files::InlineFile;
use axum::http::HeaderMap;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Messages a request may carry at most.
pub(crate) const MAX_MESSAGES: usize = 10_000;
/// The one model id the door lists: a request naming it (or no model) asks for no model —
/// the default destination's, if it names one; any other name is the page's model slug.
pub(crate) const MODEL_ID: &str = "chatgpt-tab";
/// Header naming the conversation to send into (else `metadata.conversation_id`).
pub(crate) const CONVERSATION_HEADER: &str = "x-sendledger-conversation";
/// Names listed at most in `x-sendledger-ignored`.
const MAX_IGNORED_NAMES: usize = 24;

/// What the door makes of a request.
#[derive(Debug, Clone)]
pub(crate) struct ChatRequest {
    /// What is to be sent: the last user message's text, the conversation, the body's hash.
    pub ask: Ask,
    /// `stream: true`.
    pub stream: bool,
    /// What was not honoured (for `x-sendledger-ignored`).
    pub ignored: Vec<String>,
}

/// SHA-256 (hex) of a value as JSON re-serialised with sorted keys (serde_json's map is
/// ordered): the same request in another key order or spacing hashes the same.
pub(crate) fn json_sha256(value: &Value) -> String {
    format!(
        "{:x}",
        Sha256::digest(serde_json::to_vec(value).expect("serialises"))
    )
}

/// Reads `bytes` as a JSON object. Errors: 400 `invalid_json`.
pub(crate) fn json_object(bytes: &[u8]) -> Result<Value, OpenAiError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        OpenAiError::invalid(
            "invalid_json",
            None,
            format!(
                "the body is not valid JSON (line {}, column {}): send a JSON object",
                e.line(),
                e.column()
            ),
        )
    })?;
    if !value.is_object() {
        return Err(OpenAiError::invalid(
            "invalid_json",
            None,
            "the body must be a JSON object",
        ));
    }
    Ok(value)
}

/// Fields the tab cannot honour, read and named as ignored.
const IGNORABLE: &[&str] = &[
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "presence_penalty",
    "frequency_penalty",
    "seed",
    "stop",
    "logit_bias",
    "user",
    "logprobs",
    "top_logprobs",
    "reasoning_effort",
    "service_tier",
    "store",
    "parallel_tool_calls",
    "prediction",
    "verbosity",
    "web_search_options",
    "prompt_cache_key",
    "safety_identifier",
    "stream_options",
];

/// Fields that carry meaning the door reads itself.
const READ: &[&str] = &[
    "messages",
    "model",
    "stream",
    "metadata",
    "n",
    "tools",
    "functions",
    "tool_choice",
    "function_call",
    "response_format",
    "modalities",
    "audio",
];

/// Parses and checks a body. Errors: 400 OpenAI error objects naming the field.
pub(crate) fn parse(bytes: &[u8], headers: &HeaderMap) -> Result<ChatRequest, OpenAiError> {
    let value = json_object(bytes)?;
    let body = value.as_object().expect("an object");
    refuse_unhonourable(body)?;
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .filter(|m| !m.is_empty())
        .ok_or_else(|| {
            bad(
                "missing_messages",
                "messages",
                "messages must be a non-empty array ending with the user's message",
            )
        })?;
    if messages.len() > MAX_MESSAGES {
        return Err(bad("too_many_messages", "messages", format!("more than {MAX_MESSAGES} messages: send only the recent ones (only the last user message is typed)")));
    }
    let (text, files) = last_user_text(messages)?;
    let mut ignored = ignored_fields(body, READ);
    let systems = messages
        .iter()
        .filter(|m| {
            matches!(
                m.get("role").and_then(Value::as_str),
                Some("system" | "developer")
            )
        })
        .count();
    if systems > 0 {
        ignored.insert(0, format!("system_messages={systems}"));
        ignored.truncate(MAX_IGNORED_NAMES);
    }
    Ok(ChatRequest {
        ask: Ask {
            text,
            conversation_id: conversation(body, headers)?,
            place: place(body)?,
            history_sha256: json_sha256(
                &serde_json::json!({ "door": "chat", "messages": messages }),
            ),
            files,
        },
        stream: flag(body, "stream")?,
        ignored,
    })
}

/// A boolean field: absent or null is `false`. Errors: 400 `invalid_type`.
pub(crate) fn flag(body: &Map<String, Value>, name: &'static str) -> Result<bool, OpenAiError> {
    match body.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(bad(
            "invalid_type",
            name,
            format!("{name} must be true or false"),
        )),
    }
}

/// Refuses what the tab cannot honour as asked: tools, several choices, a structured
/// format, audio. Errors: 400 naming the field.
pub(crate) fn refuse_unhonourable(body: &Map<String, Value>) -> Result<(), OpenAiError> {
    let present = |k: &str| body.get(k).is_some_and(|v| !v.is_null());
    // Anything but absent, null or an empty list asks for tools.
    let non_empty = |k: &str| {
        body.get(k)
            .is_some_and(|v| !v.is_null() && v.as_array().is_none_or(|a| !a.is_empty()))
    };
    if non_empty("tools") || non_empty("functions") {
        return Err(bad(
            "tools_unsupported",
            "tools",
            "the tab cannot call tools: remove tools/functions (sendledger types one user message)",
        ));
    }
    for k in ["tool_choice", "function_call"] {
        if present(k) && body[k] != "none" && body[k] != "auto" {
            return Err(bad(
                "tools_unsupported",
                "tool_choice",
                "the tab cannot call tools: remove tool_choice",
            ));
        }
    }
    if body.get("n").is_some_and(|n| !n.is_null() && n != 1) {
        return Err(bad(
            "n_unsupported",
            "n",
            "the tab answers once: n must be 1",
        ));
    }
    if body
        .get("response_format")
        .and_then(|f| f.get("type"))
        .is_some_and(|t| t != "text")
    {
        return Err(bad(
            "response_format_unsupported",
            "response_format",
            "the tab answers in text: remove response_format",
        ));
    }
    let audio = body
        .get("modalities")
        .and_then(Value::as_array)
        .is_some_and(|m| m.iter().any(|x| x != "text"));
    if audio || present("audio") {
        return Err(bad(
            "modality_unsupported",
            "modalities",
            "the tab answers in text: remove audio and other modalities",
        ));
    }
    Ok(())
}

fn last_user_text(messages: &[Value]) -> Result<(String, Vec<InlineFile>), OpenAiError> {
    let last = messages.last().expect("non-empty");
    let role = last.get("role").and_then(Value::as_str);
    if role != Some("user") {
        return Err(bad(
            "last_message_not_user",
            "messages",
            format!("the last message is {}, not the user's: sendledger types the last user message into the tab, so end messages with it", role.unwrap_or("without a role")),
        ));
    }
    message_text(last.get("content"), &["text"], "messages")
}

/// The text of a message's `content`: a string, or parts of the `text_types` (joined by a
/// newline), and the files its file parts carry ([`super::files`]: images and files as
/// data, at most 10). Errors: 400 `unsupported_content` naming a part that is neither
/// (audio…), `invalid_content` when there is no text, a file part's own refusal; `param`
/// names the field.
pub(crate) fn message_text(
    content: Option<&Value>,
    text_types: &[&str],
    param: &'static str,
) -> Result<(String, Vec<InlineFile>), OpenAiError> {
    match content {
        Some(Value::String(s)) => Ok((s.clone(), Vec::new())),
        Some(Value::Array(parts)) => {
            let (mut texts, mut files) = (Vec::with_capacity(parts.len()), Vec::new());
            for p in parts {
                let kind = p.get("type").and_then(Value::as_str);
                match (kind, p.get("text").and_then(Value::as_str)) {
                    (Some(k), Some(t)) if text_types.contains(&k) => texts.push(t),
                    (Some(k), _) if super::files::is_file_part(k) => {
                        files.push(super::files::file_of(p, k, files.len() + 1, param)?)
                    }
                    _ => {
                        return Err(bad(
                            "unsupported_content",
                            param,
                            format!("the last user message has a {} part: the tab is sent text, images and files only (no audio)", kind.unwrap_or("malformed")),
                        ))
                    }
                }
            }
            if files.len() > crate::attachments::MAX_PER_SEND {
                return Err(bad(
                    "too_many_attachments",
                    param,
                    format!(
                        "the last user message carries {} files: a send carries at most {}",
                        files.len(),
                        crate::attachments::MAX_PER_SEND
                    ),
                ));
            }
            Ok((texts.join("\n"), files))
        }
        _ => Err(bad(
            "invalid_content",
            param,
            "the last user message needs content: a string or text parts",
        )),
    }
}

/// The fields of `body` the tab does not honour (every field not in `read`), for
/// `x-sendledger-ignored`.
pub(crate) fn ignored_fields(body: &Map<String, Value>, read: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in body {
        if v.is_null() || read.contains(&k.as_str()) {
            continue;
        }
        let name: String = k
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .take(40)
            .collect();
        if IGNORABLE.contains(&k.as_str()) || !name.is_empty() {
            out.push(name);
        }
        if out.len() >= MAX_IGNORED_NAMES {
            break;
        }
    }
    out
}

/// The conversation a request names: `metadata.conversation_id` or the
/// [`CONVERSATION_HEADER`] (both, different: 400 `conflicting_conversation`).
pub(crate) fn conversation(
    body: &Map<String, Value>,
    headers: &HeaderMap,
) -> Result<Option<String>, OpenAiError> {
    let from_body = match body.get("metadata").and_then(|m| m.get("conversation_id")) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            return Err(bad(
                "invalid_type",
                "metadata",
                "metadata.conversation_id must be a string",
            ))
        }
    };
    let from_header = match headers.get(CONVERSATION_HEADER) {
        None => None,
        Some(v) => Some(
            v.to_str()
                .map_err(|_| {
                    bad(
                        "invalid_conversation",
                        "metadata",
                        format!("{CONVERSATION_HEADER} must be printable ASCII"),
                    )
                })?
                .to_string(),
        ),
    };
    match (from_body, from_header) {
        (Some(a), Some(b)) if a != b => Err(bad(
            "conflicting_conversation",
            "metadata",
            format!("metadata.conversation_id and the {CONVERSATION_HEADER} header name different conversations: give one"),
        )),
        (a, b) => Ok(a.or(b)),
    }
}

/// The model id that sends into a leased claude.ai tab with the page's own model.
pub(crate) const CLAUDE_MODEL_ID: &str = "claude-tab";
/// The prefix of a model id naming a claude.ai page model (`claude:claude-sonnet-4-5`).
pub(crate) const CLAUDE_MODEL_PREFIX: &str = "claude:";

/// The site and the page's model a request's `model` names: `chatgpt-tab` → chatgpt.com,
/// the page's own model; `claude-tab` → claude.ai, the page's own model;
/// `claude:<name>` → claude.ai, model `<name>`; any other → chatgpt.com, that slug.
pub(crate) fn model_site(model: &str) -> (Option<crate::site::Site>, Option<String>) {
    use crate::site::Site;
    if model == MODEL_ID {
        (None, None)
    } else if model == CLAUDE_MODEL_ID {
        (Some(Site::Claude), None)
    } else if let Some(name) = model.strip_prefix(CLAUDE_MODEL_PREFIX) {
        (Some(Site::Claude), Some(name.to_string()))
    } else {
        (None, Some(model.to_string()))
    }
}

/// A string in `metadata` (OpenAI's metadata values are strings). Errors: 400
/// `invalid_type` naming it.
fn metadata_str(
    body: &Map<String, Value>,
    key: &'static str,
) -> Result<Option<String>, OpenAiError> {
    match body.get("metadata").and_then(|m| m.get(key)) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad(
            "invalid_type",
            "metadata",
            format!("metadata.{key} must be a string"),
        )),
    }
}

/// The `metadata` keys the doors read; any other is refused, not ignored: a misspelt
/// `conversationId` would otherwise send to the default destination.
pub(crate) const METADATA_KEYS: &[&str] = &["conversation_id", "project_id", "new_chat", "effort"];

/// Refuses a `metadata` that is not an object, or one with a key the doors do not read,
/// naming it and the nearest known key. Errors: 400 `invalid_type`, `unknown_parameter`.
pub(crate) fn known_metadata(body: &Map<String, Value>) -> Result<(), OpenAiError> {
    let metadata = match body.get("metadata") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Object(m)) => m,
        Some(_) => return Err(bad(
            "invalid_type",
            "metadata",
            "metadata must be an object of strings (conversation_id, project_id, new_chat, effort)",
        )),
    };
    let Some(unknown) = metadata
        .keys()
        .find(|k| !METADATA_KEYS.contains(&k.as_str()))
    else {
        return Ok(());
    };
    let shown = crate::body_schema::shown(unknown).unwrap_or("(not shown)");
    let hint = match crate::body_schema::nearest(unknown, METADATA_KEYS) {
        Some(k) => format!("did you mean `metadata.{k}`?"),
        None => format!("the keys read are `{}`", METADATA_KEYS.join("`, `")),
    };
    Err(bad(
        "unknown_parameter",
        "metadata",
        format!("unknown metadata key `metadata.{shown}`; {hint} Nothing was sent."),
    ))
}

/// Reads [`Place`] from a body: `metadata.project_id`, `metadata.new_chat` (`"true"` or
/// `"false"`; a JSON boolean too), `metadata.effort`, and `model`. The ledger checks them
/// when it admits the send (one place at most, the bounds). Errors: 400 `invalid_type`.
pub(crate) fn place(body: &Map<String, Value>) -> Result<Place, OpenAiError> {
    known_metadata(body)?;
    let new_chat = match body.get("metadata").and_then(|m| m.get("new_chat")) {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) if s == "true" || s == "false" => s == "true",
        Some(_) => {
            return Err(bad(
                "invalid_type",
                "metadata",
                "metadata.new_chat must be \"true\" or \"false\"",
            ))
        }
    };
    let (site, model) = match body.get("model") {
        None | Some(Value::Null) => (None, None),
        Some(Value::String(m)) => model_site(m),
        Some(_) => return Err(bad("invalid_type", "model", "model must be a string")),
    };
    Ok(Place {
        project_id: metadata_str(body, "project_id")?,
        new_chat,
        model,
        effort: metadata_str(body, "effort")?,
        site,
    })
}
