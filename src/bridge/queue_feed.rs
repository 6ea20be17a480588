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
use crate::api::queue::{self, QueueStatus, QueueView, Row};
use crate::ledger::Event;
use axum::extract::State;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures_util::stream::{self, Stream, StreamExt};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::convert::Infallible;
use tokio::sync::broadcast::{self, error::TryRecvError};
use tokio::sync::watch;

/// The most operation ids `POST /v1/queue/rows` reads at once.
pub const MAX_ROWS_ASKED: usize = 1_000;

/// One message of the feed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum QueueUpdate {
    /// The whole queue (first, and after the reader fell behind).
    Snapshot(QueueView),
    /// What a burst of commits changed.
    Changed {
        /// Counts and gate after the burst.
        status: QueueStatus,
        /// The rows whose audit trail grew (and the sends they queue again).
        rows: Vec<Row>,
    },
}

#[derive(Deserialize)]
struct ChangedData {
    status: QueueStatus,
    rows: Vec<Row>,
}

impl QueueUpdate {
    /// Reads one feed event: `Some` for `snapshot` and `changed`, `None` for any other name.
    pub fn decode(event: &str, data: &str) -> Option<Result<QueueUpdate, serde_json::Error>> {
        Some(match event {
            "snapshot" => serde_json::from_str(data).map(QueueUpdate::Snapshot),
            "changed" => serde_json::from_str::<ChangedData>(data).map(|c| QueueUpdate::Changed {
                status: c.status,
                rows: c.rows,
            }),
            _ => return None,
        })
    }

    fn sse(&self) -> SseEvent {
        let name = match self {
            QueueUpdate::Snapshot(_) => "snapshot",
            QueueUpdate::Changed { .. } => "changed",
        };
        SseEvent::default()
            .event(name)
            .json_data(self)
            .expect("a queue update serialises")
    }
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
    let updates = stream::unfold(feed, Feed::next).map(|u| Ok(u.sse()));
    // Ends when shutdown begins, so a reader does not hold the owner for its grace.
    let until_closing = st.closing();
    Ok(Sse::new(updates.take_until(until_closing)).keep_alive(KeepAlive::default()))
}
