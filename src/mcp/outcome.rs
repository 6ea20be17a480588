//! What a send means to a model: the structured result of `send_message` and `get_send`
//! (`{status, send_id, answer?, conversation_id?, message, retry_safe, state, timeline?}`),
//! made from the owner's answer for one send (docs/bridge-api.md, `Send` and `Event`, read
//! as [`super::seen`]'s views). What a
//! state means — pending or told, retry-safe or not — is the one table of
//! `crate::verdict`; this file only words it for a model.
//!
//! **Architecture Invariant**: an uncertain send is a successful result with
//! `retry_safe: false` and a sentence telling the model not to send again; nothing here
//! ever says a send may be repeated unless it certainly never left the host.

use super::seen::{EventSeen, SendSeen};
use crate::site::Site;
use crate::verdict::{Standing, Verdict};
use schemars::JsonSchema;
use serde::Serialize;

/// Where a send stands, in the seven words a model acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Delivered; `answer` holds ChatGPT's final answer when it was seen.
    Completed,
    /// Still on its way: call `get_send` with `send_id` (and `wait_seconds`) for the answer.
    Pending,
    /// It may or may not have been sent: a person decides in sendledger. Never send again.
    Uncertain,
    /// It never reached the chat (or a person abandoned it).
    Rejected,
    /// A person pressed Stop, or withdrew this send, before it was sent.
    Stopped,
    /// ChatGPT received it and answered with an error (a usage limit, "Something went
    /// wrong", a blocked message): it was sent once; the page said no.
    #[serde(rename = "page_error")]
    PageError,
}

/// One line of a send's audit trail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TimelineEntry {
    /// When, in ms since the Unix epoch.
    pub at: i64,
    /// The state before (absent for the admission).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The state after (or the state a note was made in).
    pub to: String,
    /// Who: a person, `extension`, `owner`, `recovery`, a client.
    pub actor: String,
    /// What it rests on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
}

/// The structured result of `send_message` and `get_send`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SendOutcome {
    /// completed, pending, uncertain, rejected, stopped or page_error.
    pub status: Status,
    /// The send's id in sendledger: pass it to `get_send`.
    pub send_id: String,
    /// ChatGPT's final answer, when `status` is completed and the answer was seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// The chat conversation it went into (or was meant for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    /// Set when ChatGPT's own request went somewhere else than the send asked (another
    /// conversation, another model): the sentence saying where. It was sent once and is
    /// never sent again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_mismatch: Option<String>,
    /// What happened and what to do next, in one or two sentences.
    pub message: String,
    /// True only when the message certainly never reached the chat, so sending it again
    /// (as a new send) cannot make a second copy. False whenever it went out or may have.
    pub retry_safe: bool,
    /// The ledger's own state name (queued, claimed, dispatched, accepted, completed,
    /// rejected, uncertain, stopped, confirmed, abandoned).
    pub state: String,
    /// The send's audit trail, oldest first (`get_send` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Vec<TimelineEntry>>,
}

/// The sentence every uncertain send carries, with why it is uncertain when the ledger
/// says (the latest transition's evidence).
pub fn uncertain_sentence(why: Option<&str>, site: Site) -> String {
    let why = why
        .filter(|w| !w.trim().is_empty())
        .map(|w| format!(" ({w})"))
        .unwrap_or_default();
    let site = site.title();
    format!("sendledger cannot tell whether this message reached {site}{why}. Do NOT send it again: ask the user to look at the chat and confirm or abandon this send in sendledger.")
}

fn pending_sentence(state: &str, site: Site) -> String {
    let site = site.title();
    match state {
        "queued" => format!("Queued: waiting for the {site} tab to take it. Call get_send with send_id to wait for the answer; do not send it again."),
        "claimed" => format!("The {site} tab has taken it and is about to send it. Call get_send with send_id to wait for the answer; do not send it again."),
        "dispatched" => format!("Sent into the {site} tab; waiting for {site} to confirm it. Call get_send with send_id to wait for the answer; do not send it again."),
        _ => format!("{site} received the message and is answering. Call get_send with send_id to wait for the answer; do not send it again."),
    }
}

/// Status, message and retry safety for a send whose ledger state is `state`, worded from
/// the one table (`crate::verdict`). `answer_given_up`: the owner stopped waiting for the
/// answer of an accepted send; `why`: the latest transition's evidence; `site`: where it
/// goes, named in the words.
pub fn classify(
    state: &str,
    answer_given_up: bool,
    why: Option<&str>,
    site: Site,
) -> (Status, String, bool) {
    let v = Verdict::of_state(state, state == "completed", answer_given_up);
    let title = site.title();
    let (status, message) = match v.standing {
        Standing::Pending => (Status::Pending, pending_sentence(state, site)),
        Standing::Answered => (Status::Completed, format!("{title} received the message and answered.")),
        Standing::WentOut if state == "confirmed" => (Status::Completed, "A person confirmed in sendledger that this message was sent; its answer is in the chat. Do not send it again.".into()),
        Standing::WentOut => (Status::Completed, format!("{title} received the message, but sendledger did not see its answer; read the answer in the chat. Do not send it again.")),
        Standing::Uncertain => (Status::Uncertain, uncertain_sentence(why, site)),
        Standing::PageSaidNo => (Status::PageError, format!(
            "{title} received the message and answered with an error{}: it was sent once. Do not send it again; tell the user what the page said.",
            why.map(|w| format!(" ({w})")).unwrap_or_default())),
        Standing::NeverLeft => (Status::Rejected, "It never reached the chat (the tab could not take it, or sendledger restarted before sending it). It is safe to send it again with a NEW idempotency_key (the same key returns this rejected send).".into()),
        Standing::Abandoned => (Status::Rejected, "A person abandoned this send in sendledger. Do not send it again unless the user asks you to.".into()),
        Standing::Stopped => (Status::Stopped, "A person stopped it in sendledger before it was sent (they pressed Stop, or withdrew this one): nothing was sent. Do not send it again unless the user asks; after a Stop, nothing is sent until they resume sending in sendledger.".into()),
    };
    let message = if Verdict::knows(state) {
        message
    } else {
        "sendledger reports a state this tool does not know. Do not send it again: ask the user to look at the send in sendledger.".into()
    };
    (status, message, v.retry_safe)
}

/// The `destination_mismatch: …` note on a send's timeline, if the page's request did not
/// go where the send was meant to go (or an `attachment_mismatch: …` note, if it did not
/// carry the send's files).
pub fn mismatch_in(timeline: &[EventSeen]) -> Option<String> {
    timeline
        .iter()
        .filter(|e| {
            e.note_kind
                .is_some_and(crate::note_kind::NoteKind::is_mismatch)
        })
        .find_map(|e| e.evidence.clone())
}

/// Adds, to a `page_error` outcome whose send the page refused with the account's usage
/// limit or *too many requests* while the limit gate holds, the words a model honours:
/// "Do not send again before <local time> (<n> s)" — or, with no reset time named, that
/// only the user's resume in sendledger opens it.
pub fn with_hold(mut o: SendOutcome, hold: super::seen::RetryAfterSeen) -> SendOutcome {
    if o.status != Status::PageError {
        return o;
    }
    let when = match hold.until_ms {
        Some(t) => {
            let at = chrono::DateTime::from_timestamp_millis(t)
                .map(|d| d.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M:%S %:z").to_string())
                .unwrap_or_default();
            format!("before {at} (in {} s)", hold.seconds)
        }
        None => format!(
            "for at least {} s: the page named no reset time, and only the user's resume in sendledger opens it",
            hold.seconds
        ),
    };
    o.message = format!(
        "{} The account's limit holds: do not send again {when}.",
        o.message
    );
    o
}

/// Adds the mismatch, in words, to `o` (its field and its message).
pub fn with_mismatch(mut o: SendOutcome, timeline: &[EventSeen]) -> SendOutcome {
    if let Some(m) = mismatch_in(timeline) {
        o.message = format!(
            "{} The page's own request did not go where this send asked ({m}). It was sent once; do not send it again — tell the user.",
            o.message
        );
        o.destination_mismatch = Some(m);
    }
    o
}

fn timeline_of(events: &[EventSeen]) -> Vec<TimelineEntry> {
    events
        .iter()
        .map(|e| TimelineEntry {
            at: e.at,
            from: e.from.clone(),
            to: e.to.clone(),
            actor: e.actor.clone(),
            evidence: e.evidence.clone(),
        })
        .collect()
}

/// The outcome of `send` (the owner's `Send`), with its `timeline` (the owner's
/// `[Event]`) when one is given.
pub fn of_send(send: &SendSeen, timeline: Option<&[EventSeen]>) -> SendOutcome {
    let state = send.state.clone();
    let given_up = send.answer_not_observed_at.is_some();
    let (status, message, retry_safe) =
        classify(&state, given_up, send.evidence.as_deref(), send.site());
    let answer = match status {
        Status::Completed => send.answer.as_ref().and_then(|a| a.text.clone()),
        _ => None,
    };
    let conversation_id = send
        .receipt
        .as_ref()
        .and_then(|r| r.conversation_id.clone())
        .or_else(|| send.conversation_id.clone());
    SendOutcome {
        status,
        send_id: send.op_id.clone(),
        answer,
        conversation_id,
        destination_mismatch: None,
        message,
        retry_safe,
        state,
        timeline: timeline.map(timeline_of),
    }
}

/// A send whose queue request got no answer and could not be looked up either: it may
/// or may not be recorded. Never retry-safe; the id is the way back to the truth.
pub fn lost(op_id: &str, detail: &str) -> SendOutcome {
    SendOutcome {
        status: Status::Pending,
        send_id: op_id.to_string(),
        answer: None,
        conversation_id: None,
        destination_mismatch: None,
        message: format!(
            "sendledger did not answer ({detail}): the send may or may not be recorded as {op_id}. Do not call send_message again without this idempotency_key: call get_send with send_id {op_id} once sendledger answers (the same id never sends twice)."
        ),
        retry_safe: false,
        state: "unknown".to_string(),
        timeline: None,
    }
}

impl SendOutcome {
    /// Whether the send may still change without a person: worth waiting for.
    pub fn is_pending(&self) -> bool {
        self.status == Status::Pending
    }

    /// One line for clients that show only text content.
    pub fn summary(&self) -> String {
        let status = serde_json::to_value(self.status).expect("a status serialises");
        let mut s = format!(
            "{} (send_id {}, retry_safe {}): {}",
            status.as_str().unwrap_or_default(),
            self.send_id,
            self.retry_safe,
            self.message
        );
        if let Some(a) = &self.answer {
            s.push_str("\n\nAnswer:\n");
            s.push_str(a);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The owner's JSON for a send, as the server reads it.
    fn seen(v: serde_json::Value) -> SendSeen {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn uncertain_says_do_not_send_again_and_ask_the_user() {
        let o = of_send(&seen(json!({"op_id": "mcp-a", "state": "uncertain"})), None);
        assert_eq!(o.status, Status::Uncertain);
        assert!(!o.retry_safe, "an uncertain send is never retry-safe");
        assert!(o.message.contains("Do NOT send it again"), "{}", o.message);
        assert!(o.message.contains("ask the user"), "{}", o.message);
        assert!(
            !o.message.contains("the app stopped"),
            "an uncertain send is not said to come from a stopped app: {}",
            o.message
        );
    }

    #[test]
    fn a_page_error_is_reported_as_the_pages_answer_never_as_uncertain() {
        let o = of_send(
            &seen(json!({"op_id": "x", "state": "page_error", "evidence": "usage limit"})),
            None,
        );
        assert_eq!(o.status, Status::PageError);
        assert!(!o.retry_safe);
        assert!(o.message.contains("usage limit"), "{}", o.message);
        assert!(!o.message.contains("confirm or abandon"), "{}", o.message);
    }

    #[test]
    fn a_completed_send_carries_its_answer_and_the_receipts_conversation() {
        let o = of_send(
            &seen(
                json!({"op_id": "x", "state": "completed", "conversation_id": null,
                    "receipt": {"conversation_id": "c-1"}, "answer": {"text": "hi"}}),
            ),
            Some(&[serde_json::from_value(
                json!({"at": 1, "from": null, "to": "queued", "actor": "client"}),
            )
            .unwrap()]),
        );
        assert_eq!(o.answer.as_deref(), Some("hi"));
        assert_eq!(o.conversation_id.as_deref(), Some("c-1"));
        assert_eq!(o.timeline.as_ref().map(Vec::len), Some(1));
    }

    #[test]
    fn an_accepted_send_whose_answer_was_given_up_is_not_pending_forever() {
        let o = of_send(
            &seen(json!({"op_id": "x", "state": "accepted", "answer_not_observed_at": 5})),
            None,
        );
        assert_eq!(o.status, Status::Completed);
        assert!(!o.retry_safe);
    }

    #[test]
    fn an_unknown_state_is_never_called_safe() {
        let o = of_send(
            &seen(json!({"op_id": "x", "state": "from_the_future"})),
            None,
        );
        assert_eq!(o.status, Status::Uncertain);
        assert!(!o.retry_safe);
    }
}
