//! An answer cut by a crash, a reload or a mixed frame is still harvested (issue 26,
//! part 4), over the real owner's HTTP with the project's own fixture traffic:
//! - the page's own conversation read, forwarded when the tab shows the conversation
//!   again, completes an accepted send with the answer of its own turn (by the user
//!   message id of its receipt, never by text alone), once;
//! - a stream sent again from its request after the owner was SIGKILLed mid-answer is
//!   followed by the new owner for the answer;
//! - hand-off frames mixing two conversations' envelopes complete the send with its own;
//! - a conversation read while a send awaits its receipt notes how many messages match;
//! - the doors waiting (a held chat request, a background response) get the late answer.

#[path = "support/bridge.rs"]
mod harness;
#[path = "support/page_traffic.rs"]
mod page_traffic;

use harness::*;
use page_traffic::*;
use serde_json::{json, Value};

fn facts(answer: &Value) -> Vec<String> {
    answer["applied"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| f["fact"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The new-chat stream up to the user message's echo (the receipt, no answer yet), and
/// the rest.
fn stream_cut_after_receipt() -> (String, String) {
    let stream = fixture("stream_delta_new_chat.sse");
    let at = stream.find("\"type\": \"input_message\"").expect("an echo");
    let cut = stream[at..].find("\n\n").map(|i| at + i + 2).unwrap();
    (stream[..cut].to_string(), stream[cut..].to_string())
}

/// Queues, grants and feeds `op` up to its receipt on stream `s1`; returns the lease.
fn accepted_with_its_stream_cut(serve: &Serve, ext: &Extension, op: &str) -> String {
    let lease = ext.lease("tab-1");
    serve.client().queue(op, TEXT);
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], op);
    assert_eq!(ext.dispatch(&lease, op).body["granted"], true);
    observe_ok(
        ext,
        json!({ "lease_id": lease, "op_id": op, "kind": "request", "stream_id": "s1",
                "url": URL, "body": fixture("request_new_chat_f.json") }),
    );
    let (head, _) = stream_cut_after_receipt();
    observe_ok(
        ext,
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_chunk", "stream_id": "s1",
                "seq": 0, "chunk": head }),
    );
    assert_eq!(serve.client().state(op), "accepted");
    lease
}

fn listing(ext: &Extension, lease: &str, body: &str) -> Value {
    listing_of(ext, lease, CONVERSATION, body)
}

/// Forwards the page's read of `conversation` (its `GET /backend-api/conversation/{id}`).
fn listing_of(ext: &Extension, lease: &str, conversation: &str, body: &str) -> Value {
    observe_ok(
        ext,
        json!({ "lease_id": lease, "kind": "listing",
                "url": format!("https://chatgpt.com/backend-api/conversation/{conversation}"),
                "body": body }),
    )
}

fn completions(client: &Http, op: &str) -> usize {
    client.show(op)["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "transition" && e["to"] == "completed")
        .count()
}

#[test]
fn an_answer_cut_by_a_reload_is_completed_from_the_conversation_the_page_reads_again() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = accepted_with_its_stream_cut(&serve, &ext, "haiku");
    // The reload cut the page's read of the stream: it simply ends.
    observe_ok(
        &ext,
        json!({ "lease_id": lease, "op_id": "haiku", "kind": "stream_end", "stream_id": "s1" }),
    );
    assert_eq!(client.state("haiku"), "accepted", "no answer was seen");
    // A door waits on the send (the primitive the OpenAI, MCP and CLI doors build on).
    let waiting = {
        let client = client.fresh();
        std::thread::spawn(move || {
            client.get("/v1/sends/haiku/wait?from=accepted&timeout_ms=20000")
        })
    };
    let read = listing(&ext, &lease, &fixture("listing_haiku_answering.json"));
    assert!(!facts(&read).contains(&"completed".to_string()), "{read}");
    assert_eq!(
        client.state("haiku"),
        "accepted",
        "an answer still being written completes nothing"
    );
    let read = listing(&ext, &lease, &fixture("listing_haiku_answered.json"));
    assert!(facts(&read).contains(&"completed".to_string()), "{read}");
    let answer = waiting.join().expect("the waiter finished");
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["send"]["state"], "completed");
    assert_eq!(answer.body["send"]["answer"]["text"], ANSWER);
    let send = &client.show("haiku")["send"];
    assert_eq!(send["answer"]["message_id"], ASSISTANT_MESSAGE);
    // The page reads the conversation again (another reload): nothing changes.
    listing(&ext, &lease, &fixture("listing_haiku_answered.json"));
    assert_eq!(
        completions(&client, "haiku"),
        1,
        "the fact is recorded once"
    );
    assert!(
        !serve.stderr().contains("Ink dries"),
        "the answer never reaches the log"
    );
}

#[test]
fn a_conversation_read_completes_a_send_only_by_its_own_user_message_id_never_by_text() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = accepted_with_its_stream_cut(&serve, &ext, "haiku");
    // The same words, answered, under another user message (sent again by hand, say).
    let other = fixture("listing_haiku_answered.json")
        .replace(USER_MESSAGE, "0a0b0c0d-1e1f-4a2b-8c3d-4e5f6a7b8c9d");
    let read = listing(&ext, &lease, &other);
    assert!(!facts(&read).contains(&"completed".to_string()), "{read}");
    assert_eq!(client.state("haiku"), "accepted");
    // Another conversation showing the same ids is not the send's conversation.
    let elsewhere = fixture("listing_haiku_answered.json")
        .replace(CONVERSATION, "6a1b2c3d-4e5f-8a01-b234-000000000000");
    observe_ok(
        &ext,
        json!({ "lease_id": lease, "kind": "listing",
                "url": "https://chatgpt.com/backend-api/conversation/6a1b2c3d-4e5f-8a01-b234-000000000000",
                "body": elsewhere }),
    );
    assert_eq!(client.state("haiku"), "accepted");
}

#[test]
fn an_answer_streaming_at_a_sigkill_is_completed_from_the_stream_the_tab_sends_again() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    accepted_with_its_stream_cut(&serve, &ext, "haiku");
    serve.kill();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    assert_eq!(client.state("haiku"), "accepted", "the receipt survives");
    let ext = serve.extension(&ext);
    let lease = ext.lease("tab-1");
    let (head, rest) = stream_cut_after_receipt();
    // The rest of the stream reaches an owner that never saw its request.
    let piece = observe_ok(
        &ext,
        json!({ "lease_id": lease, "op_id": "haiku", "kind": "stream_chunk", "stream_id": "s1",
                "seq": 1, "chunk": rest }),
    );
    assert_eq!(facts(&piece), ["unknown_stream"], "{piece}");
    // The tab sends the stream again from its request, then goes on.
    let again = observe_ok(
        &ext,
        json!({ "lease_id": lease, "op_id": "haiku", "kind": "request", "stream_id": "s1",
                "url": URL, "body": fixture("request_new_chat_f.json") }),
    );
    assert_eq!(facts(&again), ["tracking"], "{again}");
    for (seq, chunk) in [head, rest].into_iter().enumerate() {
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
    let shown = client.show("haiku");
    assert_eq!(shown["send"]["state"], "completed", "{shown}");
    assert_eq!(shown["send"]["answer"]["text"], ANSWER);
    let to = |state: &str| {
        shown["timeline"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["kind"] == "transition" && e["to"] == state)
            .count()
    };
    assert_eq!((to("dispatched"), to("accepted")), (1, 1), "{shown}");
}

#[test]
fn a_stream_sent_again_for_another_user_message_is_not_followed_for_an_accepted_send() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = accepted_with_its_stream_cut(&serve, &ext, "haiku");
    let other = fixture("request_new_chat_f.json")
        .replace(USER_MESSAGE, "0a0b0c0d-1e1f-4a2b-8c3d-4e5f6a7b8c9d");
    let answer = observe_ok(
        &ext,
        json!({ "lease_id": lease, "op_id": "haiku", "kind": "request", "stream_id": "s2",
                "url": URL, "body": other }),
    );
    assert_eq!(facts(&answer), ["not_tracked"], "{answer}");
}

#[test]
fn hand_off_frames_mixing_two_conversations_complete_the_send_with_its_own_answer() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let (lease, request) = handoff_dispatched(&serve, &ext, "ws");
    let o = |kind: &str, extra: Value| {
        let mut v = json!({ "lease_id": lease, "op_id": "ws", "kind": kind, "stream_id": "s1" });
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        observe_ok(&ext, v)
    };
    o(
        "request",
        json!({ "url": URL, "body": request.to_string() }),
    );
    o(
        "stream_chunk",
        json!({ "seq": 0, "chunk": fixture("stream_delta_handoff.sse") }),
    );
    assert_eq!(client.state("ws"), "accepted");
    for frame in fixture("websocket_handoff_mixed.jsonl").lines() {
        o("websocket", json!({ "message": frame }));
    }
    o("stream_end", json!({}));
    let shown = client.show("ws");
    assert_eq!(shown["send"]["state"], "completed", "{shown}");
    assert_eq!(
        shown["send"]["answer"]["text"], "Every debit has a matching credit.",
        "its own answer, not the other conversation's"
    );
    let notes: Vec<&Value> = shown["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "note")
        .collect();
    assert!(
        notes.iter().all(|n| !n["evidence"]
            .as_str()
            .unwrap_or("")
            .contains("not understood")),
        "{notes:?}"
    );
}

#[test]
fn a_conversation_read_while_a_send_awaits_its_receipt_notes_how_many_messages_match() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &["--receipt-ms", "1500"]);
    let client = serve.client();
    let mut feed = client.events(None);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    clicked(&client, &ext, &lease, "reloaded");
    // The tab reloaded right after the click: no request or stream was forwarded, and the
    // reloaded page reads the conversation, which shows the message once, after the click.
    let later = a_second_from_now();
    let body =
        fixture("listing_haiku_answered.json").replace("1790000000.123", &format!("{later:.3}"));
    let read = listing(&ext, &lease, &body);
    assert_eq!(read["applied"][0]["fact"], "evidence", "{read}");
    assert_eq!(read["applied"][0]["matching"], 1);
    feed.wait_for("reloaded", "uncertain");
    let shown = client.show("reloaded");
    assert_eq!(
        shown["send"]["state"], "uncertain",
        "a note decides nothing"
    );
    let said = shown["timeline"].as_array().unwrap().iter().any(|e| {
        e["kind"] == "note"
            && e["evidence"]
                .as_str()
                .unwrap_or("")
                .contains("exactly one user message with this text after the dispatch")
    });
    assert!(said, "{shown}");
}

/// Plays the tab for the one send a door queued: granted, the page's request and its
/// stream up to the receipt, then cut (a reload). Returns the op id.
fn door_send_cut_after_its_receipt(ext: &Extension, lease: &str) -> String {
    let handed = ext
        .next(lease, 10_000)
        .expect("the door's send is handed out");
    let op = handed["op_id"].as_str().unwrap().to_string();
    assert_eq!(ext.dispatch(lease, &op).body["granted"], true);
    let (head, _) = stream_cut_after_receipt();
    for o in [
        json!({ "lease_id": lease, "op_id": op, "kind": "request", "stream_id": "s1",
                "url": URL, "body": fixture("request_new_chat_f.json") }),
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_chunk", "stream_id": "s1",
                "seq": 0, "chunk": head }),
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_end", "stream_id": "s1" }),
    ] {
        observe_ok(ext, o);
    }
    op
}

#[test]
fn a_chat_door_waiting_on_an_answer_cut_by_a_reload_gets_it_from_the_conversation_read() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let waiting = {
        let client = serve.client().fresh();
        std::thread::spawn(move || {
            client.post(
                "/v1/chat/completions",
                &json!({"model": "chatgpt-tab", "messages": [{"role": "user", "content": TEXT}]}),
            )
        })
    };
    let op = door_send_cut_after_its_receipt(&ext, &lease);
    assert_eq!(serve.client().state(&op), "accepted");
    listing(&ext, &lease, &fixture("listing_haiku_answered.json"));
    let answer = waiting.join().expect("the door answered");
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["choices"][0]["message"]["content"], ANSWER);
}

#[test]
fn a_background_response_of_an_answer_cut_by_a_reload_completes_from_the_conversation_read() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let asked = client.post(
        "/v1/responses",
        &json!({"model": "chatgpt-tab", "background": true,
                "input": [{"role": "user", "content": [{"type": "input_text", "text": TEXT}]}]}),
    );
    assert_eq!(asked.status, 200, "{}", asked.body);
    let id = asked.body["id"].as_str().unwrap().to_string();
    let op = door_send_cut_after_its_receipt(&ext, &lease);
    assert_eq!(id, format!("resp_{op}"));
    let before = client.get(&format!("/v1/responses/{id}"));
    assert_ne!(before.body["status"], "completed", "{}", before.body);
    listing(&ext, &lease, &fixture("listing_haiku_answered.json"));
    let after = client.get(&format!("/v1/responses/{id}"));
    assert_eq!(after.body["status"], "completed", "{}", after.body);
    assert_eq!(after.body["output"][0]["content"][0]["text"], ANSWER);
}

/// A send whose conversation is not known yet (a new chat) is compared with every
/// conversation the page reads: the note names the conversation it was read from, so a
/// person never takes a message typed by hand in another chat for this send's.
#[test]
fn an_evidence_note_names_the_conversation_it_was_read_from() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    clicked(&client, &ext, &lease, "new-chat");
    let later = a_second_from_now();
    let other = "11111111-2222-4333-8444-555555555555";
    let body = fixture("listing_haiku_answered.json")
        .replace("1790000000.123", &format!("{later:.3}"))
        .replace(CONVERSATION, other);
    listing_of(&ext, &lease, other, &body);
    let shown = client.show("new-chat");
    let note = shown["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|e| e["kind"] == "note")
        .expect("a note")
        .clone();
    assert!(note["evidence"].as_str().unwrap().contains(other), "{note}");
}

/// The same send, while the person opens other chats: a conversation without its text says
/// nothing about a send whose conversation is not known yet, and adds nothing to its trail.
#[test]
fn a_chat_without_the_text_adds_no_note_to_a_send_whose_conversation_is_not_known() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    clicked(&client, &ext, &lease, "new-chat");
    for other in [
        "11111111-2222-4333-8444-555555555555",
        "21111111-2222-4333-8444-555555555555",
    ] {
        // An older chat: its messages were written before the dispatch.
        let body = fixture("listing_haiku_answered.json").replace(CONVERSATION, other);
        listing_of(&ext, &lease, other, &body);
    }
    let shown = client.show("new-chat");
    let notes = shown["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "note")
        .count();
    assert_eq!(notes, 0, "{shown}");
}

/// The page's time a second from now, in seconds (the conversation read's `create_time`:
/// a message written after the click).
fn a_second_from_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        + 1.0
}

/// Queues `op` with the fixture's text, claims it on `lease` and is granted its click.
fn clicked(client: &Http, ext: &Extension, lease: &str, op: &str) {
    client.queue(op, TEXT);
    ext.next(lease, 5_000).expect("claimed");
    assert_eq!(ext.dispatch(lease, op).status, 200);
}

/// The window's row of `op` (any section).
fn row_of(client: &Http, op: &str) -> Value {
    let q = client.get("/v1/queue").body;
    ["pending", "uncertain", "stopped", "history"]
        .iter()
        .flat_map(|s| q[*s].as_array().cloned().unwrap_or_default())
        .find(|r| r["op_id"] == op)
        .unwrap_or_else(|| panic!("no row {op}: {q}"))
}

#[test]
fn the_title_a_forwarded_conversation_read_gives_names_the_sends_row_and_never_reaches_the_log() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start_with_env(&profile, &[("RUST_LOG", "debug")]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = accepted_with_its_stream_cut(&serve, &ext, "haiku");
    let before = row_of(&client, "haiku")["destination"].clone();
    assert!(
        !before.as_str().unwrap_or("").contains('“'),
        "no title before the page named it: {before}"
    );
    listing(&ext, &lease, &fixture("listing_haiku_answered.json"));
    let words = row_of(&client, "haiku")["destination"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        words.starts_with("a new chat, now “Ledger haiku”"),
        "the row names the new chat by the title its read gave: {words}"
    );
    assert!(
        !serve.stderr().contains("Ledger haiku"),
        "a title never reaches the log"
    );
}
