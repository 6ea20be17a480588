//! The custody acts on [`Ledger`] for sends and leases, each one immediate transaction
//! committed before it returns (the rules are in `sends`, `leases` and `epochs`).

use super::attachments;
use super::deadlines;
use super::destinations;
use super::epochs::{self, Lease, TabBinding};
use super::error::{LedgerError, Result};
use super::expiry;
use super::handle::Ledger;
use super::in_flight;
use super::leases;
use super::page_checks::{self, PageCheck};
use super::page_destination::{self, PageDestination};
use super::record::{Receipt, Send};
use super::sends::{self, Grant, PageError, QueueRequest, Resolution, Resolved};
use super::tab_reports::{self, TabReport};
use super::titles;

impl Ledger {
    /// Queues a send (idempotent per operation id). Returns the send and whether it is new.
    /// Errors: `PayloadChanged`, `EpochStopped`, `Invalid`.
    pub fn queue(&mut self, req: &QueueRequest, actor: &str) -> Result<(Send, bool)> {
        self.write(|tx, now| sends::queue(tx, req, actor, None, now))
    }

    /// Takes a lease on a tab: a new epoch. Errors: `EpochStopped` while the gate is closed.
    pub fn lease(&mut self, binding: &TabBinding) -> Result<Lease> {
        Ok(self.lease_taking_claims(binding)?.0)
    }

    /// [`Self::lease`], with the op ids of the claims the new lease took over from the tab's
    /// ended leases (claims naming no conversation or the one the tab now shows: nothing
    /// was clicked; a claim rejected because another send is in flight there is not named).
    /// A tab that moved to a new chat in place types a send named here at once (issue 39).
    pub fn lease_taking_claims(&mut self, binding: &TabBinding) -> Result<(Lease, Vec<String>)> {
        self.write(|tx, now| {
            let lease = leases::lease(tx, binding, now)?;
            tab_reports::clear(tx, &binding.tab_id)?;
            let moved = sends::move_claims_to(tx, &lease, now)?;
            Ok((lease, moved))
        })
    }

    /// Records what the extension said about a tab that cannot take a send (its
    /// `reported_at` is the ledger's time). Errors: `Invalid` (bounds in [`TabReport`]).
    pub fn report_tab(&mut self, report: TabReport) -> Result<()> {
        self.write(|tx, now| tab_reports::record(tx, &tab_reports::stamped(report, now)))
    }

    /// Records a check of a tab's page (its `checked_at` is the ledger's time; the oldest
    /// beyond [`super::MAX_PAGE_CHECKS`] go). Errors: `Invalid` (bounds in [`PageCheck`]).
    pub fn record_page_check(&mut self, check: &PageCheck) -> Result<()> {
        self.write(|tx, now| page_checks::record(tx, check, now))
    }

    /// Forgets a tab's report (the tab closed or took a lease). Returns whether one was kept.
    pub fn clear_tab_report(&mut self, tab_id: &str) -> Result<bool> {
        self.write(|tx, _| tab_reports::clear(tx, tab_id))
    }

    /// The page ended the accepted send's turn with an error: accepted → page_error, with
    /// the page's message as evidence; a usage limit also closes the limit gate — one
    /// transaction. Repeating it is a no-op. Errors: `WrongState`, `Invalid`.
    pub fn page_error(&mut self, op_id: &str, error: &PageError, actor: &str) -> Result<Send> {
        self.write(|tx, now| sends::page_error(tx, op_id, error, actor, now))
    }

    /// Ends a lease (the tab closed or navigated away). A send it had claimed is rejected
    /// at once (no grant can be asked under an ended lease, so nothing was clicked);
    /// returns those sends' ids. Errors: `UnknownLease`.
    pub fn end_lease(&mut self, lease_id: &str, reason: &str) -> Result<Vec<String>> {
        self.write(|tx, now| leases::end_lease(tx, lease_id, reason, now))
    }

    /// Records the title the page gave a conversation (its conversation read), for the
    /// window's words; the least recently seen go past [`super::MAX_TITLES`]. Returns
    /// whether it was kept (`false`: the transient `WEB:` id, or an empty title).
    pub fn note_conversation_title(&mut self, conversation_id: &str, title: &str) -> Result<bool> {
        self.write(|tx, now| titles::note(tx, conversation_id, title, now))
    }

    /// Reads a lease.
    pub fn get_lease(&mut self, lease_id: &str) -> Result<Lease> {
        self.write(|tx, _| epochs::get_lease(tx, lease_id))
    }

    /// Sets how many sends may be in flight at once (the act `SetMaxInFlight`, or the owner
    /// at start from `config.json`; kept in the ledger so its triggers and read-only readers
    /// see it). Errors: `Invalid` outside 1 to [`super::MAX_IN_FLIGHT`].
    pub fn set_max_in_flight(&mut self, max: u32) -> Result<()> {
        self.write(|tx, _| in_flight::set_cap(tx, max))
    }

    /// Keeps `d` as `site`'s default destination, what a send naming no place takes at
    /// queue time (the act `SetDefaultDestination`, or the owner at start from
    /// `config.json`). Queued sends keep the destination they recorded.
    pub fn set_default_destination(
        &mut self,
        site: crate::site::Site,
        d: &crate::destination::Destination,
    ) -> Result<()> {
        self.write(|tx, now| destinations::set_default(tx, site, d, now))
    }

    /// `site`'s default destination as kept in the ledger (a new chat until set).
    pub fn default_destination(
        &self,
        site: crate::site::Site,
    ) -> Result<crate::destination::Destination> {
        destinations::default_of(self.raw_connection(), site)
    }

    /// The profile this ledger is in.
    pub fn profile(&self) -> &crate::profile::Profile {
        &self.profile
    }

    /// How many sends may be in flight at once.
    pub fn max_in_flight(&self) -> Result<u32> {
        Ok(in_flight::cap(self.raw_connection())?)
    }

    /// Claims the next send for `lease_id`; `None` while the cap's number of sends are in
    /// flight, another is in flight in its conversation or in its tab, or nothing fits.
    /// Errors: `EpochStopped`, `UnknownLease`, `NotGranted` (lease ended).
    pub fn claim_next(&mut self, lease_id: &str) -> Result<Option<Send>> {
        self.write(|tx, now| sends::claim_next(tx, lease_id, now))
    }

    /// The dispatch grant, the tab confirming nothing. `Ok` means `dispatched` is on disk
    /// and the extension may click. Errors: `NotGranted` (not claimed by this lease, or
    /// asked twice; or its destination, which the send named, not confirmed — the send is
    /// then rejected, committed), `EpochStopped`.
    pub fn dispatch(&mut self, op_id: &str, lease_id: &str) -> Result<Send> {
        match self.dispatch_confirmed(op_id, lease_id, None)? {
            Grant::Granted(send) => Ok(send),
            Grant::Refused { reason, .. }
            | Grant::Held { reason, .. }
            | Grant::Expired { reason, .. }
            | Grant::Mismatch { reason, .. } => Err(LedgerError::NotGranted(reason)),
        }
    }

    /// The dispatch grant for a tab that confirmed what it shows: granted only when that is
    /// the send's destination, checked in the transaction that writes `dispatched`;
    /// otherwise the send is rejected (nothing was clicked) in that transaction. A claim
    /// past its bound ([`Ledger::set_bounds`], on the monotonic clock the expiry sweep
    /// measures it on) is never granted: it is failed as the sweep would fail it, with the
    /// sweep's words ([`Grant::Expired`]), whichever of the two reaches the ledger first.
    /// Errors: as [`Ledger::dispatch`].
    pub fn dispatch_confirmed(
        &mut self,
        op_id: &str,
        lease_id: &str,
        confirmed: Option<&crate::destination::Confirmation>,
    ) -> Result<Grant> {
        self.refresh_deadlines(self.clock.now_ms(), self.clock.mono_ms());
        let mono = self.clock.mono_ms();
        let overdue = self
            .deadlines
            .overdue(deadlines::Kind::Claim, op_id, &self.bounds, mono)
            .then(|| expiry::claim_expired(&self.bounds));
        self.write(|tx, now| {
            sends::dispatch(tx, (op_id, lease_id), confirmed, overdue.as_deref(), now)
        })
    }

    /// Records what the page's own conversation request for the dispatched send `op_id`
    /// named (`conversation`: `None` for a new chat; the model slug), once; a
    /// `destination_mismatch` note when it is not the send's destination. Nothing is
    /// resent. Errors: `UnknownSend`; storage errors (also when the send was never
    /// dispatched: the trigger refuses evidence before the dispatch).
    pub fn record_page_destination(
        &mut self,
        op_id: &str,
        conversation: Option<&str>,
        model: Option<&str>,
    ) -> Result<PageDestination> {
        self.write(|tx, now| page_destination::record_page(tx, op_id, (conversation, model), now))
    }

    /// Records what the page's own conversation request for the dispatched send `op_id`
    /// carried (its files), once; an `attachment_mismatch` note when they are not the
    /// send's files. Nothing is resent. `Ok(None)`: a send without files whose request
    /// carried none. Errors: as [`Ledger::record_page_destination`].
    pub fn record_page_attachments(
        &mut self,
        op_id: &str,
        seen: &[crate::attachments::PageFile],
    ) -> Result<Option<super::PageAttachments>> {
        self.write(|tx, now| super::page_attachments::record_page(tx, op_id, seen, now))
    }

    /// Records an upload whose bytes the store holds (the same bytes again take the
    /// latest name and MIME type).
    pub fn record_upload(&mut self, a: &crate::attachments::Attachment) -> Result<()> {
        self.write(|tx, now| attachments::record_upload(tx, a, now))
    }

    /// Addresses whose bytes no send needs any more: uploaded more than `keep_ms` ago,
    /// and every send carrying them ended more than `keep_ms` ago.
    pub fn attachments_unneeded(&self, keep_ms: crate::clock::Millis) -> Result<Vec<String>> {
        attachments::unneeded(&self.conn, self.now_ms(), keep_ms)
    }

    /// Marks the bytes of `sha` deleted from the store (its record stays).
    pub fn mark_attachment_deleted(&mut self, sha: &str) -> Result<()> {
        self.write(|tx, now| attachments::mark_deleted(tx, sha, now))
    }

    /// [`Self::mark_attachment_deleted`] for every address in `shas`, in one transaction
    /// (the upkeep's pass: one commit, not one per file).
    pub fn mark_attachments_deleted(&mut self, shas: &[String]) -> Result<()> {
        self.write(|tx, now| {
            shas.iter()
                .try_for_each(|sha| attachments::mark_deleted(tx, sha, now))
        })
    }

    /// The page answered the send `op_id` with `model` (the answer's own `model_slug`): a
    /// `destination_mismatch` note, once, when the send asked for another model. The send
    /// keeps its state; nothing is resent. Returns the note when one was written.
    pub fn note_answer_model(&mut self, op_id: &str, model: &str) -> Result<Option<String>> {
        self.write(|tx, now| page_destination::answer_model(tx, op_id, model, now))
    }

    /// The server refused the page's conversation request for the dispatched send
    /// (HTTP `status`): dispatched → page_error with the page's words as evidence; a hold
    /// closes the limit gate — one transaction. Repeating it is a no-op. Errors:
    /// `WrongState`, `Invalid`.
    pub fn refused(
        &mut self,
        op_id: &str,
        status: u16,
        error: &PageError,
        actor: &str,
    ) -> Result<Send> {
        self.write(|tx, now| sends::refused(tx, op_id, (status, error), actor, now))
    }

    /// A failure the caller witnessed: claimed → rejected, dispatched → uncertain.
    pub fn fail(&mut self, op_id: &str, reason: &str, actor: &str) -> Result<Send> {
        self.write(|tx, now| sends::fail(tx, op_id, reason, actor, now))
    }

    /// A failure on a page fact every send needs (issue 35): the send fails as in
    /// [`Self::fail`] (claimed → rejected, dispatched → uncertain) and, in the same
    /// transaction, the page-changed gate closes naming `fact_id` (`<area>.<fact>`, ≤ 64
    /// bytes), reported by `lease_id`'s tab (`None`: the owner found it, `actor` says who).
    /// A gate already closed keeps its first fact. Errors as [`Self::fail`].
    pub fn fail_page_changed(
        &mut self,
        op_id: &str,
        reason: &str,
        fact_id: &str,
        lease_id: Option<&str>,
        actor: &str,
    ) -> Result<Send> {
        self.write(|tx, now| {
            let send = sends::fail(tx, op_id, reason, actor, now)?;
            let closing = super::page_gate::Closing {
                fact_id,
                reason,
                op_id,
                lease_id,
                by: actor,
            };
            super::page_gate::close(tx, closing, now)?;
            Ok(send)
        })
    }

    /// The page's traffic for `op_id` showed its site's usage limit reached before any
    /// receipt (whether the message was taken is not known: the send keeps its state):
    /// `reason` is noted on the send and the usage-limit gate of the send's site closes
    /// until `until_ms` (`None`: until a person resumes) — one transaction.
    pub fn usage_limit_seen(
        &mut self,
        op_id: &str,
        reason: &str,
        until_ms: Option<crate::clock::Millis>,
    ) -> Result<Send> {
        sends::validate_note("reason", reason)?;
        self.write(|tx, now| {
            let send = sends::load(tx, op_id)?;
            let kind = Some(super::record::EvidenceKind::Observed);
            sends::note(tx, &send, "owner", (reason, kind), now)?;
            super::limit_gate::close(tx, until_ms, reason, op_id, now)?;
            sends::load(tx, op_id)
        })
    }

    /// The owner found a fact every send needs not holding in the page's own traffic (the
    /// response stream of `op_id` in a format not recognised at all, `fact_id`): a send
    /// still `dispatched` becomes `uncertain` at once with `reason` (it went out, its
    /// receipt cannot be seen); a send in any other state gets `reason` as a note; and the
    /// page-changed gate closes — one transaction. Errors: `UnknownSend`, `Invalid`.
    pub fn page_changed_in_traffic(
        &mut self,
        op_id: &str,
        reason: &str,
        fact_id: &str,
    ) -> Result<Send> {
        sends::validate_note("reason", reason)?;
        self.write(|tx, now| {
            let send = sends::load(tx, op_id)?;
            let send = if send.state == crate::ledger::SendState::Dispatched {
                sends::fail(tx, op_id, reason, "owner", now)?
            } else {
                let kind = Some(super::record::EvidenceKind::Observed);
                sends::note(tx, &send, "owner", (reason, kind), now)?;
                sends::load(tx, op_id)?
            };
            let closing = super::page_gate::Closing {
                fact_id,
                reason,
                op_id,
                lease_id: None,
                by: "owner",
            };
            super::page_gate::close(tx, closing, now)?;
            Ok(send)
        })
    }

    /// The page's own `method` POST to `route` (a route template that is not a chat
    /// conversation route) after the click of `op_id`: see
    /// [`page_destination::record_elsewhere`]. Returns the `destination_mismatch` sentence
    /// when it was recorded. Errors: `UnknownSend`.
    pub fn record_page_elsewhere(
        &mut self,
        op_id: &str,
        method: &str,
        route: &str,
    ) -> Result<Option<String>> {
        self.write(|tx, now| page_destination::record_elsewhere(tx, op_id, (method, route), now))
    }

    /// Records the native receipt. Errors: `ReceiptBeforeDispatch`, `ReceiptOwnerChanged`,
    /// `ReceiptTaken`, `WrongState`.
    pub fn accept(&mut self, op_id: &str, receipt: &Receipt, actor: &str) -> Result<Send> {
        self.write(|tx, now| sends::accept(tx, op_id, receipt, actor, now))
    }

    /// Records the final answer (accepted → completed).
    pub fn complete(
        &mut self,
        op_id: &str,
        message_id: &str,
        text: &str,
        actor: &str,
    ) -> Result<Send> {
        self.write(|tx, now| sends::complete(tx, op_id, message_id, text, actor, now))
    }

    /// A person's decision on an uncertain send.
    /// On a full disk the profile's reserve is released for it.
    pub fn resolve(&mut self, op_id: &str, resolution: &Resolution) -> Result<Resolved> {
        self.write_braking(|tx, now| sends::resolve(tx, op_id, resolution, now))
            .map(|(r, _)| r)
    }

    /// Queue again a stopped or rejected send, as a new operation linked to it.
    pub fn requeue(&mut self, op_id: &str, by: &str) -> Result<Send> {
        self.write(|tx, now| sends::requeue(tx, op_id, by, now))
    }

    /// Takes back one send before it is clicked: queued or claimed → stopped, by a person
    /// (`by`); the gate stays open and the other sends go on. See [`sends::withdraw`].
    pub fn withdraw(&mut self, op_id: &str, by: &str) -> Result<Send> {
        self.write(|tx, now| sends::withdraw(tx, op_id, by, now))
    }
}
