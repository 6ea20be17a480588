//! The page's own read of a conversation (`GET /backend-api/conversation/{id}`, which the
//! page makes whenever it shows a conversation: a load, a reload, a switch of chats),
//! forwarded by the tab. Two uses, each keyed by what the ledger already holds:
//!
//! - **Harvest**: an `accepted` send whose answer was not seen — its stream was cut by a
//!   reload, by an owner restart, by a hand-off nobody could follow — is completed from
//!   the read when the read shows the finished answer of the send's *own* turn: the turn
//!   started by the user message whose id the page gave in the send's receipt (never by
//!   text alone). The answer rule is the stream's (`chatgpt::answer_outcome`): a partial,
//!   failed or ambiguous answer completes nothing. Completing is idempotent: a second read
//!   of the same answer changes nothing.
//! - **Evidence**: a send still awaiting its receipt (`dispatched`) or `uncertain` in that
//!   conversation gets a note saying how many user messages with its text the read shows
//!   after the dispatch — a suggestion for a person, never a decision.
//! - **Title**: the page's name for the conversation is kept (bounded, `ledger::titles`),
//!   so the window says where a send goes in words a person knows.

use super::applied::{Answered, Applied};
use super::error::ApiError;
use super::BridgeState;
use crate::ledger::LedgerRead;
use crate::ledger::{EvidenceKind, ListFilter, Send, SendState};
use crate::provider::chatgpt::{self, conversation::ConversationListing, evidence};
use crate::site::Site;

/// Most sends of one state a read is compared with.
const MAX_SENDS: u32 = 100;

/// Applies one forwarded conversation read: answers harvested first, then evidence notes.
/// `listed` is the conversation it shows (its body's id, else the URL's last segment).
pub(crate) async fn apply(
    st: &BridgeState,
    listing: ConversationListing,
    listed: Option<String>,
) -> Result<Vec<Applied>, ApiError> {
    note_title(st, &listing, listed.as_deref()).await;
    let mut applied = Vec::new();
    for send in sends_in(st, Site::Chatgpt, SendState::Accepted).await? {
        if let Some(a) = harvest(st, &listing, listed.as_deref(), send).await? {
            applied.push(a);
        }
    }
    let mut waiting = sends_in(st, Site::Chatgpt, SendState::Uncertain).await?;
    waiting.extend(sends_in(st, Site::Chatgpt, SendState::Dispatched).await?);
    for send in waiting {
        if let Some(a) = evidence_note(st, &listing, listed.as_deref(), send).await? {
            applied.push(a);
        }
    }
    Ok(applied)
}

/// Keeps the title the read gives its conversation. A title that cannot be kept changes
/// nothing else the read does: it is said in the log, without the title.
async fn note_title(st: &BridgeState, listing: &ConversationListing, listed: Option<&str>) {
    let (Some(title), Some(id)) = (listing.title.clone(), listed.map(str::to_string)) else {
        return;
    };
    if let Err(e) = st
        .ledger()
        .call(move |l| l.note_conversation_title(&id, &title))
        .await
    {
        tracing::warn!(error = %e, "the conversation's title could not be kept");
    }
}

/// The newest sends of `site` in `state` (at most [`MAX_SENDS`]): a site's read is never
/// evidence for another site's send.
pub(crate) async fn sends_in(
    st: &BridgeState,
    site: Site,
    state: SendState,
) -> Result<Vec<Send>, ApiError> {
    Ok(st
        .ledger()
        .call(move |l| {
            l.list(&ListFilter {
                states: vec![state],
                limit: Some(MAX_SENDS),
                site: Some(site),
            })
        })
        .await?)
}

/// The finished answer of an accepted send's own turn, when the read shows it: its
/// message id, text, model slug and the files its turn generated.
pub(crate) fn answer_in(
    listing: &ConversationListing,
    listed: Option<&str>,
    send: &Send,
) -> Option<Answered> {
    let receipt = send.receipt.as_ref()?;
    if listed != Some(receipt.conversation_id.as_str()) {
        return None;
    }
    let obs = listing.observation();
    let own = obs.message(&receipt.user_message_id)?;
    if own.role != "user" || crate::send_text::normalise(&own.text) != send.text {
        return None;
    }
    match chatgpt::answer_outcome(&obs, &receipt.user_message_id) {
        chatgpt::TurnOutcome::Answered { message_id, text } => {
            let model = chatgpt::answer_so_far(&obs, &receipt.user_message_id).and_then(|(_, m)| m);
            let artifacts = chatgpt::artifacts::artifacts_of(&obs, &receipt.user_message_id);
            Some(Answered {
                message_id,
                text,
                model,
                artifacts,
            })
        }
        _ => None,
    }
}

async fn harvest(
    st: &BridgeState,
    listing: &ConversationListing,
    listed: Option<&str>,
    send: Send,
) -> Result<Option<Applied>, ApiError> {
    let Some(a) = answer_in(listing, listed, &send) else {
        return Ok(None);
    };
    let (id, m, message_id) = (
        send.op_id.clone(),
        a.message_id.clone(),
        a.message_id.clone(),
    );
    st.ledger()
        .call(move |l| {
            if let Some(model) = &a.model {
                l.door_note_model(&id, model)?;
            }
            l.complete_with_artifacts(&id, (&a.message_id, &a.text), &a.artifacts, "extension")?;
            l.note_evidence(
                &id,
                EvidenceKind::Observed,
                &format!(
                    "answer {m} read from the conversation as the page showed it again \
                     (its stream was cut before the answer was seen)"
                ),
            )
        })
        .await?;
    Ok(Some(Applied::Completed {
        op_id: send.op_id,
        message_id,
    }))
}

async fn evidence_note(
    st: &BridgeState,
    listing: &ConversationListing,
    listed: Option<&str>,
    send: Send,
) -> Result<Option<Applied>, ApiError> {
    let conversation = send
        .receipt
        .as_ref()
        .map(|r| r.conversation_id.clone())
        .or_else(|| send.conversation_id.clone());
    if conversation.is_some() && conversation.as_deref() != listed {
        return Ok(None);
    }
    let ev = evidence::for_uncertain_send(
        listing,
        &send.text,
        send.dispatched_at.unwrap_or(send.created_at),
    );
    if conversation.is_none() && ev.matches.is_empty() {
        // A send whose conversation is not known yet: a chat without its text says nothing
        // about it, and noting every chat the person opens would only bury the trail.
        return Ok(None);
    }
    // Named: a send whose conversation is not known yet (a new chat, a Project) is compared
    // with every conversation the page reads, and a person must see which one it was.
    let seen = match listed {
        Some(id) => format!("observed conversation {id}"),
        None => "observed a conversation the page did not name".to_string(),
    };
    let note = match (ev.matches.len(), ev.exactly_one) {
        (0, _) => format!("{seen}: no user message with this text after the dispatch"),
        (_, true) => format!(
            "{seen}: exactly one user message with this text after the dispatch ({})",
            ev.matches[0].id
        ),
        (n, false) => format!("{seen}: {n} user messages with this text after the dispatch"),
    };
    let (op_id, n) = (send.op_id.clone(), ev.matches.len());
    st.ledger()
        .call(move |l| l.note_evidence(&op_id, EvidenceKind::Observed, &note))
        .await?;
    Ok(Some(Applied::Evidence {
        op_id: send.op_id,
        matching: n,
        exactly_one: ev.exactly_one,
    }))
}
