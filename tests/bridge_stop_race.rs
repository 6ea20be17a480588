//! Stop racing a dispatch grant from another process (issues 3 and 5): `sendledger stop`
//! runs as a CLI child that goes through the bridge while the extension asks for the
//! grant. Whichever commits first, the send is either dispatched before the fence
//! committed — and then Stop recorded a remote stop for it — or refused and stopped.
//! Never dispatched after the stop.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::json;
use std::process::{Command, Stdio};
use std::time::Duration;

const ROUNDS: u64 = 30;

#[test]
fn a_send_is_never_dispatched_after_a_racing_stop_commits() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let (mut granted, mut refused) = (0, 0);
    for round in 0..ROUNDS {
        let op = format!("race-{round}");
        if round > 0 {
            let r = client.post("/v1/resume", &json!({ "by": "test" }));
            assert_eq!(r.body["resumed"], true, "round {round}: {}", r.body);
        }
        let lease = ext.lease("tab-1");
        client.queue(&op, "raced by a stop");
        assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], op);

        let stop = Command::new(binary())
            .arg("--profile")
            .arg(&profile)
            .args(["--json", "stop", "--by", "racer"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("sendledger stop starts");
        // Stagger the grant ask over the CLI's start-up so both orders occur; the
        // outcome is read from the ledger, never from timing.
        std::thread::sleep(Duration::from_millis(round % 10 * 2));
        let grant = ext.dispatch(&lease, &op);
        let out = stop.wait_with_output().expect("sendledger stop finishes");
        assert!(
            out.status.success(),
            "round {round}: stop through the bridge: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("stop prints JSON");
        let in_report = |k: &str| {
            report["stop"][k]
                .as_array()
                .expect("a list")
                .iter()
                .any(|v| v == op.as_str())
        };
        let events = events_of(&profile, &op);
        let dispatched = events
            .iter()
            .filter(|(_, to, _)| to == "dispatched")
            .count();
        let remote: Option<String> = read_only(&profile)
            .query_row(
                "SELECT phase FROM remote_stops WHERE op_id = ?1",
                [&op],
                |r| r.get(0),
            )
            .ok();
        if grant.status == 200 {
            granted += 1;
            assert_eq!(
                dispatched, 1,
                "round {round}: granted means dispatched on disk"
            );
            assert!(
                in_report("remote_stops") && !in_report("stopped"),
                "round {round}: granted before the fence, so Stop saw it clicked and asked for a remote stop: {report}"
            );
            assert_eq!(remote.as_deref(), Some("pending"), "round {round}");
            let dispatched_at = client.show(&op)["send"]["dispatched_at"].as_i64().unwrap();
            let stopped_at: i64 = read_only(&profile)
                .query_row("SELECT max(stopped_at) FROM stopped_epochs", [], |r| {
                    r.get(0)
                })
                .unwrap();
            assert!(
                dispatched_at <= stopped_at,
                "round {round}: the dispatch committed no later than the fence"
            );
            let stops = ext
                .http
                .get(&format!("/v1/ext/remote-stops?lease_id={lease}"));
            assert!(
                stops.body["remote_stops"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|s| s["op_id"] == op.as_str()),
                "round {round}: the extension is told to stop the answer: {}",
                stops.body
            );
            // Free the queue for the next round: the click may have happened.
            let f = ext.fail(&lease, &op, "after_dispatch", "stopped by a person");
            assert_eq!(f.body["send"]["state"], "uncertain", "round {round}");
        } else {
            refused += 1;
            assert_eq!(grant.status, 409, "round {round}: {}", grant.body);
            assert!(
                ["epoch_stopped", "not_granted"].contains(&grant.code()),
                "round {round}: {}",
                grant.body
            );
            assert_eq!(
                dispatched, 0,
                "round {round}: refused means never dispatched"
            );
            assert!(remote.is_none(), "round {round}: nothing to stop remotely");
            assert!(in_report("stopped"), "round {round}: {report}");
            let states: Vec<_> = events.iter().map(|(_, to, _)| to.as_str()).collect();
            assert_eq!(
                states,
                ["queued", "claimed", "stopped"],
                "round {round}: the fence moved the claim to stopped"
            );
            assert_eq!(events[2].2, "racer", "round {round}: Stop's actor");
        }
    }
    eprintln!("{ROUNDS} rounds: {granted} granted before the fence, {refused} refused");
}

/// Queues, claims and dispatches `op`, then stops through the client API.
fn dispatched_then_stopped(serve: &Serve, ext: &Extension, op: &str) -> String {
    let client = serve.client();
    let lease = ext.lease("tab-1");
    client.queue(op, "already clicked when Stop came");
    ext.next(&lease, 5_000).expect("claimed");
    assert_eq!(ext.dispatch(&lease, op).status, 200);
    let stop = client.post("/v1/stop", &json!({ "by": "alice" }));
    assert_eq!(
        stop.body["stop"]["remote_stops"],
        json!([op]),
        "{}",
        stop.body
    );
    lease
}

fn open_stops(ext: &Extension, lease: &str) -> Vec<serde_json::Value> {
    let a = ext
        .http
        .get(&format!("/v1/ext/remote-stops?lease_id={lease}"));
    assert_eq!(a.status, 200, "{}", a.body);
    a.body["remote_stops"].as_array().unwrap().clone()
}

fn phase(ext: &Extension, lease: &str, op: &str, phase: &str) -> Answer {
    ext.http.post(
        &format!("/v1/ext/remote-stops/{op}"),
        &json!({ "lease_id": lease, "phase": phase, "evidence": "the page's stop button" }),
    )
}

/// The extension's two reports for a stop it clicks nothing for (extension/content.js
/// `runRemoteStop`): "nothing was generating" (confirmed, with that evidence) and "no stop
/// button" (uncertain). Each closes the stop; a confirmation without evidence is refused.
#[test]
fn a_remote_stop_that_clicks_nothing_is_closed_by_the_extensions_report() {
    let nothing =
        "no answer was being generated in the tab when the stop arrived; nothing was clicked";
    let no_button = "stop button not found: chatgpt.com layout changed";
    for (phase, evidence) in [
        (None, None),
        (Some("confirmed"), Some(nothing)),
        (Some("uncertain"), Some(no_button)),
    ] {
        let (_tmp, profile) = profile_dir();
        let serve = Serve::start(&profile, &[]);
        let ext = serve.pair();
        let lease = dispatched_then_stopped(&serve, &ext, "op-1");
        let Some(phase) = phase else {
            let bare = ext.http.post(
                "/v1/ext/remote-stops/op-1",
                &json!({ "lease_id": lease, "phase": "confirmed" }),
            );
            assert_eq!(
                (bare.status, bare.code()),
                (409, "illegal_remote_stop_phase"),
                "a confirmation with nothing to show is never taken: {}",
                bare.body
            );
            assert_eq!(open_stops(&ext, &lease).len(), 1, "the stop stays open");
            continue;
        };
        let report = ext.http.post(
            "/v1/ext/remote-stops/op-1",
            &json!({ "lease_id": lease, "phase": phase, "evidence": evidence }),
        );
        assert_eq!(report.status, 200, "{phase}: {}", report.body);
        assert!(
            open_stops(&ext, &lease).is_empty(),
            "{phase}: the stop is closed"
        );
    }
}

#[test]
fn a_remote_stop_moves_pending_dispatched_confirmed_and_never_back() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = dispatched_then_stopped(&serve, &ext, "op-1");
    let stops = open_stops(&ext, &lease);
    assert_eq!(stops.len(), 1);
    assert_eq!(
        (&stops[0]["op_id"], &stops[0]["phase"]),
        (&json!("op-1"), &json!("pending"))
    );
    assert_eq!(phase(&ext, &lease, "op-1", "dispatched").status, 200);
    assert_eq!(open_stops(&ext, &lease)[0]["phase"], "dispatched");
    assert_eq!(phase(&ext, &lease, "op-1", "confirmed").status, 200);
    assert!(
        open_stops(&ext, &lease).is_empty(),
        "a confirmed stop is closed"
    );
    let back = phase(&ext, &lease, "op-1", "dispatched");
    assert_eq!(
        (back.status, back.code()),
        (409, "remote_stop_settled"),
        "a confirmed remote stop never moves again: {}",
        back.body
    );
    let pending = phase(&ext, &lease, "op-1", "pending");
    assert_eq!(
        pending.code(),
        "malformed",
        "nobody sets pending: {}",
        pending.body
    );
}

/// Another tab's lease is handed none of a send's remote stop and cannot report on it:
/// 409 `not_your_remote_stop`, and the stop stays pending for the tab that clicked.
#[test]
fn a_remote_stop_is_handed_to_and_reported_by_the_clicking_tab_only() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let other = ext.lease("tab-2");
    let lease = dispatched_then_stopped(&serve, &ext, "op-1");
    assert!(open_stops(&ext, &other).is_empty(), "not handed to tab-2");
    for p in ["dispatched", "confirmed", "uncertain"] {
        let a = phase(&ext, &other, "op-1", p);
        assert_eq!(
            (a.status, a.code()),
            (409, "not_your_remote_stop"),
            "{p}: {}",
            a.body
        );
    }
    let stops = open_stops(&ext, &lease);
    assert_eq!(
        (&stops[0]["op_id"], &stops[0]["phase"]),
        (&json!("op-1"), &json!("pending")),
        "still open for the tab that clicked"
    );
    let none = phase(&ext, &lease, "op-9", "dispatched");
    assert_eq!((none.status, none.code()), (404, "unknown_remote_stop"));
}

#[test]
fn a_remote_stop_dispatched_at_a_crash_becomes_uncertain_not_confirmed() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = dispatched_then_stopped(&serve, &ext, "op-1");
    assert_eq!(phase(&ext, &lease, "op-1", "dispatched").status, 200);
    serve.kill();
    let serve = Serve::start(&profile, &[]);
    let phase_now: String = read_only(&profile)
        .query_row(
            "SELECT phase FROM remote_stops WHERE op_id = 'op-1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(phase_now, "uncertain", "a confirmation is never invented");
    assert_eq!(serve.client().state("op-1"), "uncertain");
}

#[test]
fn a_remote_stop_poll_answers_when_a_stop_asks_or_when_its_wait_runs_out() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    for wait in ["", "&wait_ms=300"] {
        let a = ext
            .http
            .get(&format!("/v1/ext/remote-stops?lease_id={lease}{wait}"));
        assert_eq!(
            (a.status, &a.body),
            (200, &json!({ "remote_stops": [] })),
            "nothing pending: answered at once or when the wait ran out ({wait:?})"
        );
    }
    client.queue("op-1", "clicked, then stopped");
    ext.next(&lease, 5_000).expect("claimed");
    assert_eq!(ext.dispatch(&lease, "op-1").status, 200);
    let waiting = {
        let (ext, lease) = (ext.fresh(), lease.clone());
        std::thread::spawn(move || {
            ext.http.get(&format!(
                "/v1/ext/remote-stops?lease_id={lease}&wait_ms=20000"
            ))
        })
    };
    let stop = client.post("/v1/stop", &json!({ "by": "alice" }));
    assert_eq!(stop.body["stop"]["remote_stops"], json!(["op-1"]));
    let a = waiting.join().expect("the poll finished");
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        a.body["remote_stops"][0]["op_id"], "op-1",
        "the Stop woke the poll"
    );
}
