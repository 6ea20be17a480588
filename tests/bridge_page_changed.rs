//! The *page changed* gate over the real loopback bridge (issue 35): a tab failing a send
//! on a page fact every send needs (`page_fact.needs == "every"`) fails that send and
//! closes the gate; queued sends wait (no tab is handed one) and `sendledger status` says
//! which fact and what to do; a person's resume lets the queued send go once. A fact only
//! some sends need fails only that send.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::json;

fn fail_on(ext: &Extension, lease: &str, op: &str, id: &str, needs: &str) -> Answer {
    ext.http.post(
        "/v1/ext/fail",
        &json!({ "lease_id": lease, "op_id": op, "stage": "before_dispatch",
                 "reason": format!("{id} is a page fact this extension does not recognise; nothing was typed"),
                 "page_fact": { "id": id, "needs": needs } }),
    )
}

#[test]
fn a_fact_every_send_needs_closes_the_page_gate_and_queued_sends_wait_for_a_person() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("first", "goes nowhere");
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "first");
    let a = fail_on(&ext, &lease, "first", "composer.present", "every");
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["send"]["state"], "rejected");
    client.queue("second", "waits for a person");
    assert!(
        ext.next(&lease, 300).is_none(),
        "no send is handed out while the page gate is closed"
    );
    let other = ext.lease("tab-2");
    assert!(ext.next(&other, 300).is_none(), "to no tab");
    let (code, v) = cli_json(&profile, &["status"]);
    assert_eq!(code, 0, "{v}");
    let v = &v["status"];
    assert_eq!(v["page_gate"]["fact_id"], "composer.present", "{v}");
    assert_eq!(v["page_gate"]["tab_id"], "tab-1", "{v}");
    let said = v["waiting_sentence"].as_str().expect("status says why");
    assert!(
        said.contains("composer.present") && said.contains("update the extension"),
        "{said}"
    );
    let text = String::from_utf8_lossy(&cli(&profile, &["status"]).stdout).to_string();
    assert!(text.contains("composer.present"), "{text}");
    let shown = client.show("second");
    assert_eq!(shown["send"]["state"], "queued", "{shown}");
    assert!(
        shown.to_string().contains("composer.present"),
        "the queued send says why: {shown}"
    );
    let out = cli(&profile, &["resume", "--by", "alice"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let leased = ext.lease("tab-1");
    let next = ext
        .next(&leased, 5_000)
        .expect("the queued send goes after the resume");
    assert_eq!(next["op_id"], "second");
    assert_eq!(ext.dispatch(&leased, "second").body["granted"], true);
}

#[test]
fn a_fact_only_some_sends_need_fails_only_that_send() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("first", "names a model the picker does not show");
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "first");
    let a = fail_on(&ext, &lease, "first", "picker.model_item", "model");
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["send"]["state"], "rejected");
    client.queue("second", "goes");
    assert_eq!(
        ext.next(&lease, 5_000).expect("the queue moves on")["op_id"],
        "second"
    );
    let (_, v) = cli_json(&profile, &["status"]);
    assert!(v["status"]["page_gate"].is_null(), "{v}");
}

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/chatgpt");
/// What the fixture's user typed (request_new_chat_f.json, stream_delta_new_chat.sse).
const TEXT: &str = "Draft a haiku about ledgers.\nKeep it short.";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}")).expect("fixture")
}

/// The page's request for `op`, its whole response `stream`, then its end.
fn turn(ext: &Extension, lease: &str, op: &str, stream: &str) -> Vec<serde_json::Value> {
    let url = "https://chatgpt.com/backend-api/f/conversation";
    let steps = [
        json!({ "lease_id": lease, "op_id": op, "kind": "request", "stream_id": op,
                "url": url, "body": fixture("request_new_chat_f.json") }),
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_chunk", "stream_id": op,
                "seq": 0, "chunk": stream }),
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_end", "stream_id": op }),
    ];
    steps
        .iter()
        .map(|o| {
            let a = ext.observe(o);
            assert_eq!(a.status, 200, "{}", a.body);
            a.body
        })
        .collect()
}

#[test]
fn a_stream_in_no_format_the_provider_reads_makes_the_send_uncertain_and_closes_the_page_gate() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("first", TEXT);
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "first");
    assert_eq!(ext.dispatch(&lease, "first").body["granted"], true);
    client.queue("second", "waits for a person");
    let applied = turn(
        &ext,
        &lease,
        "first",
        &fixture("stream_markers_renamed.sse"),
    );
    assert!(
        applied
            .iter()
            .any(|a| a.to_string().contains("page_changed")),
        "{applied:?}"
    );
    let shown = client.show("first");
    assert_eq!(
        shown["send"]["state"], "uncertain",
        "at once, not at the receipt bound: {shown}"
    );
    assert!(shown["send"]["evidence"]
        .as_str()
        .unwrap()
        .contains("traffic.stream_markers"));
    let (_, v) = cli_json(&profile, &["status"]);
    assert_eq!(
        v["status"]["page_gate"]["fact_id"], "traffic.stream_markers",
        "{v}"
    );
    assert!(
        v["status"]["page_gate"]["tab_id"].is_null(),
        "the owner found it: {v}"
    );
    assert!(ext.next(&lease, 300).is_none(), "the queued send waits");
}

#[test]
fn a_stream_the_provider_reads_leaves_the_page_gate_open() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("first", TEXT);
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "first");
    assert_eq!(ext.dispatch(&lease, "first").body["granted"], true);
    turn(&ext, &lease, "first", &fixture("stream_unknown_events.sse"));
    assert_eq!(client.state("first"), "completed");
    let (_, v) = cli_json(&profile, &["status"]);
    assert!(v["status"]["page_gate"].is_null(), "{v}");
}
