//! The tools' inputs: their JSON schemas (what a model is shown) and their checks (what
//! a call is refused for, with nothing sent). Every field has a bound.

use super::wait::MAX_WAIT_SECONDS;
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::sync::Arc;
use std::time::Duration;

/// The prefix that makes an operation id of an idempotency key: `mcp-<key>`.
pub const KEY_PREFIX: &str = "mcp-";
/// The longest idempotency key, in characters (the ledger's operation ids take 128).
pub const MAX_KEY_CHARS: usize = 120;
/// How long `send_message` waits for the answer when `wait_seconds` is not given.
pub const DEFAULT_SEND_WAIT_SECONDS: u64 = 45;

/// `send_message`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendMessageArgs {
    /// The message to type into the user's ChatGPT tab, exactly as it should appear (at
    /// most 65,536 bytes; CR LF becomes LF).
    #[schemars(length(min = 1))]
    pub text: String,
    /// The chat site: "chatgpt" (the default) or "claude" (the user's leased claude.ai
    /// tab). A claude.ai conversation URL (https://claude.ai/chat/<uuid>) names claude by
    /// itself; a chatgpt.com URL with site "claude" is refused.
    #[serde(default)]
    #[schemars(length(min = 1, max = 32))]
    pub site: Option<String>,
    /// The conversation to send into: a `conversation_id` from an earlier result, or its
    /// chatgpt.com or claude.ai URL. Give at most one of conversation_id, project_id and
    /// new_chat; give none to send where the user chose in sendledger (a new chat until
    /// they choose).
    #[serde(default)]
    #[schemars(length(min = 1, max = 512))]
    pub conversation_id: Option<String>,
    /// A new chat inside this ChatGPT Project (its `g-p-…` id or chatgpt.com URL).
    #[serde(default)]
    #[schemars(length(min = 5, max = 512))]
    pub project_id: Option<String>,
    /// true: a new chat.
    #[serde(default)]
    pub new_chat: bool,
    /// The ChatGPT page's model slug to answer with (e.g. gpt-5-2-thinking). The tab
    /// must show it; if it cannot, nothing is sent and the result says what it showed.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    pub model: Option<String>,
    /// The thinking effort the page must show (as the page names it), like model.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    pub effort: Option<String>,
    /// A key you choose for this message (1 to 120 letters, digits or . _ : -). Calling
    /// again with the same key and text returns the same send and never sends twice,
    /// also after sendledger restarts. Give one whenever you may call again.
    #[serde(default)]
    #[schemars(length(min = 1, max = 120), pattern(r"^[A-Za-z0-9._:-]+$"))]
    pub idempotency_key: Option<String>,
    /// How long to wait for ChatGPT's answer, in seconds (0 to 600; default 45). If the
    /// answer has not come by then, the result is `pending`: call get_send. Many clients
    /// give up on a call after 60 s, so stay under that unless yours waits longer.
    #[serde(default)]
    #[schemars(range(min = 0, max = 600))]
    pub wait_seconds: Option<u64>,
    /// Files to send with the message (at most 10, each at most 32 MiB): `{"path": …}` for
    /// a file on the machine sendledger runs on, or `{"name", "mime", "base64"}`. They are
    /// part of the send: the same idempotency_key with other files is refused.
    #[serde(default)]
    #[schemars(length(max = 10))]
    pub attachments: Vec<super::attachments::AttachmentArg>,
}

/// `get_send`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetSendArgs {
    /// The `send_id` of an earlier send_message result.
    #[schemars(length(min = 1, max = 128))]
    pub send_id: String,
    /// How long to wait for a pending send to settle, in seconds (0 to 600; default 0:
    /// answer at once).
    #[serde(default)]
    #[schemars(range(min = 0, max = 600))]
    pub wait_seconds: Option<u64>,
}

/// An input that takes no fields.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// The input schema of `T`, as the tool list shows it.
pub fn schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    rmcp::handler::server::tool::schema_for_input::<T>()
        .unwrap_or_else(|e| panic!("a tool input schema is an object schema: {e}"))
}

/// Parses a call's arguments; the error is a sentence naming the argument and what to fix
/// (an unknown one with the nearest known name), never a value given.
pub fn parse<T: DeserializeOwned>(args: JsonObject) -> Result<T, String> {
    crate::body_schema::from_value(serde_json::Value::Object(args))
        .map_err(|e| format!("the arguments are not valid ({e})"))
}

/// `wait_seconds` as a duration, `default` when absent; an error over the bound.
pub fn wait(seconds: Option<u64>, default: u64) -> Result<Duration, String> {
    let s = seconds.unwrap_or(default);
    if s > MAX_WAIT_SECONDS {
        return Err(format!(
            "wait_seconds is {s}, over the limit of {MAX_WAIT_SECONDS}: wait at most {MAX_WAIT_SECONDS} seconds per call, then call get_send"
        ));
    }
    Ok(Duration::from_secs(s))
}

/// `site` checked against the registry before anything is uploaded or queued (`None`:
/// the owner's default, chatgpt). Errors: the registry's sentence naming the known sites.
pub fn site(name: Option<&str>) -> Result<Option<crate::site::Site>, String> {
    name.map(crate::site::Site::parse).transpose()
}

/// The operation id of a send: `mcp-<key>` for an idempotency key (the same key is the
/// same send, across restarts of either process), a fresh UUID without one.
pub fn operation_id(key: Option<&str>) -> Result<String, String> {
    let Some(key) = key else {
        return Ok(uuid::Uuid::new_v4().to_string());
    };
    let well_formed = !key.is_empty()
        && key.chars().count() <= MAX_KEY_CHARS
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-'));
    if !well_formed {
        return Err(format!(
            "idempotency_key must be 1 to {MAX_KEY_CHARS} letters, digits or . _ : - (for example \"draft-42\")"
        ));
    }
    Ok(format!("{KEY_PREFIX}{key}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_idempotency_key_is_always_the_same_operation_id() {
        assert_eq!(operation_id(Some("draft-42")).unwrap(), "mcp-draft-42");
        assert_eq!(
            operation_id(Some("draft-42")),
            operation_id(Some("draft-42")),
            "derived, not random: it must survive a restart of either process"
        );
        assert_ne!(operation_id(None), operation_id(None), "no key: a fresh id");
    }

    #[test]
    fn a_malformed_or_oversized_key_is_refused_with_what_to_write() {
        for bad in ["", "a b", "a/b", "ключ", &"k".repeat(MAX_KEY_CHARS + 1)] {
            let e = operation_id(Some(bad)).expect_err(bad);
            assert!(e.contains("letters, digits"), "{e}");
        }
        assert!(operation_id(Some(&"k".repeat(MAX_KEY_CHARS))).is_ok());
    }

    #[test]
    fn a_misspelt_send_message_argument_is_refused_naming_it_and_the_nearest_known_one() {
        let fields = [
            ("text", "Text"),
            ("conversation_id", "conversationId"),
            ("conversation_id", "conversaton_id"),
            ("project_id", "projectId"),
            ("new_chat", "new_chatt"),
            ("model", "mdel"),
            ("effort", "efforts"),
            ("idempotency_key", "idempotencyKey"),
            ("wait_seconds", "waitSeconds"),
            ("attachments", "attachment"),
        ];
        for (field, wrong) in fields {
            let mut args = JsonObject::new();
            args.insert("text".into(), "the secret text".into());
            args.insert(wrong.into(), "x".into());
            let e = parse::<SendMessageArgs>(args).expect_err(wrong);
            assert!(
                e.contains(&format!("unknown field `{wrong}`; did you mean `{field}`?"))
                    && !e.contains("the secret text"),
                "{wrong}: {e}"
            );
        }
    }

    #[test]
    fn wait_is_bounded() {
        assert_eq!(wait(None, 7).unwrap(), Duration::from_secs(7));
        assert!(wait(Some(MAX_WAIT_SECONDS + 1), 0).is_err());
    }
}
