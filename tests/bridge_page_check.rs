//! *Check this page* (issue 35), the owner's side over the real loopback bridge: a person's
//! ask reaches the leased tab with the answer of its long-poll (never behind it), the tab's
//! check comes back to the asker and is kept as the tab's last; a tab that does not answer
//! is said so; a tab that failed a send on a page fact sends its check with the failure and
//! `show` has it; a check carrying anything like an id or a token is refused whole.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::{json, Value};

/// A check as the extension's `checkAll` gives it: one fact holds, one fails.
fn a_check() -> Value {
    json!({ "at": 1, "took_ms": 3, "results": [
        { "id": "composer.present", "needs": "every", "state": "holds", "shows": { "found": 1, "role": "textbox" } },
        { "id": "send_button.present", "needs": "every", "state": "fails", "shows": { "found": 0 } },
        { "id": "picker.shape", "needs": "model", "state": "unseen", "shows": {} }
    ]})
}

/// The tab's side: waits for its long-poll to hand it an ask, then answers `check`.
fn tab_answers(
    ext: Extension,
    lease: String,
    check: Value,
    report: Option<Value>,
) -> std::thread::JoinHandle<Value> {
    tab_answers_with(ext, lease, check, report, 200)
}

/// The same, the tab's answer taken or refused with `status`.
fn tab_answers_with(
    ext: Extension,
    lease: String,
    check: Value,
    report: Option<Value>,
    status: u16,
) -> std::thread::JoinHandle<Value> {
    std::thread::spawn(move || {
        let a = ext.next_answer(&lease, 20_000);
        assert_eq!(a.status, 200, "next: {}", a.body);
        let ask = a.body["page_check"].clone();
        assert!(a.body["send"].is_null(), "an ask comes alone: {}", a.body);
        let mut body =
            json!({ "lease_id": lease, "request_id": ask["request_id"], "check": check });
        if let Some(r) = report {
            body["report"] = r;
        }
        let answered = ext.http.post("/v1/ext/page-check", &body);
        assert_eq!(
            answered.status, status,
            "taken or refused: {}",
            answered.body
        );
        ask
    })
}

#[test]
fn a_persons_check_reaches_the_tab_through_its_long_poll_and_comes_back_kept() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let (client, ext) = (serve.client(), serve.pair());
    let lease = ext.lease("tab-7");
    let tab = tab_answers(ext.fresh(), lease, a_check(), None);
    let a = client.post("/v1/page-check", &json!({ "open_picker": true }));
    assert_eq!(a.status, 200, "the check comes back: {}", a.body);
    let ask = tab.join().expect("the tab answered");
    assert_eq!(
        ask["open_picker"], true,
        "the person's permission reaches the tab"
    );
    assert_eq!(ask["report"], false);
    assert_eq!(a.body["tab_id"], "tab-7");
    assert_eq!(
        a.body["summary"],
        "1 fact holds, 1 fails: send_button.present, 1 not seen yet"
    );
    let kept = client.get("/v1/page-checks");
    let last = &kept.body["page_checks"][0];
    assert_eq!(
        last["check"]["tab_id"], "tab-7",
        "the last check is kept per tab: {}",
        kept.body
    );
    assert_eq!(last["check"]["failing"], json!(["send_button.present"]));
    assert_eq!(
        last["check"]["results"][0]["shows"]["role"], "textbox",
        "what the page showed is kept"
    );
}

#[test]
fn a_tab_that_does_not_answer_a_check_is_said_so() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let (client, ext) = (serve.client(), serve.pair());
    ext.lease("tab-1");
    // The tab never polls: the ask is never taken.
    let a = client.post("/v1/page-check", &json!({ "wait_ms": 300 }));
    a.assert_refused(504, "tab_silent");
    let message = a.body["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("tab tab-1 did not take the ask"),
        "{message}"
    );
    let none = client.post(
        "/v1/page-check",
        &json!({ "tab_id": "tab-9", "wait_ms": 300 }),
    );
    none.assert_refused(404, "no_tab");
}

#[test]
fn a_check_sent_with_a_failed_send_is_shown_with_the_failure() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let (client, ext) = (serve.client(), serve.pair());
    let lease = ext.lease("tab-3");
    client.queue("op-page-1", "A send the page cannot take.");
    ext.next(&lease, 5_000).expect("claimed");
    let sent = ext.http.post(
        "/v1/ext/page-check",
        &json!({ "lease_id": lease, "op_id": "op-page-1", "check": a_check() }),
    );
    assert_eq!(sent.status, 200, "{}", sent.body);
    let failed = ext.http.post(
        "/v1/ext/fail",
        &json!({ "lease_id": lease, "op_id": "op-page-1", "stage": "before_dispatch",
        "reason": "a send button this extension does not recognise [page fact send_button.present]",
        "page_fact": { "id": "send_button.present", "needs": "every" } }),
    );
    assert_eq!(failed.status, 200, "{}", failed.body);
    let shown = client.show("op-page-1");
    assert_eq!(
        shown["page_check"]["failing"],
        json!(["send_button.present"]),
        "GET /v1/sends has the check: {shown}"
    );
    let out = cli(&profile, &["show", "op-page-1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "page check 1 fact holds, 1 fails: send_button.present, 1 not seen yet (tab tab-3)"
        ),
        "`sendledger show` says the check with the failure: {text}"
    );
}

#[test]
fn a_page_check_holding_an_id_or_a_token_is_refused_and_nothing_is_kept() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let (client, ext) = (serve.client(), serve.pair());
    let lease = ext.lease("tab-4");
    let leaks = [
        json!({ "conversation": "6790f2c1-1234-8abc-9def-0123456789ab" }),
        json!({ "token": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9abc123" }),
        json!({ "digest": "0123456789abcdef0123" }),
    ];
    for shows in leaks {
        let mut check = a_check();
        check["results"][0]["shows"] = shows.clone();
        let a = ext.http.post(
            "/v1/ext/page-check",
            &json!({ "lease_id": lease, "check": check }),
        );
        a.assert_refused(400, "invalid");
        assert!(
            a.body["message"]
                .as_str()
                .unwrap_or_default()
                .contains("looks like an id or a token"),
            "{}",
            a.body
        );
        let report = ext.http.post(
            "/v1/ext/page-check",
            &json!({ "lease_id": lease, "check": a_check(), "report": { "traffic": shows } }),
        );
        report.assert_refused(400, "invalid");
    }
    let bad_id = ext.http.post("/v1/ext/page-check", &json!({ "lease_id": lease, "check": { "results": [{ "id": "Composer", "state": "holds" }] } }));
    bad_id.assert_refused(400, "invalid");
    let bad_state = ext.http.post("/v1/ext/page-check", &json!({ "lease_id": lease, "check": { "results": [{ "id": "composer.present", "state": "maybe" }] } }));
    bad_state.assert_refused(400, "invalid");
    let kept = client.get("/v1/page-checks");
    assert_eq!(
        kept.body["page_checks"],
        json!([]),
        "nothing was kept: {}",
        kept.body
    );
}

#[test]
fn page_checks_are_bounded_the_oldest_going_first() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let (client, ext) = (serve.client(), serve.pair());
    let early = ext.lease("tab-early");
    let lease = ext.lease("tab-busy");
    let first = ext.http.post(
        "/v1/ext/page-check",
        &json!({ "lease_id": early, "check": a_check() }),
    );
    assert_eq!(first.status, 200, "{}", first.body);
    for _ in 0..(sendledger::ledger::MAX_PAGE_CHECKS + 5) {
        let a = ext.http.post(
            "/v1/ext/page-check",
            &json!({ "lease_id": lease, "check": a_check() }),
        );
        assert_eq!(a.status, 200, "{}", a.body);
    }
    let rows: i64 = rusqlite::Connection::open(profile.join("ledger.sqlite3"))
        .expect("the ledger opens")
        .query_row("SELECT count(*) FROM page_checks", [], |r| r.get(0))
        .expect("counted");
    assert_eq!(
        rows,
        sendledger::ledger::MAX_PAGE_CHECKS,
        "at most the bound is kept"
    );
    let kept = client.get("/v1/page-checks");
    let tabs: Vec<&str> = kept.body["page_checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["check"]["tab_id"].as_str().unwrap())
        .collect();
    assert_eq!(tabs, vec!["tab-busy"], "the oldest check went first");
}

#[test]
fn a_tabs_answer_that_is_not_kept_is_said_to_the_person_asking() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let (client, ext) = (serve.client(), serve.pair());
    let lease = ext.lease("tab-5");
    let mut leaking = a_check();
    leaking["results"][0]["shows"] =
        json!({ "conversation": "6790f2c1-1234-8abc-9def-0123456789ab" });
    let tab = tab_answers_with(ext.fresh(), lease, leaking, None, 400);
    let a = client.post("/v1/page-check", &json!({}));
    tab.join().expect("the tab answered");
    a.assert_refused(502, "invalid");
    let message = a.body["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("tab tab-5 answered, but its check was not kept")
            && message.contains("looks like an id or a token"),
        "the cause is named, not a silent tab: {message}"
    );
}
