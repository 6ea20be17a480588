//! An answer cut by a crash or a reload, harvested from the page's conversation read:
//! the send's human message found by its uuid (the one the page chose and the extension
//! saw in the request), and its answer by the assistant uuid the request chose — or,
//! when only the human message is known, its one finished answer. Never by text alone,
//! never by position.

use super::conversation::{ConversationRead, Sender};
use super::turn::FINISHED_STOP_REASONS;
use serde::{Deserialize, Serialize};

/// What the read says of one send's answer.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "harvest", rename_all = "snake_case")]
pub enum Harvest {
    /// The finished answer: completes the send.
    Answered {
        /// The assistant message's uuid.
        message_uuid: String,
        /// Its text (never thinking).
        text: String,
    },
    /// The human message is there, its answer not (yet) finished or not there.
    NotYet,
    /// The answer stopped unfinished (`max_tokens`, `user_canceled`, …).
    Unfinished {
        /// The stop reason.
        stop_reason: String,
    },
    /// The read does not hold the send's human message: nothing can be said from it.
    HumanNotFound,
    /// The read is of another conversation than the send's.
    OtherConversation,
    /// Several finished answers to the human message (retries) and none named: none is
    /// chosen.
    Ambiguous {
        /// How many.
        answers: usize,
    },
}

impl std::fmt::Debug for Harvest {
    /// As the variant, the text shown as its length.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Harvest::Answered { message_uuid, text } => write!(
                f,
                "Answered {{ message_uuid: {message_uuid:?}, text_bytes: {} }}",
                text.len()
            ),
            Harvest::Unfinished { stop_reason } => {
                write!(f, "Unfinished {{ stop_reason: {stop_reason:?} }}")
            }
            Harvest::Ambiguous { answers } => write!(f, "Ambiguous {{ answers: {answers} }}"),
            Harvest::NotYet => f.write_str("NotYet"),
            Harvest::HumanNotFound => f.write_str("HumanNotFound"),
            Harvest::OtherConversation => f.write_str("OtherConversation"),
        }
    }
}

/// The answer to the human message `human_uuid` of conversation `conversation`, by the
/// assistant uuid the request chose when known (`assistant_uuid`), else the one finished
/// answer whose parent is the human message.
pub fn answer_in(
    read: &ConversationRead,
    conversation: &str,
    human_uuid: &str,
    assistant_uuid: Option<&str>,
) -> Harvest {
    if read.uuid != conversation {
        return Harvest::OtherConversation;
    }
    if !read
        .message(human_uuid)
        .is_some_and(|m| m.sender == Sender::Human)
    {
        return Harvest::HumanNotFound;
    }
    let answers: Vec<_> = read
        .messages
        .iter()
        .filter(|m| m.sender == Sender::Assistant)
        .filter(|m| m.parent_message_uuid.as_deref() == Some(human_uuid))
        .filter(|m| assistant_uuid.is_none_or(|a| m.uuid == a))
        .collect();
    let finished: Vec<_> = answers
        .iter()
        .filter(|m| {
            m.stop_reason
                .as_deref()
                .is_some_and(|r| FINISHED_STOP_REASONS.contains(&r))
        })
        .collect();
    match (finished.as_slice(), answers.as_slice()) {
        ([one], _) => Harvest::Answered {
            message_uuid: one.uuid.clone(),
            text: one.text.clone(),
        },
        ([], [one]) => match &one.stop_reason {
            Some(r) => Harvest::Unfinished {
                stop_reason: r.clone(),
            },
            None => Harvest::NotYet,
        },
        ([], _) => Harvest::NotYet,
        (many, _) => Harvest::Ambiguous {
            answers: many.len(),
        },
    }
}
