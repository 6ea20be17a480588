//! The queue window's feed (`GET /v1/queue/feed`) and row reads (`POST /v1/queue/rows`)
//! end to end: a real `sendledger serve`, read with the client the window itself uses.
//! The window runs in its own process, so these are all it sees of the queue.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use sendledger::bridge::queue_feed::{QueueUpdate, MAX_ROWS_ASKED};
use sendledger::client::BridgeClient;
use serde_json::json;

/// A silence longer than this fails the test instead of hanging it, in ms.
const IDLE_MS: u64 = 10_000;

fn window_client(serve: &Serve) -> BridgeClient {
    BridgeClient::new(&serve.address(), &serve.client_token())
}

fn next(feed: &mut sendledger::client::feed::QueueFeed) -> QueueUpdate {
    feed.next()
        .expect("the feed stays open")
        .expect("an update before the idle bound")
}

#[test]
fn the_queue_feed_opens_with_the_whole_queue_then_pushes_the_rows_each_commit_changed() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    serve
        .client()
        .queue("before-1", "queued before the window opened");
    let mut feed = window_client(&serve).queue_feed(IDLE_MS).unwrap();
    let QueueUpdate::Snapshot(view) = next(&mut feed) else {
        panic!("the first update is the whole queue");
    };
    assert_eq!(view.status.pending, 1);
    assert_eq!(view.pending[0].op_id, "before-1");

    serve
        .client()
        .queue("after-1", "queued while the window is open");
    let QueueUpdate::Changed { status, rows } = next(&mut feed) else {
        panic!("a commit is pushed as the rows it changed");
    };
    assert_eq!(status.pending, 2);
    let ids: Vec<&str> = rows.iter().map(|r| r.op_id.as_str()).collect();
    assert_eq!(ids, ["after-1"], "only the row the commit changed");
}

#[test]
fn a_stop_with_nothing_queued_reaches_the_feed_as_a_closed_gate() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let mut feed = window_client(&serve).queue_feed(IDLE_MS).unwrap();
    assert!(matches!(next(&mut feed), QueueUpdate::Snapshot(_)));
    // No send, so no audit event: only the gate changes.
    assert_eq!(
        serve
            .client()
            .post("/v1/stop", &json!({"by": "ada"}))
            .status,
        200
    );
    let QueueUpdate::Changed { status, rows } = next(&mut feed) else {
        panic!("the closed gate is pushed");
    };
    assert!(status.gate_closed, "the window shows Stop at once");
    assert!(rows.is_empty());
}

#[test]
fn queue_rows_reads_known_ids_and_refuses_more_than_its_bound() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    serve.client().queue("r-1", "a row to read");
    let client = window_client(&serve);
    let ids = ["r-1".to_string(), "no-such-op".to_string()].into();
    let rows = client.rows(&ids).unwrap();
    assert_eq!(rows.len(), 1, "an unknown id is left out");
    assert_eq!(rows[0].op_id, "r-1");

    let too_many: Vec<String> = (0..=MAX_ROWS_ASKED).map(|i| format!("op-{i}")).collect();
    let refused = serve
        .client()
        .post("/v1/queue/rows", &json!({ "op_ids": too_many }));
    assert_eq!(refused.status, 413);
    assert_eq!(refused.code(), "too_many");
    assert!(
        refused.body["message"]
            .as_str()
            .unwrap()
            .contains("smaller batches"),
        "{}",
        refused.body
    );
}
