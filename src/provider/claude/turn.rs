//! From a completion request and its stream to the two facts the ledger acts on: the
//! native receipt of a send and the answer that completes it.

use super::request::CompletionRequest;
use super::route::Route;
use super::stream::{StreamEnd, StreamObservation};
use crate::provider::chatgpt::{NativeReceipt, TurnOutcome};
use crate::send_text::normalise;
use serde::{Deserialize, Serialize};

/// The stop reasons that end a finished answer; any other (`max_tokens`, `tool_use`,
/// `refusal`, `user_canceled`, `pause_turn`, …) leaves the answer unfinished.
pub const FINISHED_STOP_REASONS: &[&str] = &["end_turn", "stop_sequence"];

/// The receipt of the send whose text is `send_text`, if the page's own request and
/// stream show it (the shared [`NativeReceipt`]: `conversation_id` is the route's
/// conversation, `user_message_id` the page-chosen human message uuid, `turn_id` the
/// page-chosen assistant message uuid):
/// - the route is the completion (never the retry);
/// - the request's `prompt` equals `send_text` under [`normalise`];
/// - the stream began (`message_start`) and names as its message the assistant uuid the
///   request chose — a stream naming another, or none, gives no receipt.
///
/// Never inferred from time, order or position.
pub fn receipt_for(
    route: &Route,
    req: &CompletionRequest,
    obs: &StreamObservation,
    send_text: &str,
) -> Option<NativeReceipt> {
    let Route::Completion { conversation, .. } = route else {
        return None;
    };
    if normalise(&req.prompt) != normalise(send_text) {
        return None;
    }
    if !obs.started || obs.assistant_message_uuid.as_deref() != Some(&req.assistant_message_uuid) {
        return None;
    }
    Some(NativeReceipt {
        conversation_id: conversation.clone(),
        user_message_id: req.human_message_uuid.clone(),
        turn_id: req.assistant_message_uuid.clone(),
    })
}

/// Where an answer stands, as far as the stream shows.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ClaudeOutcome {
    /// The finished answer: settles the send.
    Answered {
        /// The assistant message's uuid (the one the request chose).
        message_uuid: String,
        /// The text blocks' text (never the thinking).
        text: String,
    },
    /// Still streaming.
    NoAnswerYet,
    /// The body ended before `message_stop`: nothing is completed.
    Cut,
    /// `message_stop` came with a stop reason that does not finish an answer.
    Unfinished {
        /// The stop reason, or `none` when the stream gave none.
        stop_reason: String,
    },
    /// No answer, and the page says the usage limit is reached.
    LimitReached,
    /// The page's `error` event (its words), or a stream that is not this request's.
    Error {
        /// What happened, without message text.
        message: String,
    },
}

impl std::fmt::Debug for ClaudeOutcome {
    /// As the variant, the answer's text shown as its length.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClaudeOutcome::Answered { message_uuid, text } => write!(
                f,
                "Answered {{ message_uuid: {message_uuid:?}, text_bytes: {} }}",
                text.len()
            ),
            ClaudeOutcome::NoAnswerYet => f.write_str("NoAnswerYet"),
            ClaudeOutcome::Cut => f.write_str("Cut"),
            ClaudeOutcome::Unfinished { stop_reason } => {
                write!(f, "Unfinished {{ stop_reason: {stop_reason:?} }}")
            }
            ClaudeOutcome::LimitReached => f.write_str("LimitReached"),
            ClaudeOutcome::Error { message } => write!(f, "Error {{ message: {message:?} }}"),
        }
    }
}

/// The outcome of the answer the request `req` asked for:
/// 1. an `error` event → `Error` with the page's words;
/// 2. a stream naming another assistant message than the request chose → `Error`;
/// 3. `message_stop` after `message_start`, a finishing stop reason
///    ([`FINISHED_STOP_REASONS`]), a text within the bound → `Answered`;
/// 4. else an exceeded `message_limit` → `LimitReached`; `message_stop` otherwise →
///    `Unfinished`; an ended body → `Cut`; else `NoAnswerYet`.
pub fn answer_outcome(obs: &StreamObservation, req: &CompletionRequest) -> ClaudeOutcome {
    if let Some(e) = &obs.error {
        return ClaudeOutcome::Error {
            message: e.message.clone(),
        };
    }
    if obs
        .assistant_message_uuid
        .as_deref()
        .is_some_and(|u| u != req.assistant_message_uuid)
    {
        return ClaudeOutcome::Error {
            message: "the stream writes another assistant message than the request chose".into(),
        };
    }
    let finished = obs
        .stop_reason
        .as_deref()
        .is_some_and(|r| FINISHED_STOP_REASONS.contains(&r));
    if obs.end == StreamEnd::Stopped && obs.started && finished && !obs.text_cut {
        return ClaudeOutcome::Answered {
            message_uuid: req.assistant_message_uuid.clone(),
            text: obs.text.clone(),
        };
    }
    if obs.limit.as_ref().is_some_and(|l| l.exceeded()) {
        return ClaudeOutcome::LimitReached;
    }
    match obs.end {
        StreamEnd::Stopped => ClaudeOutcome::Unfinished {
            stop_reason: obs.stop_reason.clone().unwrap_or_else(|| "none".into()),
        },
        StreamEnd::Cut => ClaudeOutcome::Cut,
        StreamEnd::Open => ClaudeOutcome::NoAnswerYet,
    }
}

impl ClaudeOutcome {
    /// The outcome in the shape the owner's observation path reads today (the ChatGPT
    /// provider's [`TurnOutcome`]): `Answered` stays answered; `LimitReached` and `Error`
    /// are errors; the rest is no answer yet (a cut stream is harvested from the
    /// conversation read, never completed here).
    pub fn to_turn_outcome(&self) -> TurnOutcome {
        match self {
            ClaudeOutcome::Answered { message_uuid, text } => TurnOutcome::Answered {
                message_id: message_uuid.clone(),
                text: text.clone(),
            },
            ClaudeOutcome::LimitReached => TurnOutcome::Error {
                message: "claude.ai reports the account's usage limit is reached".into(),
            },
            ClaudeOutcome::Error { message } => TurnOutcome::Error {
                message: message.clone(),
            },
            _ => TurnOutcome::NoAnswerYet,
        }
    }
}
