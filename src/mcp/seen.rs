//! What the MCP server reads of the owner's answers (docs/bridge-api.md, `Send`, `Event`,
//! the stop report), as typed views. They are lenient on purpose: a state is kept as its
//! word, so a state this build does not know (an owner newer than this server) reaches
//! `outcome::classify` and is never called safe, instead of failing the read; a field
//! the owner leaves out reads as empty.

use serde::Deserialize;

/// A send as the owner answers it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct SendSeen {
    /// The operation id.
    pub op_id: String,
    /// The chat site it goes to (absent from owners before sites: chatgpt; a name this
    /// server does not know reads as chatgpt's words, never as a refusal).
    pub site: Option<String>,
    /// The ledger's state name.
    pub state: String,
    /// The message's text.
    pub text: String,
    /// The conversation it was meant for, if one was named.
    pub conversation_id: Option<String>,
    /// When it was queued (ms).
    pub created_at: i64,
    /// When the click was granted (ms).
    pub dispatched_at: Option<i64>,
    /// The latest transition's evidence.
    pub evidence: Option<String>,
    /// Set when the owner stopped waiting for the answer of an accepted send (ms).
    pub answer_not_observed_at: Option<i64>,
    /// The native receipt, once observed.
    pub receipt: Option<ReceiptSeen>,
    /// The final answer, once observed.
    pub answer: Option<AnswerSeen>,
}

/// The part of a native receipt the server reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct ReceiptSeen {
    /// The conversation the page put the message in.
    pub conversation_id: Option<String>,
}

/// The part of a final answer the server reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct AnswerSeen {
    /// ChatGPT's answer.
    pub text: Option<String>,
}

/// One event of a send's audit trail.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct EventSeen {
    /// When (ms).
    pub at: i64,
    /// The state before, if any.
    pub from: Option<String>,
    /// The state after.
    pub to: String,
    /// Who.
    pub actor: String,
    /// What it rests on.
    pub evidence: Option<String>,
    /// What a note says, as data (absent from an owner before migration 0024).
    #[serde(default)]
    pub note_kind: Option<crate::note_kind::NoteKind>,
}

/// `GET /v1/sends/{op_id}` and its wait: the send and its timeline.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Looked {
    /// The send.
    pub send: SendSeen,
    /// Its audit trail, oldest first.
    pub timeline: Vec<EventSeen>,
    /// When the page refused it with the account's limit and the gate holds: how long to
    /// wait before sending again (absent from owners before issue 35).
    #[serde(default)]
    pub retry_after: Option<RetryAfterSeen>,
}

/// The owner's `retry_after` of a send: whole seconds to wait, and when the limit opens
/// by itself (ms since the Unix epoch; absent: when the user resumes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub struct RetryAfterSeen {
    /// Whole seconds.
    pub seconds: u64,
    /// When it opens by itself.
    pub until_ms: Option<i64>,
}

/// `POST /v1/sends`: the send, and whether it is new.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct QueuedSeen {
    /// The send.
    pub send: SendSeen,
    /// `false`: the same operation was queued before (nothing new written).
    pub created: Option<bool>,
}

/// `GET /v1/sends?state=…`: the sends listed.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ListedSeen {
    /// Newest first.
    pub sends: Vec<SendSeen>,
}

/// `POST /v1/stop`: what the fence covered.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StoppedSeen {
    /// The stop report.
    pub stop: StopSeen,
}

/// The stop report's lists the server reports.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StopSeen {
    /// Sends caught before the click.
    pub stopped: Vec<String>,
    /// Sends already clicked, with a remote stop asked.
    pub remote_stops: Vec<String>,
}

impl SendSeen {
    /// Its site, for the words said about it ([`SendSeen::site`]).
    pub fn site(&self) -> crate::site::Site {
        self.site
            .as_deref()
            .and_then(|s| crate::site::Site::parse(s).ok())
            .unwrap_or_default()
    }
}
