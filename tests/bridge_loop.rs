//! The extension's loop over real loopback HTTP against a real `sendledger serve` child
//! (issue 5): pairing, lease, queue through the client API and through the CLI, the
//! long-poll hand-off, the one-time dispatch grant, and honest failures.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::json;

#[test]
fn next_long_poll_returns_the_send_queued_while_it_waits() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let waiting = {
        let (ext, lease) = (ext.clone(), lease.clone());
        std::thread::spawn(move || ext.next(&lease, 20_000))
    };
    // The long-poll is parked (or about to be): either way it must return this send.
    serve.client().queue("op-1", "Hello from the client");
    let handed = waiting
        .join()
        .expect("the poller finished")
        .expect("the long-poll returned the send queued while it waited");
    assert_eq!(handed["op_id"], "op-1");
    assert_eq!(handed["text"], "Hello from the client");
    assert_eq!(
        serve.client().state("op-1"),
        "claimed",
        "next answers with the send it has just claimed for the lease"
    );
}

#[test]
fn the_cli_queues_through_the_live_owner_as_a_client() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let (code, out) = cli_json(&profile, &["send", "--id", "cli-1", "Hello from the CLI"]);
    assert_eq!(
        code, 0,
        "the CLI queued while serve owns the profile: {out}"
    );
    assert_eq!(out["created"], true);
    let shown = serve.client().show("cli-1");
    let first = &shown["timeline"][0];
    assert_eq!(first["to"], "queued");
    assert_eq!(
        first["actor"], "client",
        "the queue went through the bridge's client route, not straight into the ledger"
    );
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let handed = ext
        .next(&lease, 5_000)
        .expect("the CLI's send is handed out");
    assert_eq!(handed["op_id"], "cli-1");
}

#[test]
fn the_dispatch_grant_is_given_once_and_only_after_dispatched_is_committed() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("op-1", "Send me once");
    let handed = ext.next(&lease, 5_000).expect("claimed");
    assert_eq!(handed["op_id"], "op-1");

    let first = ext.dispatch(&lease, "op-1");
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(first.body["granted"], true);
    // The answer exists, so the row must already say dispatched on disk.
    let conn = read_only(&profile);
    let on_disk: String = conn
        .query_row("SELECT state FROM sends WHERE op_id = 'op-1'", [], |r| {
            r.get(0)
        })
        .expect("the send is on disk");
    assert_eq!(on_disk, "dispatched", "the grant follows the commit");

    let second = ext.dispatch(&lease, "op-1");
    assert_eq!(
        second.status, 409,
        "a second ask is refused: {}",
        second.body
    );
    assert_eq!(second.code(), "not_granted");
    assert_eq!(
        events_of(&profile, "op-1")
            .iter()
            .filter(|(_, to, _)| to == "dispatched")
            .count(),
        1,
        "one dispatch recorded"
    );
    assert!(
        ext.next(&lease, 200).is_none(),
        "a dispatched send is never handed out again"
    );
}

#[test]
fn a_failure_before_dispatch_rejects_and_after_dispatch_is_uncertain() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");

    client.queue("early", "Fails before the click");
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "early");
    let a = ext.fail(&lease, "early", "before_dispatch", "composer not found");
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        a.body["send"]["state"], "rejected",
        "no grant was issued, so nothing was clicked"
    );

    client.queue("late", "Fails after the click");
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "late");
    assert_eq!(ext.dispatch(&lease, "late").status, 200);
    let a = ext.fail(&lease, "late", "after_dispatch", "the page reloaded");
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        a.body["send"]["state"], "uncertain",
        "after the grant the click may have happened: a person decides"
    );
    assert_eq!(ext.dispatch(&lease, "late").code(), "not_granted");
    assert!(
        ext.next(&lease, 200).is_none(),
        "neither failed send is handed out again"
    );
}

#[test]
fn a_send_is_handed_to_one_lease_while_another_waits() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let (a, b) = (ext.lease("tab-a"), ext.lease("tab-b"));
    client.queue("one", "first");
    client.queue("two", "second");
    let got = ext.next(&a, 5_000).expect("lease a claims the first send");
    assert_eq!(got["op_id"], "one");
    assert!(
        ext.next(&b, 300).is_none(),
        "one browser send at a time across all leases of the profile"
    );
    assert_eq!(
        ext.next(&a, 300).expect("re-delivered")["op_id"],
        "one",
        "next re-delivers the send this lease already holds"
    );
    assert_eq!(
        ext.fail(&a, "one", "before_dispatch", "tab closed").status,
        200
    );
    assert_eq!(ext.next(&b, 5_000).expect("now free")["op_id"], "two");
}

#[test]
fn the_message_text_and_tokens_never_reach_the_owner_log_or_an_error() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &["--claim-ms", "60000"]);
    let client = serve.client();
    let secret = "the quarterly numbers are 12345-SECRET";
    client.queue("op-1", secret);
    let changed = client.post(
        "/v1/sends",
        &json!({ "op_id": "op-1", "text": "other words" }),
    );
    assert_eq!(changed.status, 409, "{}", changed.body);
    assert!(
        !changed.body.to_string().contains(secret),
        "a refusal never echoes the stored text: {}",
        changed.body
    );
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    ext.next(&lease, 5_000).expect("claimed");
    ext.dispatch(&lease, "op-1");
    ext.fail(&lease, "op-1", "after_dispatch", "the page reloaded");
    let log = serve.stderr();
    assert!(
        log.contains("owner started"),
        "the log was captured: {log:?}"
    );
    assert!(!log.contains(secret), "a send's text never reaches the log");
    // Issue 12: every transition, refusal and extension report is logged at info, ids only.
    assert!(
        log.contains("transition queued → claimed")
            && log.contains("transition dispatched → uncertain")
            && log.contains("op-1"),
        "each transition is logged with its op id: {log}"
    );
    assert!(
        log.contains(&format!("lease={lease}")),
        "with the lease that holds it: {log}"
    );
    assert!(
        log.contains("refusal")
            && log.contains("route=/v1/sends")
            && log.contains("payload_changed"),
        "each refusal is logged with its route and code: {log}"
    );
    assert!(
        log.contains("extension report"),
        "each extension report is logged: {log}"
    );
    assert!(
        !log.contains(&serve.client_token()) && !log.contains(&ext.http_token().unwrap()),
        "tokens never reach the log"
    );
}

#[test]
fn cli_commands_reach_the_live_owner_and_its_refusals_keep_their_codes() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let (code, out) = cli_json(&profile, &["pair"]);
    assert_eq!(code, 0, "{out}");
    let anonymous = Http::new(serve.port, None, Some(EXTENSION_ORIGIN.into()));
    let paired = anonymous.post("/v1/pair", &json!({ "code": out["code"] }));
    assert_eq!(
        paired.status, 200,
        "the CLI's code pairs the extension: {}",
        paired.body
    );

    assert_eq!(
        cli_json(&profile, &["send", "--id", "op-1", "first words"]).0,
        0
    );
    let (code, out) = cli_json(&profile, &["send", "--id", "op-1", "other words"]);
    assert_eq!(
        (code, out["error"]["code"].as_str()),
        (1, Some("payload_changed")),
        "the bridge's refusal keeps its code and exit status: {out}"
    );
    let (code, out) = cli_json(&profile, &["stop", "--by", "alice"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["stop"]["stopped"], json!(["op-1"]));
    let (code, out) = cli_json(&profile, &["send", "--id", "op-2", "while stopped"]);
    assert_eq!(
        (code, out["error"]["code"].as_str()),
        (1, Some("epoch_stopped")),
        "{out}"
    );
    let (code, out) = cli_json(&profile, &["resume", "--by", "alice"]);
    assert_eq!((code, &out["resumed"]), (0, &json!(true)), "{out}");
    let (code, out) = cli_json(&profile, &["status"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out["owner"]["pid"],
        serve.pid(),
        "status names the live owner"
    );
    assert_eq!(out["status"]["gate_closed"], false);
}
