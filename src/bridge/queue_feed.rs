//! `GET /v1/queue/feed`: the queue as a person sees it, pushed as server-sent events, for a
//! window in another process than the owner (the tray app's queue window). First
//! `event: snapshot` with the whole [`QueueView`]; then, for each burst of commits,
//! `event: changed` with `{"status": QueueStatus, "rows": [Row]}` — the rows whose audit
//! trail grew, and the counts and gate (a Stop with nothing queued changes only those).
//! A reader that fell behind the owner's broadcast gets a new `snapshot`. Nothing is sent
//! on a timer: every update follows a committed write. `POST /v1/queue/rows` reads rows
//! by operation id (what a decision changed).

use super::error::ApiError;
use super::BridgeState;
pub use crate::api::answers::QueueUpdate;
use crate::api::queue::{self, QueueStatus};
use crate::ledger::Event;
use axum::extract::State;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures_util::stream::{self, Stream, StreamExt};
use std::collections::BTreeSet;
use std::convert::Infallible;
use tokio::sync::broadcast::{self, error::TryRecvError};
use tokio::sync::watch;

/// The most operation ids `POST /v1/queue/rows` reads at once.
pub const MAX_ROWS_ASKED: usize = 1_000;

/// One message as a server-sent event.
fn sse(update: &QueueUpdate) -> SseEvent {
    SseEvent::default()
        .event(update.event_name())
        .json_data(update)
        .expect("a queue update serialises")
}

/// One reader's position: what it was last told of the counts and gate.
struct Feed {
    st: BridgeState,
    events: broadcast::Receiver<Event>,
    writes: watch::Receiver<u64>,
    /// `None` until the first snapshot was sent.
    told: Option<QueueStatus>,
}

/// What the wake-up found waiting.
enum Burst {
    Ids(BTreeSet<String>),
    Lagged,
    Closed,
}

impl Feed {
    async fn next(mut self) -> Option<(QueueUpdate, Feed)> {
        loop {
            let Some(told) = self.told.clone() else {
                return self.snapshot().await;
            };
            let ids = match self.burst().await {
                Burst::Closed => return None,
                Burst::Lagged => return self.snapshot().await,
                Burst::Ids(ids) => ids,
            };
            let st = self.st.clone();
            let read = st
                .ledger()
                .call(move |l| -> crate::ledger::Result<_> {
                    Ok((queue::queue_status(l)?, queue::rows(l, ids)?))
                })
                .await;
            let (status, rows) = match read {
                Ok(r) => r,
                Err(e) => {
                    tracing::warn!(error = %e, "the queue feed could not read the ledger");
                    return None;
                }
            };
            if rows.is_empty() && status == told {
                continue;
            }
            self.told = Some(status.clone());
            return Some((QueueUpdate::Changed { status, rows }, self));
        }
    }

    async fn snapshot(mut self) -> Option<(QueueUpdate, Feed)> {
        // Drain first: what was committed before this read is in it.
        while let Ok(_) | Err(TryRecvError::Lagged(_)) = self.events.try_recv() {}
        self.writes.borrow_and_update();
        let view = self
            .st
            .ledger()
            .call(|l| queue::queue_view(l))
            .await
            .map_err(|e| tracing::warn!(error = %e, "the queue feed could not read the ledger"))
            .ok()?;
        self.told = Some(view.status.clone());
        Some((QueueUpdate::Snapshot(view), self))
    }

    /// Waits for the next commit, then takes every event already broadcast.
    async fn burst(&mut self) -> Burst {
        let mut ids = BTreeSet::new();
        tokio::select! {
            changed = self.writes.changed() => {
                if changed.is_err() {
                    return Burst::Closed;
                }
            }
            e = self.events.recv() => match e {
                Ok(e) => {
                    ids.insert(e.op_id);
                }
                Err(broadcast::error::RecvError::Lagged(_)) => return Burst::Lagged,
                Err(broadcast::error::RecvError::Closed) => return Burst::Closed,
            },
        }
        self.writes.borrow_and_update();
        loop {
            match self.events.try_recv() {
                Ok(e) => {
                    ids.insert(e.op_id);
                }
                Err(TryRecvError::Lagged(_)) => return Burst::Lagged,
                Err(TryRecvError::Empty) => return Burst::Ids(ids),
                Err(TryRecvError::Closed) => return Burst::Closed,
            }
        }
    }
}

/// `GET /v1/queue/feed` (client token).
pub(super) async fn stream(
    State(st): State<BridgeState>,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    // Subscribe before the first read: whatever commits after it wakes the feed.
    let feed = Feed {
        events: st.ledger().subscribe(),
        writes: st.ledger().watch_writes(),
        st: st.clone(),
        told: None,
    };
    let updates = stream::unfold(feed, Feed::next).map(|u| Ok(sse(&u)));
    // Ends when shutdown begins, so a reader does not hold the owner for its grace.
    let until_closing = st.closing();
    Ok(Sse::new(updates.take_until(until_closing)).keep_alive(KeepAlive::default()))
}
