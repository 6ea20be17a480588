//! One long-poll for all the tabs of an extension (issue 39): `POST /v1/ext/next` with
//! `lease_ids` and `stop_lease_ids`, under the real owner. Custody stays per lease: each
//! claim is its own lease's and comes again to it after a lost answer; a remote stop
//! reaches the lease of the tab writing the answer; a lease ended mid-poll is answered;
//! the number of leases is bounded.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::{json, Value};

/// One poll for `leases` (waiting for a send) and `stops` (waiting for a remote stop).
fn poll(ext: &Extension, leases: &[&str], stops: &[&str], wait_ms: u64) -> Answer {
    ext.http.post(
        "/v1/ext/next",
        &json!({ "lease_ids": leases, "stop_lease_ids": stops, "wait_ms": wait_ms }),
    )
}

/// The poll's entries, by lease id and what the tab waits for.
fn entries(a: &Answer) -> Vec<Value> {
    assert_eq!(a.status, 200, "{}", a.body);
    a.body["answers"].as_array().expect("answers").clone()
}

/// Polls until every lease of `leases` was handed a send (at most `leases.len()` polls):
/// lease id → op id.
fn claims_of(ext: &Extension, leases: &[&str]) -> Vec<(String, String)> {
    let mut got = Vec::new();
    for _ in 0..leases.len() {
        let waiting: Vec<&str> = leases
            .iter()
            .copied()
            .filter(|l| !got.iter().any(|(g, _): &(String, String)| g == l))
            .collect();
        if waiting.is_empty() {
            break;
        }
        for e in entries(&poll(ext, &waiting, &[], 5_000)) {
            assert_eq!(e["wants"], "send", "{e}");
            let op = e["send"]["op_id"].as_str().expect("a send").to_string();
            got.push((e["lease_id"].as_str().unwrap().to_string(), op));
        }
    }
    got.sort();
    got
}

#[test]
fn one_poll_for_eight_tabs_hands_each_lease_its_own_claim() {
    let (_tmp, profile) = profile_dir();
    set_config(&profile, &json!({ "max_in_flight": 8 }));
    let serve = Serve::start(&profile, &[]);
    let (client, ext) = (serve.client(), serve.pair());
    let leases: Vec<String> = (0..8)
        .map(|i| lease_in(&ext, &format!("tab-{i}"), &format!("conv-{i}")))
        .collect();
    for i in 0..8 {
        queue_to(&client, &format!("op-{i}"), &format!("conv-{i}"));
    }
    let ids: Vec<&str> = leases.iter().map(String::as_str).collect();
    let first = entries(&poll(&ext, &ids, &[], 5_000));
    assert_eq!(
        first.len(),
        8,
        "one poll answers for every tab with work: {first:?}"
    );
    let mut got = claims_of(&ext, &ids);
    got.sort_by_key(|(_, op)| op.clone());
    for (i, (lease, op)) in got.iter().enumerate() {
        assert_eq!(op, &format!("op-{i}"));
        assert_eq!(
            lease, &leases[i],
            "op-{i} is claimed by its own tab's lease"
        );
        let show = client.show(op);
        assert_eq!(show["send"]["state"], "claimed", "{show}");
        assert_eq!(show["send"]["lease_id"], leases[i].as_str());
    }
}

#[test]
fn a_claim_whose_poll_answer_was_lost_is_handed_again_to_its_lease_by_the_next_poll() {
    let (_tmp, profile) = profile_dir();
    set_config(&profile, &json!({ "max_in_flight": 2 }));
    let serve = Serve::start(&profile, &[]);
    let (client, ext) = (serve.client(), serve.pair());
    let a = lease_in(&ext, "tab-a", "conv-a");
    let b = lease_in(&ext, "tab-b", "conv-b");
    // The poll's connection is cut before the claim arrives: a raw request whose reader
    // closes at once, the claim made by the owner meanwhile.
    let body = json!({ "lease_ids": [a, b], "wait_ms": 20_000 }).to_string();
    let token = ext.http_token().expect("paired");
    let head = format!(
        "POST /v1/ext/next HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let port: u16 = serve.address().rsplit(':').next().unwrap().parse().unwrap();
    let mut cut = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    std::io::Write::write_all(&mut cut, format!("{head}{body}").as_bytes()).unwrap();
    queue_to(&client, "op-a", "conv-a");
    let deadline = std::time::Instant::now() + BOUND;
    while client.state("op-a") != "claimed" {
        assert!(std::time::Instant::now() < deadline, "the open poll claims");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    drop(cut); // the answer is lost with the connection
    assert_eq!(
        client.show("op-a")["send"]["lease_id"],
        a.as_str(),
        "claimed for tab-a"
    );
    let again = entries(&poll(&ext, &[&b, &a], &[], 5_000));
    assert_eq!(again.len(), 1, "{again:?}");
    assert_eq!(
        again[0]["lease_id"],
        a.as_str(),
        "handed again to its own lease"
    );
    assert_eq!(again[0]["send"]["op_id"], "op-a");
    let grant = ext.http.post(
        "/v1/ext/dispatch",
        &json!({ "lease_id": a, "op_id": "op-a", "confirmed": { "conversation_id": "conv-a" } }),
    );
    assert_eq!(grant.body["granted"], true, "{}", grant.body);
}

#[test]
fn a_lease_ended_while_its_poll_waits_is_answered_as_ended_and_the_others_keep_waiting() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let a = lease_in(&ext, "tab-a", "conv-a");
    let b = lease_in(&ext, "tab-b", "conv-b");
    let waiting = {
        let (ext, a, b) = (ext.fresh(), a.clone(), b.clone());
        std::thread::spawn(move || poll(&ext, &[&a, &b], &[], 20_000))
    };
    std::thread::sleep(std::time::Duration::from_millis(300));
    let r = ext.http.post(
        "/v1/ext/release",
        &json!({ "lease_id": a, "reason": "tab closed" }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let got = entries(&waiting.join().expect("the poll finished"));
    assert_eq!(got.len(), 1, "only the ended lease is answered: {got:?}");
    assert_eq!(got[0]["lease_id"], a.as_str());
    assert_eq!(got[0]["error"]["code"], "lease_ended", "{}", got[0]);
    assert!(poll(&ext, &[&b], &[], 200).body["answers"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn a_remote_stop_in_a_shared_poll_reaches_only_the_lease_of_the_tab_writing_the_answer() {
    let (_tmp, profile) = profile_dir();
    set_config(&profile, &json!({ "max_in_flight": 2 }));
    let serve = Serve::start(&profile, &[]);
    let (client, ext) = (serve.client(), serve.pair());
    let a = lease_in(&ext, "tab-a", "conv-a");
    let b = lease_in(&ext, "tab-b", "conv-b");
    queue_to(&client, "op-a", "conv-a");
    let claimed = entries(&poll(&ext, &[&a, &b], &[], 5_000));
    assert_eq!(claimed[0]["send"]["op_id"], "op-a");
    let grant = ext.http.post(
        "/v1/ext/dispatch",
        &json!({ "lease_id": a, "op_id": "op-a", "confirmed": { "conversation_id": "conv-a" } }),
    );
    assert_eq!(grant.body["granted"], true, "{}", grant.body);
    let waiting = {
        let (ext, a, b) = (ext.fresh(), a.clone(), b.clone());
        std::thread::spawn(move || poll(&ext, &[], &[&b, &a], 20_000))
    };
    std::thread::sleep(std::time::Duration::from_millis(300));
    let stop = client.post("/v1/stop", &json!({ "by": "alice" }));
    assert_eq!(stop.body["stop"]["remote_stops"], json!(["op-a"]));
    let got = entries(&waiting.join().expect("the poll finished"));
    assert_eq!(got.len(), 1, "only tab-a writes the answer: {got:?}");
    assert_eq!(got[0]["lease_id"], a.as_str());
    assert_eq!(got[0]["wants"], "stops");
    assert_eq!(got[0]["remote_stops"][0]["op_id"], "op-a");
    assert_eq!(got[0]["remote_stops"][0]["phase"], "pending");
}

#[test]
fn a_poll_names_at_most_64_leases_and_one_way_of_naming_them() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let many: Vec<String> = (0..65).map(|i| format!("lease-{i}")).collect();
    let ids: Vec<&str> = many.iter().map(String::as_str).collect();
    let over = poll(&ext, &ids[..33], &ids[33..], 0);
    over.assert_refused(400, "too_many");
    assert!(over.body["message"].as_str().unwrap().contains("65 leases"));
    let at = poll(&ext, &ids[..64], &[], 0);
    let unknown = entries(&at);
    assert_eq!(unknown.len(), 64, "64 is within the bound, each answered");
    assert_eq!(
        unknown[0]["error"]["code"], "unknown_lease",
        "{}",
        unknown[0]
    );
    let both = ext.http.post(
        "/v1/ext/next",
        &json!({ "lease_id": "x", "lease_ids": ["y"], "wait_ms": 0 }),
    );
    both.assert_refused(400, "malformed");
    poll(&ext, &[], &[], 0).assert_refused(400, "malformed");
}

#[test]
fn a_single_lease_poll_of_an_older_extension_still_takes_its_send() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let (client, ext) = (serve.client(), serve.pair());
    let lease = ext.lease("tab-old");
    client.queue("op-1", "through the old route");
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "op-1");
}
