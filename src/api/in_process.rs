//! [`Api`]: the typed API over the owner's single writer, for front ends that run in the
//! owner's process (the tray app). Every change is a [`Request`] committed by [`apply`];
//! every view is computed by the queries of this module's parent. Nothing here hands out
//! the ledger itself.

use super::queue::{self, QueueStatus, QueueView, Row};
use super::{apply, show, KeySecret, OperationId, Outcome, Request, SendView};
use crate::clock::Millis;
use crate::ledger::LedgerRead;
use crate::ledger::{ApiKey, Event, LedgerError, LimitGate, PageGate, Send, SendState, Writer};
use std::collections::BTreeSet;
use tokio::sync::{broadcast, watch};

/// A cloneable handle on the owner's ledger through the typed API.
#[derive(Clone)]
pub struct Api {
    writer: Writer,
}

impl Api {
    /// The API over the owner's writer.
    pub fn new(writer: Writer) -> Self {
        Self { writer }
    }

    /// Commits `req`; answers its outcome once it is on disk.
    pub async fn apply(&self, req: Request) -> Result<Outcome, LedgerError> {
        self.writer.call(move |l| apply(l, &req)).await
    }

    /// Every section of the queue (see [`queue::queue_view`]).
    pub async fn queue_view(&self) -> Result<QueueView, LedgerError> {
        self.writer.call(|l| queue::queue_view(l)).await
    }

    /// Counts and gate (see [`queue::queue_status`]).
    pub async fn queue_status(&self) -> Result<QueueStatus, LedgerError> {
        self.writer.call(|l| queue::queue_status(l)).await
    }

    /// The rows of `op_ids` and of the sends they queue again.
    pub async fn rows(&self, op_ids: BTreeSet<String>) -> Result<Vec<Row>, LedgerError> {
        self.writer.call(move |l| queue::rows(l, op_ids)).await
    }

    /// One send with its timeline.
    pub async fn show(&self, op_id: OperationId) -> Result<SendView, LedgerError> {
        self.writer.call(move |l| show(l, &op_id)).await
    }

    /// Every named API key, newest first (revoked ones included; never a secret).
    pub async fn keys(&self) -> Result<Vec<ApiKey>, LedgerError> {
        self.writer.call(|l| super::keys(l)).await
    }

    /// Makes key `name` of `scope` for `by` (what [`Request::KeyCreate`] applies): the key
    /// and its secret, which is never handed out again. Errors: the ledger's sentence for
    /// a malformed or taken name, or too many live keys; nothing is written then.
    pub async fn create_key(
        &self,
        name: String,
        scope: crate::ledger::KeyScope,
        by: String,
    ) -> Result<(ApiKey, KeySecret), LedgerError> {
        self.writer
            .call(move |l| super::keys::create(l, &name, scope, &by))
            .await
    }

    /// Revokes the live key `name` for `by` (what [`Request::KeyRevoke`] applies; final). Errors: no
    /// live key has that name.
    pub async fn revoke_key(&self, name: String, by: String) -> Result<ApiKey, LedgerError> {
        self.writer
            .call(move |l| super::keys::revoke(l, &name, &by, None))
            .await
    }

    /// Uncertain sends unresolved for at least `threshold_ms` and never notified, with the
    /// owner's clock now (ms).
    pub async fn stale_uncertain(
        &self,
        threshold_ms: Millis,
    ) -> Result<(Vec<Send>, Millis), LedgerError> {
        self.writer
            .call(move |l| l.stale_uncertain(threshold_ms).map(|s| (s, l.now_ms())))
            .await
    }

    /// When the next uncertain send not yet stale nor notified becomes stale (ms on the
    /// owner's clock; see [`crate::ledger::Ledger::next_stale_uncertain_at`]), `None` when
    /// there is none: the notification sweep sleeps until then.
    pub async fn next_stale_uncertain_at(
        &self,
        threshold_ms: Millis,
    ) -> Result<Option<Millis>, LedgerError> {
        self.writer
            .call(move |l| l.next_stale_uncertain_at(threshold_ms))
            .await
    }

    /// The limit gate when it holds sends back and nobody was notified of this closing
    /// yet, with the owner's clock now (ms); `None` otherwise.
    pub async fn limit_gate_to_notify(&self) -> Result<Option<(LimitGate, Millis)>, LedgerError> {
        self.writer
            .call(|l| {
                let gate = l.limit_gate()?;
                let now = l.now_ms();
                Ok((gate.holds_at(now) && gate.notified_at.is_none()).then_some((gate, now)))
            })
            .await
    }

    /// The page-changed gate when it is closed and nobody was notified of this closing
    /// yet; `None` otherwise.
    pub async fn page_gate_to_notify(&self) -> Result<Option<PageGate>, LedgerError> {
        self.writer
            .call(|l| {
                let gate = l.page_gate()?;
                Ok((gate.closed && gate.notified_at.is_none()).then_some(gate))
            })
            .await
    }

    /// Records that a person was notified of the page-changed gate's current closing (the
    /// app's own bookkeeping, offered to no door); `false` when already recorded or open.
    pub async fn mark_page_gate_notified(&self) -> Result<bool, LedgerError> {
        self.writer.call(|l| l.mark_page_gate_notified()).await
    }

    /// Records that a person was notified of the limit gate's current closing (the app's
    /// own bookkeeping, offered to no door); `false` when already recorded or open.
    pub async fn mark_limit_notified(&self) -> Result<bool, LedgerError> {
        self.writer.call(|l| l.mark_limit_notified()).await
    }

    /// Waits until send `op_id` leaves `from`, or `timeout_ms` passes (see
    /// [`Writer::wait_for_change`]).
    pub async fn wait_for_change(
        &self,
        op_id: &OperationId,
        from: SendState,
        timeout_ms: u64,
    ) -> Result<(Send, bool), LedgerError> {
        self.writer
            .wait_for_change(op_id.as_str(), from, timeout_ms)
            .await
    }

    /// The writer beneath, for test harnesses that play the extension in-process. Front
    /// ends never use it (the import check in tests/architecture.rs refuses it in
    /// src-tauri/src).
    #[doc(hidden)]
    pub fn writer_for_tests(&self) -> &Writer {
        &self.writer
    }

    /// Every audit event committed from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.writer.subscribe()
    }

    /// Counts calls that wrote rows (changes with no audit event show here too).
    pub fn watch_writes(&self) -> watch::Receiver<u64> {
        self.writer.watch_writes()
    }
}
