//! From a [`TurnObservation`] to the two facts the ledger acts on: the native receipt
//! of a send and the answer that completes it.

use super::message::ObservedMessage;
use super::request::{Action, ConversationRequest};
use super::stream::{StreamEnd, TurnObservation};
use crate::provider::ids::looks_like_id;
use crate::send_text::normalise;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// The page's own proof that a send went out: (conversation id, user message id,
/// turn id = `turn_exchange_id`). Fixture: `tests/fixtures/chatgpt/stream_delta_new_chat.sse`
/// with `request_new_chat_f.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NativeReceipt {
    /// The conversation's id (from the request, or the stream for a new chat).
    pub conversation_id: String,
    /// The user message id the page generated and sent in the request.
    pub user_message_id: String,
    /// The turn's `turn_exchange_id` as the server tagged that user message.
    pub turn_id: String,
}

/// The receipt of the send whose text is `send_text`, if the stream shows it:
/// - the request's action is `next` (a regenerate or continue re-uses an old message);
/// - the request's text and the observed user message's text both equal `send_text`
///   under [`normalise`] (line breaks to LF, nothing else; parts joined with `"\n"`);
/// - the observed message has the request's user message id and the role `user`;
/// - the conversation id is the request's (a follow-up) or the stream's (a new chat),
///   and they do not disagree;
/// - the turn id is that user message's own `turn_exchange_id`, else that of an
///   assistant message whose parent is it. Legacy streams carry none: no receipt.
///
/// Never inferred from time, order or position.
pub fn receipt_for(
    req: &ConversationRequest,
    obs: &TurnObservation,
    send_text: &str,
) -> Option<NativeReceipt> {
    if req.action != Action::Next {
        return None;
    }
    let want = normalise(send_text);
    if normalise(&req.text) != want {
        return None;
    }
    let user = obs
        .message(&req.user_message_id)
        .filter(|m| m.role == "user")?;
    if normalise(&user.text) != want {
        return None;
    }
    let conversation_id = match (&req.conversation_id, &obs.conversation_id) {
        (Some(a), Some(b)) if a != b => return None,
        (Some(a), _) | (None, Some(a)) => a.clone(),
        (None, None) => return None,
    };
    let turn_id = user.turn_exchange_id.clone().or_else(|| {
        obs.messages
            .iter()
            .filter(|m| m.role == "assistant" && m.parent_id.as_deref() == Some(user.id.as_str()))
            .find_map(|m| m.turn_exchange_id.clone())
    })?;
    [&conversation_id, &user.id, &turn_id]
        .iter()
        .all(|id| looks_like_id(id))
        .then(|| NativeReceipt {
            conversation_id,
            user_message_id: user.id.clone(),
            turn_id,
        })
}

/// Where a turn stands, as far as the stream shows.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum TurnOutcome {
    /// The finished answer: settles the send.
    Answered {
        /// The answer message's id.
        message_id: String,
        /// Its text (parts joined with `"\n"`).
        text: String,
    },
    /// `stream_handoff`: the rest comes over the WebSocket; nothing settled yet.
    HandedOff,
    /// No finished answer (still streaming, cut off, stopped, `max_tokens`).
    NoAnswerYet,
    /// Moderation blocked the turn.
    Blocked {
        /// What said so (e.g. `moderation: blocked`).
        reason: String,
    },
    /// The stream reported an error, the answer failed, or the answer is ambiguous.
    Error {
        /// The error as the stream gave it (no message text).
        message: String,
    },
}

impl std::fmt::Display for TurnOutcome {
    /// `answered`, `handed off`, `no answer yet`, `blocked`, `error: …` (never the text).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TurnOutcome::Answered { .. } => f.write_str("answered"),
            TurnOutcome::HandedOff => f.write_str("handed off"),
            TurnOutcome::NoAnswerYet => f.write_str("no answer yet"),
            TurnOutcome::Blocked { .. } => f.write_str("blocked"),
            TurnOutcome::Error { message } => write!(f, "error: {message}"),
        }
    }
}

impl std::fmt::Debug for TurnOutcome {
    /// As Display, plus the answer's id and text length.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TurnOutcome::Answered { message_id, text } => {
                write!(
                    f,
                    "Answered {{ message_id: {message_id:?}, text_bytes: {} }}",
                    text.len()
                )
            }
            TurnOutcome::Blocked { reason } => write!(f, "Blocked {{ reason: {reason:?} }}"),
            other => write!(f, "{other}"),
        }
    }
}

/// The outcome of the turn started by the user message `user_message_id`:
/// 1. a moderation block → `Blocked`; an error → `Error`;
/// 2. the turn's messages are those reached from the user message by parent links
///    (plus, where a parent is missing from the stream, messages tagged with the user
///    message's own `turn_exchange_id`) — never by `create_time` or arrival order;
/// 3. exactly one of them passing [`ObservedMessage::is_finished_answer`], or several on
///    one parent chain (the deepest wins) → `Answered`; several on different branches →
///    `Error`; an assistant message with status `failed` → `Error`;
/// 4. else `HandedOff` after a `stream_handoff` whose turn has not completed, else
///    `NoAnswerYet`.
pub fn answer_outcome(obs: &TurnObservation, user_message_id: &str) -> TurnOutcome {
    if let Some(reason) = &obs.blocked {
        return TurnOutcome::Blocked {
            reason: reason.clone(),
        };
    }
    if let Some(message) = &obs.error {
        return TurnOutcome::Error {
            message: message.clone(),
        };
    }
    let turn = turn_messages(obs, user_message_id);
    let answers: Vec<&ObservedMessage> = turn
        .iter()
        .copied()
        .filter(|m| m.is_finished_answer())
        .collect();
    if let Some(last) = answers.last() {
        let chain = ancestors(obs, last);
        if answers[..answers.len() - 1]
            .iter()
            .all(|a| chain.contains(a.id.as_str()))
        {
            return TurnOutcome::Answered {
                message_id: last.id.clone(),
                text: last.text.clone(),
            };
        }
        return TurnOutcome::Error {
            message: format!(
                "{} finished answers on different branches; none is chosen",
                answers.len()
            ),
        };
    }
    if turn
        .iter()
        .any(|m| m.role == "assistant" && m.status.as_deref() == Some("failed"))
    {
        return TurnOutcome::Error {
            message: "the answer message has status failed".into(),
        };
    }
    if obs.handoff.is_some() && obs.end != StreamEnd::TurnComplete {
        return TurnOutcome::HandedOff;
    }
    TurnOutcome::NoAnswerYet
}

/// The answer as far as it has streamed: the text and model slug of the turn's last
/// assistant message addressed to the user (recipient `all`, not hidden, channel `null`
/// or `final`, a text content type), finished or not. For showing progress only: what
/// settles a send is [`answer_outcome`].
pub fn answer_so_far(
    obs: &TurnObservation,
    user_message_id: &str,
) -> Option<(String, Option<String>)> {
    turn_messages(obs, user_message_id)
        .into_iter()
        .rev()
        .find(|m| {
            m.role == "assistant"
                && m.recipient.as_deref() == Some("all")
                && !m.hidden
                && matches!(m.channel.as_deref(), None | Some("final"))
                && m.content_type
                    .as_deref()
                    .is_some_and(|t| super::message::TEXT_CONTENT_TYPES.contains(&t))
        })
        .map(|m| (m.text.clone(), m.model_slug.clone()))
}

/// The messages of the user message's turn, in parent-link order (pre-order from the
/// user message; siblings in arrival order). The user message itself is excluded.
pub fn turn_messages<'a>(
    obs: &'a TurnObservation,
    user_message_id: &str,
) -> Vec<&'a ObservedMessage> {
    let known: HashSet<&str> = obs.messages.iter().map(|m| m.id.as_str()).collect();
    let mut children: HashMap<&str, Vec<&ObservedMessage>> = HashMap::new();
    for m in &obs.messages {
        if let Some(p) = m.parent_id.as_deref() {
            children.entry(p).or_default().push(m);
        }
    }
    let user_turn = obs
        .message(user_message_id)
        .and_then(|u| u.turn_exchange_id.as_deref());
    // Starts: the user message, then orphans of the same turn (parent not in the stream).
    let mut starts: Vec<&str> = vec![user_message_id];
    let mut orphans: Vec<&ObservedMessage> = Vec::new();
    if let Some(turn) = user_turn {
        orphans = obs
            .messages
            .iter()
            .filter(|m| {
                m.id != user_message_id
                    && m.role != "user"
                    && m.turn_exchange_id.as_deref() == Some(turn)
                    && m.parent_id
                        .as_deref()
                        .is_none_or(|p| p != user_message_id && !known.contains(p))
            })
            .collect();
        starts.extend(orphans.iter().map(|m| m.id.as_str()));
    }
    let mut out: Vec<&ObservedMessage> = Vec::new();
    let mut visited: HashSet<&str> = HashSet::new();
    visited.insert(user_message_id);
    for (i, start) in starts.iter().enumerate() {
        if i > 0 {
            if !visited.insert(start) {
                continue;
            }
            out.push(orphans[i - 1]);
        }
        let mut stack: Vec<&ObservedMessage> = children
            .get(start)
            .into_iter()
            .flatten()
            .rev()
            .copied()
            .collect();
        while let Some(m) = stack.pop() {
            if !visited.insert(m.id.as_str()) || m.role == "user" {
                continue;
            }
            out.push(m);
            stack.extend(
                children
                    .get(m.id.as_str())
                    .into_iter()
                    .flatten()
                    .rev()
                    .copied(),
            );
        }
    }
    out
}

/// Ids on `m`'s parent chain within the observation.
fn ancestors<'a>(obs: &'a TurnObservation, m: &'a ObservedMessage) -> HashSet<&'a str> {
    let mut seen = HashSet::new();
    let mut at = m.parent_id.as_deref();
    while let Some(id) = at {
        if !seen.insert(id) {
            break;
        }
        at = obs.message(id).and_then(|p| p.parent_id.as_deref());
    }
    seen
}
