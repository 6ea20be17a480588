//! What an observation led to ([`Applied`], answered to the tab), what a stream showed
//! ([`Fact`]) and its final answer ([`Answered`]): the values the observation modules share (`observations.rs`,
//! `turn.rs`, `conversation_read.rs`, `refused_request.rs`, `downgrade.rs`, `elsewhere.rs`), kept apart
//! so that none of them imports another in a circle.

use crate::ledger::{PageError, Receipt};
use serde::Serialize;

/// Longest route accepted in a `request_elsewhere` observation, in bytes (it is made a
/// template of at most [`crate::provider::chatgpt::traffic::MAX_ROUTE_BYTES`]).
pub const MAX_ELSEWHERE_ROUTE_BYTES: usize = 2048;

/// What an observation led to.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(tag = "fact", rename_all = "snake_case")]
pub(crate) enum Applied {
    Tracking {
        op_id: String,
    },
    NotTracked {
        reason: String,
    },
    Accepted {
        op_id: String,
        receipt: Receipt,
    },
    Completed {
        op_id: String,
        message_id: String,
    },
    Outcome {
        op_id: String,
        outcome: String,
    },
    Evidence {
        op_id: String,
        matching: usize,
        exactly_one: bool,
    },
    /// The page's own request after the click went to a route that is not a chat
    /// conversation route: the send is uncertain at once with a `destination_mismatch`.
    Elsewhere {
        op_id: String,
        route: String,
    },
    PageError {
        op_id: String,
        usage_limit: bool,
        resets_at_ms: Option<i64>,
    },
    Noted {
        op_id: String,
        note: String,
    },
    /// The page's traffic showed a fact every send needs not holding: the send is marked
    /// and the page-changed gate closed.
    PageChanged {
        op_id: String,
        fact_id: String,
    },
    /// A piece of a stream this owner does not follow: it began before this owner started
    /// (a restart mid-answer). A tab that saw its request followed sends it again from its
    /// request, and the new owner follows it from there (see `start`).
    UnknownStream {
        stream_id: String,
    },
}

/// The final answer as the stream showed it.
#[derive(Debug)]
pub struct Answered {
    /// The answer message's id.
    pub message_id: String,
    /// Its text.
    pub text: String,
    /// The page's model slug, when given.
    pub model: Option<String>,
    /// The files its turn generated (asset pointers, in order).
    pub artifacts: Vec<crate::attachments::AnswerArtifact>,
}

/// A fact a stream showed about its send.
#[derive(Debug)]
pub enum Fact {
    /// (op id, receipt): the page accepted the send.
    Receipt(String, Receipt),
    /// (op id, the final answer: its message id, text, the page's model slug and the
    /// files it generated).
    Answer(String, Answered),
    /// The page ended the turn with its own error and no answer: (op id, message, the
    /// error's code when the stream gave one).
    PageError(String, String, Option<String>),
    /// The page ended the turn with a refusal it described as data (the site's limit
    /// event with its reset time, its error event): (op id, the error as the ledger
    /// records it). Site-neutral: the usage-limit gate closes for the send's site.
    Refused(String, PageError),
    /// The page showed its site's usage limit before any receipt: (op id, the words, when
    /// sending may resume). The send keeps its state (whether the message was taken is
    /// not known); the usage-limit gate of its site closes.
    LimitSeen(String, String, Option<i64>),
    /// A note for a person: (op id, note).
    Note(String, String),
    /// The page's hand-off frames for the turn could not be read: a note of kind
    /// `frames_not_understood` ([`super::observations::FRAMES_NOT_UNDERSTOOD`]), for the expiry to say first.
    NotUnderstood(String),
    /// The model that wrote the final answer, and the one the page's request asked for:
    /// (op id, answered, requested) — a model downgrade is noted, never a failure.
    AnsweredBy(String, String, Option<String>),
    /// The page's response stream was in a format not recognised at all (the provider's
    /// `traffic::stream_not_recognised`): (op id, the fact id, the sentence). The send
    /// becomes uncertain at once and the page-changed gate closes.
    PageChanged(String, &'static str, String),
}
