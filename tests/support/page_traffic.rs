//! The project's own chatgpt.com fixture traffic for tests over the real bridge: the
//! haiku turn (`request_new_chat_f.json`, `stream_delta_new_chat.sse`,
//! `listing_haiku_*.json`), its ids and answer, and observing it through the extension's
//! route. Include after the bridge harness: `#[path = "support/page_traffic.rs"] mod
//! page_traffic;` next to `mod harness;`.

#![allow(dead_code)]

use super::harness::{Answer, Extension};
use serde_json::{json, Value};

pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/chatgpt");
pub const URL: &str = "https://chatgpt.com/backend-api/f/conversation";
/// What the fixture's user typed (request_new_chat_f.json, stream_delta_new_chat.sse).
pub const TEXT: &str = "Draft a haiku about ledgers.\nKeep it short.";
pub const CONVERSATION: &str = "6a1b2c3d-4e5f-8a01-b234-56789abcdef0";
pub const USER_MESSAGE: &str = "5d1c0b7e-2f4a-4c61-9a0e-6b2d8e1f3a47";
pub const TURN: &str = "a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d";
pub const ASSISTANT_MESSAGE: &str = "7c6b5a49-3827-4165-b0a9-f8e7d6c5b4a3";
pub const ANSWER: &str =
    "Ink dries on the page,\neach line counted once,\nno debt forgotten.\n\nWant another?";

/// A fixture file's text.
pub fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}"))
        .unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// Posts one observation and expects 200; returns the answer's body.
pub fn observe_ok(ext: &Extension, o: Value) -> Value {
    let a = ext.observe(&o);
    assert_eq!(a.status, 200, "observation {}: {}", o["kind"], a.body);
    a.body
}

/// The hand-off fixture's user text (`stream_delta_handoff.sse`, `websocket_handoff*.jsonl`).
pub const HANDOFF_TEXT: &str = "Summarise double-entry bookkeeping.";
/// The hand-off fixture's user message id.
pub const HANDOFF_USER: &str = "7f6e5d4c-3b2a-4918-a7f6-e5d4c3b2a190";

/// Queues, claims and grants `op` with the hand-off fixture's text on a new lease of
/// `tab-1`; returns the lease and the page's request for it (the follow-up fixture
/// carrying that text and user message id).
pub fn handoff_dispatched(
    serve: &super::harness::Serve,
    ext: &Extension,
    op: &str,
) -> (String, String) {
    let lease = ext.lease("tab-1");
    let mut request: Value =
        serde_json::from_str(&fixture("request_follow_up_legacy.json")).unwrap();
    request["messages"][0]["content"]["parts"] = serde_json::json!([HANDOFF_TEXT]);
    request["messages"][0]["id"] = serde_json::json!(HANDOFF_USER);
    serve.client().queue(op, HANDOFF_TEXT);
    ext.next(&lease, 5_000).expect("claimed");
    assert_eq!(ext.dispatch(&lease, op).status, 200);
    (lease, request.to_string())
}

/// The haiku request as the page sends it with files (`file_id`, name, size each):
/// `multimodal_text` with an asset pointer part per file beside the text, and
/// `metadata.attachments`.
pub fn request_with_files(files: &[(&str, &str, u64)]) -> String {
    let mut req: Value = serde_json::from_str(&fixture("request_new_chat_f.json")).unwrap();
    let user = &mut req["messages"][0];
    let mut parts: Vec<Value> = files
        .iter()
        .map(|(id, _, size)| json!({ "content_type": "image_asset_pointer",
            "asset_pointer": format!("file-service://{id}"), "size_bytes": size, "width": 8, "height": 8 }))
        .collect();
    parts.push(json!(TEXT));
    user["content"] = json!({ "content_type": "multimodal_text", "parts": parts });
    user["metadata"]["attachments"] = files
        .iter()
        .map(|(id, name, size)| json!({ "id": id, "name": name, "size": size, "mime_type": "image/png" }))
        .collect();
    req.to_string()
}

/// Asks the grant of `op` on a new chat, reporting the page's uploaded `files` (file id,
/// name, size each).
pub fn grant_with_files(
    ext: &Extension,
    lease: &str,
    op: &str,
    files: &[(&str, &str, u64)],
) -> Answer {
    let list: Vec<Value> = files
        .iter()
        .map(|(id, name, size)| json!({ "file_id": id, "name": name, "size": size }))
        .collect();
    let confirmed = json!({ "conversation_id": null, "attachments": list });
    ext.http.post(
        "/v1/ext/dispatch",
        &json!({ "lease_id": lease, "op_id": op, "confirmed": confirmed }),
    )
}

/// Observes `op`'s page request (`request`, a body) and the haiku answer to its end.
pub fn clicked_and_answered(ext: &Extension, lease: &str, op: &str, request: String) {
    for o in [
        json!({ "lease_id": lease, "op_id": op, "kind": "request", "stream_id": "s1", "url": URL, "body": request }),
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_chunk", "stream_id": "s1", "seq": 0, "chunk": fixture("stream_delta_new_chat.sse") }),
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_end", "stream_id": "s1" }),
    ] {
        observe_ok(ext, o);
    }
}
