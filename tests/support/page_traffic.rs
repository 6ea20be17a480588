//! The project's own chatgpt.com fixture traffic for tests over the real bridge: the
//! haiku turn (`request_new_chat_f.json`, `stream_delta_new_chat.sse`,
//! `listing_haiku_*.json`), its ids and answer, and observing it through the extension's
//! route. Include after the bridge harness: `#[path = "support/page_traffic.rs"] mod
//! page_traffic;` next to `mod harness;`.

#![allow(dead_code)]

use crate::harness::Extension;
use serde_json::Value;

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
    serve: &crate::harness::Serve,
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
