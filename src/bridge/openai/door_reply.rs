//! What every answer of the OpenAI doors (chat, whole or streamed, and Responses) carries
//! about its send: the headers (`x-sendledger-operation`, `-attached`, `-ignored`,
//! `-destination-mismatch`), the completion id, the model reported. Shapes: docs/openai.md.

use super::custody::Admitted;
use super::error::OPERATION_HEADER;
use crate::bridge::BridgeState;
use crate::ledger::LedgerRead;
use axum::http::{HeaderMap, HeaderValue};

/// Header listing what the request asked that the tab does not honour.
pub(crate) const IGNORED_HEADER: &str = "x-sendledger-ignored";
/// Header saying whether the request attached to an existing send (`true`) or queued one.
pub(crate) const ATTACHED_HEADER: &str = "x-sendledger-attached";

/// Header saying, in words, that the page's own request did not go where the send was
/// meant to go (another conversation, another model): the `destination_mismatch` note.
pub(crate) const MISMATCH_HEADER: &str = "x-sendledger-destination-mismatch";
/// Key of the same sentence in a Responses object's `metadata`.
pub(crate) const MISMATCH_METADATA: &str = "sendledger_destination_mismatch";

/// The `destination_mismatch` sentence of send `op_id`, when the page's request after the
/// click, or its answer's model, was not its destination (it went out once; it is never
/// resent): [`crate::api::queue::mismatch_of`], as the window's row says it.
pub(crate) async fn mismatch_of(st: &BridgeState, op_id: &str) -> Option<String> {
    let id = op_id.to_string();
    st.ledger()
        .call(move |l| {
            let timeline = l.timeline(&id)?;
            crate::api::queue::mismatch_of(&*l, &id, &timeline)
        })
        .await
        .ok()
        .flatten()
}

/// Sets [`MISMATCH_HEADER`] to `mismatch` in printable ASCII (a header's alphabet).
pub(crate) fn mismatch_header(h: &mut HeaderMap, mismatch: Option<&str>) {
    let Some(m) = mismatch else { return };
    let ascii: String = m
        .replace('…', "...")
        .replace(['—', '–'], "-")
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '?'
            }
        })
        .collect();
    if let Ok(v) = HeaderValue::from_str(&ascii) {
        h.insert(MISMATCH_HEADER, v);
    }
}

/// The `id` of every answer about send `op_id`.
pub(crate) fn completion_id(op_id: &str) -> String {
    format!("chatcmpl-{op_id}")
}

/// The headers every answer about an admitted send carries; `ignored`: what the request
/// asked that the tab does not honour.
pub(crate) fn door_headers(h: &mut HeaderMap, ignored: &[String], admitted: &Admitted) {
    if let Ok(v) = HeaderValue::from_str(&admitted.op_id) {
        h.insert(OPERATION_HEADER, v);
    }
    h.insert(
        ATTACHED_HEADER,
        HeaderValue::from_static(if admitted.attached { "true" } else { "false" }),
    );
    if !ignored.is_empty() {
        if let Ok(v) = HeaderValue::from_str(&ignored.join(", ")) {
            h.insert(IGNORED_HEADER, v);
        }
    }
}

/// The model to report: the page's slug as recorded, else as streamed, else `unknown`.
pub(crate) async fn model_of(st: &BridgeState, op_id: &str, streamed: Option<&str>) -> String {
    let id = op_id.to_string();
    let recorded = st
        .ledger()
        .call(move |l| l.door_request(&id))
        .await
        .ok()
        .flatten()
        .and_then(|d| d.model);
    recorded
        .or_else(|| streamed.map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}
