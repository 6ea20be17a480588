//! `GET /v1/events`: server-sent events of every audit event, so the UI and clients
//! never poll on a timer. Resumes after `?after=ID` or `Last-Event-ID`.
//!
//! The ledger is the feed's source: events are read from it in pages after the stream's
//! cursor, and the owner's broadcast of new events is used as the next event when it is
//! the very next one, and otherwise only as a wake-up. So a backlog of any length, or a
//! reader slower than the broadcast's buffer, loses nothing.

use super::error::ApiError;
use super::BridgeState;
use crate::error_code::ErrorCode;
use crate::ledger::Event;
use crate::ledger::LedgerRead;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures_util::stream::{self, Stream, StreamExt};
use serde::Deserialize;
use std::collections::VecDeque;
use std::convert::Infallible;
use tokio::sync::broadcast::{self, error::RecvError};

/// Events read from the ledger at a time.
const PAGE: u32 = 1_000;

#[derive(Deserialize)]
pub(super) struct After {
    after: Option<i64>,
}

fn sse(e: &Event) -> SseEvent {
    SseEvent::default()
        .event("transition")
        .id(e.id.to_string())
        .json_data(e)
        .expect("an event serialises")
}

/// One client's position in the feed.
struct Feed {
    st: BridgeState,
    live: broadcast::Receiver<Event>,
    /// The id of the last event sent (or the one to resume after).
    cursor: i64,
    ready: VecDeque<Event>,
    /// Whether the ledger holds nothing after `cursor` that is not in `ready`.
    caught_up: bool,
}

impl Feed {
    async fn next(mut self) -> Option<(Event, Feed)> {
        loop {
            if let Some(e) = self.ready.pop_front() {
                self.cursor = e.id;
                return Some((e, self));
            }
            if !self.caught_up {
                let cursor = self.cursor;
                let page = self
                    .st
                    .ledger()
                    .call(move |l| l.events_since(cursor, PAGE))
                    .await
                    .map_err(
                        |e| tracing::warn!(error = %e, "the event feed could not read the ledger"),
                    )
                    .ok()?;
                self.caught_up = page.len() < PAGE as usize;
                self.ready.extend(page);
                continue;
            }
            match self.live.recv().await {
                Ok(e) if e.id <= self.cursor => {}
                Ok(e) if e.id == self.cursor + 1 => self.ready.push_back(e),
                Ok(_) | Err(RecvError::Lagged(_)) => self.caught_up = false,
                Err(RecvError::Closed) => return None,
            }
        }
    }
}

pub(super) async fn stream(
    State(st): State<BridgeState>,
    headers: HeaderMap,
    Query(q): Query<After>,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let after = match headers.get("last-event-id").and_then(|v| v.to_str().ok()) {
        Some(v) => Some(v.parse().map_err(|_| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::Malformed,
                "Last-Event-ID must be an event id",
            )
        })?),
        None => q.after,
    };
    // Subscribe before taking the cursor: whatever commits after it is broadcast to us.
    let live = st.ledger().subscribe();
    let cursor = match after {
        Some(id) => id,
        None => st.ledger().last_event_id(),
    };
    let feed = Feed {
        st: st.clone(),
        live,
        cursor,
        ready: VecDeque::new(),
        caught_up: false,
    };
    let events = stream::unfold(feed, Feed::next).map(|e| Ok(sse(&e)));
    // The stream ends when shutdown begins, so it does not hold the owner for its grace.
    let until_closing = st.closing();
    Ok(Sse::new(events.take_until(until_closing)).keep_alive(KeepAlive::default()))
}
