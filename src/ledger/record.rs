//! The records the ledger hands out: a send, its receipt and answer, its audit events.
//! All times are ms since the Unix epoch.

use super::state::SendState;
use crate::clock::Millis;
use serde::{Deserialize, Serialize};

/// The page's native receipt of a send: the ids its own traffic gave the user message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// The chat's conversation id.
    pub conversation_id: String,
    /// The user message id the page generated for the send.
    pub user_message_id: String,
    /// The turn id (`turn_exchange_id` in the page's stream).
    pub turn_id: String,
}

/// The final answer of a send's turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The assistant message id.
    pub message_id: String,
    /// The answer's text.
    pub text: String,
    /// When it was recorded.
    pub at: Millis,
}

/// One send as the ledger holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Send {
    /// The operation id: the send's identity and idempotency key.
    pub op_id: String,
    /// The chat site it goes to (part of its identity; absent from owners before sites:
    /// chatgpt).
    #[serde(default)]
    pub site: crate::site::Site,
    /// The text, after [`crate::send_text::normalise`].
    pub text: String,
    /// The conversation it is meant for; `None`: whichever tab is leased.
    pub conversation_id: Option<String>,
    /// The epoch (hex SHA-256 of a binding) it was admitted under.
    pub epoch: String,
    /// The operation this one resends or queues again, if any.
    pub resend_of: Option<String>,
    /// When it was queued.
    pub created_at: Millis,
    /// Current state.
    pub state: SendState,
    /// When the state (or a note) last changed.
    pub updated_at: Millis,
    /// Who made the latest transition.
    pub actor: String,
    /// Evidence given with the latest transition.
    pub evidence: Option<String>,
    /// The lease that claimed it.
    pub lease_id: Option<String>,
    /// When it was claimed.
    pub claimed_at: Option<Millis>,
    /// When `dispatched` was committed.
    pub dispatched_at: Option<Millis>,
    /// The native receipt, once observed.
    pub receipt: Option<Receipt>,
    /// The final answer, once observed.
    pub answer: Option<Answer>,
    /// When the owner stopped waiting for the answer (it stays accepted).
    pub answer_not_observed_at: Option<Millis>,
    /// When a person was notified that it is uncertain.
    pub notified_at: Option<Millis>,
}

impl Send {
    /// Whether this send holds the profile's one browser-send slot: claimed, dispatched, or
    /// accepted with its answer still awaited. The same rule as the `sends_in_flight` view
    /// (migration 0005), for code that already holds the row.
    pub fn holds_slot(&self) -> bool {
        match self.state {
            SendState::Claimed | SendState::Dispatched => true,
            SendState::Accepted => self.answer.is_none() && self.answer_not_observed_at.is_none(),
            _ => false,
        }
    }
}

/// Whether an audit event records a state change or a note within one state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    /// A state change (or the admission, with no `from`).
    Transition,
    /// Something noted without a state change (an expiry mark, a notification).
    Note,
}

/// One row of the audit trail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Monotonic id across the profile; the change feed's cursor.
    pub id: i64,
    /// The send it is about.
    pub op_id: String,
    /// Transition or note.
    pub kind: EventKind,
    /// State before (`None` for the admission).
    pub from: Option<SendState>,
    /// State after.
    pub to: SendState,
    /// When.
    pub at: Millis,
    /// Who: a person's name, `extension`, `owner`, `recovery`, a client.
    pub actor: String,
    /// What it rests on.
    pub evidence: Option<String>,
    /// What kind of evidence it is, where the owner classified it (migration 0004).
    pub evidence_kind: Option<EvidenceKind>,
    /// What a note says, as data (migration 0024): readers tell notes apart by this, never
    /// by their words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note_kind: Option<NoteKind>,
}

pub use crate::note_kind::NoteKind;

/// A kind of evidence the owner records as a note, stored as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceKind {
    /// What the page's own traffic showed about an uncertain send: a suggestion for a
    /// person, never a decision.
    Observed,
    /// A person was notified that the send is uncertain.
    Notified,
}

impl EvidenceKind {
    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Observed => "observed",
            Self::Notified => "notified",
        }
    }

    /// From the stored form; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "observed" => Some(Self::Observed),
            "notified" => Some(Self::Notified),
            _ => None,
        }
    }
}
