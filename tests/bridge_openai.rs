//! The OpenAI door over raw loopback HTTP (issue 13), without any SDK: every refusal is
//! an OpenAI error object with `x-should-retry: false` and writes nothing; a send key
//! opens the door and sends, never Stop; an automatic retry after a SIGKILL and restart attaches to the
//! send recovery made uncertain (the fingerprint is durable) and answers a no-retry 424.
//! The SDK-driven proof is e2e/openai (scripts/test-openai.sh).

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;

/// One exchange; (status, lower-cased head, JSON body). Status 0: the connection ended
/// before an answer (the owner died).
fn door(port: u16, extra_headers: &[String], body: &[u8]) -> (u16, String, Value) {
    exchange(port, "POST /v1/chat/completions", extra_headers, body)
}

/// One exchange on `request_line` ("METHOD /path"); as [`door`].
fn exchange(
    port: u16,
    request_line: &str,
    extra_headers: &[String],
    body: &[u8],
) -> (u16, String, Value) {
    let text = raw_exchange(port, request_line, extra_headers, body);
    let Some((h, b)) = text.split_once("\r\n\r\n") else {
        return (0, String::new(), Value::Null);
    };
    let status = h
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (
        status,
        h.to_ascii_lowercase(),
        serde_json::from_str(b).unwrap_or(Value::Null),
    )
}

/// One exchange on `request_line`, the whole answer as text (head and body; a stream's
/// events until the owner ends it).
fn raw_exchange(port: u16, request_line: &str, extra_headers: &[String], body: &[u8]) -> String {
    let mut s = send_request(port, request_line, extra_headers, body, true);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).to_string()
}

/// Opens a connection and writes one request on it; `close`: ask the owner to close the
/// connection after its answer.
fn send_request(
    port: u16,
    request_line: &str,
    headers: &[String],
    body: &[u8],
    close: bool,
) -> TcpStream {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(BOUND)).unwrap();
    let mut head = format!(
        "{request_line} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    if close {
        head.push_str("Connection: close\r\n");
    }
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    let _ = s.write_all(head.as_bytes()).and_then(|_| s.write_all(body));
    s
}

fn chat(text: &str) -> Vec<u8> {
    serde_json::to_vec(
        &json!({"model": "chatgpt-tab", "messages": [{"role": "user", "content": text}]}),
    )
    .unwrap()
}

fn make_key(serve: &Serve) -> String {
    let (code, v) = cli_json(
        &serve.profile,
        &["keys", "create", "companion", "--by", "tester"],
    );
    assert_eq!(code, 0, "{v}");
    v["secret"]
        .as_str()
        .expect("the key, shown once")
        .to_string()
}

fn bearer(token: &str) -> String {
    format!("Authorization: Bearer {token}")
}

#[test]
fn every_door_refusal_is_an_openai_error_with_no_retry_and_leaves_the_ledger_byte_identical() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let key = make_key(&serve);
    let models = Http::new(serve.port, Some(key.clone()), None).get("/v1/models");
    assert_eq!(
        models.body["data"][0]["id"], "chatgpt-tab",
        "{}",
        models.body
    );
    let before = dump(&profile);
    let ext_token = ext.http_token().unwrap();
    let k = bearer(&key);
    let big = vec![b' '; 48 * 1024 * 1024 + 1];
    let cases: Vec<(Vec<String>, Vec<u8>, u16, &str)> = vec![
        (vec![k.clone(), "Origin: https://evil.example".into()], chat("hi"), 403, "bad_origin"),
        (vec![], chat("hi"), 401, "invalid_api_key"),
        (vec![bearer(&format!("sk-sl-{}", "0".repeat(64)))], chat("hi"), 401, "invalid_api_key"),
        (vec![bearer(&ext_token)], chat("hi"), 403, "wrong_scope"),
        (vec![k.clone()], b"{not json".to_vec(), 400, "invalid_json"),
        (vec![k.clone()], serde_json::to_vec(&json!({"model": "m", "messages": [{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "AA", "format": "wav"}}]}]})).unwrap(), 400, "unsupported_content"),
        (vec![k.clone()], serde_json::to_vec(&json!({"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "what is it?"}, {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]}]})).unwrap(), 400, "remote_url_unsupported"),
        (vec![k.clone()], serde_json::to_vec(&json!({"model": "m", "messages": [{"role": "assistant", "content": "hi"}]})).unwrap(), 400, "last_message_not_user"),
        (vec![k.clone()], serde_json::to_vec(&json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function"}]})).unwrap(), 400, "tools_unsupported"),
        (vec![k.clone(), "Idempotency-Key: not a key".into()], chat("hi"), 400, "invalid_value"),
        (vec![k.clone()], big, 413, "body_unreadable"),
    ];
    for (headers, body, status, code) in cases {
        let (got, head, v) = door(serve.port, &headers, &body);
        assert_eq!(
            (got, v["error"]["code"].as_str()),
            (status, Some(code)),
            "{headers:?}: {v}"
        );
        assert!(
            v["error"]["message"].as_str().is_some_and(|m| m.len() > 10),
            "{v}"
        );
        assert!(
            v["error"]["type"].is_string() && v["error"].get("param").is_some(),
            "{v}"
        );
        assert!(head.contains("x-should-retry: false"), "{code}: {head}");
    }
    assert_eq!(dump(&profile), before, "no refusal wrote anything");
}

#[test]
fn a_door_path_asked_with_another_method_answers_an_openai_error_with_no_retry() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let k = bearer(&make_key(&serve));
    for line in [
        "GET /v1/chat/completions",
        "DELETE /v1/models",
        "POST /v1/models/chatgpt-tab",
    ] {
        let (status, head, v) = exchange(serve.port, line, std::slice::from_ref(&k), b"");
        assert_eq!(
            (status, v["error"]["code"].as_str()),
            (405, Some("method_not_allowed")),
            "{line}: {v}"
        );
        assert!(head.contains("x-should-retry: false"), "{line}: {head}");
    }
}

#[test]
fn a_send_scoped_key_opens_the_door_and_sends_but_not_stop_or_keys() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let key = make_key(&serve);
    let http = Http::new(serve.port, Some(key), None);
    assert_eq!(http.get("/v1/sends").status, 200, "a send key reads sends");
    let a = http.fresh().get("/v1/keys");
    assert_eq!((a.status, a.code()), (403, "wrong_scope"), "{}", a.body);
    let stop = http.fresh().post("/v1/stop", &json!({"by": "companion"}));
    assert_eq!(
        stop.status, 403,
        "a companion's key cannot press Stop or Resume"
    );
}

#[test]
fn any_clients_retry_after_sigkill_and_restart_attaches_to_the_send_recovery_made_uncertain() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let key = make_key(&serve);
    let port = serve.port;
    let first = {
        // No retry marker on either attempt: a plain client's own retry.
        let headers = vec![bearer(&key)];
        std::thread::spawn(move || door(port, &headers, &chat("one message only")))
    };
    let handed = ext.next(&lease, 10_000).expect("the door queued the send");
    let op = handed["op_id"].as_str().unwrap().to_string();
    assert_eq!(ext.dispatch(&lease, &op).body["granted"], true);
    serve.kill();
    assert_eq!(
        first.join().unwrap().0,
        0,
        "the first attempt lost its answer"
    );

    let serve = Serve::start(&profile, &[]);
    let retry = vec![bearer(&key)];
    let (status, head, v) = door(serve.port, &retry, &chat("one message only"));
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (424, Some("send_uncertain")),
        "{v}"
    );
    assert!(head.contains("x-should-retry: false"), "{head}");
    assert!(
        head.contains(&format!(
            "x-sendledger-operation-id: {}",
            op.to_ascii_lowercase()
        )),
        "{head}"
    );
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(msg.contains("do not retry") && msg.contains(&op), "{msg}");
    // The same message asked as a stream is the same send, refused up front (a status
    // every client reads), not a 200 stream that fails.
    let (status, head, v) = door(
        serve.port,
        &retry,
        &stream_chat("one message only", json!({})),
    );
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (424, Some("send_uncertain")),
        "{v}"
    );
    assert!(head.contains("x-sendledger-attached: true"), "{head}");
    let sends = serve.client().get("/v1/sends").body["sends"].clone();
    assert_eq!(sends.as_array().unwrap().len(), 1, "one send: {sends}");
    assert_eq!(sends[0]["state"], "uncertain");
}

#[test]
fn a_non_streamed_request_is_answered_within_its_hold_naming_the_send_and_its_repeat_attaches() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start_with_env(&profile, &[("SENDLEDGER_OPENAI_HOLD_MS", "1500")]);
    let key = make_key(&serve);
    // No tab is leased: the send waits longer than the hold.
    let (status, head, v) = door(serve.port, &[bearer(&key)], &chat("a long turn"));
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (424, Some("still_pending")),
        "{v}"
    );
    assert!(head.contains("x-should-retry: false"), "{head}");
    assert!(head.contains("x-sendledger-attached: false"), "{head}");
    let sends = serve.client().get("/v1/sends").body["sends"].clone();
    let op = sends[0]["op_id"].as_str().unwrap().to_string();
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains(&op) && msg.contains("send this same request again"),
        "the sentence names the send and how to follow it: {msg}"
    );
    let (status, head, _) = door(serve.port, &[bearer(&key)], &chat("a long turn"));
    assert_eq!(status, 424);
    assert!(head.contains("x-sendledger-attached: true"), "{head}");
    let sends = serve.client().get("/v1/sends").body["sends"].clone();
    assert_eq!(sends.as_array().unwrap().len(), 1, "one send: {sends}");
    assert_eq!(sends[0]["state"], "queued");
}

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/chatgpt");
const URL: &str = "https://chatgpt.com/backend-api/f/conversation";
/// What the fixture's user typed, the conversation and the answer the fixture's page gave
/// (request_new_chat_f.json, stream_delta_new_chat.sse).
const FIXTURE_TEXT: &str = "Draft a haiku about ledgers.\nKeep it short.";
const FIXTURE_CONVERSATION: &str = "6a1b2c3d-4e5f-8a01-b234-56789abcdef0";
const FIXTURE_ANSWER: &str =
    "Ink dries on the page,\neach line counted once,\nno debt forgotten.\n\nWant another?";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}"))
        .unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// Plays the tab for the one queued send: claims, is granted (confirming nothing, as an
/// extension that predates confirmations), forwards the fixture's request and answer
/// stream. Returns the op id.
fn page_answers(ext: &Extension, lease: &str) -> String {
    page_answers_confirming(ext, lease, Value::Null)
}

/// `base` with the fields of `extra` added, as a body.
fn with_fields(mut base: Value, extra: Value) -> Vec<u8> {
    base.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    serde_json::to_vec(&base).unwrap()
}

fn responses_body(extra: Value) -> Vec<u8> {
    let base = json!({"model": "chatgpt-tab", "temperature": 0.2, "input": [{"role": "user", "content": [{"type": "input_text", "text": FIXTURE_TEXT}]}]});
    with_fields(base, extra)
}

#[test]
fn a_background_response_is_followed_by_id_until_the_pages_answer_and_continues_its_conversation() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let key = make_key(&serve);
    let k = vec![bearer(&key)];
    let post = |body: &[u8]| exchange(serve.port, "POST /v1/responses", &k, body);
    let (status, head, v) = post(&responses_body(json!({"background": true})));
    assert_eq!((status, v["status"].as_str()), (200, Some("queued")), "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    assert!(head.contains("x-sendledger-ignored: temperature"), "{head}");
    let op = page_answers(&ext, &lease);
    assert_eq!(id, format!("resp_{op}"));
    let got = exchange(serve.port, &format!("GET /v1/responses/{id}"), &k, b"").2;
    assert_eq!(got["status"], "completed", "{got}");
    assert_eq!(got["output"][0]["content"][0]["text"], FIXTURE_ANSWER);

    // The same body again is the same send (attach), with no marker of any SDK.
    let (_, head, again) = post(&responses_body(json!({"background": true})));
    assert_eq!(again["id"], id.as_str());
    assert!(head.contains("x-sendledger-attached: true"), "{head}");

    // previous_response_id sends into the conversation that response went to.
    let next = responses_body(json!({"background": true, "previous_response_id": id}));
    let (status, _, v) = post(&next);
    assert_eq!(status, 200, "{v}");
    let next_op = v["id"].as_str().unwrap().trim_start_matches("resp_");
    let shown = serve.client().show(next_op);
    assert_eq!(
        shown["send"]["conversation_id"], FIXTURE_CONVERSATION,
        "only where the previous response went: {shown}"
    );
    let unknown = exchange(serve.port, "GET /v1/responses/resp_nothing", &k, b"");
    assert_eq!(unknown.0, 404, "{}", unknown.2);
}

#[test]
fn a_streamed_response_is_the_responses_event_stream_of_the_pages_answer() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let key = make_key(&serve);
    let port = serve.port;
    let reader = std::thread::spawn(move || {
        let body = responses_body(json!({"stream": true}));
        raw_exchange(port, "POST /v1/responses", &[bearer(&key)], &body)
    });
    page_answers(&ext, &lease);
    let text = reader.join().unwrap();
    let events: Vec<Value> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str(d).ok())
        .collect();
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(kinds.first(), Some(&"response.created"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"response.completed"), "{kinds:?}");
    for (n, e) in events.iter().enumerate() {
        assert_eq!(e["sequence_number"], n, "numbered in order: {e}");
    }
    let deltas: String = events
        .iter()
        .filter(|e| e["type"] == "response.output_text.delta")
        .filter_map(|e| e["delta"].as_str())
        .collect();
    assert_eq!(
        deltas, FIXTURE_ANSWER,
        "the deltas concatenate to the answer"
    );
    let last = events.last().unwrap();
    assert_eq!(
        last["response"]["output"][0]["content"][0]["text"],
        FIXTURE_ANSWER
    );
}

#[test]
fn every_responses_door_refusal_is_an_openai_error_with_no_retry_and_writes_nothing() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let key = make_key(&serve);
    // The key's first use is recorded (to the minute) before the snapshot.
    Http::new(serve.port, Some(key.clone()), None).get("/v1/models");
    let before = dump(&profile);
    let k = vec![bearer(&key)];
    let image = json!({"model": "m", "input": [{"role": "user", "content": [{"type": "input_image", "image_url": "data:image/png;base64,AAAA"}]}]});
    let remote = json!({"model": "m", "input": [{"role": "user", "content": [{"type": "input_text", "text": "what is it?"}, {"type": "input_image", "image_url": "https://example.com/cat.png"}]}]});
    let cases: Vec<(Value, &str)> = vec![
        (image, "invalid_value"),
        (remote, "remote_url_unsupported"),
        (
            json!({"model": "m", "input": "hi", "tools": [{"type": "web_search"}]}),
            "tools_unsupported",
        ),
        (
            json!({"model": "m", "input": "hi", "text": {"format": {"type": "json_schema"}}}),
            "response_format_unsupported",
        ),
        (
            json!({"model": "m", "input": [{"role": "assistant", "content": "hi"}]}),
            "last_input_not_user",
        ),
        (json!({"model": "m", "input": []}), "missing_input"),
        (
            json!({"model": "m", "input": "hi", "background": "yes"}),
            "invalid_type",
        ),
        (
            json!({"model": "m", "input": "hi", "previous_response_id": "resp_nothing"}),
            "response_not_found",
        ),
    ];
    for (body, code) in cases {
        let (status, head, v) = exchange(
            serve.port,
            "POST /v1/responses",
            &k,
            &serde_json::to_vec(&body).unwrap(),
        );
        assert_eq!(v["error"]["code"].as_str(), Some(code), "{body}: {v}");
        assert!((400..500).contains(&status), "{code}: {status}");
        assert!(head.contains("x-should-retry: false"), "{code}: {head}");
    }
    assert_eq!(dump(&profile), before, "no refusal wrote anything");
}

fn queued_sends(serve: &Serve) -> Vec<Value> {
    serve.client().get("/v1/sends").body["sends"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn stream_chat(text: &str, extra: Value) -> Vec<u8> {
    let base = json!({"model": "chatgpt-tab", "stream": true, "messages": [{"role": "user", "content": text}]});
    with_fields(base, extra)
}

#[test]
fn the_same_words_for_another_conversation_are_another_send_even_under_one_idempotency_key() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start_with_env(&profile, &[("SENDLEDGER_OPENAI_HOLD_MS", "300")]);
    let key = make_key(&serve);
    let to = |c: &str| vec![bearer(&key), format!("x-sendledger-conversation: {c}")];
    door(serve.port, &to("c-one"), &chat("yes"));
    let (_, head, _) = door(serve.port, &to("c-two"), &chat("yes"));
    assert!(head.contains("x-sendledger-attached: false"), "{head}");
    let convs: Vec<Value> = queued_sends(&serve)
        .iter()
        .map(|s| s["conversation_id"].clone())
        .collect();
    assert_eq!(convs.len(), 2, "one send per conversation: {convs:?}");
    let keyed = |c: &str| {
        let mut h = to(c);
        h.push("Idempotency-Key: turn-9".into());
        h
    };
    door(serve.port, &keyed("c-one"), &chat("again"));
    let (status, _, v) = door(serve.port, &keyed("c-two"), &chat("again"));
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (422, Some("idempotency_key_reused")),
        "another conversation under one key is another message: {v}"
    );
}

#[test]
fn a_retry_that_changes_only_what_the_tab_ignores_is_the_same_send() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let key = make_key(&serve);
    let k = vec![bearer(&key)];
    // Streamed requests answer at once; no tab: the send stays queued.
    let bodies = [
        stream_chat("fallback me", json!({"model": "gpt-4o"})),
        stream_chat("fallback me", json!({"model": "gpt-4o-mini"})),
        stream_chat(
            "fallback me",
            json!({"model": "gpt-4o-mini", "temperature": 0.7, "user": "u-1"}),
        ),
    ];
    let mut heads = Vec::new();
    for b in &bodies {
        let text = raw_exchange_head(serve.port, "POST /v1/chat/completions", &k, b);
        heads.push(text);
    }
    assert_eq!(
        queued_sends(&serve).len(),
        1,
        "a model fallback or another temperature asks for the same message"
    );
    assert!(
        heads[2].contains("x-sendledger-attached: true"),
        "{}",
        heads[2]
    );
}

#[test]
fn a_key_made_again_under_a_revoked_name_is_another_client() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let first = make_key(&serve);
    let k1 = vec![bearer(&first), "Idempotency-Key: chat-1".to_string()];
    let head = raw_exchange_head(
        serve.port,
        "POST /v1/chat/completions",
        &k1,
        &stream_chat("mine", json!({})),
    );
    assert!(head.contains("x-sendledger-attached: false"), "{head}");
    let (code, v) = cli_json(&profile, &["keys", "revoke", "companion", "--by", "tester"]);
    assert_eq!(code, 0, "{v}");
    let second = make_key(&serve);
    let seen = exchange(
        serve.port,
        "GET /v1/responses/resp_chat-1",
        &[bearer(&second)],
        b"",
    );
    assert_eq!(seen.0, 404, "not the revoked key's response: {}", seen.2);
    let k2 = vec![bearer(&second)];
    let head = raw_exchange_head(
        serve.port,
        "POST /v1/chat/completions",
        &k2,
        &stream_chat("mine", json!({})),
    );
    assert!(
        head.contains("x-sendledger-attached: false"),
        "the same body from the new key is its own send: {head}"
    );
}

/// A streamed request's head only (the stream stays open: read until the blank line).
fn raw_exchange_head(port: u16, request_line: &str, headers: &[String], body: &[u8]) -> String {
    let mut s = send_request(port, request_line, headers, body, false);
    let mut out = Vec::new();
    let mut byte = [0u8; 1];
    while !out.ends_with(b"\r\n\r\n") && s.read(&mut byte).unwrap_or(0) == 1 {
        out.push(byte[0]);
    }
    String::from_utf8_lossy(&out).to_ascii_lowercase()
}

#[test]
fn a_page_error_before_the_receipt_is_never_answered_as_sent_once_before_the_ledger_says_so() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start_with_env(&profile, &[("SENDLEDGER_OPENAI_HOLD_MS", "3000")]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let key = make_key(&serve);
    let port = serve.port;
    let call = std::thread::spawn(move || door(port, &[bearer(&key)], &chat(FIXTURE_TEXT)));
    let op = ext.next(&lease, 10_000).expect("handed out")["op_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(ext.dispatch(&lease, &op).body["granted"], true);
    // The page's stream carries only an error: no receipt, so nobody knows it was taken.
    let error_only = "data: {\"type\": \"error\", \"error\": {\"message\": \"Something went wrong\"}}\n\ndata: [DONE]\n\n";
    for o in [
        json!({ "lease_id": lease, "op_id": op, "kind": "request", "stream_id": "s1",
                "url": URL, "body": fixture("request_new_chat_f.json") }),
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_chunk", "stream_id": "s1",
                "seq": 0, "chunk": error_only }),
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_end", "stream_id": "s1" }),
    ] {
        assert_eq!(ext.observe(&o).status, 200);
    }
    let (status, _, v) = call.join().unwrap();
    let state = serve.client().state(&op);
    assert_ne!(
        v["error"]["code"].as_str(),
        Some("page_error"),
        "the ledger says {state}: the door may not say 'sent once' ({v})"
    );
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (424, Some("still_pending")),
        "{v}"
    );
}

/// Plays the tab for the one queued send, confirming `confirmed` at the grant; forwards
/// the fixture's request (a new chat, model `auto`) and answer. Returns the op id.
fn page_answers_confirming(ext: &Extension, lease: &str, confirmed: Value) -> String {
    page_answers_confirming_asking(ext, lease, confirmed, "auto")
}

/// As [`page_answers_confirming`], the page's request naming `request_model` (the answer's
/// model stays the fixture's, `gpt-5-2`).
fn page_answers_confirming_asking(
    ext: &Extension,
    lease: &str,
    confirmed: Value,
    request_model: &str,
) -> String {
    let request = fixture("request_new_chat_f.json").replace(
        "\"model\": \"auto\"",
        &format!("\"model\": \"{request_model}\""),
    );
    let handed = ext.next(lease, 10_000).expect("a send is handed out");
    let op = handed["op_id"].as_str().unwrap().to_string();
    let g = ext.http.post(
        "/v1/ext/dispatch",
        &json!({ "lease_id": lease, "op_id": op, "confirmed": confirmed }),
    );
    assert_eq!(g.body["granted"], true, "{}", g.body);
    for o in [
        json!({ "lease_id": lease, "op_id": op, "kind": "request", "stream_id": "s1",
                "url": URL, "body": request }),
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_chunk", "stream_id": "s1",
                "seq": 0, "chunk": fixture("stream_delta_new_chat.sse") }),
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_end", "stream_id": "s1" }),
    ] {
        assert_eq!(ext.observe(&o).status, 200);
    }
    op
}

#[test]
fn the_chat_doors_model_is_the_pages_slug_and_its_metadata_names_the_place() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let key = make_key(&serve);
    let k = vec![bearer(&key)];
    let cases = [
        (
            json!({"model": "chatgpt-tab"}),
            json!({"kind": "new_chat", "model": null, "effort": null, "chosen_by": "default"}),
        ),
        (
            json!({"model": "gpt-5-2-thinking", "metadata": {"conversation_id": "https://chatgpt.com/c/conv-7"}}),
            json!({"kind": "conversation", "conversation_id": "conv-7", "model": "gpt-5-2-thinking", "chosen_by": "send"}),
        ),
        (
            json!({"model": "chatgpt-tab", "metadata": {"project_id": "g-p-0123abcd", "effort": "extended"}}),
            json!({"kind": "project", "project_id": "g-p-0123abcd", "model": null, "effort": "extended"}),
        ),
        (
            json!({"model": "gpt-5-instant", "metadata": {"new_chat": "true"}}),
            json!({"kind": "new_chat", "model": "gpt-5-instant", "chosen_by": "send"}),
        ),
    ];
    for (i, (extra, want)) in cases.into_iter().enumerate() {
        let body = stream_chat(&format!("place {i}"), extra.clone());
        let head = raw_exchange_head(serve.port, "POST /v1/chat/completions", &k, &body);
        assert!(!head.contains("x-sendledger-ignored: model"), "{head}");
        let op = head
            .lines()
            .find_map(|l| l.strip_prefix("x-sendledger-operation-id: "))
            .unwrap_or_else(|| panic!("{extra}: {head}"))
            .trim()
            .to_string();
        let d = &serve.client().show(&op)["destination"];
        for (field, value) in want.as_object().unwrap() {
            assert_eq!(&d[field], value, "{extra}: {field} of {d}");
        }
    }
    let two = stream_chat(
        "two places",
        json!({"metadata": {"conversation_id": "c-1", "new_chat": "true"}}),
    );
    let (status, _, v) = door(serve.port, &k, &two);
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (400, Some("invalid_value")),
        "{v}"
    );
}

#[test]
fn a_model_the_tab_does_not_confirm_is_never_clicked_and_the_door_says_what_it_showed() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let key = make_key(&serve);
    let port = serve.port;
    let body = with_fields(
        serde_json::from_slice(&chat(FIXTURE_TEXT)).unwrap(),
        json!({"model": "gpt-5-2-thinking", "metadata": {"new_chat": "true"}}),
    );
    let call = std::thread::spawn(move || door(port, &[bearer(&key)], &body));
    let op = ext.next(&lease, 10_000).expect("handed out")["op_id"]
        .as_str()
        .unwrap()
        .to_string();
    let g = ext.http.post(
        "/v1/ext/dispatch",
        &json!({ "lease_id": lease, "op_id": op,
                 "confirmed": { "conversation_id": null, "model": "gpt-5-instant" } }),
    );
    assert_ne!(g.body["granted"], true, "{}", g.body);
    let (status, head, v) = call.join().unwrap();
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (422, Some("send_rejected")),
        "{v}"
    );
    let said = v["error"]["message"].as_str().unwrap();
    assert!(
        said.contains("gpt-5-instant") && said.contains("gpt-5-2-thinking"),
        "{said}"
    );
    assert!(head.contains("x-should-retry: false"), "{head}");
    assert_eq!(serve.client().state(&op), "rejected");
}

#[test]
fn a_page_answering_with_another_model_is_reported_by_the_chat_doors_model_and_a_header() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let key = make_key(&serve);
    let port = serve.port;
    let asked = json!({"model": "gpt-5-2-thinking", "metadata": {"new_chat": "true"}});
    let confirmed = json!({ "conversation_id": null, "model": "gpt-5-2-thinking" });
    let chat_body = with_fields(
        serde_json::from_slice(&chat(FIXTURE_TEXT)).unwrap(),
        asked.clone(),
    );
    let k = bearer(&key);
    let call = std::thread::spawn(move || door(port, &[k], &chat_body));
    let op = page_answers_confirming(&ext, &lease, confirmed.clone());
    let (status, head, v) = call.join().unwrap();
    assert_eq!(status, 200, "{v}");
    // The page's own slug (its stream's model_slug; its request asked for "auto").
    assert_eq!(v["model"], "gpt-5-2", "the page's slug: {v}");
    let line = head
        .lines()
        .find_map(|l| l.strip_prefix("x-sendledger-destination-mismatch: "))
        .unwrap_or_else(|| panic!("a header says it differs: {head}"));
    assert!(
        line.contains("auto") && line.contains("gpt-5-2-thinking"),
        "{line}"
    );
    assert_eq!(serve.client().state(&op), "completed");
}

#[test]
fn an_answer_from_another_model_than_the_request_named_is_reported_by_the_chat_door_too() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let key = make_key(&serve);
    let port = serve.port;
    let asked = json!({"model": "gpt-5-2-thinking", "metadata": {"new_chat": "true"}});
    let confirmed = json!({ "conversation_id": null, "model": "gpt-5-2-thinking" });
    let chat_body = with_fields(serde_json::from_slice(&chat(FIXTURE_TEXT)).unwrap(), asked);
    let k = bearer(&key);
    let call = std::thread::spawn(move || door(port, &[k], &chat_body));
    // The page's request names the model asked; its answer comes from gpt-5-2.
    page_answers_confirming_asking(&ext, &lease, confirmed, "gpt-5-2-thinking");
    let (status, head, v) = call.join().unwrap();
    assert_eq!((status, v["model"].as_str()), (200, Some("gpt-5-2")), "{v}");
    let line = head
        .lines()
        .find_map(|l| l.strip_prefix("x-sendledger-destination-mismatch: "))
        .unwrap_or_else(|| panic!("a header says the answer differs: {head}"));
    assert!(
        line.contains("the page answered with model gpt-5-2; the send asked for gpt-5-2-thinking"),
        "{line}"
    );
}

#[test]
fn a_page_answering_with_another_model_is_said_in_words_by_the_responses_door() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let key = make_key(&serve);
    let asked = json!({"model": "gpt-5-2-thinking", "metadata": {"new_chat": "true"}});
    let confirmed = json!({ "conversation_id": null, "model": "gpt-5-2-thinking" });
    let k = vec![bearer(&key)];
    let body = with_fields(
        serde_json::from_slice(&responses_body(json!({"background": true}))).unwrap(),
        asked,
    );
    let (status, _, v) = exchange(serve.port, "POST /v1/responses", &k, &body);
    assert_eq!(status, 200, "{v}");
    page_answers_confirming(&ext, &lease, confirmed);
    let id = v["id"].as_str().unwrap();
    let got = exchange(serve.port, &format!("GET /v1/responses/{id}"), &k, b"").2;
    assert_eq!(
        (got["status"].as_str(), got["model"].as_str()),
        (Some("completed"), Some("gpt-5-2")),
        "{got}"
    );
    let words = got["metadata"]["sendledger_destination_mismatch"]
        .as_str()
        .unwrap_or_else(|| panic!("in words: {got}"));
    assert!(
        words.contains("the page's request used model auto"),
        "{words}"
    );
}

#[test]
fn the_responses_doors_conversation_parameter_names_the_conversation_and_a_conflict_is_refused() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let key = make_key(&serve);
    let k = vec![bearer(&key)];
    for (i, conversation) in [json!("conv-r"), json!({"id": "conv-r"})]
        .into_iter()
        .enumerate()
    {
        let body = responses_body(json!({"background": true, "conversation": conversation,
                                         "input": format!("to conv-r {i}")}));
        let (status, head, v) = exchange(serve.port, "POST /v1/responses", &k, &body);
        assert_eq!(status, 200, "{v}");
        let op = head
            .lines()
            .find_map(|l| l.strip_prefix("x-sendledger-operation-id: "))
            .unwrap()
            .trim()
            .to_string();
        assert_eq!(
            serve.client().show(&op)["destination"]["conversation_id"],
            "conv-r"
        );
    }
    let body = responses_body(json!({"conversation": "conv-r",
                                     "metadata": {"conversation_id": "conv-s"}}));
    let (status, _, v) = exchange(serve.port, "POST /v1/responses", &k, &body);
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (400, Some("conflicting_conversation")),
        "{v}"
    );
}
