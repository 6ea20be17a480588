//! A streamed answer: 200 and headers at once (an SDK never retries a stream that has
//! begun), a first chunk with the assistant role, then the answer's text as
//! `chat.completion.chunk` deltas while the page streams it, a last chunk with
//! `finish_reason: "stop"`, and `data: [DONE]`. A failure is one error event
//! (`data: {"error": {...}}`, which the SDKs raise) and no `[DONE]`. A comment line every
//! 15 s keeps idle connections open (clients and proxies with read timeouts).

use super::custody::Admitted;
use super::door_reply::{completion_id, door_headers, model_of};
use super::outcome::Outcome;
use super::request::ChatRequest;
use super::wait::{Step, Waiter};
use crate::bridge::BridgeState;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::time::Duration;
use tokio::sync::mpsc;

/// Chunks buffered for a slow reader before the producer waits.
const BUFFER: usize = 64;

struct Chunker {
    id: String,
    created: i64,
    model: String,
}

impl Chunker {
    fn chunk(&self, delta: Value, finish: Option<&str>) -> Event {
        Event::default().data(
            json!({
                "id": self.id,
                "object": "chat.completion.chunk",
                "created": self.created,
                "model": self.model,
                "choices": [{ "index": 0, "delta": delta, "finish_reason": finish, "logprobs": null }],
                "usage": null,
            })
            .to_string(),
        )
    }
}

/// Answers `admitted` as an event stream (see the module doc).
pub(crate) fn answer(st: BridgeState, req: ChatRequest, admitted: Admitted) -> Response {
    let (tx, rx) = mpsc::channel::<Event>(BUFFER);
    let waiter = Waiter::new(&st, &admitted.op_id);
    tokio::spawn(produce(st, admitted.op_id.clone(), waiter, tx));
    let events = stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|e| (Ok::<_, Infallible>(e), rx))
    });
    let mut res = Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response();
    door_headers(res.headers_mut(), &req.ignored, &admitted);
    res
}

async fn produce(st: BridgeState, op_id: String, mut waiter: Waiter, tx: mpsc::Sender<Event>) {
    let created = st.now() / 1000;
    let mut c = Chunker {
        id: completion_id(&op_id),
        created,
        model: "unknown".into(),
    };
    let mut sent = String::new();
    let mut began = false;
    loop {
        // A reader that went away ends the wait: nothing is kept for it.
        let step = tokio::select! {
            s = waiter.next() => s,
            _ = tx.closed() => return,
        };
        if let Step::Text(_, Some(m)) = &step {
            c.model = m.to_string();
        }
        if !began && !matches!(step, Step::Settled(Outcome::Failed(_), _)) {
            began = true;
            if matches!(step, Step::Settled(..)) {
                c.model = model_of(
                    &st,
                    &op_id,
                    Some(&c.model)
                        .filter(|m| *m != "unknown")
                        .map(|m| m.as_str()),
                )
                .await;
            }
            let first = c.chunk(json!({ "role": "assistant", "content": "" }), None);
            if tx.send(first).await.is_err() {
                return;
            }
        }
        match step {
            Step::Text(text, _) => {
                // Deltas only extend what was sent; a rewrite waits for the final answer.
                if let Some(rest) = text.strip_prefix(sent.as_str()).filter(|r| !r.is_empty()) {
                    let e = c.chunk(json!({ "content": rest }), None);
                    sent.push_str(rest);
                    if tx.send(e).await.is_err() {
                        return;
                    }
                }
            }
            Step::Settled(Outcome::Answered { text }, _) => {
                let rest = text.strip_prefix(sent.as_str()).unwrap_or_default();
                if !rest.is_empty() {
                    let _ = tx.send(c.chunk(json!({ "content": rest }), None)).await;
                }
                let _ = tx.send(c.chunk(json!({}), Some("stop"))).await;
                let _ = tx.send(Event::default().data("[DONE]")).await;
                return;
            }
            Step::Settled(Outcome::Failed(e), _) => {
                let _ = tx.send(Event::default().data(e.body().to_string())).await;
                return;
            }
            Step::Settled(Outcome::Pending, _) => return,
        }
    }
}
