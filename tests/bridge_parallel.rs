//! Parallel conversations under the real owner (issue 27): `max_in_flight` from the
//! profile's config.json, two sends in flight at once in two conversations, a SIGKILL
//! with both in flight, and a bad setting refused at start with the ledger unchanged; a
//! claim handed again to its own lease beside another tab's newer claim, and a claim
//! made before a 429 closed the limit gate never granted after it.

#[path = "support/bridge.rs"]
mod harness;
#[path = "support/page_traffic.rs"]
mod page_traffic;

use harness::*;
use page_traffic::{fixture, TEXT, URL};
use serde_json::json;
use std::path::Path;

/// The grant, the tab confirming it shows `conversation`.
fn grant(ext: &Extension, lease: &str, op: &str, conversation: &str) -> Answer {
    ext.http.post(
        "/v1/ext/dispatch",
        &json!({ "lease_id": lease, "op_id": op,
                 "confirmed": { "conversation_id": conversation } }),
    )
}

/// A paired extension with tabs in conv-a and conv-b (leases a and b), and a-1 and b-1
/// queued for them.
fn two_tabs(serve: &Serve) -> (Http, Extension, String, String) {
    let client = serve.client();
    let ext = serve.pair();
    let a = lease_in(&ext, "tab-a", "conv-a");
    let b = lease_in(&ext, "tab-b", "conv-b");
    queue_to(&client, "a-1", "conv-a");
    queue_to(&client, "b-1", "conv-b");
    (client, ext, a, b)
}

/// Two tabs in conv-a and conv-b, with a-1 and b-1 granted at once and a-2 waiting.
fn two_in_flight(serve: &Serve) -> (Extension, String, String) {
    let (client, ext, a, b) = two_tabs(serve);
    queue_to(&client, "a-2", "conv-a");
    assert_eq!(ext.next(&a, 5_000).expect("a claims")["op_id"], "a-1");
    assert_eq!(ext.next(&b, 5_000).expect("b claims")["op_id"], "b-1");
    assert_eq!(grant(&ext, &a, "a-1", "conv-a").body["granted"], true);
    assert_eq!(grant(&ext, &b, "b-1", "conv-b").body["granted"], true);
    (ext, a, b)
}

#[test]
fn two_tabs_in_two_conversations_have_a_send_in_flight_each_under_max_in_flight_two() {
    let (_tmp, profile) = profile_dir();
    set_config(&profile, &json!({ "max_in_flight": 2 }));
    let serve = Serve::start(&profile, &[]);
    let (ext, a, _b) = two_in_flight(&serve);
    let client = serve.client();
    assert_eq!(client.state("a-1"), "dispatched");
    assert_eq!(client.state("b-1"), "dispatched");
    let second = lease_in(&ext, "tab-a2", "conv-a");
    assert!(
        ext.next(&second, 300).is_none(),
        "a-2 waits: a-1 is in flight in conv-a"
    );
    assert!(ext.next(&a, 300).is_none(), "tab-a is busy with a-1");
    let status = client.get("/v1/status");
    assert_eq!(status.body["status"]["max_in_flight"], 2, "{}", status.body);
}

#[test]
fn sigkill_with_two_sends_in_flight_leaves_both_uncertain_and_hands_neither_out_again() {
    let (_tmp, profile) = profile_dir();
    set_config(&profile, &json!({ "max_in_flight": 2 }));
    let serve = Serve::start(&profile, &[]);
    let (old_ext, a, b) = two_in_flight(&serve);
    serve.kill();

    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    for op in ["a-1", "b-1"] {
        assert_eq!(client.state(op), "uncertain", "{op} may have gone out");
    }
    assert_eq!(
        client.state("a-2"),
        "rejected",
        "queued: it never left the host"
    );
    let ext = serve.extension(&old_ext);
    for (lease, op, c) in [(&a, "a-1", "conv-a"), (&b, "b-1", "conv-b")] {
        let late = grant(&ext, lease, op, c);
        assert!(late.status == 409 || late.status == 410, "{}", late.body);
    }
    let a = lease_in(&ext, "tab-a", "conv-a");
    let b = lease_in(&ext, "tab-b", "conv-b");
    assert!(ext.next(&a, 300).is_none(), "a-1 is never handed out again");
    assert!(ext.next(&b, 300).is_none(), "b-1 is never handed out again");
    for op in ["a-1", "b-1"] {
        assert_eq!(client.state(op), "uncertain", "only a person resolves {op}");
    }
}

#[test]
fn stop_fences_both_tabs_with_two_sends_claimed() {
    let (_tmp, profile) = profile_dir();
    set_config(&profile, &json!({ "max_in_flight": 2 }));
    let serve = Serve::start(&profile, &[]);
    let (client, ext, a, b) = two_tabs(&serve);
    assert!(ext.next(&a, 5_000).is_some());
    assert!(ext.next(&b, 5_000).is_some());
    let stop = client.post("/v1/stop", &json!({ "by": "alice" }));
    assert_eq!(stop.status, 200, "{}", stop.body);
    for (lease, op, c) in [(&a, "a-1", "conv-a"), (&b, "b-1", "conv-b")] {
        assert_eq!(client.state(op), "stopped");
        let refused = grant(&ext, lease, op, c);
        assert_ne!(refused.body["granted"], true, "{}", refused.body);
    }
}

#[test]
fn a_bad_max_in_flight_refuses_the_start_with_a_sentence_and_leaves_the_ledger_unchanged() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    serve
        .client()
        .queue("kept", "queued before the bad setting");
    serve.kill();
    let files = |p: &Path| {
        let wal = p.join(format!("{}-wal", sendledger::profile::LEDGER_FILE));
        (
            std::fs::read(ledger_file(p)).unwrap(),
            std::fs::read(wal).ok(),
        )
    };
    let before = files(&profile);
    for bad in [json!(0), json!(9), json!("two"), json!(1.5)] {
        set_config(&profile, &json!({ "max_in_flight": bad }));
        let failed = Serve::try_start(&profile, &["--port", "0"])
            .err()
            .expect("refused");
        assert!(
            failed.stderr.contains("max_in_flight") && failed.stderr.contains("from 1 to 8"),
            "{bad}: {}",
            failed.stderr
        );
        assert!(
            before == files(&profile),
            "{bad}: the ledger is unchanged (not even recovered)"
        );
    }
    set_config(&profile, &json!({ "max_in_flight": 2 }));
    let serve = Serve::start(&profile, &[]);
    assert_eq!(
        serve.client().state("kept"),
        "rejected",
        "recovered only now"
    );
}

#[test]
fn max_in_flight_set_with_the_cli_is_followed_by_the_running_owner() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let (_client, ext, a, b) = two_tabs(&serve);
    assert_eq!(ext.next(&a, 5_000).expect("a claims")["op_id"], "a-1");
    assert!(ext.next(&b, 300).is_none(), "max_in_flight is 1 until set");
    for bad in ["0", "9"] {
        let out = cli(&profile, &["max-in-flight", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("from 1 to 8"), "{said}");
    }
    let (code, set) = cli_json(&profile, &["max-in-flight", "2"]);
    assert_eq!((code, &set["max_in_flight"]), (0, &json!(2)), "{set}");
    assert_eq!(
        ext.next(&b, 10_000)
            .expect("the owner applies the act at once")["op_id"],
        "b-1"
    );
    let (_, shown) = cli_json(&profile, &["max-in-flight"]);
    assert_eq!(shown["max_in_flight"], 2);
}

#[test]
fn a_claim_is_handed_again_to_its_lease_while_another_tab_holds_a_newer_claim() {
    let (_tmp, profile) = profile_dir();
    set_config(&profile, &json!({ "max_in_flight": 2 }));
    let serve = Serve::start(&profile, &[]);
    let (client, ext, a, b) = two_tabs(&serve);
    assert_eq!(ext.next(&a, 5_000).expect("a claims")["op_id"], "a-1");
    assert_eq!(ext.next(&b, 5_000).expect("b claims")["op_id"], "b-1");
    let again = ext
        .next(&a, 300)
        .expect("a-1 handed again: a's answer was lost");
    assert_eq!(again["op_id"], "a-1");
    assert_eq!(grant(&ext, &a, "a-1", "conv-a").body["granted"], true);
    assert_eq!(client.state("a-1"), "dispatched");
}

#[test]
fn a_claim_made_before_a_429_closed_the_limit_gate_is_not_granted_after_it() {
    let (_tmp, profile) = profile_dir();
    set_config(&profile, &json!({ "max_in_flight": 2 }));
    let serve = Serve::start(&profile, &[]);
    let (client, ext) = (serve.client(), serve.pair());
    let a = lease_in(&ext, "tab-a", "conv-a");
    let b = lease_in(&ext, "tab-b", "conv-b");
    for (op, conversation) in [("a-1", "conv-a"), ("b-1", "conv-b")] {
        let queued = client.post(
            "/v1/sends",
            &json!({ "op_id": op, "text": TEXT, "conversation_id": conversation }),
        );
        assert!(
            queued.status == 200 || queued.status == 201,
            "{}",
            queued.body
        );
    }
    assert_eq!(ext.next(&a, 5_000).expect("a claims")["op_id"], "a-1");
    assert_eq!(ext.next(&b, 5_000).expect("b claims")["op_id"], "b-1");
    assert_eq!(grant(&ext, &a, "a-1", "conv-a").body["granted"], true);
    let request = json!({ "lease_id": a, "op_id": "a-1", "kind": "request", "stream_id": "a-1",
                          "url": URL, "body": fixture("request_new_chat_f.json"),
                          "status": 429, "retry_after": "120",
                          "error_body": json!({ "detail": "Too many requests" }).to_string() });
    assert_eq!(ext.observe(&request).status, 200);
    let end = json!({ "lease_id": a, "op_id": "a-1", "kind": "stream_end", "stream_id": "a-1" });
    assert_eq!(ext.observe(&end).status, 200);
    assert_eq!(client.state("a-1"), "page_error");
    let answer = grant(&ext, &b, "b-1", "conv-b");
    assert_eq!(
        answer.status, 409,
        "not granted into the limit: {}",
        answer.body
    );
    assert_eq!(answer.body["code"], "not_granted", "{}", answer.body);
    assert_eq!(client.state("b-1"), "rejected", "nothing was clicked");
}
