//! `GET /v1/events`: server-sent events of every audit event, so the UI and clients
//! never poll on a timer. Resumes after `?after=ID` or `Last-Event-ID`.

use super::error::ApiError;
use super::BridgeState;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures_util::stream::{self, Stream, StreamExt};
use serde::Deserialize;
use std::convert::Infallible;
use tokio_stream::wrappers::BroadcastStream;

#[derive(Deserialize)]
pub(super) struct After {
    after: Option<i64>,
}

fn sse(e: &crate::ledger::Event) -> SseEvent {
    SseEvent::default()
        .event("transition")
        .id(e.id.to_string())
        .json_data(e)
        .expect("an event serialises")
}

pub(super) async fn stream(
    State(st): State<BridgeState>,
    headers: HeaderMap,
    Query(q): Query<After>,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let after = match headers.get("last-event-id").and_then(|v| v.to_str().ok()) {
        Some(v) => v.parse().map_err(|_| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "malformed",
                "Last-Event-ID must be an event id",
            )
        })?,
        None => q.after.unwrap_or(i64::MAX),
    };
    // Subscribe before reading the backlog, then skip what the backlog already sent.
    let live = st.ledger().subscribe();
    let backlog = if after == i64::MAX {
        Vec::new()
    } else {
        st.ledger()
            .call(move |l| l.events_since(after, 10_000))
            .await?
    };
    let mut last = backlog
        .last()
        .map(|e| e.id)
        .unwrap_or(after.min(i64::MAX - 1));
    if after == i64::MAX {
        last = 0;
    }
    let first = stream::iter(backlog.iter().map(sse).map(Ok).collect::<Vec<_>>());
    let rest = BroadcastStream::new(live).filter_map(move |e| {
        let out = match e {
            Ok(e) if e.id > last => {
                last = e.id;
                Some(Ok(sse(&e)))
            }
            _ => None,
        };
        async move { out }
    });
    // The stream ends when shutdown begins, so it does not hold the owner for its grace.
    let until_closing = st.closing();
    Ok(Sse::new(first.chain(rest).take_until(until_closing)).keep_alive(KeepAlive::default()))
}
