//! The one typed surface for every door: the CLI (when it owns the ledger itself), the
//! bridge's routes, the tray app — and the companion doors. A [`Request`] is a change a
//! client asks for; [`apply`] commits it and answers a typed [`Outcome`]; the queries
//! ([`queue`], [`show`], [`keys()`]) answer typed views. JSON exists only where a door serialises these
//! (the bridge, the Tauri commands, the CLI's `--json`), in the shapes of docs/bridge-api.md.

pub mod answers;
pub mod error;
pub mod ids;
mod in_process;
pub mod keys;
pub mod outside;
pub mod queue;
pub mod settings;

pub use error::{ErrorClass, ErrorCode};
pub use ids::{LeaseId, OperationId, ToolCallId};
pub use in_process::Api;
pub use keys::{keys, KeySecret};

use crate::ledger::{
    Admission, ApiKey, Decision, Event, Ledger, LedgerError, QueueRequest, Resolution, Resolved,
    Send, StopReport, ToolCall,
};
use serde::{Deserialize, Serialize};

/// A change a client asks of the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "request", rename_all = "snake_case")]
pub enum Request {
    /// Queue a send (idempotent per operation id).
    Queue { send: QueueRequest, actor: String },
    /// A person's decision on an uncertain send.
    Resolve {
        op_id: OperationId,
        resolution: Resolution,
    },
    /// Queue again a stopped or rejected send.
    Requeue { op_id: OperationId, by: String },
    /// Take back one send before it is clicked (queued or claimed → stopped), by a person.
    Withdraw { op_id: OperationId, by: String },
    /// Stop: fence the epoch, close the gate.
    Stop { by: String },
    /// Resume after a Stop.
    Resume { by: String },
    /// Admit a tool call.
    ToolAdmit { call_id: ToolCallId },
    /// Start a tool call's side effect.
    ToolStart { call_id: ToolCallId },
    /// Record a tool call's outcome.
    ToolSettle {
        call_id: ToolCallId,
        outcome: String,
    },
    /// Archive a settled tool receipt.
    ToolArchive { call_id: ToolCallId, by: String },
    /// Record that a person was notified that an uncertain send waits (once).
    MarkNotified { op_id: OperationId },
    /// Make a named API key of `scope` for a companion or another machine (a person's
    /// act, `by` who).
    KeyCreate {
        name: String,
        scope: crate::ledger::KeyScope,
        by: String,
    },
    /// Revoke the live key `name` (final; a person's act, `by` who); with `key_sha256`
    /// (lowercase hex SHA-256 of its secret), only if the live key of that name is that key.
    KeyRevoke {
        name: String,
        by: String,
        key_sha256: Option<String>,
    },
    /// Set retention (issue 39): settled sends older than `days` days are pruned by the
    /// owner's upkeep; `None` turns it off (the default). A person's act, `by` who.
    SetRetention { days: Option<u32>, by: String },
    /// Set how many sends may be in flight at once across the profile (1 to
    /// [`crate::profile::config::MAX_IN_FLIGHT`]): `config.json` and the ledger's copy
    /// ([`settings`]).
    SetMaxInFlight { max_in_flight: i64 },
    /// Set where a send that names no place goes on `site`, checked like a send's place
    /// (queued sends keep theirs): `config.json` and the ledger's copy ([`settings`]).
    SetDefaultDestination {
        #[serde(default)]
        site: crate::site::Site,
        destination: crate::destination::Named,
    },
}

impl Request {
    /// Why `self` is refused with no owner running ([`Caller::Offline`]), before anything
    /// is opened: a new send would never reach a browser ([`LedgerError::NoOwner`]), and
    /// with no owner nothing is being sent, so there is nothing to withdraw
    /// ([`LedgerError::NoOwnerToWithdraw`]).
    pub fn offline_refusal(&self) -> Option<LedgerError> {
        if self.admits_send() {
            return Some(LedgerError::NoOwner);
        }
        matches!(self, Self::Withdraw { .. }).then_some(LedgerError::NoOwnerToWithdraw)
    }

    /// Whether applying it admits a new send (queue, requeue, resolve with resend): only
    /// the owner may, since only the owner's dispatch loop can hand a send to a browser.
    pub fn admits_send(&self) -> bool {
        match self {
            Self::Queue { .. } | Self::Requeue { .. } => true,
            Self::Resolve { resolution, .. } => resolution.decision == Decision::Resend,
            _ => false,
        }
    }
}

/// Who applies a request, which decides whether it may admit a send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// The owner (the bridge's client routes, the tray app): its dispatch loop serves
    /// what it admits.
    Owner,
    /// Anyone holding the ledger without serving it (the CLI with no owner running): a
    /// send admitted here could only be rejected by the next owner's recovery, so it is
    /// refused with [`LedgerError::NoOwner`] and nothing is written.
    Offline,
}

/// What a committed [`Request`] did. Serialised (untagged) it is the route's JSON answer
/// of docs/bridge-api.md, e.g. `{"send": Send, "created": true}` for a queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
// An outcome lives only on its way to a door's answer; boxing the resend would change the
// shape every door matches on for no measurable gain.
#[allow(clippy::large_enum_variant)]
pub enum Outcome {
    /// `Queue`: the send, and whether it is new (`false`: the same operation, idempotent).
    Queued { send: Send, created: bool },
    /// `Resolve`: the send after the decision (and the resend it queued).
    Resolved { resolved: Box<Resolved> },
    /// `Stop`: what the fence covered, committed before this value exists.
    Stopped { stop: StopReport },
    /// `Resume`: whether the gate was closed.
    Resumed { resumed: bool },
    /// `ToolStart`, `ToolSettle`, `ToolArchive`: the receipt after the change.
    Tool { tool_call: ToolCall },
    /// `Requeue`: the new operation linked to the old one.
    Requeued { send: Send },
    /// `Withdraw`: the send, now stopped.
    Withdrawn { send: Send },
    /// `MarkNotified`: whether this call recorded it (`false`: recorded before).
    Notified { notified: bool },
    /// `KeyCreate`: the new key and its secret, the only time the secret is handed out.
    KeyCreated { key: ApiKey, secret: KeySecret },
    /// `KeyRevoke`: the key as revoked.
    KeyRevoked { key: ApiKey },
    /// `SetRetention`: the setting as committed.
    RetentionSet { retention: crate::ledger::Retention },
    /// `SetMaxInFlight`: the value now in force.
    MaxInFlightSet { max_in_flight: u32 },
    /// `SetDefaultDestination`: the default now in force, and in words.
    DefaultDestinationSet {
        default_destination: crate::destination::Destination,
        words: String,
    },
    /// `ToolAdmit`: whether the side effect may run.
    Admitted(Admission),
}

/// Applies `req` to the owner's ledger; the outcome is committed before it is returned.
/// The same as [`apply_as`] with [`Caller::Owner`].
pub fn apply(ledger: &mut Ledger, req: &Request) -> Result<Outcome, LedgerError> {
    apply_as(Caller::Owner, ledger, req)
}

/// Applies `req` for `caller`. Errors: [`LedgerError::NoOwner`] when an
/// [`Caller::Offline`] request admits a send (see [`Request::admits_send`]), with
/// nothing written; else the ledger's own refusals.
pub fn apply_as(
    caller: Caller,
    ledger: &mut Ledger,
    req: &Request,
) -> Result<Outcome, LedgerError> {
    if let Some(no) = req.offline_refusal().filter(|_| caller == Caller::Offline) {
        return Err(no);
    }
    Ok(match req {
        Request::Queue { send, actor } => {
            let (send, created) = ledger.queue(send, actor)?;
            Outcome::Queued { send, created }
        }
        Request::Resolve { op_id, resolution } => Outcome::Resolved {
            resolved: Box::new(ledger.resolve(op_id.as_str(), resolution)?),
        },
        Request::Requeue { op_id, by } => Outcome::Requeued {
            send: ledger.requeue(op_id.as_str(), by)?,
        },
        Request::Withdraw { op_id, by } => Outcome::Withdrawn {
            send: ledger.withdraw(op_id.as_str(), by)?,
        },
        Request::Stop { by } => Outcome::Stopped {
            stop: ledger.stop(by)?,
        },
        Request::Resume { by } => Outcome::Resumed {
            resumed: ledger.resume(by)?,
        },
        Request::ToolAdmit { call_id } => Outcome::Admitted(ledger.tool_admit(call_id.as_str())?),
        Request::ToolStart { call_id } => Outcome::Tool {
            tool_call: ledger.tool_start(call_id.as_str())?,
        },
        Request::ToolSettle { call_id, outcome } => Outcome::Tool {
            tool_call: ledger.tool_settle(call_id.as_str(), outcome)?,
        },
        Request::ToolArchive { call_id, by } => Outcome::Tool {
            tool_call: ledger.tool_archive(call_id.as_str(), by)?,
        },
        Request::MarkNotified { op_id } => Outcome::Notified {
            notified: ledger.mark_notified(op_id.as_str())?,
        },
        Request::KeyCreate { name, scope, by } => {
            let (key, secret) = keys::create(ledger, name, *scope, by)?;
            Outcome::KeyCreated { key, secret }
        }
        Request::KeyRevoke {
            name,
            by,
            key_sha256,
        } => Outcome::KeyRevoked {
            key: keys::revoke(ledger, name, by, key_sha256.as_deref())?,
        },
        Request::SetRetention { days, by } => Outcome::RetentionSet {
            retention: ledger.set_retention(*days, by)?,
        },
        Request::SetMaxInFlight { .. } | Request::SetDefaultDestination { .. } => {
            settings::apply(ledger, req)?
        }
    })
}

/// How long the owner waits for a tab to answer *Check this page*, in ms (issue 35;
/// `POST /v1/page-check`).
pub const PAGE_CHECK_WAIT_MS: u64 = 10_000;

/// One send with its audit trail (`GET /v1/sends/{op_id}`, `sendledger show`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SendView {
    /// The send as committed.
    pub send: Send,
    /// Its audit trail, oldest first.
    pub timeline: Vec<Event>,
    /// Why it waits, for a queued send something holds back (usage limit, no usable tab,
    /// another send in flight, Stop), as a sentence.
    pub waiting: Option<String>,
    /// The stop of its answer a Stop asked the tab for, in its phase (`pending`,
    /// `dispatched`, `confirmed`, `uncertain`) with the tab's evidence; absent from owners
    /// before it was shown.
    #[serde(default)]
    pub remote_stop: Option<crate::ledger::RemoteStop>,
    /// Where it goes, recorded at queue time (its own choice or the profile's default
    /// then); absent for a send admitted before destinations were recorded.
    #[serde(default)]
    pub destination: Option<crate::destination::Destination>,
    /// What the page's own conversation request named after the click (conversation,
    /// model), and the `destination_mismatch` sentence when it was not the destination.
    #[serde(default)]
    pub page_destination: Option<crate::ledger::PageDestination>,
    /// The files it carries, in order (`sha256`, `name`, `mime`, `size`, and the page's
    /// `file_id` once the grant recorded it); empty for a send without.
    #[serde(default)]
    pub attachments: Vec<crate::ledger::SendAttachment>,
    /// What the page's own conversation request carried after the click (its files), and
    /// the `attachment_mismatch` sentence when they were not the send's.
    #[serde(default)]
    pub page_attachments: Option<crate::ledger::PageAttachments>,
    /// The files its answer generated, in order (`n`, `state` wanted / stored /
    /// unavailable, `file_id`, `name`, `mime`, `size`, `sha256`, `width`, `height`,
    /// `words`); empty for a send without. Stored ones are served at
    /// `GET /v1/sends/{op_id}/artifacts/{n}`.
    #[serde(default)]
    pub artifacts: Vec<crate::ledger::Artifact>,
    /// When the page refused this send with the account's usage limit or *too many
    /// requests* and the limit gate still holds: how long to wait before sending again
    /// (`seconds`, `until_ms`); what the doors answer.
    #[serde(default)]
    pub retry_after: Option<crate::ledger::RetryAfter>,
    /// The check of the page its tab sent when it failed the send on a page fact (issue 35):
    /// which facts held, failed or were not seen, with what the page showed (structure only).
    #[serde(default)]
    pub page_check: Option<crate::ledger::PageCheck>,
}

/// One send with its timeline, from the owner's ledger or a reader.
pub fn show(
    src: &impl crate::ledger::LedgerRead,
    op_id: &OperationId,
) -> Result<SendView, LedgerError> {
    let send = src
        .get(op_id.as_str())?
        .ok_or_else(|| LedgerError::UnknownSend(op_id.to_string()))?;
    Ok(SendView {
        timeline: src.timeline(op_id.as_str())?,
        waiting: src.waiting_sentence(&send)?,
        remote_stop: src.remote_stop(op_id.as_str())?,
        destination: src.destination(op_id.as_str())?,
        page_destination: src.page_destination(op_id.as_str())?,
        attachments: src.attachments_of(op_id.as_str())?,
        page_attachments: src.page_attachments(op_id.as_str())?,
        artifacts: src.artifacts(op_id.as_str())?,
        retry_after: src.retry_after(op_id.as_str())?,
        page_check: src.page_check_of(op_id.as_str())?,
        send,
    })
}
