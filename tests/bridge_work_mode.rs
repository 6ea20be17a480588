//! Work mode seen in the page's own traffic (issue 35), over the real loopback bridge: a
//! `request_elsewhere` observation — the page's own request after a granted click to a
//! route that is not a chat conversation route — marks the dispatched send at once: a
//! `destination_mismatch` naming the route (as a template, ids dropped) and `uncertain`
//! for a person; the queue moves on; nothing is resent. Bounded: a malformed observation
//! is refused and changes nothing.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::json;

const ID: &str = "6f1e2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b";

fn dispatched(serve: &Serve, ext: &Extension, op: &str) -> String {
    let lease = ext.lease("tab-1");
    serve
        .client()
        .queue(op, "goes to chat, the page sent it elsewhere");
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], op);
    assert_eq!(ext.dispatch(&lease, op).body["granted"], true);
    lease
}

fn elsewhere(ext: &Extension, lease: &str, op: &str, method: &str, route: &str) -> Answer {
    ext.observe(
        &json!({ "lease_id": lease, "op_id": op, "kind": "request_elsewhere",
                         "method": method, "route": route }),
    )
}

#[test]
fn a_page_request_to_a_route_that_is_not_a_chat_conversation_route_marks_the_send_at_once() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = dispatched(&serve, &ext, "work");
    client.queue("next", "the queue moves on");
    let route = format!("https://chatgpt.com/backend-api/work/{ID}/messages?mode=agent");
    let a = elsewhere(&ext, &lease, "work", "POST", &route);
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["applied"][0]["fact"], "elsewhere", "{}", a.body);
    let shown = client.show("work");
    assert_eq!(
        shown["send"]["state"], "uncertain",
        "at once, not at the receipt bound: {shown}"
    );
    let evidence = shown["send"]["evidence"].as_str().unwrap();
    assert!(evidence.starts_with("destination_mismatch: "), "{evidence}");
    assert!(
        evidence.contains("/backend-api/work/<id>/messages"),
        "{evidence}"
    );
    assert!(
        !shown.to_string().contains(ID),
        "the route's id is masked: {shown}"
    );
    assert!(
        !shown.to_string().contains("mode=agent"),
        "no query: {shown}"
    );
    let again = ext
        .next(&lease, 5_000)
        .expect("the queue is not blocked on it");
    assert_eq!(again["op_id"], "next");
    let twice = elsewhere(&ext, &lease, "work", "POST", &route);
    assert_eq!(twice.status, 200);
    assert_eq!(
        client.state("work"),
        "uncertain",
        "never resent, nothing changes"
    );
}

#[test]
fn a_request_elsewhere_out_of_its_bounds_is_refused_and_changes_nothing() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = dispatched(&serve, &ext, "work");
    let long = format!("/backend-api/{}", "a".repeat(3000));
    for (method, route) in [
        ("POST", long.as_str()),
        ("POST", ""),
        ("post", "/backend-api/work/x/messages"),
        ("POSTPOSTPOSTPOSTPOST", "/backend-api/work/x/messages"),
        ("POST", "https://chatgpt.com/backend-api/f/conversation"),
    ] {
        let a = elsewhere(&ext, &lease, "work", method, route);
        assert_eq!(a.status, 400, "{method} {}: {}", route.len(), a.body);
    }
    assert_eq!(serve.client().state("work"), "dispatched");
}
