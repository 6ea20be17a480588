//! The owner's single writer: the one [`Ledger`] behind a mutex, reached from async code
//! through `spawn_blocking`. After every call the new audit events are published (the
//! change feed) and long-polls waiting for work are woken. It lives beside the ledger, so
//! the bridge and the owner both depend on it and on nothing of each other.

use super::{Event, Ledger, LedgerError, SendState};
use crate::ledger::LedgerRead;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{broadcast, watch, Notify};

struct Inner {
    ledger: Ledger,
    last_event: i64,
    /// `PRAGMA data_version` at the end of the last call: it changes when another
    /// connection commits (a Stop committed beside a stuck owner, `sendledger stop`).
    data_version: i64,
}

/// A cloneable handle to the owner's ledger: the only writer in the owner process.
#[derive(Clone)]
pub struct Writer {
    inner: Arc<Mutex<Inner>>,
    events: broadcast::Sender<Event>,
    changed: Arc<Notify>,
    writes: watch::Sender<u64>,
}

/// Logs a committed audit event at `info`: operation id, from → to, actor, and the lease
/// that holds the send — ids only, never the evidence (a person's note may quote the text).
fn log_event(ledger: &Ledger, e: &Event) {
    let lease = ledger.get(&e.op_id).ok().flatten().and_then(|s| s.lease_id);
    let lease = lease.as_deref().unwrap_or("-");
    let from = e.from.map_or("-", SendState::as_str);
    match e.kind {
        super::EventKind::Transition => tracing::info!(
            op = %e.op_id, from, to = e.to.as_str(), actor = %e.actor, lease, "transition {from} → {}", e.to
        ),
        super::EventKind::Note => {
            tracing::info!(op = %e.op_id, state = e.to.as_str(), actor = %e.actor, lease, "note")
        }
    }
}

impl Writer {
    pub(crate) fn new(ledger: Ledger) -> crate::ledger::Result<Self> {
        let last_event = ledger
            .events_since(0, u32::MAX)
            .map(|e| e.last().map(|e| e.id).unwrap_or(0))?;
        let (events, _) = broadcast::channel(1024);
        Ok(Self {
            inner: Arc::new(Mutex::new(Inner {
                data_version: ledger.data_version(),
                ledger,
                last_event,
            })),
            events,
            changed: Arc::new(Notify::new()),
            writes: watch::channel(0).0,
        })
    }

    /// Runs `f` on the ledger off the async threads; publishes what it committed.
    pub async fn call<T, F>(&self, f: F) -> T
    where
        T: Send + 'static,
        F: FnOnce(&mut Ledger) -> T + Send + 'static,
    {
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.call_blocking(f))
            .await
            .expect("a ledger call panicked")
    }

    /// The same as [`Self::call`], for code that is not async (the tray app's threads).
    pub fn call_blocking<T>(&self, f: impl FnOnce(&mut Ledger) -> T) -> T {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let rows_before = g.ledger.raw_connection().total_changes();
        let outside = g.ledger.data_version() != g.data_version;
        let out = f(&mut g.ledger);
        let wrote = outside || g.ledger.raw_connection().total_changes() != rows_before;
        g.data_version = g.ledger.data_version();
        if let Ok(new) = g.ledger.events_since(g.last_event, 10_000) {
            if let Some(last) = new.last() {
                g.last_event = last.id;
                for e in new {
                    log_event(&g.ledger, &e);
                    let _ = self.events.send(e);
                }
            }
        }
        // Wake long-polls after every call that wrote rows: some changes write no audit
        // event (a lease, a remote stop request). Never after a read — a long-poll's own
        // check is a call, and waking itself would make it spin until its deadline. A
        // commit by another process counts once, at the next call (the owner's watch on
        // the ledger's files makes one when such a commit lands: `owner::folder_watch`).
        if wrote {
            self.changed.notify_waiters();
            self.writes.send_modify(|n| *n += 1);
        }
        out
    }

    /// Counts calls that wrote rows: changes with no audit event (a Stop or Resume with
    /// nothing queued changes only the gate) show here too.
    pub fn watch_writes(&self) -> watch::Receiver<u64> {
        self.writes.subscribe()
    }

    /// Every audit event committed from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    /// Waits until the committed state of send `op_id` is no longer `from`, or until
    /// `timeout_ms` has passed. Answers the send as committed then, and whether it left
    /// `from`. Woken by commits, never by a timer loop. Errors: `UnknownSend`, or what
    /// reading the ledger answered.
    pub async fn wait_for_change(
        &self,
        op_id: &str,
        from: SendState,
        timeout_ms: u64,
    ) -> Result<(super::Send, bool), LedgerError> {
        let deadline = tokio::time::Instant::now() + Duration::from_millis(timeout_ms);
        loop {
            // Registered before the read: a commit between the read and the wait still wakes it.
            let woken = self.changed.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            let id = op_id.to_string();
            let send = self
                .call(move |l| l.get(&id))
                .await?
                .ok_or_else(|| LedgerError::UnknownSend(op_id.to_string()))?;
            if send.state != from {
                return Ok((send, true));
            }
            tokio::select! {
                _ = &mut woken => {}
                _ = tokio::time::sleep_until(deadline) => return Ok((send, false)),
            }
        }
    }

    /// The id of the newest audit event published so far (0 when none).
    pub(crate) fn last_event_id(&self) -> i64 {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .last_event
    }

    /// Woken after every committed change (and by [`Self::poke`]).
    pub(crate) fn changed(&self) -> Arc<Notify> {
        self.changed.clone()
    }

    /// Wakes long-polls (for changes that write no audit event, e.g. a new lease).
    pub(crate) fn poke(&self) {
        self.changed.notify_waiters();
    }

    /// Wakes long-polls and every watcher of writes (the queue feed, the tray) for a change
    /// of the owner's state that wrote no row: its files moved under it.
    pub(crate) fn announce(&self) {
        self.changed.notify_waiters();
        self.writes.send_modify(|n| *n += 1);
    }
}
