//! The *page changed* gate over the real loopback bridge (issue 35): a tab failing a send
//! on a page fact every send needs (`page_fact.needs == "every"`) fails that send and
//! closes the gate; queued sends wait (no tab is handed one) and `sendledger status` says
//! which fact and what to do; a person's resume lets the queued send go once. A fact only
//! some sends need fails only that send.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::json;

fn fail_on(ext: &Extension, lease: &str, op: &str, id: &str, needs: &str) -> Answer {
    ext.http.post(
        "/v1/ext/fail",
        &json!({ "lease_id": lease, "op_id": op, "stage": "before_dispatch",
                 "reason": format!("{id} is a page fact this extension does not recognise; nothing was typed"),
                 "page_fact": { "id": id, "needs": needs } }),
    )
}

#[test]
fn a_fact_every_send_needs_closes_the_page_gate_and_queued_sends_wait_for_a_person() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("first", "goes nowhere");
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "first");
    let a = fail_on(&ext, &lease, "first", "composer.present", "every");
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["send"]["state"], "rejected");
    client.queue("second", "waits for a person");
    assert!(
        ext.next(&lease, 300).is_none(),
        "no send is handed out while the page gate is closed"
    );
    let other = ext.lease("tab-2");
    assert!(ext.next(&other, 300).is_none(), "to no tab");
    let (code, v) = cli_json(&profile, &["status"]);
    assert_eq!(code, 0, "{v}");
    let v = &v["status"];
    assert_eq!(v["page_gate"]["fact_id"], "composer.present", "{v}");
    assert_eq!(v["page_gate"]["tab_id"], "tab-1", "{v}");
    let said = v["waiting_sentence"].as_str().expect("status says why");
    assert!(
        said.contains("composer.present") && said.contains("update the extension"),
        "{said}"
    );
    let text = String::from_utf8_lossy(&cli(&profile, &["status"]).stdout).to_string();
    assert!(text.contains("composer.present"), "{text}");
    let shown = client.show("second");
    assert_eq!(shown["send"]["state"], "queued", "{shown}");
    assert!(
        shown.to_string().contains("composer.present"),
        "the queued send says why: {shown}"
    );
    let out = cli(&profile, &["resume", "--by", "alice"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let leased = ext.lease("tab-1");
    let next = ext
        .next(&leased, 5_000)
        .expect("the queued send goes after the resume");
    assert_eq!(next["op_id"], "second");
    assert_eq!(ext.dispatch(&leased, "second").body["granted"], true);
}

#[test]
fn a_fact_only_some_sends_need_fails_only_that_send() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("first", "names a model the picker does not show");
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "first");
    let a = fail_on(&ext, &lease, "first", "picker.model_item", "model");
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["send"]["state"], "rejected");
    client.queue("second", "goes");
    assert_eq!(
        ext.next(&lease, 5_000).expect("the queue moves on")["op_id"],
        "second"
    );
    let (_, v) = cli_json(&profile, &["status"]);
    assert!(v["status"]["page_gate"].is_null(), "{v}");
}
