//! `GET /v1/sends/{op_id}/wait`: the primitive the companion doors build on. It answers
//! from committed state: as soon as the send leaves the state the client names, or at its
//! bound with the send unchanged — never a guess.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use std::time::{Duration, Instant};

#[test]
fn wait_answers_when_the_send_leaves_the_named_state() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    client.queue("op-1", "Wait for me");
    let waiting = {
        let client = client.fresh();
        std::thread::spawn(move || client.get("/v1/sends/op-1/wait?from=queued&timeout_ms=20000"))
    };
    std::thread::sleep(Duration::from_millis(200));
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    ext.next(&lease, 5_000).expect("claimed");
    let answer = waiting.join().expect("the waiter finished");
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["changed"], true);
    assert_eq!(answer.body["send"]["state"], "claimed");
    assert_eq!(answer.body["timeline"][1]["to"], "claimed");
}

#[test]
fn wait_at_its_bound_answers_the_unchanged_send_and_says_so() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    client.queue("op-1", "Nobody takes me");
    let asked = Instant::now();
    let answer = client.get("/v1/sends/op-1/wait?from=queued&timeout_ms=300");
    assert!(
        asked.elapsed() >= Duration::from_millis(300),
        "it held until its bound"
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["changed"], false);
    assert_eq!(answer.body["send"]["state"], "queued");
}

#[test]
fn wait_for_a_state_the_send_already_left_answers_at_once() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    client.queue("op-1", "Already moved");
    let answer = client.get("/v1/sends/op-1/wait?from=claimed&timeout_ms=60000");
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["changed"], true);
    assert_eq!(answer.body["send"]["state"], "queued");
}

#[test]
fn wait_refuses_an_unknown_send_an_unknown_state_and_an_unbounded_wait() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let unknown = client.get("/v1/sends/nope/wait?from=queued&timeout_ms=10");
    assert_eq!(unknown.status, 404, "{}", unknown.body);
    assert_eq!(unknown.code(), "unknown_send");
    client.queue("op-1", "Hello");
    let bad_state = client.get("/v1/sends/op-1/wait?from=flying");
    assert_eq!(bad_state.status, 400, "{}", bad_state.body);
    let too_long = client.get("/v1/sends/op-1/wait?from=queued&timeout_ms=600000");
    assert_eq!(too_long.status, 400, "{}", too_long.body);
    assert!(too_long.body["message"]
        .as_str()
        .unwrap()
        .contains("at most 60000"));
}
