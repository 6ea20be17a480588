//! Tool results for calls that did nothing (`isError: true`), each saying whether calling
//! again is safe. A call that may have done something is never answered from here.

use crate::client::ClientError;
use rmcp::model::{CallToolResult, ContentBlock};

/// What every tool says when no owner runs.
pub const NO_OWNER: &str = "sendledger is not running for this profile: start the sendledger app or `sendledger serve`, then call again.";

/// An error result whose text is `sentence`.
pub fn did_nothing(sentence: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(sentence.into())])
}

/// Bad input: nothing was sent.
pub fn bad_input(detail: &str) -> CallToolResult {
    did_nothing(format!(
        "Nothing was sent: {detail}. Fix the arguments and call again (that is safe: nothing was queued)."
    ))
}

/// The owner's message as a sentence of its own: with a full stop unless it ends in one.
fn sentence(message: &str) -> String {
    let m = message.trim_end();
    if m.ends_with(['.', '!', '?']) {
        m.to_string()
    } else {
        format!("{m}.")
    }
}

/// `send_message` refused by the owner before anything was queued.
pub fn send_refused(e: &ClientError) -> CallToolResult {
    let ClientError::Refused { code, message, .. } = e else {
        return did_nothing(format!(
            "{NO_OWNER} Nothing was sent, so calling again then is safe."
        ));
    };
    let message = sentence(message);
    did_nothing(match code.as_str() {
        "epoch_stopped" => "Sending is stopped: a person pressed Stop in sendledger, and nothing was queued. Do not retry: tell the user, who can resume sending in sendledger.".to_string(),
        "payload_changed" => "This idempotency_key already names a different message (other text or destination), so nothing new was sent. Use a new idempotency_key for a new message.".to_string(),
        "invalid" | "malformed" | "too_large" => format!("Nothing was sent: {message} Fix it and call again (that is safe: nothing was queued)."),
        c if c.contains("limit") => format!("Nothing was queued: {message} The site's usage limit holds sending; do not retry until the limit resets or the user resumes sendledger."),
        _ => format!("sendledger refused the send ({code}): {message} Nothing was queued; the same call will be refused again."),
    })
}

/// A read-only call (`get_send`, `list_uncertain`) that got no answer: it changed nothing.
pub fn lookup_failed(e: &ClientError) -> CallToolResult {
    match e {
        ClientError::NoOwner => did_nothing(NO_OWNER),
        ClientError::Refused { code, message, .. } if code == "unknown_send" => did_nothing(format!(
            "{message}: sendledger has no send with this id, so nothing was ever sent under it. Check the send_id (it is the one a send_message result gave)."
        )),
        ClientError::Refused { code, message, .. } => did_nothing(format!(
            "sendledger refused the lookup ({code}): {message} This lookup changed nothing."
        )),
        ClientError::Lost(detail) => did_nothing(format!(
            "sendledger did not answer the lookup ({detail}). A lookup changes nothing: calling again is safe."
        )),
    }
}
