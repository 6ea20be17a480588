//! The owner never aborts on input (issue 11): page traffic whose JSON nests deeply —
//! in one value, or built up over several delta operations of one tracked stream, each
//! added at the innermost point of the last — is refused with 400 and a sentence naming
//! the bound, against a real `sendledger serve` child. The owner lives, keeps answering,
//! and the send the stream belonged to keeps its custody state.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::{json, Value};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/chatgpt");
const URL: &str = "https://chatgpt.com/backend-api/f/conversation";
/// What the fixture's user typed (request_new_chat_f.json).
const TEXT: &str = "Draft a haiku about ledgers.\nKeep it short.";
/// Largest chunk the test sends (the observation route takes 8 MiB of body).
const MAX_CHUNK_BYTES: usize = 1000 * 1024;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}"))
        .unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// `levels` objects nested in each other under the key `a` (`{}` is one level).
fn nest(levels: usize) -> String {
    "{\"a\":".repeat(levels - 1) + "{}" + &"}".repeat(levels - 1)
}

/// A delta v1 stream, split into `requests` observation chunks of about equal size: a
/// root `levels` deep, then `ops` appends, each `levels` deep, at the innermost point of
/// the last (so the stream's state nests `(ops + 1) × levels` deep).
fn deepening_stream(levels: usize, ops: usize, requests: usize) -> Vec<String> {
    let mut events = vec![format!(
        "event: delta_encoding\ndata: \"v1\"\n\nevent: delta\ndata: {{\"p\":\"\",\"o\":\"add\",\"v\":{}}}\n\n",
        nest(levels)
    )];
    let mut inner = levels - 1; // keys from the root to the innermost `{}`
    for _ in 0..ops {
        events.push(format!(
            "event: delta\ndata: {{\"p\":\"{}\",\"o\":\"append\",\"v\":{{\"a\":{}}}}}\n\n",
            "/a".repeat(inner),
            nest(levels - 1)
        ));
        inner += levels - 1;
    }
    let total: usize = events.iter().map(String::len).sum();
    let per_request = total / requests + 1;
    let mut chunks = vec![String::new()];
    for event in events {
        if chunks.last().unwrap().len() >= per_request {
            chunks.push(String::new());
        }
        chunks.last_mut().unwrap().push_str(&event);
    }
    assert!(
        chunks.iter().all(|c| c.len() < MAX_CHUNK_BYTES),
        "every request stays under 1 MiB, well under the route's 8 MiB"
    );
    chunks
}

/// A dispatched send `op` with the fixture's text, tracked as stream `s1`; the lease.
fn tracked(serve: &Serve, ext: &Extension, op: &str) -> String {
    let lease = ext.lease("tab-1");
    serve.client().queue(op, TEXT);
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], op);
    assert_eq!(ext.dispatch(&lease, op).body["granted"], true);
    let a = ext.observe(&json!({
        "lease_id": lease, "op_id": op, "kind": "request", "stream_id": "s1",
        "url": URL, "body": fixture("request_new_chat_f.json"),
    }));
    assert_eq!(a.status, 200, "the request starts tracking: {}", a.body);
    assert_eq!(a.body["applied"][0]["fact"], "tracking", "{}", a.body);
    lease
}

/// Forwards `chunks` in order until one is refused; returns that refusal.
fn forward_until_refused(ext: &Extension, lease: &str, op: &str, chunks: &[String]) -> Answer {
    for (seq, chunk) in chunks.iter().enumerate() {
        let a = ext.observe(&json!({
            "lease_id": lease, "op_id": op, "kind": "stream_chunk",
            "stream_id": "s1", "seq": seq, "chunk": chunk,
        }));
        if a.status != 200 {
            return a;
        }
    }
    panic!(
        "{} chunks nesting ever deeper were all applied",
        chunks.len()
    );
}

fn assert_depth_refusal(a: &Answer) {
    assert_eq!(
        (a.status, a.code()),
        (400, "malformed"),
        "too deep is refused: {}",
        a.body
    );
    let message = a.body["message"].as_str().unwrap_or("");
    assert!(
        message.contains("64 levels"),
        "the refusal names the bound: {message}"
    );
}

/// After the refusal: the owner is alive and answering, the send unchanged, the stream no
/// longer followed (its end completes nothing).
fn assert_owner_lives_and_send_kept(serve: &mut Serve, ext: &Extension, lease: &str, op: &str) {
    let client = serve.client();
    assert_eq!(
        client.get("/v1/status").status,
        200,
        "the owner still answers"
    );
    assert_eq!(client.state(op), "dispatched", "the send keeps its state");
    let end = ext.observe(&json!({
        "lease_id": lease, "op_id": op, "kind": "stream_end", "stream_id": "s1",
    }));
    assert_eq!(end.status, 200, "{}", end.body);
    assert_eq!(
        end.body["applied"],
        json!([{ "fact": "unknown_stream", "stream_id": "s1" }]),
        "a refused stream is no longer followed, and the owner says so (no fact about the send)"
    );
    assert_eq!(client.state(op), "dispatched");
    serve.terminate();
    let status = serve.wait_exit();
    assert!(
        status.success(),
        "the owner was alive and stopped cleanly: {status} {}",
        serve.stderr()
    );
}

#[test]
fn the_owner_refuses_delta_ops_a_hundred_levels_deep_added_at_the_innermost_point_and_lives() {
    let (_tmp, profile) = profile_dir();
    let mut serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = tracked(&serve, &ext, "deep");
    // 6,100 levels over two requests: enough to overflow the owner's stack unbounded.
    let chunks = deepening_stream(100, 60, 2);
    let refused = forward_until_refused(&ext, &lease, "deep", &chunks);
    assert_depth_refusal(&refused);
    assert_owner_lives_and_send_kept(&mut serve, &ext, &lease, "deep");
}

#[test]
fn the_owner_refuses_stream_state_built_past_the_depth_bound_from_shallow_ops_and_lives() {
    let (_tmp, profile) = profile_dir();
    let mut serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = tracked(&serve, &ext, "deep");
    // Each op 40 levels: every one alone is within the bound; together they are not.
    let chunks = deepening_stream(40, 150, 3);
    let refused = forward_until_refused(&ext, &lease, "deep", &chunks);
    assert_depth_refusal(&refused);
    assert_owner_lives_and_send_kept(&mut serve, &ext, &lease, "deep");
}

#[test]
fn request_bodies_listings_and_frames_nesting_past_the_bound_are_refused_with_a_sentence() {
    let (_tmp, profile) = profile_dir();
    let mut serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let client = serve.client();
    let deep = |levels: usize| -> Value { serde_json::from_str(&nest(levels)).unwrap() };
    // The bridge's own bodies: a client's and the extension's.
    let body = format!("{{\"by\":\"alice\",\"x\":{}}}", nest(100));
    let token = serve.client_token();
    let (status, answer, _) = raw(
        serve.port,
        &format!(
            "POST /v1/stop HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {token}",
            serve.port
        ),
        body.as_bytes(),
    );
    assert_depth_refusal(&Answer {
        status,
        body: answer,
    });
    let lease = tracked(&serve, &ext, "deep");
    // A conversation request and a listing whose JSON nests too deep.
    let request = json!({ "action": "next", "x": deep(70) }).to_string();
    let a = ext.observe(&json!({
        "lease_id": lease, "op_id": "deep", "kind": "request", "stream_id": "s2",
        "url": URL, "body": request,
    }));
    assert_depth_refusal(&a);
    let listing = json!({ "mapping": {}, "x": deep(70) }).to_string();
    let a = ext.observe(&json!({
        "lease_id": lease, "kind": "listing",
        "url": "https://chatgpt.com/backend-api/conversation/c1", "body": listing,
    }));
    assert_depth_refusal(&a);
    // A WebSocket frame on the tracked stream.
    let a = ext.observe(&json!({
        "lease_id": lease, "op_id": "deep", "kind": "websocket", "stream_id": "s1",
        "message": json!({ "type": "message", "payload": deep(70) }).to_string(),
    }));
    assert_depth_refusal(&a);
    assert_eq!(client.state("deep"), "dispatched");
    assert_owner_lives_and_send_kept(&mut serve, &ext, &lease, "deep");
}

/// Forwards `chunk` as stream `s1` of `op` at each of `seqs` until one is refused: that
/// `seq` and its refusal, or `None` when all were taken.
fn first_refused(
    ext: &Extension,
    lease: &str,
    op: &str,
    seqs: impl IntoIterator<Item = u64>,
    chunk: &str,
) -> Option<(u64, Answer)> {
    seqs.into_iter().find_map(|seq| {
        let a = ext.observe(&json!({
            "lease_id": lease, "op_id": op, "kind": "stream_chunk",
            "stream_id": "s1", "seq": seq, "chunk": chunk,
        }));
        (a.status != 200).then_some((seq, a))
    })
}

/// A refusal of a stream past its bounds: 400, naming `bound`.
fn assert_stream_bound_refusal(a: &Answer, bound: &str) {
    assert_eq!((a.status, a.code()), (400, "malformed"), "{}", a.body);
    let message = a.body["message"].as_str().unwrap_or("");
    assert!(
        message.contains(bound),
        "the refusal names the bound: {message}"
    );
}

#[test]
fn chunks_held_ahead_of_a_gap_are_bounded_and_the_send_keeps_its_state() {
    let (_tmp, profile) = profile_dir();
    let mut serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = tracked(&serve, &ext, "gap");
    // Chunk 0 never arrives: every later one waits ahead of the gap, in memory.
    let chunk = "event: delta\ndata: {}\n\n".repeat(40);
    let (seq, a) = first_refused(&ext, &lease, "gap", 1..=300, &chunk)
        .expect("300 chunks ahead of a gap were all held");
    assert_eq!(seq, 257, "256 chunks may wait ahead of a gap, not one more");
    assert_stream_bound_refusal(&a, "ahead of a missing one");
    assert_owner_lives_and_send_kept(&mut serve, &ext, &lease, "gap");
}

#[test]
fn a_stream_bringing_more_than_32_mib_is_no_longer_followed_and_the_send_keeps_its_state() {
    let (_tmp, profile) = profile_dir();
    let mut serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = tracked(&serve, &ext, "big");
    // SSE comments: read and passed over, so only the stream's byte bound can stop them.
    // (Each line is 14 bytes once JSON escapes its line break.)
    let chunk = ": keep-alive\n".repeat(MAX_CHUNK_BYTES / 14);
    let fit = (32 * 1024 * 1024 / chunk.len()) as u64;
    let (seq, a) = first_refused(&ext, &lease, "big", 0..40, &chunk)
        .expect("40 MB of one stream were all taken");
    assert_eq!(
        seq, fit,
        "32 MiB are taken, the chunk past them is refused: {}",
        a.body
    );
    assert_stream_bound_refusal(&a, "32 MiB");
    assert_owner_lives_and_send_kept(&mut serve, &ext, &lease, "big");
}
