//! What is automatic, exactly (issue 12, docs/custody.md "What is automatic"): after an
//! owner restart an uncertain send moves to accepted (and then completed) by itself when
//! the tab forwards the page's own receipt for the request the extension made — DESIGN.md's
//! "receipt reobserved" edge, granting nothing; evidence from matching text in a
//! conversation listing stays a suggestion for a person and never moves the send.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::{json, Value};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/chatgpt");
const URL: &str = "https://chatgpt.com/backend-api/f/conversation";
const TEXT: &str = "Draft a haiku about ledgers.\nKeep it short.";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap()
}

fn observe_ok(ext: &Extension, o: Value) -> Value {
    let a = ext.observe(&o);
    assert_eq!(a.status, 200, "observation {}: {}", o["kind"], a.body);
    a.body
}

#[test]
fn a_receipt_reobserved_after_a_restart_moves_uncertain_to_accepted_by_itself_granting_nothing() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    serve.client().queue("again", TEXT);
    ext.next(&lease, 5_000).expect("claimed");
    assert_eq!(ext.dispatch(&lease, "again").body["granted"], true);
    serve.kill();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    assert_eq!(client.state("again"), "uncertain", "recovery cannot know");
    let ext = serve.extension(&ext);
    let lease = ext.lease("tab-1");
    for o in [
        json!({ "lease_id": lease, "op_id": "again", "kind": "request", "stream_id": "s1",
                "url": URL, "body": fixture("request_new_chat_f.json") }),
        json!({ "lease_id": lease, "op_id": "again", "kind": "stream_chunk", "stream_id": "s1",
                "seq": 0, "chunk": fixture("stream_delta_new_chat.sse") }),
        json!({ "lease_id": lease, "op_id": "again", "kind": "stream_end", "stream_id": "s1" }),
    ] {
        observe_ok(&ext, o);
    }
    let shown = client.show("again");
    assert_eq!(shown["send"]["state"], "completed", "{shown}");
    let steps: Vec<(Value, Value)> = shown["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "transition")
        .map(|e| (e["from"].clone(), e["to"].clone()))
        .collect();
    assert!(
        steps.contains(&(json!("uncertain"), json!("accepted"))),
        "{steps:?}"
    );
    assert_eq!(
        steps.iter().filter(|(_, to)| to == "dispatched").count(),
        1,
        "the receipt grants no second dispatch"
    );
}

#[test]
fn text_match_evidence_on_an_uncertain_send_stays_a_suggestion() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("maybe", TEXT);
    ext.next(&lease, 5_000).expect("claimed");
    assert_eq!(ext.dispatch(&lease, "maybe").status, 200);
    ext.fail(&lease, "maybe", "after_dispatch", "the page reloaded");
    assert_eq!(client.state("maybe"), "uncertain");
    let conv = "6a1b2c3d-4e5f-8a01-b234-56789abcdef0";
    let user = "5d1c0b7e-2f4a-4c61-9a0e-6b2d8e1f3a47";
    let later = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        + 60.0;
    let listing = json!({
        "conversation_id": conv, "current_node": user,
        "mapping": {
            "client-created-root": { "id": "client-created-root", "parent": null, "children": [user], "message": null },
            user: { "id": user, "parent": "client-created-root", "children": [], "message": {
                "id": user, "author": { "role": "user" }, "create_time": later,
                "content": { "content_type": "text", "parts": [TEXT] }, "status": "finished_successfully",
                "metadata": {}, "recipient": "all" } }
        }
    });
    let a = observe_ok(
        &ext,
        json!({ "lease_id": lease, "kind": "listing",
                "url": format!("https://chatgpt.com/backend-api/conversation/{conv}"),
                "body": listing.to_string() }),
    );
    assert_eq!(a["applied"][0]["exactly_one"], true, "{a}");
    let shown = client.show("maybe");
    assert_eq!(
        shown["send"]["state"], "uncertain",
        "exactly one matching message is evidence, never a decision"
    );
    let last = shown["timeline"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["kind"], "note");
    assert!(last["evidence"].as_str().unwrap().starts_with(&format!(
        "observed conversation {conv}: exactly one user message"
    )));
}
