//! The owner's upkeep on [`Ledger`]: the expiry sweep, the notifications of stale
//! uncertain sends and of the limit gate, remote stops' phases, tool-call receipts, and
//! evidence notes for a person.

use super::deadlines;
use super::error::Result;
use super::expiry::{self, Bounds, Expired};
use super::handle::Ledger;
use super::limit_gate;
use super::notifications;
use super::page_gate;
use super::record::{EvidenceKind, Send};
use super::remote_stop::{self, RemotePhase, RemoteStop};
use super::sends;
use super::tool_calls::{self, Admission, ToolCall};
use crate::clock::Millis;
use rusqlite::params;

impl Ledger {
    /// Records that a person was notified of the limit gate's current closing; `false`
    /// when already notified or open.
    pub fn mark_limit_notified(&mut self) -> Result<bool> {
        self.write(limit_gate::mark_notified)
    }

    /// Records that a person was notified of the page-changed gate's current closing;
    /// `false` when already notified or open.
    pub fn mark_page_gate_notified(&mut self) -> Result<bool> {
        self.write(page_gate::mark_notified)
    }

    /// Open remote stops (pending or dispatched), of every send.
    pub fn remote_stops(&self) -> Result<Vec<RemoteStop>> {
        remote_stop::list_open(&self.conn, None)
    }

    /// Open remote stops of the sends `lease_id` took: the ones its tab may click for.
    pub fn remote_stops_of_lease(&self, lease_id: &str) -> Result<Vec<RemoteStop>> {
        remote_stop::list_open(&self.conn, Some(lease_id))
    }

    /// Moves a remote stop to its next phase, as reported by the lease that took the send
    /// (errors: see [`remote_stop::set_phase`]'s refusals in [`LedgerError`]).
    pub fn remote_stop_phase(
        &mut self,
        lease_id: &str,
        op_id: &str,
        phase: RemotePhase,
        evidence: Option<&str>,
    ) -> Result<()> {
        self.write(|tx, now| remote_stop::set_phase(tx, lease_id, op_id, phase, evidence, now))
    }

    /// The bounds the owner's sweep applies: the dispatch grant refuses a claim past
    /// `claim_ms` by them, measured as the sweep measures it (default: [`Bounds::default`]).
    pub fn set_bounds(&mut self, bounds: Bounds) {
        self.bounds = bounds;
    }

    /// Applies the expiry bounds at the current time: each bound measured on the monotonic
    /// clock from when its item came into flight (a wall clock set forward or back moves
    /// none of them); the expiries are recorded at the wall time.
    /// Also makes the brake's reserve again when a full disk used it and there is room now
    /// (while the reserve is missing the owner sweeps at least once a second).
    pub fn expire(&mut self, bounds: &Bounds) -> Result<Expired> {
        if !self.reserve.is_held() && self.reserve.ensure().is_ok() {
            tracing::info!("the brake's reserve is in place again");
        }
        self.refresh_deadlines(self.clock.now_ms(), self.clock.mono_ms());
        let mono = self.clock.mono_ms();
        let due = expiry::Due {
            claims: self.deadlines.due(deadlines::Kind::Claim, bounds, mono),
            receipts: self.deadlines.due(deadlines::Kind::Receipt, bounds, mono),
            answers: self.deadlines.due(deadlines::Kind::Answer, bounds, mono),
            remote_stops: self
                .deadlines
                .due(deadlines::Kind::RemoteStop, bounds, mono),
            leases: self
                .deadlines
                .due(deadlines::Kind::LeaseSilence, bounds, mono),
            artifacts: self
                .deadlines
                .due(deadlines::Kind::ArtifactWanted, bounds, mono),
        };
        self.write(|tx, now| expiry::sweep(tx, bounds, now, &due))
    }

    /// The lease's tab asked the owner something now: its silence bound
    /// ([`Bounds::lease_silence_ms`]) runs again from now. Nothing is written.
    pub fn hear_lease(&mut self, lease_id: &str) {
        let mono = self.clock.mono_ms();
        self.deadlines.hear(lease_id, mono);
    }

    /// Hears from `lease_id` ([`Self::hear_lease`]) and reads its tab's site, in one call
    /// and without a write transaction: the first step of every page observation. Errors:
    /// `UnknownLease`.
    pub fn hear_lease_site(&mut self, lease_id: &str) -> Result<crate::site::Site> {
        use rusqlite::OptionalExtension;
        self.hear_lease(lease_id);
        self.conn
            .prepare_cached("SELECT site FROM leases WHERE lease_id = ?1")?
            .query_row([lease_id], |r| r.get(0))
            .optional()?
            .ok_or_else(|| super::LedgerError::UnknownLease(lease_id.into()))
    }

    /// When the next expiry bound falls due, in ms on the custody clock
    /// ([`Self::custody_now_ms`]), or `None` while nothing is in flight. The owner's sweep
    /// sleeps until then or until the next commit. Looks at the ledger first, so an item a
    /// commit beside the owner put in flight counts.
    pub fn next_expiry_at(&mut self, bounds: &Bounds) -> Result<Option<Millis>> {
        self.refresh_deadlines(self.clock.now_ms(), self.clock.mono_ms());
        Ok(self.deadlines.next(bounds))
    }

    /// Uncertain sends unresolved for at least `threshold_ms` and never notified.
    pub fn stale_uncertain(&self, threshold_ms: Millis) -> Result<Vec<Send>> {
        notifications::stale_uncertain(&self.conn, self.clock.now_ms() - threshold_ms)
    }

    /// When the next uncertain send not yet notified becomes stale (`updated_at +
    /// threshold_ms`, ms on this ledger's clock), counting only those not stale yet;
    /// `None` when there is none. The tray app's notification sweep sleeps until then.
    pub fn next_stale_uncertain_at(&self, threshold_ms: Millis) -> Result<Option<Millis>> {
        notifications::next_stale_uncertain_at(&self.conn, self.clock.now_ms(), threshold_ms)
    }

    /// Records that a person was notified about an uncertain send (once).
    pub fn mark_notified(&mut self, op_id: &str) -> Result<bool> {
        self.write(|tx, now| notifications::mark_notified(tx, op_id, now))
    }

    /// Records evidence of `kind` for a person on a send (a note; its state does not
    /// change). Repeating the latest evidence of that kind writes nothing (notes of other
    /// kinds in between, such as a remote stop's, do not count). Returns whether a note
    /// was written.
    pub fn note_evidence(
        &mut self,
        op_id: &str,
        kind: EvidenceKind,
        evidence: &str,
    ) -> Result<bool> {
        self.note_evidence_saying(op_id, (kind, None), evidence)
    }

    /// [`Self::note_evidence`], with what the note says as data (`says`, written once with
    /// it: readers tell it apart by that, never by its words).
    pub fn note_evidence_saying(
        &mut self,
        op_id: &str,
        (kind, says): (EvidenceKind, Option<crate::ledger::NoteKind>),
        evidence: &str,
    ) -> Result<bool> {
        sends::validate_note("evidence", evidence)?;
        self.write(|tx, now| {
            let send = sends::load(tx, op_id)?;
            let last: Option<String> = tx
                .query_row(
                    "SELECT evidence FROM events WHERE op_id = ?1 AND kind = 'note' \
                     AND evidence_kind = ?2 ORDER BY id DESC LIMIT 1",
                    params![op_id, kind.as_str()],
                    |r| r.get(0),
                )
                .ok()
                .flatten();
            if last.as_deref() == Some(evidence) {
                return Ok(false);
            }
            sends::note_as(tx, &send, "owner", (evidence, Some(kind), says), now)?;
            Ok(true)
        })
    }

    /// Admits a tool call by its native call id (see [`Admission`]).
    pub fn tool_admit(&mut self, call_id: &str) -> Result<Admission> {
        self.write(|tx, now| tool_calls::admit(tx, call_id, now))
    }

    /// Marks a tool call started: the one gate before its side effect.
    pub fn tool_start(&mut self, call_id: &str) -> Result<ToolCall> {
        self.write(|tx, now| tool_calls::start(tx, call_id, now))
    }

    /// Records a tool call's outcome, once.
    pub fn tool_settle(&mut self, call_id: &str, outcome: &str) -> Result<ToolCall> {
        self.write(|tx, now| tool_calls::settle(tx, call_id, outcome, now))
    }

    /// Archives a settled receipt (frees a place under the cap; the row is kept).
    pub fn tool_archive(&mut self, call_id: &str, by: &str) -> Result<ToolCall> {
        self.write(|tx, now| tool_calls::archive(tx, call_id, by, now))
    }
}
