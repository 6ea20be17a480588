//! Page states that end a send (issue 27), the owner's side, over the real loopback bridge:
//! the server refusing the page's own conversation request — a 429 Too Many Requests with
//! `Retry-After`, a 403 "Unusual activity", a 431 — ends the dispatched send `page_error`
//! with the page's words at once (the message was not taken: not uncertain, never resent)
//! and holds the limit gate where the refusal says; a status that proves no refusal (a 5xx)
//! leaves the send awaiting its receipt. A usage limit in another language is known by its
//! error code.

#[path = "support/bridge.rs"]
mod harness;
#[path = "support/page_traffic.rs"]
mod page_traffic;

use harness::*;
use page_traffic::{fixture, TEXT, URL};
use serde_json::{json, Value};

const TOO_MANY: &str = "Too many requests. You've been making too many requests in a short time, so we've temporarily limited access to your conversations.";

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// A running owner with a paired extension and the send `op` dispatched from a new tab.
struct World {
    _tmp: tempfile::TempDir,
    profile: std::path::PathBuf,
    _serve: Serve,
    client: Http,
    ext: Extension,
    lease: String,
}

/// Queues, claims and dispatches `op` from a new tab of a new owner.
fn dispatched(op: &str) -> World {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let (client, ext) = (serve.client(), serve.pair());
    let lease = ext.lease("tab-1");
    client.queue(op, TEXT);
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], op);
    assert_eq!(ext.dispatch(&lease, op).body["granted"], true);
    World {
        _tmp,
        profile,
        _serve: serve,
        client,
        ext,
        lease,
    }
}

/// The page's request for `op`, answered by the server with `answered` (status, headers,
/// body), then the stream's end — as the page observer forwards a refused request.
fn refused(ext: &Extension, lease: &str, op: &str, answered: Value) -> Value {
    let mut o = json!({ "lease_id": lease, "op_id": op, "kind": "request", "stream_id": op,
                        "url": URL, "body": fixture("request_new_chat_f.json") });
    o.as_object_mut()
        .unwrap()
        .extend(answered.as_object().unwrap().clone());
    let a = ext.observe(&o);
    assert_eq!(a.status, 200, "{}", a.body);
    let end = json!({ "lease_id": lease, "op_id": op, "kind": "stream_end", "stream_id": op });
    assert_eq!(ext.observe(&end).status, 200);
    a.body
}

/// The limit gate's (closed, until_ms) as stored.
fn gate(profile: &std::path::Path) -> (i64, Option<i64>) {
    read_only(profile)
        .query_row(
            "SELECT closed, until_ms FROM limit_gates WHERE site = 'chatgpt'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
}

fn last_edge(shown: &Value) -> (Value, Value) {
    let last = shown["timeline"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    (last["from"].clone(), last["to"].clone())
}

#[test]
fn a_429_to_the_conversation_request_ends_the_send_page_error_and_holds_the_gate_for_retry_after() {
    let w = dispatched("rated");
    let (profile, client, ext, lease) = (&w.profile, &w.client, &w.ext, &w.lease);
    client.queue("waits", "queued behind the rate limit");
    let before = now_ms();
    let answer = refused(
        ext,
        lease,
        "rated",
        json!({ "status": 429, "retry_after": "120",
                "error_body": json!({ "detail": TOO_MANY }).to_string() }),
    );
    let after = now_ms();
    assert!(
        answer.to_string().contains("\"usage_limit\":true"),
        "{answer}"
    );
    let shown = client.show("rated");
    assert_eq!(
        shown["send"]["state"], "page_error",
        "not uncertain: {shown}"
    );
    assert_eq!(
        shown["send"]["evidence"],
        format!("the server refused the page's conversation request (HTTP 429), so the message was not taken: {TOO_MANY}")
    );
    assert_eq!(
        last_edge(&shown),
        (json!("dispatched"), json!("page_error"))
    );
    let (closed, until) = gate(profile);
    assert_eq!(closed, 1, "the gate holds");
    let until = until.expect("for Retry-After");
    assert!(
        (before + 120_000..=after + 120_000).contains(&until),
        "120 s from the refusal: {until} not in {before}+120 s..{after}+120 s"
    );
    assert!(
        ext.next(lease, 300).is_none(),
        "the next send is not sent into the rate limit"
    );
    assert_eq!(client.state("waits"), "queued");
    let r = client.post("/v1/resume", &json!({ "by": "dana" }));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        ext.next(lease, 5_000).expect("after a resume")["op_id"],
        "waits"
    );
}

#[test]
fn a_429_without_a_readable_retry_after_holds_the_gate_for_the_documented_default() {
    for header in [Value::Null, json!("in a while")] {
        let w = dispatched("rated");
        let (profile, ext, lease) = (&w.profile, &w.ext, &w.lease);
        let before = now_ms();
        refused(
            ext,
            lease,
            "rated",
            json!({ "status": 429, "retry_after": header, "error_body": "" }),
        );
        let after = now_ms();
        let until = gate(profile).1.expect("a default time");
        assert!(
            (before + 600_000..=after + 600_000).contains(&until),
            "{header}: 10 minutes"
        );
        let shown = w.client.show("rated");
        assert!(
            shown["send"]["evidence"]
                .as_str()
                .unwrap()
                .ends_with("with HTTP 429 (too many requests)"),
            "the status is named when the page gives no words: {shown}"
        );
    }
}

#[test]
fn a_403_unusual_activity_ends_the_send_and_holds_the_gate_until_a_person_resumes() {
    let w = dispatched("flagged");
    let (profile, client, ext, lease) = (&w.profile, &w.client, &w.ext, &w.lease);
    client.queue("waits", "queued behind the flag");
    let words =
        "Unusual activity has been detected from your device. Try again later. (ref 8f2c1a)";
    refused(
        ext,
        lease,
        "flagged",
        json!({ "status": 403, "error_body": json!({ "detail": words }).to_string() }),
    );
    assert_eq!(client.state("flagged"), "page_error");
    assert!(client.show("flagged")["send"]["evidence"]
        .as_str()
        .unwrap()
        .ends_with(words));
    assert_eq!(gate(profile), (1, None), "until a person resumes");
    assert!(ext.next(lease, 300).is_none());
    let status = client.get("/v1/status").body;
    assert!(
        status["status"]["waiting_sentence"]
            .as_str()
            .unwrap_or_default()
            .starts_with(&format!("ChatGPT said no (\"{words}\"), naming no time: sending resumes when a person resumes")),
        "the page's words, not 'usage limit': {status}"
    );
}

#[test]
fn a_431_headers_too_large_ends_the_send_with_the_status_named_and_holds_the_gate() {
    let w = dispatched("cookies");
    let (profile, ext, lease) = (&w.profile, &w.ext, &w.lease);
    let html = "<html><body><h1>431 Request Header Fields Too Large</h1></body></html>";
    refused(
        ext,
        lease,
        "cookies",
        json!({ "status": 431, "error_body": html }),
    );
    let shown = w.client.show("cookies");
    assert_eq!(shown["send"]["state"], "page_error");
    assert!(shown["send"]["evidence"]
        .as_str()
        .unwrap()
        .ends_with("with HTTP 431 (request headers too large)"));
    assert_eq!(gate(profile), (1, None));
}

#[test]
fn a_server_error_to_the_conversation_request_proves_no_refusal_and_the_send_awaits_its_receipt() {
    let w = dispatched("maybe");
    let (profile, ext, lease) = (&w.profile, &w.ext, &w.lease);
    for status in [500, 502, 408] {
        refused(
            ext,
            lease,
            "maybe",
            json!({ "status": status, "error_body": "{\"detail\":\"upstream\"}" }),
        );
        assert_eq!(w.client.state("maybe"), "dispatched", "{status}");
    }
    assert_eq!(gate(profile), (0, None));
}

#[test]
fn a_usage_limit_in_another_language_is_known_by_its_code_and_holds_the_gate() {
    let w = dispatched("kontingent");
    let (profile, ext, lease) = (&w.profile, &w.ext, &w.lease);
    let german =
        "Du hast das Kontingent dieses Tarifs aufgebraucht. Wieder möglich nach 23:59 Uhr.";
    let stream = fixture("stream_delta_usage_limit.sse").replace(
        "You have used up the usage limit of this plan. Sending works again at 15:40.",
        german,
    );
    let request = json!({ "lease_id": lease, "op_id": "kontingent", "kind": "request",
        "stream_id": "s1", "url": URL, "body": fixture("request_new_chat_f.json"), "status": 200 });
    assert_eq!(ext.observe(&request).status, 200);
    for o in [
        json!({ "lease_id": lease, "op_id": "kontingent", "kind": "stream_chunk", "stream_id": "s1", "seq": 0, "chunk": stream }),
        json!({ "lease_id": lease, "op_id": "kontingent", "kind": "stream_end", "stream_id": "s1" }),
    ] {
        assert_eq!(ext.observe(&o).status, 200);
    }
    let shown = w.client.show("kontingent");
    assert_eq!(shown["send"]["state"], "page_error");
    assert_eq!(
        shown["send"]["evidence"],
        format!("the page answered with its usage limit: {german}")
    );
    let (closed, until) = gate(profile);
    assert_eq!(closed, 1);
    assert!(until.is_some(), "the time the German words name");
}

#[test]
fn a_refusal_quoting_the_sends_text_is_recorded_with_the_status_named_never_the_text() {
    let w = dispatched("quoted");
    let body = json!({ "detail": format!("Invalid input: {TEXT}") }).to_string();
    refused(
        &w.ext,
        &w.lease,
        "quoted",
        json!({ "status": 422, "error_body": body }),
    );
    let shown = w.client.show("quoted");
    assert_eq!(shown["send"]["state"], "page_error");
    assert_eq!(
        shown["send"]["evidence"],
        "the server refused the page's conversation request (HTTP 422), so the message was not taken: the server refused the page's conversation request with HTTP 422 (not acceptable)"
    );
    assert_eq!(gate(&w.profile), (0, None), "a 422 holds nothing");
}
