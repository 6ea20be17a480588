//! The whole loop over HTTP on the project's own fixture traffic (issue 5): queue →
//! next → dispatch → observations (the conversation request body, then the response
//! stream in chunks) → accepted → completed, with the answer readable by the client.
//! And the answer bound: an accepted send whose answer is not seen in time stops
//! holding the queue, and a later observation still completes it.

#[path = "support/bridge.rs"]
mod harness;
#[path = "support/page_traffic.rs"]
mod page_traffic;

use harness::*;
use page_traffic::*;
use serde_json::{json, Value};

/// `text` cut into `n` pieces at char boundaries (any split must decode the same).
fn pieces(text: &str, n: usize) -> Vec<String> {
    let step = text.len() / n + 1;
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + step).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(text[start..end].to_string());
        start = end;
    }
    out
}

/// Queues, claims and dispatches `op` with the fixture's text; returns the lease.
fn dispatched(serve: &Serve, ext: &Extension, op: &str) -> String {
    let lease = ext.lease("tab-1");
    serve.client().queue(op, TEXT);
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], op);
    assert_eq!(ext.dispatch(&lease, op).body["granted"], true);
    lease
}

#[test]
fn fixture_traffic_moves_a_dispatched_send_to_accepted_then_completed_with_its_answer() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let mut feed = client.events(None);
    let ext = serve.pair();
    let lease = dispatched(&serve, &ext, "haiku");

    observe_ok(
        &ext,
        json!({ "lease_id": lease, "op_id": "haiku", "kind": "request", "stream_id": "s1",
                "url": URL, "body": fixture("request_new_chat_f.json") }),
    );
    assert_eq!(
        client.state("haiku"),
        "dispatched",
        "a request alone proves nothing"
    );
    for (seq, chunk) in pieces(&fixture("stream_delta_new_chat.sse"), 7)
        .into_iter()
        .enumerate()
    {
        observe_ok(
            &ext,
            json!({ "lease_id": lease, "op_id": "haiku", "kind": "stream_chunk",
                    "stream_id": "s1", "seq": seq, "chunk": chunk }),
        );
    }
    observe_ok(
        &ext,
        json!({ "lease_id": lease, "op_id": "haiku", "kind": "stream_end", "stream_id": "s1" }),
    );

    let accepted = feed.wait_for("haiku", "accepted");
    assert_eq!(accepted["from"], "dispatched");
    let completed = feed.wait_for("haiku", "completed");
    assert_eq!(completed["from"], "accepted");

    let shown = client.show("haiku");
    let send = &shown["send"];
    assert_eq!(send["state"], "completed");
    assert_eq!(
        send["receipt"],
        json!({ "conversation_id": CONVERSATION, "user_message_id": USER_MESSAGE, "turn_id": TURN }),
        "the receipt is the page's own ids"
    );
    assert_eq!(send["answer"]["message_id"], ASSISTANT_MESSAGE);
    assert_eq!(send["answer"]["text"], ANSWER, "the final answer, whole");
    let (code, cli) = cli_json(&profile, &["show", "haiku"]);
    assert_eq!(code, 0);
    assert_eq!(
        cli["send"]["answer"]["text"], ANSWER,
        "readable from the CLI too"
    );

    assert!(
        ext.next(&lease, 200).is_none(),
        "a completed send is never handed out again"
    );
    client.queue("after", "next in line");
    assert_eq!(
        ext.next(&lease, 5_000).expect("the queue moved on")["op_id"],
        "after"
    );
    assert!(
        !serve.stderr().contains("haiku about ledgers") && !serve.stderr().contains("Ink dries"),
        "neither the send's text nor the answer reaches the log"
    );
}

#[test]
fn an_answer_not_seen_in_time_stops_holding_the_queue_and_a_late_one_still_completes() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &["--answer-ms", "300"]);
    let client = serve.client();
    let mut feed = client.events(None);
    let ext = serve.pair();
    let lease = dispatched(&serve, &ext, "haiku");
    let stream = fixture("stream_delta_new_chat.sse");
    // Up to the user message's echo: the receipt, and no answer yet.
    let cut = stream
        .find("\"type\": \"input_message\"")
        .expect("the fixture echoes the user message");
    let cut = stream[cut..].find("\n\n").map(|i| cut + i + 2).unwrap();
    observe_ok(
        &ext,
        json!({ "lease_id": lease, "op_id": "haiku", "kind": "request", "stream_id": "s1",
                "url": URL, "body": fixture("request_new_chat_f.json") }),
    );
    observe_ok(
        &ext,
        json!({ "lease_id": lease, "op_id": "haiku", "kind": "stream_chunk", "stream_id": "s1",
                "seq": 0, "chunk": &stream[..cut] }),
    );
    feed.wait_for("haiku", "accepted");
    let note = loop {
        let e = feed.next_event();
        if e.data["op_id"] == "haiku" && e.data["kind"] == "note" {
            break e.data;
        }
    };
    assert_eq!(note["actor"], "owner");
    assert!(
        note["evidence"]
            .as_str()
            .unwrap()
            .contains("answer not observed"),
        "{note}"
    );
    assert_eq!(client.state("haiku"), "accepted", "it stays accepted");
    client.queue("next", "not stalled");
    let other = ext.lease("tab-2");
    assert_eq!(
        ext.next(&other, 5_000).expect("the queue is free")["op_id"],
        "next",
        "an answer that never comes stops holding the queue"
    );
    assert_eq!(
        ext.fail(&other, "next", "before_dispatch", "test").status,
        200
    );

    observe_ok(
        &ext,
        json!({ "lease_id": lease, "op_id": "haiku", "kind": "stream_chunk", "stream_id": "s1",
                "seq": 1, "chunk": &stream[cut..] }),
    );
    feed.wait_for("haiku", "completed");
    assert_eq!(client.show("haiku")["send"]["answer"]["text"], ANSWER);
}

/// Feeds the fixture's request and whole stream for `op` on `lease`, chunks in `order`.
fn feed_fixture(ext: &Extension, lease: &str, op: &str, order: &[usize]) -> Vec<Value> {
    let mut answers = vec![
        ext.observe(
            &json!({ "lease_id": lease, "op_id": op, "kind": "request", "stream_id": "s1",
                "url": URL, "body": fixture("request_new_chat_f.json") }),
        )
        .body,
    ];
    let chunks = pieces(&fixture("stream_delta_new_chat.sse"), order.len());
    assert_eq!(
        chunks.len(),
        order.len(),
        "the stream splits into {} pieces",
        order.len()
    );
    for &seq in order {
        answers.push(
            ext.observe(
                &json!({ "lease_id": lease, "op_id": op, "kind": "stream_chunk",
                    "stream_id": "s1", "seq": seq, "chunk": chunks[seq] }),
            )
            .body,
        );
    }
    answers.push(
        ext.observe(
            &json!({ "lease_id": lease, "op_id": op, "kind": "stream_end", "stream_id": "s1" }),
        )
        .body,
    );
    answers
}

/// Whether no answer applied `fact`.
fn no_fact(answers: &[Value], fact: &str) -> bool {
    answers.iter().all(|a| {
        a["applied"]
            .as_array()
            .is_some_and(|facts| facts.iter().all(|f| f["fact"] != fact))
    })
}

#[test]
fn stream_chunks_arriving_out_of_order_are_decoded_in_seq_order() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = dispatched(&serve, &ext, "haiku");
    feed_fixture(&ext, &lease, "haiku", &[4, 1, 0, 3, 2]);
    let send = &serve.client().show("haiku")["send"];
    assert_eq!(send["state"], "completed", "{send}");
    assert_eq!(send["answer"]["text"], ANSWER);
}

#[test]
fn traffic_whose_user_text_is_not_the_granted_send_never_accepts_it() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("other", "A different message altogether");
    ext.next(&lease, 5_000).expect("claimed");
    assert_eq!(ext.dispatch(&lease, "other").body["granted"], true);
    let before = events_of(&profile, "other");
    let answers = feed_fixture(&ext, &lease, "other", &[0, 1, 2]);
    assert_eq!(
        client.state("other"),
        "dispatched",
        "someone else's turn is never this send's receipt: {answers:?}"
    );
    assert_eq!(
        events_of(&profile, "other"),
        before,
        "nothing recorded for it"
    );
    assert_eq!(
        answers[0]["applied"][0]["fact"], "not_tracked",
        "{answers:?}"
    );
    assert!(no_fact(&answers, "accepted"), "{answers:?}");
}

#[test]
fn traffic_for_a_send_never_granted_does_not_accept_it() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("haiku", TEXT);
    ext.next(&lease, 5_000).expect("claimed");
    let answers = feed_fixture(&ext, &lease, "haiku", &[0, 1, 2]);
    assert_eq!(
        client.state("haiku"),
        "claimed",
        "a receipt never precedes a durable dispatch: {answers:?}"
    );
    assert!(client.show("haiku")["send"]["receipt"].is_null());
    assert_eq!(
        answers[0]["applied"][0]["fact"], "not_tracked",
        "{answers:?}"
    );
    assert!(no_fact(&answers, "accepted"), "{answers:?}");
}

#[test]
fn unreadable_page_traffic_is_refused_without_echoing_it_and_changes_nothing() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = dispatched(&serve, &ext, "haiku");
    let secret = "PRIVATE-WORDS-0042";
    let cases = [
        json!({ "lease_id": lease, "op_id": "haiku", "kind": "request", "stream_id": "s1",
                "url": URL, "body": format!("{{\"messages\": [{secret}") }),
        json!({ "lease_id": lease, "op_id": "haiku", "kind": "request", "stream_id": "s2",
                "url": URL, "body": json!({ "messages": secret }).to_string() }),
        json!({ "lease_id": lease, "kind": "listing",
                "url": "https://chatgpt.com/backend-api/conversation/c1",
                "body": format!("{{\"mapping\": \"{secret}\"") }),
        json!({ "lease_id": lease, "op_id": "haiku", "kind": "stream_chunk", "stream_id": "unknown",
                "seq": 0, "chunk": format!("data: {{\"v\": \"{secret}\"\n\n") }),
        json!({ "lease_id": lease, "op_id": "haiku", "kind": "telepathy", "stream_id": "s1", "note": secret }),
    ];
    for o in cases {
        let before = dump(&profile);
        let a = ext.observe(&o);
        assert!(
            !a.body.to_string().contains(secret),
            "the answer never echoes the page's text: {} {}",
            a.status,
            a.body
        );
        if a.status != 200 {
            assert!(
                !a.code().is_empty(),
                "a refusal is {{code, message}}: {}",
                a.body
            );
        }
        assert_eq!(
            dump(&profile),
            before,
            "unreadable traffic changes nothing: {o}"
        );
        assert!(!serve.stderr().contains(secret), "nor reaches the log");
    }
    assert_eq!(serve.client().state("haiku"), "dispatched");
}

#[test]
fn a_stream_handed_off_to_the_websocket_completes_from_its_frames_once_each() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    // The hand-off fixture's user text; the request is the follow-up fixture carrying it.
    let (lease, request) = handoff_dispatched(&serve, &ext, "ws");
    observe_ok(
        &ext,
        json!({ "lease_id": lease, "op_id": "ws", "kind": "request", "stream_id": "s1",
                "url": URL, "body": request }),
    );
    observe_ok(
        &ext,
        json!({ "lease_id": lease, "op_id": "ws", "kind": "stream_chunk", "stream_id": "s1",
                "seq": 0, "chunk": fixture("stream_delta_handoff.sse") }),
    );
    assert_eq!(
        client.state("ws"),
        "accepted",
        "the SSE part before the hand-off carried the receipt"
    );
    for frame in fixture("websocket_handoff.jsonl").lines() {
        observe_ok(
            &ext,
            json!({ "lease_id": lease, "op_id": "ws", "kind": "websocket", "stream_id": "s1",
                    "message": frame }),
        );
    }
    observe_ok(
        &ext,
        json!({ "lease_id": lease, "op_id": "ws", "kind": "stream_end", "stream_id": "s1" }),
    );
    let send = &client.show("ws")["send"];
    assert_eq!(send["state"], "completed", "{send}");
    assert_eq!(
        send["answer"]["text"], "Every debit has a matching credit.",
        "a repeated frame is applied once"
    );
    assert_eq!(
        send["receipt"]["turn_id"],
        "c2d3e4f5-a6b7-4c8d-8e9f-1a2b3c4d5e6f"
    );
}
