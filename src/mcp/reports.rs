//! The structured results of `list_uncertain` and `stop`, made from the owner's answers.

use super::seen::{ListedSeen, StoppedSeen};
use schemars::JsonSchema;
use serde::Serialize;

/// The longest excerpt of a message's text a listing shows, in characters.
pub const EXCERPT_CHARS: usize = 200;

/// One send that waits for a person.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UncertainSend {
    /// Its id (as `send_message` returned it).
    pub send_id: String,
    /// The start of its text (at most 200 characters).
    pub text: String,
    /// The conversation it was meant for, if one was named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    /// When it was queued, in ms since the Unix epoch.
    pub created_at: i64,
    /// When the click was allowed, in ms since the Unix epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispatched_at: Option<i64>,
}

/// `list_uncertain`'s result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UncertainSends {
    /// How many sends wait for a person (at most 100 are listed).
    pub count: usize,
    /// Newest first.
    pub sends: Vec<UncertainSend>,
    /// What to do with them.
    pub message: String,
}

/// `stop`'s result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StopOutcome {
    /// Sends caught before they were sent: none of them will be sent.
    pub stopped: Vec<String>,
    /// Sends already clicked: sendledger asks the tab to stop ChatGPT's answer.
    pub already_sent: Vec<String>,
    /// What happened and what comes next.
    pub message: String,
}

/// From the owner's `{"sends": [Send]}`.
pub fn uncertain(listing: &ListedSeen) -> UncertainSends {
    let sends: Vec<UncertainSend> = listing
        .sends
        .iter()
        .map(|s| UncertainSend {
            send_id: s.op_id.clone(),
            text: s.text.chars().take(EXCERPT_CHARS).collect(),
            conversation_id: s.conversation_id.clone(),
            created_at: s.created_at,
            dispatched_at: s.dispatched_at,
        })
        .collect();
    let message = if sends.is_empty() {
        "No send waits for a person.".to_string()
    } else {
        "Each of these may or may not have reached the chat. Do not send any of them again: ask the user to look at the chat and confirm or abandon each one in sendledger.".to_string()
    };
    UncertainSends {
        count: sends.len(),
        sends,
        message,
    }
}

/// From the owner's `{"stop": StopReport}`.
pub fn stopped(answer: &StoppedSeen) -> StopOutcome {
    let stopped = answer.stop.stopped.clone();
    let already_sent = answer.stop.remote_stops.clone();
    StopOutcome {
        message: format!(
            "Stopped: {} send(s) caught before they were sent, {} already sent (the tab is asked to stop the answer). Nothing more is sent until a person resumes sending in sendledger; no tool can resume.",
            stopped.len(),
            already_sent.len()
        ),
        stopped,
        already_sent,
    }
}
