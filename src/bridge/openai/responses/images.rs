//! An answer's generated images in the Responses API (issue 29, "files out"): each of the
//! send's artifacts becomes an `image_generation_call` output item (`id` `ig_<op>_<n>`,
//! `status` `completed` with `result` = the image's bytes in base64, `failed` when it
//! could not be fetched, `in_progress` while no tab fetched it yet). Stored files that are
//! not images are not output items (they are served at `GET /v1/sends/{op}/artifacts/{n}`).
//!
//! The door waits for the artifacts to settle (stored or unavailable), woken by commits,
//! until [`SETTLE_MS`] after the answer was recorded; then it answers with what it has and
//! says so in the response's `metadata` ([`PENDING_METADATA`]).

use crate::attachments::Store;
use crate::bridge::hand_out::long_poll;
use crate::bridge::BridgeState;
use crate::ledger::{Artifact, ArtifactState, LedgerRead, Send};
use base64::Engine;
use serde_json::{json, Value};
use std::time::Duration;

/// How long after its answer a completed response waits for its generated files, in ms.
pub(crate) const SETTLE_MS: i64 = 60_000;
/// The `metadata` key saying some generated files were still not fetched at the bound.
pub(crate) const PENDING_METADATA: &str = "sendledger_artifacts_pending";

/// The image items of a completed send, and the sentence when some were not fetched yet.
#[derive(Default)]
pub(crate) struct Images {
    pub(crate) items: Vec<Value>,
    pub(crate) pending: Option<String>,
}

/// Waits (`wait`: at most until [`SETTLE_MS`] after the answer; else not at all) for
/// `send`'s artifacts to settle; their items then.
pub(crate) async fn settled(st: &BridgeState, send: &Send, wait: bool) -> Images {
    let answered = send.answer.as_ref().map_or(send.updated_at, |a| a.at);
    let op = send.op_id.clone();
    let now = st.ledger().call(|l| l.now_ms()).await;
    let wait = if wait {
        (answered + SETTLE_MS - now).clamp(0, SETTLE_MS) as u64
    } else {
        0
    };
    let found = long_poll(st, Duration::from_millis(wait), || {
        let (st, op) = (st.clone(), op.clone());
        async move {
            let list = st.ledger().call(move |l| l.artifacts(&op)).await?;
            let settled = list.iter().all(|a| a.state != ArtifactState::Wanted);
            Ok((list, settled))
        }
    })
    .await
    .unwrap_or_default();
    items(st, &send.op_id, found).await
}

async fn items(st: &BridgeState, op_id: &str, found: Vec<Artifact>) -> Images {
    let store = Store::new(st.profile().dir());
    let op = op_id.to_string();
    tokio::task::spawn_blocking(move || {
        let mut images = Images::default();
        let mut waiting = Vec::new();
        for a in &found {
            if a.state == ArtifactState::Wanted {
                waiting.push(a.n.to_string());
            }
            if let Some(item) = item(&store, &op, a) {
                images.items.push(item);
            }
        }
        if !waiting.is_empty() {
            images.pending = Some(format!(
                "generated file(s) {} of send {op} were not fetched within {} s of the answer: a tab showing the conversation fetches them; GET /v1/sends/{op}/artifacts/<n> serves them once stored",
                waiting.join(", "),
                SETTLE_MS / 1000
            ));
        }
        images
    })
    .await
    .unwrap_or_default()
}

/// The output item of one artifact; `None` for a stored file that is not an image.
fn item(store: &Store, op_id: &str, a: &Artifact) -> Option<Value> {
    let id = format!("ig_{op_id}_{}", a.n);
    let (status, result) = match a.state {
        ArtifactState::Wanted => ("in_progress", None),
        ArtifactState::Unavailable => ("failed", None),
        ArtifactState::Stored => {
            if !a.mime.as_deref().unwrap_or_default().starts_with("image/") {
                return None;
            }
            match a.sha256.as_deref().map(|sha| store.read(sha)) {
                Some(Ok(bytes)) => (
                    "completed",
                    Some(base64::engine::general_purpose::STANDARD.encode(bytes)),
                ),
                _ => ("failed", None),
            }
        }
    };
    Some(json!({ "type": "image_generation_call", "id": id, "status": status, "result": result }))
}

/// `object`'s `output` with the image items before its message (`first`) or after it, and
/// the pending sentence in its `metadata`.
pub(crate) fn insert(object: &mut Value, images: &Images, first: bool) {
    if let Some(output) = object["output"].as_array_mut() {
        let at = if first { 0 } else { output.len() };
        for (i, item) in images.items.iter().enumerate() {
            output.insert(at + i, item.clone());
        }
    }
    if let Some(p) = &images.pending {
        if !object["metadata"].is_object() {
            object["metadata"] = json!({});
        }
        object["metadata"][PENDING_METADATA] = json!(p);
    }
}
