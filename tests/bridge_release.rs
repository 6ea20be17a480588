//! A tab closed while its send is claimed (issue 11): the extension's release rejects the
//! claim at once with the true reason, and the next send goes out to another tab without
//! waiting for the claim bound.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::json;

#[test]
fn releasing_a_lease_with_a_claimed_send_frees_the_queue_at_once() {
    let (_tmp, profile) = profile_dir();
    // A claim bound far beyond the test: only the release can free the queue in time.
    let serve = Serve::start(&profile, &["--claim-ms", "600000"]);
    let client = serve.client();
    let ext = serve.pair();
    let closing = ext.lease("tab-closing");
    client.queue("op-held", "claimed when the tab closed");
    client.queue("op-next", "waits behind it");
    assert_eq!(
        ext.next(&closing, 5_000).expect("claimed")["op_id"],
        "op-held"
    );
    let other = ext.fresh().lease("tab-other");
    let r = ext.http.post(
        "/v1/ext/release",
        &json!({ "lease_id": closing, "reason": "tab closed" }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let held = client.show("op-held");
    assert_eq!(held["send"]["state"], "rejected", "{held}");
    let evidence = held["send"]["evidence"].as_str().unwrap_or_default();
    assert!(
        evidence.contains("nothing was clicked") && evidence.contains("tab closed"),
        "the true reason: {evidence}"
    );
    let next = ext
        .next(&other, 5_000)
        .expect("the next send is handed out at once");
    assert_eq!(next["op_id"], "op-next");
    let late = ext.dispatch(&closing, "op-held");
    assert_ne!(
        late.status, 200,
        "no grant for the released claim: {}",
        late.body
    );
}
