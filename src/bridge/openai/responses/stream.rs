//! A streamed response (`stream: true`): 200 and headers at once, then the Responses
//! API's event stream (OpenAI's API reference, "Streaming events"): `response.created`,
//! `response.in_progress`, `response.output_item.added`, `response.content_part.added`,
//! `response.output_text.delta` while the page streams the answer,
//! `response.output_text.done`, `response.content_part.done`, `response.output_item.done`,
//! then `response.output_item.added`/`done` for each generated image
//! (`image_generation_call`, after the message: see `images`), `response.completed`. Every event is `event: <type>` with `data` carrying `type` and a
//! `sequence_number` (0, 1, …). A send that settles without an answer ends the stream
//! with `response.failed` (`response.error {code, message}`; `cancelled` for a Stop) and
//! an `error` event whose `error` object the SDKs raise. A comment line every 15 s keeps
//! idle connections open.

use super::super::custody::Admitted;
use super::super::door_reply::{door_headers, mismatch_of, model_of};
use super::super::error::OpenAiError;
use super::super::outcome::Outcome;
use super::super::wait::{Step, Waiter};
use super::images::{self, Images};
use super::object::{message_item, object, output_text, with_mismatch, Stand};
use crate::bridge::BridgeState;
use crate::ledger::LedgerRead;
use crate::ledger::{LedgerError, Send, SendState};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::time::Duration;
use tokio::sync::mpsc;

/// Events buffered for a slow reader before the producer waits.
const BUFFER: usize = 64;

/// Answers `admitted` as a Responses event stream (see the module doc).
pub(crate) fn answer(
    st: BridgeState,
    ignored: &[String],
    admitted: Admitted,
    background: bool,
) -> Response {
    let (tx, rx) = mpsc::channel::<Event>(BUFFER);
    let waiter = Waiter::new(&st, &admitted.op_id);
    tokio::spawn(produce(st, admitted.op_id.clone(), waiter, tx, background));
    let events = stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|e| (Ok::<_, Infallible>(e), rx))
    });
    let mut res = Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response();
    door_headers(res.headers_mut(), ignored, &admitted);
    res
}

/// Numbers and sends events; `false` once the reader is gone.
struct Emitter {
    tx: mpsc::Sender<Event>,
    seq: u64,
}

impl Emitter {
    async fn emit(&mut self, kind: &str, mut data: Value) -> bool {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(self.seq);
        self.seq += 1;
        let e = Event::default().event(kind).data(data.to_string());
        self.tx.send(e).await.is_ok()
    }
}

async fn row(st: &BridgeState, op_id: &str) -> Option<Send> {
    let id = op_id.to_string();
    st.ledger()
        .call(move |l| l.get(&id)?.ok_or(LedgerError::UnknownSend(id)))
        .await
        .ok()
}

async fn produce(
    st: BridgeState,
    op_id: String,
    mut waiter: Waiter,
    tx: mpsc::Sender<Event>,
    background: bool,
) {
    let Some(mut send) = row(&st, &op_id).await else {
        return;
    };
    let mut out = Emitter { tx, seq: 0 };
    let mut model = model_of(&st, &op_id, None).await;
    if !begin(&mut out, &send, &model, background).await {
        return;
    }
    let mut sent = String::new();
    let mut opened = false;
    loop {
        // A reader that went away ends the wait: nothing is kept for it.
        let step = tokio::select! {
            s = waiter.next() => s,
            _ = out.tx.closed() => return,
        };
        if let Step::Text(_, Some(m)) = &step {
            model = m.to_string();
        }
        if !opened && !matches!(step, Step::Settled(Outcome::Failed(_), _)) {
            opened = true;
            if !open_message(&mut out, &op_id).await {
                return;
            }
        }
        match step {
            Step::Text(text, _) => {
                // Deltas only extend what was sent; a rewrite waits for the final answer.
                if let Some(rest) = text.strip_prefix(sent.as_str()).filter(|r| !r.is_empty()) {
                    sent.push_str(rest);
                    if !delta(&mut out, &op_id, rest).await {
                        return;
                    }
                }
            }
            Step::Settled(Outcome::Answered { text }, row) => {
                if let Some(r) = row {
                    send = *r;
                }
                let rest = text.strip_prefix(sent.as_str()).unwrap_or_default();
                if !rest.is_empty() && !delta(&mut out, &op_id, rest).await {
                    return;
                }
                finish(&st, &mut out, &send, (&text, &model), background).await;
                return;
            }
            Step::Settled(Outcome::Failed(e), row) => {
                let send = row.map(|r| *r).unwrap_or(send);
                fail(&mut out, &send, &e, &model, background).await;
                return;
            }
            Step::Settled(Outcome::Pending, _) => return,
        }
    }
}

/// The answer is complete: its model, mismatch and generated images (waited for within
/// their bound), then the message closed and the response completed.
async fn finish(
    st: &BridgeState,
    out: &mut Emitter,
    send: &Send,
    (text, model): (&str, &str),
    background: bool,
) {
    let streamed = Some(model).filter(|m| *m != "unknown");
    let model = model_of(st, &send.op_id, streamed).await;
    let mismatch = mismatch_of(st, &send.op_id).await;
    let said = (model.as_str(), mismatch.as_deref());
    let images = images::settled(st, send, true).await;
    close_message(out, send, text, said, background, &images).await;
}

/// `response.created` and `response.in_progress`; `false` once the reader is gone.
async fn begin(out: &mut Emitter, send: &Send, model: &str, background: bool) -> bool {
    let head = object(send, Stand::Pending(SendState::Claimed), model, background);
    out.emit("response.created", json!({ "response": head }))
        .await
        && out
            .emit("response.in_progress", json!({ "response": head }))
            .await
}

/// `response.failed` with the door's error, then the `error` event the SDKs raise.
async fn fail(out: &mut Emitter, send: &Send, e: &OpenAiError, model: &str, background: bool) {
    let failed = object(send, Stand::Failed(e), model, background);
    let _ = out
        .emit("response.failed", json!({ "response": failed }))
        .await;
    let error =
        json!({ "error": { "type": e.kind, "code": e.code, "message": e.message, "param": null } });
    let _ = out.emit("error", error).await;
}

async fn open_message(out: &mut Emitter, op_id: &str) -> bool {
    let item_id = format!("msg_{op_id}");
    out.emit(
        "response.output_item.added",
        json!({ "output_index": 0, "item": message_item(op_id, "", false) }),
    )
    .await
        && out
            .emit(
                "response.content_part.added",
                json!({ "item_id": item_id, "output_index": 0, "content_index": 0, "part": output_text("") }),
            )
            .await
}

async fn delta(out: &mut Emitter, op_id: &str, piece: &str) -> bool {
    out.emit(
        "response.output_text.delta",
        json!({ "item_id": format!("msg_{op_id}"), "output_index": 0, "content_index": 0, "delta": piece, "logprobs": [] }),
    )
    .await
}

/// Ends the message and the response; `(model, mismatch)`: the page's slug, and the
/// `destination_mismatch` sentence put into the completed response's `metadata`.
async fn close_message(
    out: &mut Emitter,
    send: &Send,
    text: &str,
    (model, mismatch): (&str, Option<&str>),
    background: bool,
    images: &Images,
) {
    let item_id = format!("msg_{}", send.op_id);
    let at = json!({ "item_id": item_id, "output_index": 0, "content_index": 0 });
    let mut done = at.clone();
    done["text"] = json!(text);
    done["logprobs"] = json!([]);
    let mut part = at;
    part["part"] = output_text(text);
    let _ = out.emit("response.output_text.done", done).await
        && out.emit("response.content_part.done", part).await
        && out
            .emit(
                "response.output_item.done",
                json!({ "output_index": 0, "item": message_item(&send.op_id, text, true) }),
            )
            .await
        && image_items(out, images).await
        && out
            .emit(
                "response.completed",
                json!({ "response": completed(send, text, (model, mismatch), background, images) }),
            )
            .await;
}

/// The completed response: the message, then the image items (streamed in that order).
fn completed(
    send: &Send,
    text: &str,
    (model, mismatch): (&str, Option<&str>),
    background: bool,
    images: &Images,
) -> Value {
    let mut body = with_mismatch(
        object(send, Stand::Completed(text), model, background),
        mismatch,
    );
    images::insert(&mut body, images, false);
    body
}

/// `response.output_item.added` and `.done` for each image item, after the message.
async fn image_items(out: &mut Emitter, images: &Images) -> bool {
    for (i, item) in images.items.iter().enumerate() {
        let mut added = item.clone();
        added["status"] = json!("in_progress");
        added["result"] = Value::Null;
        let at = i + 1;
        if !(out
            .emit(
                "response.output_item.added",
                json!({ "output_index": at, "item": added }),
            )
            .await
            && out
                .emit(
                    "response.output_item.done",
                    json!({ "output_index": at, "item": item }),
                )
                .await)
        {
            return false;
        }
    }
    true
}
