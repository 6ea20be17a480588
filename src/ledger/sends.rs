//! The send lifecycle: queue, claim, dispatch, fail, accept, complete, resolve, requeue.
//! Each function runs inside the caller's immediate transaction; the triggers of
//! migration 0001 re-check the same rules in SQL.

use super::attachments;
use super::destinations;
use super::epochs::{self, Lease};
use super::error::{LedgerError, Result};
use super::in_flight;
use super::record::{EvidenceKind, NoteKind, Receipt, Send};
use super::rows;
use super::state::SendState;
use super::trigger::{self, TriggerRefusal};
use crate::clock::Millis;
use crate::destination::{ChosenBy, Confirmation, Destination, Named};
use crate::send_text;
use rusqlite::{params, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};

/// Longest operation id, in bytes.
pub const MAX_OP_ID_BYTES: usize = 128;
/// Longest actor name or evidence, in bytes.
pub const MAX_NOTE_BYTES: usize = 4096;

/// A request to queue a send. A field it does not know is refused (`conversationId` would
/// otherwise send to the default destination instead of the conversation meant).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueRequest {
    /// Operation id; a UUID v4 is made when absent. Letters, digits and `._:-`, 1–128 bytes.
    #[serde(default)]
    pub op_id: Option<String>,
    /// The chat site (absent: the one a page address names, else chatgpt.com). Part of
    /// the send's identity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<crate::site::Site>,
    /// The text, 1 byte to [`send_text::MAX_TEXT_BYTES`] after normalisation.
    pub text: String,
    /// The conversation it is meant for (its id, or its chatgpt.com URL).
    #[serde(default)]
    pub conversation_id: Option<String>,
    /// A new chat inside this ChatGPT Project (`g-p-…`, or its chatgpt.com URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// A new chat.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub new_chat: bool,
    /// The page's model slug (e.g. `gpt-5-2-thinking`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The thinking effort the page offers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// The files it carries, in order: the `sha256` each upload answered
    /// (`POST /v1/attachments`), at most 10, none twice. Part of its identity.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<String>,
}

impl QueueRequest {
    /// The destination it names (none of the fields: the profile's default).
    pub fn named(&self) -> Named {
        Named {
            site: self.site,
            conversation_id: self.conversation_id.clone(),
            project_id: self.project_id.clone(),
            new_chat: self.new_chat,
            model: self.model.clone(),
            effort: self.effort.clone(),
        }
    }

    /// A request naming `d` (as the send's own choice).
    fn naming(d: &Destination) -> Self {
        QueueRequest {
            site: Some(d.site),
            conversation_id: d.conversation_id.clone(),
            project_id: d.project_id.clone(),
            new_chat: d.kind == crate::destination::Kind::NewChat,
            model: d.model.clone(),
            effort: d.effort.clone(),
            ..Default::default()
        }
    }
}

/// What a person decided about an uncertain send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// It was sent.
    Confirmed,
    /// It was not (or should be treated as not) sent.
    Abandoned,
    /// Abandon it and queue the same text as a new operation linked to it.
    Resend,
}

/// A person's decision with its provenance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resolution {
    /// The decision.
    pub decision: Decision,
    /// Who decided (required).
    pub by: String,
    /// What it rests on (required): the observed matching message, or a short note.
    pub evidence: String,
}

/// Outcome of [`resolve`]: the resolved send, and the new one for a resend.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resolved {
    /// The send after the decision.
    pub send: Send,
    /// The new operation queued by a resend.
    pub resent_as: Option<Send>,
}

pub(crate) fn validate_op_id(op_id: &str) -> Result<()> {
    let ok = !op_id.is_empty()
        && op_id.len() <= MAX_OP_ID_BYTES
        && op_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._:-".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(LedgerError::Invalid(format!(
            "operation id {} is malformed: use 1 to {MAX_OP_ID_BYTES} letters, digits or . _ : -",
            super::error::quoted(op_id)
        )))
    }
}

pub(crate) fn validate_note(what: &str, value: &str) -> Result<()> {
    if value.trim().is_empty() {
        return Err(LedgerError::Invalid(format!("{what} is required")));
    }
    if value.len() > MAX_NOTE_BYTES {
        return Err(LedgerError::Invalid(format!(
            "{what} is longer than {MAX_NOTE_BYTES} bytes: shorten it"
        )));
    }
    Ok(())
}

/// An id the page shows (conversation, thread, workspace): absent, or 1 to 128 printable
/// characters. Errors: `Invalid`, naming `what`.
pub(crate) fn validate_page_id(what: &str, id: Option<&str>) -> Result<()> {
    match id {
        Some(c) if c.is_empty() || c.len() > 128 || c.chars().any(|ch| ch.is_control()) => Err(
            LedgerError::Invalid(format!("{what} must be 1 to 128 printable characters")),
        ),
        _ => Ok(()),
    }
}

/// Normalises and checks a send's text (see [`send_text`]).
pub fn prepare_text(text: &str) -> Result<String> {
    let text = send_text::normalise(text);
    if text.trim().is_empty() {
        return Err(LedgerError::Invalid(
            "the text is empty or only white space (the page would not send it): give the message to send".into(),
        ));
    }
    if text.len() > send_text::MAX_TEXT_BYTES {
        return Err(LedgerError::Invalid(format!(
            "the text is {} bytes, over the limit of {} bytes: split it into several sends",
            text.len(),
            send_text::MAX_TEXT_BYTES
        )));
    }
    Ok(text)
}

pub(crate) fn load(tx: &Transaction, op_id: &str) -> Result<Send> {
    rows::get(tx, op_id)?.ok_or_else(|| LedgerError::UnknownSend(op_id.into()))
}

fn wrong(send: &Send, action: &'static str) -> LedgerError {
    LedgerError::WrongState {
        op_id: send.op_id.clone(),
        state: send.state.to_string(),
        action,
    }
}

/// Runs a write through the connection's statement cache. A statement that writes
/// `sends` is compiled together with every trigger of the table, which costs more CPU
/// than the rest of the transition; cached, it is compiled once per connection.
pub(crate) fn exec(
    tx: &Transaction,
    sql: &str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<usize> {
    tx.prepare_cached(sql)?.execute(params)
}

/// Appends `RETURNING` with the columns of [`rows::SEND_COLUMNS`], in its order, to a
/// statement that writes one `sends` row: the written row comes back from the write
/// itself instead of a second query. The receipt columns are read from `receipts`
/// (immutable once written, and written before the transition that accepts).
macro_rules! returning_send {
    ($sql:literal) => {
        concat!(
            $sql,
            " RETURNING op_id, text, conversation_id, epoch, resend_of, created_at, state, \
             updated_at, actor, evidence, lease_id, claimed_at, dispatched_at, \
             (SELECT r.conversation_id FROM receipts r WHERE r.op_id = sends.op_id), \
             (SELECT r.user_message_id FROM receipts r WHERE r.op_id = sends.op_id), \
             (SELECT r.turn_id FROM receipts r WHERE r.op_id = sends.op_id), \
             answer_message_id, answer_text, answered_at, answer_not_observed_at, notified_at, site"
        )
    };
}

/// Runs a statement built with `returning_send!` through the statement cache and reads
/// the row it wrote. `UnknownSend` when it matched no row.
fn write_returning(
    tx: &Transaction,
    sql: &str,
    params: impl rusqlite::Params,
    op_id: &str,
) -> Result<Send> {
    tx.prepare_cached(sql)?
        .query_row(params, rows::send_from_row)
        .optional()?
        .ok_or_else(|| LedgerError::UnknownSend(op_id.into()))
}

/// Moves a send to `to`, recording actor and evidence (the audit trigger appends the
/// event); returns the send as written.
fn transition(
    tx: &Transaction,
    op_id: &str,
    to: SendState,
    actor: &str,
    evidence: Option<&str>,
    now: Millis,
) -> Result<Send> {
    write_returning(
        tx,
        returning_send!(
            "UPDATE sends SET state = ?1, updated_at = ?2, actor = ?3, evidence = ?4 WHERE op_id = ?5"
        ),
        params![to.as_str(), now, actor, evidence, op_id],
        op_id,
    )
}

/// Appends a note (an event without a state change), with its kind where it has one.
pub(crate) fn note(
    tx: &Transaction,
    send: &Send,
    actor: &str,
    (evidence, kind): (&str, Option<EvidenceKind>),
    now: Millis,
) -> Result<()> {
    note_as(tx, send, actor, (evidence, kind, None), now)
}

/// Appends a note with what it says as data ([`NoteKind`], migration 0024), written once
/// with it: readers tell notes apart by the kind, never by their words.
pub(crate) fn note_as(
    tx: &Transaction,
    send: &Send,
    actor: &str,
    (evidence, kind, says): (&str, Option<EvidenceKind>, Option<NoteKind>),
    now: Millis,
) -> Result<()> {
    exec(
        tx,
        "INSERT INTO events(op_id, kind, from_state, to_state, at, actor, evidence, evidence_kind, note_kind) \
         VALUES (?1, 'note', ?2, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            send.op_id,
            send.state.as_str(),
            now,
            actor,
            evidence,
            kind.map(EvidenceKind::as_str),
            says.map(NoteKind::as_str)
        ],
    )?;
    Ok(())
}

/// The destination `req` names, resolved: the profile's default when it names no place
/// (read only then). Errors: `Invalid` (a malformed id, several places, a bad default).
fn resolve_destination(tx: &Transaction, req: &QueueRequest) -> Result<Destination> {
    let named = req.named();
    let site = named.site().map_err(LedgerError::Invalid)?;
    let default = if named.names_place() {
        Destination::new_chat()
    } else {
        destinations::default_of(tx, site)?
    };
    named.resolve(&default).map_err(LedgerError::Invalid)
}

/// Whether an existing send is the one `req` asks for again: the same text, the same
/// link and the same destination — the one it named, or, naming none, the default it took
/// then (the default may have changed since; the send keeps where it was to go).
fn same_send(
    tx: &Transaction,
    existing: &Send,
    (text, dest, named): (&str, &Destination, &Named),
    (resend_of, files): (Option<&str>, &[String]),
) -> Result<bool> {
    if existing.text != text || existing.resend_of.as_deref() != resend_of {
        return Ok(false);
    }
    if attachments::shas_of(tx, &existing.op_id)? != files {
        return Ok(false);
    }
    let stored = destinations::get(tx, &existing.op_id)?;
    if stored.as_ref().map(|d| d.site).unwrap_or_default() != dest.site {
        return Ok(false);
    }
    Ok(match stored {
        Some(stored) if !named.names_anything() => stored.chosen_by == ChosenBy::Default,
        Some(stored) => stored.chosen_by == ChosenBy::Send && stored.same_as(dest),
        // Admitted before destinations were recorded: only its conversation is known.
        None => {
            let plain = dest.model.is_none() && dest.effort.is_none();
            (!named.names_anything() && existing.conversation_id.is_none())
                || (plain
                    && existing.conversation_id.is_some()
                    && existing.conversation_id == dest.conversation_id)
        }
    })
}

/// Queues a send with its destination (recorded in the same transaction). Returns it and
/// whether it was new (`false`: the same operation was already queued with the same
/// payload — idempotent). Its attachments are written in the same transaction, in order.
/// Errors: `PayloadChanged` (same id, another text, destination or attachments — or the
/// same ones in another order), `EpochStopped`, `Invalid`, `UnknownAttachment`.
pub(crate) fn queue(
    tx: &Transaction,
    req: &QueueRequest,
    actor: &str,
    resend_of: Option<&str>,
    now: Millis,
) -> Result<(Send, bool)> {
    let text = prepare_text(&req.text)?;
    validate_note("actor", actor)?;
    let dest = resolve_destination(tx, req)?;
    attachments::check_list(&req.attachments)?;
    let op_id = match &req.op_id {
        Some(id) => {
            validate_op_id(id)?;
            id.clone()
        }
        None => uuid::Uuid::new_v4().to_string(),
    };
    if let Some(existing) = rows::get(tx, &op_id)? {
        let again = (resend_of, req.attachments.as_slice());
        if same_send(tx, &existing, (&text, &dest, &req.named()), again)? {
            return Ok((existing, false));
        }
        return Err(LedgerError::PayloadChanged(op_id));
    }
    let (closed, generation) = epochs::gate(tx)?;
    if closed {
        return Err(LedgerError::EpochStopped);
    }
    let conversation = dest.conversation_id.as_deref();
    let epoch = epochs::admission_epoch(tx, generation, (dest.site, conversation))?;
    let send = write_returning(
        tx,
        returning_send!(
            "INSERT INTO sends(op_id, text, conversation_id, epoch, resend_of, created_at, state, updated_at, actor, site) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'queued', ?6, ?7, ?8)"
        ),
        params![op_id, text, conversation, epoch, resend_of, now, actor, dest.site],
        &op_id,
    )?;
    destinations::insert(tx, &op_id, &dest)?;
    attachments::insert_for_send(tx, &op_id, &req.attachments)?;
    Ok((send, true))
}

/// Claims the oldest queued send `lease_id` may take now (`in_flight::next_for`: never
/// two in flight in one conversation or one tab, never more than the profile's cap; a send
/// for a conversation no live tab shows is taken by any lease, whose tab goes there before
/// anything is typed — docs/extension.md, "The tab goes to the destination"), unless the
/// usage-limit gate holds or the page-changed gate is closed. `Ok(None)`: nothing to do now.
pub(crate) fn claim_next(tx: &Transaction, lease_id: &str, now: Millis) -> Result<Option<Send>> {
    let lease = epochs::usable_lease(tx, lease_id)?;
    let limit = super::limit_gate::get_for(tx, lease.binding.site)?;
    if limit.holds_at(now) || super::page_gate::get(tx)?.closed {
        return Ok(None);
    }
    let next = in_flight::next_for(tx, &lease)?;
    let Some(op_id) = next else { return Ok(None) };
    let send = write_returning(
        tx,
        returning_send!(
            "UPDATE sends SET state = 'claimed', updated_at = ?1, actor = 'extension', evidence = ?2, \
             lease_id = ?3, claimed_at = ?1 WHERE op_id = ?4"
        ),
        params![now, format!("claimed by lease {lease_id}"), lease_id, op_id],
        &op_id,
    )?;
    Ok(Some(send))
}

/// A tab that leases again (its new chat got its id, or the page moved) takes over the
/// claims its ended leases hold that fit the new binding: sends naming no conversation, or
/// naming the one the tab now shows. Claimed means no grant was asked, so nothing was
/// clicked: the claim moves (a note says so) and `next` hands it to the new lease, instead
/// of the late answer of the old lease's long-poll failing it. Returns the moved op ids
/// (not those rejected because another send is in flight where the tab now is).
pub(crate) fn move_claims_to(tx: &Transaction, lease: &Lease, now: Millis) -> Result<Vec<String>> {
    let mut stmt = tx.prepare_cached(
        "SELECT s.op_id FROM sends s JOIN leases l ON l.lease_id = s.lease_id \
         WHERE s.state = 'claimed' AND l.tab_id = ?1 AND l.ended_at IS NOT NULL AND s.site = ?3 \
           AND (s.conversation_id IS NULL OR s.conversation_id IS ?2) ORDER BY s.seq",
    )?;
    let fitting: Vec<String> = stmt
        .query_map(
            params![
                lease.binding.tab_id,
                lease.binding.conversation_id,
                lease.binding.site
            ],
            |r| r.get(0),
        )?
        .collect::<rusqlite::Result<_>>()?;
    let mut moved = Vec::with_capacity(fitting.len());
    for op_id in &fitting {
        if let Some(busy) = busy_for_move(tx, lease, op_id)? {
            let why = format!(
                "the tab leased again showing conversation {}, where send {busy} is in flight; nothing was clicked (queue it again if it is still wanted)",
                lease.binding.conversation_id.as_deref().unwrap_or_default()
            );
            fail(tx, op_id, &why, "owner", now)?;
            continue;
        }
        exec(
            tx,
            "UPDATE sends SET lease_id = ?1, claimed_at = ?2 WHERE op_id = ?3",
            params![lease.lease_id, now, op_id],
        )?;
        let send = load(tx, op_id)?;
        let why = format!(
            "claim moved to lease {} (the tab leased again for the conversation it now shows; nothing was clicked)",
            lease.lease_id
        );
        note(tx, &send, "extension", (&why, None), now)?;
        moved.push(op_id.clone());
    }
    Ok(moved)
}

/// The send in flight in the conversation a claim naming none would take on under
/// `lease` (the one its tab now shows), other than the claim itself: the claim cannot move
/// there (never two in flight in one conversation).
fn busy_for_move(tx: &Transaction, lease: &Lease, op_id: &str) -> Result<Option<String>> {
    let named = load(tx, op_id)?.conversation_id;
    let Some(c) = named.or_else(|| lease.binding.conversation_id.clone()) else {
        return Ok(None);
    };
    Ok(in_flight::in_conversation(
        tx,
        lease.binding.site,
        &c,
        Some(op_id),
    )?)
}

/// The answer to a grant ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grant {
    /// `dispatched` is committed: the tab may click, once.
    Granted(Send),
    /// The tab did not confirm the send's destination: the send is rejected (nothing was
    /// clicked), committed, with `reason` as its evidence.
    Refused {
        /// The send, now rejected.
        send: Send,
        /// Why, naming what the tab showed and what the send is for.
        reason: String,
    },
    /// The page's uploaded files are not the send's attachments: the send is rejected
    /// (nothing was clicked), committed, with `reason` as its evidence.
    Mismatch {
        /// The send, now rejected.
        send: Send,
        /// Why, naming the difference.
        reason: String,
    },
    /// The claim was past its bound when the grant was asked (the expiry sweep had not run
    /// yet): the send is failed as the sweep fails it — rejected, nothing clicked —
    /// committed, with the sweep's words as `reason`.
    Expired {
        /// The send, now rejected.
        send: Send,
        /// The sweep's reason ("claim expired: …").
        reason: String,
    },
    /// The usage limit closed the limit gate after the send was claimed: the send is
    /// rejected (nothing was clicked), committed, with `reason` as its evidence.
    Held {
        /// The send, now rejected.
        send: Send,
        /// Why, with what to do.
        reason: String,
    },
}

/// Why the grant is refused for the send's destination, given what the tab confirmed;
/// `None`: it may be granted. A send admitted before destinations were recorded, or one
/// that took the default while the tab confirms nothing (an extension that predates
/// confirmations), is granted as before; a destination the send named itself is never
/// granted on a confirmation of nothing (fail closed).
fn destination_refusal(
    tx: &Transaction,
    op_id: &str,
    confirmed: Option<&Confirmation>,
) -> Result<Option<String>> {
    let Some(dest) = destinations::get(tx, op_id)? else {
        return Ok(None);
    };
    Ok(match confirmed {
        Some(c) => dest.refusal(c),
        None if dest.chosen_by == ChosenBy::Send => Some(format!(
            "the tab confirmed no destination; the send is for {}: nothing was clicked (update the extension, then queue it again)",
            dest.words()
        )),
        None => None,
    })
}

/// Why the grant is refused while the usage limit holds at `now` (the gate closed after
/// the send was claimed: a limit means nothing more is clicked until the reset); `None`:
/// the gate is open.
fn limit_refusal(tx: &Transaction, op_id: &str, now: Millis) -> Result<Option<String>> {
    let gate = super::limit_gate::of_send(tx, op_id)?;
    if !gate.holds_at(now) {
        return Ok(None);
    }
    let until = match gate.until_ms {
        Some(_) => "until the time the page named",
        None => "until a person resumes",
    };
    Ok(Some(format!(
        "the account's usage limit closed the gate after this send was claimed, {until}: \
         nothing was clicked (queue it again once sending resumes)"
    )))
}

/// The dispatch grant: claimed by this lease, the tab showing the send's destination →
/// dispatched, only once, only while the epoch is not stopped — all checked in this
/// transaction. The fence (gate, the send's and the lease's epoch, the lease still live)
/// is checked once, by the database: trigger `sends_dispatch_fenced` refuses the write
/// itself. Only a refusal reads the lease again, to say whether it ended (`LeaseEnded`)
/// or the epoch is stopped (`EpochStopped`). A destination the tab did not confirm
/// rejects the send in this transaction ([`Grant::Refused`]); so does a limit gate that
/// holds (closed after the claim, [`Grant::Held`]).
pub(crate) fn dispatch(
    tx: &Transaction,
    (op_id, lease_id): (&str, &str),
    confirmed: Option<&Confirmation>,
    overdue: Option<&str>,
    now: Millis,
) -> Result<Grant> {
    let send = load(tx, op_id)?;
    if send.state != SendState::Claimed {
        return Err(LedgerError::NotGranted(format!(
            "send {op_id} is {}, not claimed: do not click",
            send.state
        )));
    }
    if send.lease_id.as_deref() != Some(lease_id) {
        return Err(LedgerError::NotGranted(format!(
            "send {op_id} is claimed by another lease: do not click"
        )));
    }
    if let Some(reason) = overdue {
        let send = fail(tx, op_id, reason, "owner", now)?;
        let reason = reason.to_string();
        return Ok(Grant::Expired { send, reason });
    }
    let held = match limit_refusal(tx, op_id, now)? {
        Some(r) => Some(r),
        None => super::page_gate::refusal(tx)?,
    };
    if let Some(reason) = held {
        let send = transition(tx, op_id, SendState::Rejected, "owner", Some(&reason), now)?;
        return Ok(Grant::Held { send, reason });
    }
    if let Some(reason) = destination_refusal(tx, op_id, confirmed)? {
        let send = transition(tx, op_id, SendState::Rejected, "owner", Some(&reason), now)?;
        return Ok(Grant::Refused { send, reason });
    }
    let files = confirmed.and_then(|c| c.attachments.as_deref());
    if let Some(reason) = attachments::grant_check(tx, op_id, files)? {
        let send = transition(tx, op_id, SendState::Rejected, "owner", Some(&reason), now)?;
        return Ok(Grant::Mismatch { send, reason });
    }
    let granted = write_returning(
        tx,
        returning_send!(
            "UPDATE sends SET state = 'dispatched', updated_at = ?1, actor = 'extension', \
             evidence = 'dispatch granted', dispatched_at = ?1 WHERE op_id = ?2"
        ),
        params![now, op_id],
        op_id,
    );
    match granted {
        Err(LedgerError::Sqlite(e)) if fenced(&e) => {
            epochs::usable_lease(tx, lease_id)?;
            Err(LedgerError::EpochStopped)
        }
        other => other.map(Grant::Granted),
    }
}

/// Whether a write was refused by a fence trigger ("epoch stopped: …").
fn fenced(e: &rusqlite::Error) -> bool {
    matches!(trigger::refusal(e), Some((TriggerRefusal::EpochStopped, _)))
}

/// Where a failure was witnessed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailStage {
    /// Before the grant was asked: nothing was clicked.
    BeforeDispatch,
    /// After the grant: the click may have happened.
    AfterDispatch,
}

/// A failure witnessed by the caller: claimed → rejected, dispatched → uncertain.
pub(crate) fn fail(
    tx: &Transaction,
    op_id: &str,
    reason: &str,
    actor: &str,
    now: Millis,
) -> Result<Send> {
    validate_note("reason", reason)?;
    let send = load(tx, op_id)?;
    let to = match send.state {
        SendState::Claimed => SendState::Rejected,
        SendState::Dispatched => SendState::Uncertain,
        _ => return Err(wrong(&send, "failed")),
    };
    transition(tx, op_id, to, actor, Some(reason), now)
}

/// Records the native receipt: dispatched or uncertain → accepted. Reobserving the same
/// receipt is a no-op; it grants nothing.
pub(crate) fn accept(
    tx: &Transaction,
    op_id: &str,
    receipt: &Receipt,
    actor: &str,
    now: Millis,
) -> Result<Send> {
    let send = load(tx, op_id)?;
    if let Some(existing) = &send.receipt {
        if existing == receipt {
            return Ok(send);
        }
        return Err(LedgerError::ReceiptOwnerChanged(op_id.into()));
    }
    if send.dispatched_at.is_none() {
        return Err(LedgerError::ReceiptBeforeDispatch(op_id.into()));
    }
    let owner: Option<String> = rows::cached_row(
        tx,
        "SELECT op_id FROM receipts WHERE conversation_id = ?1 AND user_message_id = ?2",
        params![receipt.conversation_id, receipt.user_message_id],
        |r| r.get(0),
    )
    .optional()?;
    if let Some(owner) = owner {
        return Err(LedgerError::ReceiptTaken { owner });
    }
    if !matches!(send.state, SendState::Dispatched | SendState::Uncertain) {
        return Err(wrong(&send, "accepted"));
    }
    exec(
        tx,
        "INSERT INTO receipts(op_id, conversation_id, user_message_id, turn_id, observed_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![op_id, receipt.conversation_id, receipt.user_message_id, receipt.turn_id, now],
    )?;
    // A new chat's lease now knows where its tab is going (migration 0026).
    exec(
        tx,
        "UPDATE leases SET new_chat_id = ?1 WHERE lease_id = ?2 AND conversation_id IS NULL AND new_chat_id IS NULL",
        params![receipt.conversation_id, send.lease_id],
    )?;
    let evidence = format!(
        "native receipt: conversation {}, user message {}, turn {}",
        receipt.conversation_id, receipt.user_message_id, receipt.turn_id
    );
    transition(tx, op_id, SendState::Accepted, actor, Some(&evidence), now)
}

/// Records the final answer: accepted → completed.
pub(crate) fn complete(
    tx: &Transaction,
    op_id: &str,
    message_id: &str,
    text: &str,
    actor: &str,
    now: Millis,
) -> Result<Send> {
    let send = load(tx, op_id)?;
    if send.state == SendState::Completed
        && send.answer.as_ref().map(|a| a.message_id.as_str()) == Some(message_id)
    {
        return Ok(send);
    }
    if send.state != SendState::Accepted {
        return Err(wrong(&send, "completed"));
    }
    if message_id.is_empty() {
        return Err(LedgerError::Invalid(
            "the answer's message id is empty".into(),
        ));
    }
    write_returning(
        tx,
        returning_send!(
            "UPDATE sends SET state = 'completed', updated_at = ?1, actor = ?2, evidence = ?3, \
             answer_message_id = ?4, answer_text = ?5, answered_at = ?1 WHERE op_id = ?6"
        ),
        params![
            now,
            actor,
            format!("final answer {message_id}"),
            message_id,
            text,
            op_id
        ],
        op_id,
    )
}

/// How long a usage limit holds the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitHold {
    /// When sending may resume (ms since the Unix epoch), as the page named it; `None`:
    /// the page named no time, so only a person's resume opens the gate.
    pub until_ms: Option<Millis>,
}

/// What the page said when it ended a send's turn with an error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageError {
    /// The page's own message (1 to [`MAX_NOTE_BYTES`] bytes; never the send's text).
    pub message: String,
    /// Set when the error is the account's usage limit: close the limit gate.
    pub limit: Option<LimitHold>,
}

/// accepted → page_error (terminal), evidence the page's message; a usage limit closes
/// the limit gate in the same transaction. Already page_error: returned as it is.
pub(crate) fn page_error(
    tx: &Transaction,
    op_id: &str,
    error: &PageError,
    actor: &str,
    now: Millis,
) -> Result<Send> {
    let evidence = match error.limit {
        Some(_) => format!("the page answered with its usage limit: {}", error.message),
        None => format!("the page answered with an error: {}", error.message),
    };
    let from = (SendState::Accepted, "ended with a page error");
    end_with_page_error(tx, op_id, from, (&evidence, error), (actor, now))
}

/// dispatched → page_error (terminal): the server refused the page's conversation request
/// for this send (HTTP `status`, see `provider::chatgpt::refused_request`), so the message
/// was not taken; evidence the page's words. A hold closes the limit gate in the same
/// transaction. Already page_error: returned as it is.
pub(crate) fn refused(
    tx: &Transaction,
    op_id: &str,
    (status, error): (u16, &PageError),
    actor: &str,
    now: Millis,
) -> Result<Send> {
    let evidence = format!(
        "the server refused the page's conversation request (HTTP {status}), so the message was not taken: {}",
        error.message
    );
    let from = (SendState::Dispatched, "ended by a refused request");
    end_with_page_error(tx, op_id, from, (&evidence, error), (actor, now))
}

/// `from` → page_error with `evidence`; the error's hold closes the limit gate. A send
/// already page_error is returned as it is; one in another state is refused (`action`).
fn end_with_page_error(
    tx: &Transaction,
    op_id: &str,
    (from, action): (SendState, &'static str),
    (evidence, error): (&str, &PageError),
    (actor, now): (&str, Millis),
) -> Result<Send> {
    validate_note("the page's error message", &error.message)?;
    let send = load(tx, op_id)?;
    if send.state == SendState::PageError {
        return Ok(send);
    }
    if send.state != from {
        return Err(wrong(&send, action));
    }
    transition(tx, op_id, SendState::PageError, actor, Some(evidence), now)?;
    if let Some(hold) = error.limit {
        super::limit_gate::close(tx, hold.until_ms, &error.message, op_id, now)?;
    }
    load(tx, op_id)
}

/// A person's decision on an uncertain send.
pub(crate) fn resolve(
    tx: &Transaction,
    op_id: &str,
    r: &Resolution,
    now: Millis,
) -> Result<Resolved> {
    validate_note("who decided (--by)", &r.by)?;
    validate_note("evidence", &r.evidence)?;
    let send = load(tx, op_id)?;
    if send.state != SendState::Uncertain {
        return Err(wrong(&send, "resolved"));
    }
    let to = match r.decision {
        Decision::Confirmed => SendState::Confirmed,
        Decision::Abandoned | Decision::Resend => SendState::Abandoned,
    };
    let evidence = match r.decision {
        Decision::Resend => format!("resend as new: {}", r.evidence),
        _ => r.evidence.clone(),
    };
    let resolved = transition(tx, op_id, to, &r.by, Some(&evidence), now)?;
    let resent_as = match r.decision {
        Decision::Resend => Some(queue_again_unchecked(tx, &send, &r.by, now)?),
        _ => None,
    };
    Ok(Resolved {
        send: resolved,
        resent_as,
    })
}

/// "Queue again" for a stopped, rejected or page-refused send: a new operation linked to
/// the old one (a person's decision). Asking twice returns the same new operation.
pub(crate) fn requeue(tx: &Transaction, op_id: &str, by: &str, now: Millis) -> Result<Send> {
    validate_note("who decided (--by)", by)?;
    let send = load(tx, op_id)?;
    if !matches!(
        send.state,
        SendState::Stopped | SendState::Rejected | SendState::PageError
    ) {
        return Err(wrong(
            &send,
            "queued again (only stopped, rejected or page_error sends are)",
        ));
    }
    queue_again_unchecked(tx, &send, by, now)
}

/// A person takes back one send before it is clicked: queued or claimed → stopped, with
/// who and why on its audit trail. A claimed send's tab asks for its grant only after this
/// commits or before it: before, the send is dispatched and this refuses; after,
/// [`dispatch`] refuses (it is no longer claimed), so nothing is clicked either way — the
/// same re-check that makes Stop safe. The epoch is not fenced and the gate stays open:
/// the other sends go on. A send already stopped or rejected (it never left this
/// computer) is answered as it is, writing nothing: a retried withdrawal is the same one.
/// Errors: [`LedgerError::WrongState`] for any other state (a dispatched send was
/// clicked: Stop asks its tab to stop the answer).
pub(crate) fn withdraw(tx: &Transaction, op_id: &str, by: &str, now: Millis) -> Result<Send> {
    validate_note("who decided (--by)", by)?;
    let send = load(tx, op_id)?;
    match send.state {
        SendState::Queued | SendState::Claimed => {
            let why = format!("withdrawn by {by} before it was clicked: nothing was sent");
            transition(tx, op_id, SendState::Stopped, by, Some(&why), now)
        }
        SendState::Stopped | SendState::Rejected => Ok(send),
        _ => Err(wrong(
            &send,
            "withdrawn (only a send not yet clicked is: a clicked send went out; Stop asks its tab to stop the answer)",
        )),
    }
}

fn queue_again_unchecked(tx: &Transaction, old: &Send, by: &str, now: Millis) -> Result<Send> {
    let existing: Option<String> = rows::cached_row(
        tx,
        "SELECT op_id FROM sends WHERE resend_of = ?1 ORDER BY seq LIMIT 1",
        [&old.op_id],
        |r| r.get(0),
    )
    .optional()?;
    if let Some(id) = existing {
        return load(tx, &id);
    }
    // Queued again, it goes where the first one was to go: taking the default again when
    // that is still where the default leads (so it is granted as the first would have
    // been), else naming the place.
    let req = match destinations::get(tx, &old.op_id)? {
        Some(d)
            if d.chosen_by == ChosenBy::Default
                && destinations::default_of(tx, d.site).is_ok_and(|now| now.same_as(&d)) =>
        {
            QueueRequest {
                text: old.text.clone(),
                site: Some(d.site),
                ..Default::default()
            }
        }
        Some(d) => QueueRequest {
            text: old.text.clone(),
            ..QueueRequest::naming(&d)
        },
        None => QueueRequest {
            text: old.text.clone(),
            conversation_id: old.conversation_id.clone(),
            ..Default::default()
        },
    };
    let req = QueueRequest {
        attachments: attachments::shas_of(tx, &old.op_id)?,
        ..req
    };
    let (send, _) = queue(tx, &req, by, Some(&old.op_id), now)?;
    Ok(send)
}
