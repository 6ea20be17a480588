//! The owner process dying and stopping (issue 5): SIGKILL after the claim and after the
//! dispatch grant, then a restart on the same profile; a clean SIGTERM; an occupied port.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::json;
use std::path::Path;

/// After a restart: `op` is uncertain (by recovery), no lease is handed it again, and a
/// late dispatch ask — on the dead lease or on a new one — is refused.
fn assert_recovered_uncertain(profile: &Path, old: &Extension, old_lease: &str, op: &str) {
    let serve = Serve::start(profile, &[]);
    let client = serve.client();
    let shown = client.show(op);
    assert_eq!(
        shown["send"]["state"], "uncertain",
        "a send in flight at the crash may or may not have gone out: {shown}"
    );
    let last = shown["timeline"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        last["actor"], "recovery",
        "recovery made it uncertain: {last}"
    );

    let ext = serve.extension(old);
    let late = ext.dispatch(old_lease, op);
    assert!(
        late.status == 409 || late.status == 410,
        "a late dispatch ask on the old lease is refused: {} {}",
        late.status,
        late.body
    );
    let lease = ext.lease("tab-after-restart");
    let late = ext.dispatch(&lease, op);
    assert_eq!(late.status, 409, "{}", late.body);
    assert_eq!(late.code(), "not_granted");

    client.queue("after-restart", "queued after the restart");
    let handed = ext.next(&lease, 5_000).expect("the queue moves on");
    assert_eq!(
        handed["op_id"], "after-restart",
        "next hands out the new send, never the uncertain one"
    );
    assert_eq!(
        ext.fail(&lease, "after-restart", "before_dispatch", "test done")
            .status,
        200
    );
    assert!(
        ext.next(&lease, 300).is_none(),
        "the uncertain send is never handed out again"
    );
    assert_eq!(
        client.state(op),
        "uncertain",
        "nothing resolved it but a person"
    );
}

#[test]
fn sigkill_after_the_claim_leaves_the_send_uncertain_and_never_handed_out_again() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    serve.client().queue("op-1", "claimed when the owner died");
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "op-1");
    serve.kill();
    assert_recovered_uncertain(&profile, &ext, &lease, "op-1");
}

#[test]
fn sigkill_after_the_dispatch_grant_leaves_the_send_uncertain_and_refuses_a_late_ask() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    serve.client().queue("op-1", "granted when the owner died");
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "op-1");
    assert_eq!(ext.dispatch(&lease, "op-1").body["granted"], true);
    serve.kill();
    assert_recovered_uncertain(&profile, &ext, &lease, "op-1");
}

#[test]
fn sigterm_finishes_in_flight_requests_removes_bridge_json_and_frees_the_profile() {
    let (_tmp, profile) = profile_dir();
    let mut serve = Serve::start(&profile, &[]);
    assert!(profile.join("bridge.json").exists(), "serve names itself");
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    // An in-flight long-poll (bounded well under the shutdown grace), sent on a
    // keep-alive connection the bridge has already accepted and answered once.
    let (accepted_tx, accepted) = std::sync::mpsc::channel();
    let in_flight = {
        let (ext, lease) = (ext.fresh(), lease.clone());
        std::thread::spawn(move || {
            assert!(ext.next(&lease, 0).is_none(), "nothing queued yet");
            accepted_tx.send(()).unwrap();
            ext.next_answer(&lease, 1_500)
        })
    };
    accepted
        .recv_timeout(BOUND)
        .expect("the poller's connection is accepted");
    // Proof the bridge is parking polls (a second lease waits 200 ms for nothing).
    assert!(ext.next(&ext.lease("tab-2"), 200).is_none());
    serve.terminate();
    let answer = in_flight.join().expect("the poller finished");
    assert_eq!(
        answer.status, 200,
        "the in-flight request finished with an answer: {}",
        answer.body
    );
    assert_eq!(answer.body, json!({ "send": null }));
    let status = serve.wait_exit();
    assert!(status.success(), "a clean stop exits 0: {status}");
    assert!(
        !profile.join("bridge.json").exists(),
        "bridge.json is removed, so clients do not look for a dead owner"
    );
    // The next owner starts at once: the lock died with the process.
    let next = Serve::start(&profile, &[]);
    let status = next.client().get("/v1/status");
    assert_eq!(status.status, 200, "{}", status.body);
    assert_eq!(status.body["owner"]["pid"], next.pid());
}

/// The default port is one no outgoing connection can be holding: outside Linux's
/// ephemeral range (32768–60999) and Windows' (49152–65535). At 47615 a start failed with
/// "port in use" while nothing listened (issue 25).
#[test]
fn the_default_port_lies_outside_the_ranges_for_outgoing_connections() {
    let port = sendledger::owner::DEFAULT_PORT;
    assert!(
        (1024..32768).contains(&port),
        "{port} is inside a range the OS hands out to outgoing connections"
    );
}

#[test]
fn an_occupied_port_is_a_clear_error_not_a_silent_change() {
    let (_tmp, profile) = profile_dir();
    let held = std::net::TcpListener::bind("127.0.0.1:0").expect("a port to hold");
    let port = held.local_addr().unwrap().port().to_string();
    let failed = match Serve::try_start(&profile, &["--port", &port]) {
        Ok(s) => panic!(
            "serve started on an occupied port: it printed port {}",
            s.port
        ),
        Err(f) => f,
    };
    assert!(!failed.status.success(), "serve exits non-zero");
    assert!(
        failed.stderr.contains(&port) && failed.stderr.contains("in use"),
        "the error names the port and says it is in use: {}",
        failed.stderr
    );
    assert!(
        failed.stderr.contains("config.json") && failed.stderr.contains("\"port\": N"),
        "the error says how to choose another port: {}",
        failed.stderr
    );
    assert!(
        !profile.join("bridge.json").exists(),
        "nothing names an owner that never served"
    );
    drop(held);
    let serve = Serve::try_start(&profile, &["--port", &port])
        .expect("once the port is free, serve starts there and nowhere else");
    assert_eq!(serve.port.to_string(), port);
}

/// A profile the owner cannot write its files into (here the temporary file its token is
/// written through cannot be made) is storage trouble: exit 4, as the README's table says,
/// not 5 (which is for the bridge and its port).
#[test]
fn serve_that_cannot_write_into_the_profile_exits_4_as_storage() {
    let (_tmp, profile) = profile_dir();
    drop(Serve::start(&profile, &[]));
    std::fs::create_dir(profile.join(".client.token.tmp")).unwrap();
    let failed = Serve::try_start(&profile, &["--port", "0"])
        .err()
        .expect("serve cannot write its token");
    assert_eq!(failed.status.code(), Some(4), "{}", failed.stderr);
    assert!(
        failed.stderr.contains("cannot write the tokens"),
        "{}",
        failed.stderr
    );
}

#[test]
fn after_sigkill_the_cli_ignores_the_stale_bridge_json_refuses_a_send_and_stops_in_the_ledger_itself(
) {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    serve.client().queue("queued", "queued when the owner died");
    serve.kill();
    assert!(
        profile.join("bridge.json").exists(),
        "a killed owner cannot remove its bridge.json"
    );
    let before = dump(&profile);
    let (code, v) = cli_json(
        &profile,
        &["send", "--id", "offline", "queued with no owner"],
    );
    assert_eq!(code, 6, "no owner serves it: refused, not doomed: {v}");
    assert_eq!(v["error"]["code"], "no_owner", "{v}");
    assert_eq!(dump(&profile), before, "nothing was written");
    let (code, v) = cli_json(&profile, &["stop", "--by", "alice"]);
    assert_eq!((code, v["via"].as_str()), (0, Some("direct")), "{v}");
    let events = events_of(&profile, "queued");
    assert_eq!(
        events.last().map(|e| (e.1.as_str(), e.2.as_str())),
        Some(("rejected", "recovery")),
        "written by the CLI itself (its recovery ran first), not through a dead bridge: {events:?}"
    );
}

#[test]
fn sigterm_answers_a_parked_long_poll_and_ends_event_streams_instead_of_cutting_them() {
    let (_tmp, profile) = profile_dir();
    let mut serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let mut feed = client.events(None);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("seen", "an event to prove the stream is live");
    assert_eq!(feed.next_event().data["op_id"], "seen");
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "seen");
    assert_eq!(
        ext.fail(&lease, "seen", "before_dispatch", "test").status,
        200
    );
    // The extension's default poll: 25 s, far longer than the shutdown grace (5 s).
    let (accepted_tx, accepted) = std::sync::mpsc::channel();
    let in_flight = {
        let (ext, lease) = (ext.fresh(), lease.clone());
        std::thread::spawn(move || {
            assert!(ext.next(&lease, 0).is_none(), "nothing queued");
            accepted_tx.send(()).unwrap();
            ext.http.post(
                "/v1/ext/next",
                &serde_json::json!({ "lease_id": lease, "wait_ms": 25_000 }),
            )
        })
    };
    accepted
        .recv_timeout(BOUND)
        .expect("the poller's connection is accepted");
    assert!(ext.next(&ext.lease("tab-2"), 200).is_none(), "polls park");
    serve.terminate();
    let answer = in_flight.join().expect("the poller finished");
    assert_eq!(
        (answer.status, &answer.body),
        (200, &json!({ "send": null })),
        "a parked long-poll is answered at shutdown, not cut off after the grace"
    );
    assert!(
        feed.ended_cleanly(),
        "the event stream ends with the owner, not cut off"
    );
    assert!(serve.wait_exit().success());
}

#[test]
fn serve_listens_on_the_port_the_profile_config_names_and_says_so_in_bridge_json() {
    let (_tmp, profile) = profile_dir();
    let free = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = free.local_addr().unwrap().port();
    drop(free);
    std::fs::write(profile.join("config.json"), format!("{{\"port\": {port}}}")).unwrap();
    let serve = Serve::try_start(&profile, &[]).expect("serve starts on the configured port");
    assert_eq!(serve.port, port);
    let info: serde_json::Value =
        serde_json::from_slice(&std::fs::read(profile.join("bridge.json")).unwrap()).unwrap();
    assert_eq!(info["address"], format!("127.0.0.1:{port}"));
    assert_eq!(info["pid"], serve.pid());
    use std::os::unix::fs::PermissionsExt;
    for file in ["bridge.json", "client.token"] {
        let mode = std::fs::metadata(profile.join(file))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600, "{file} is private to the user");
    }
}

#[test]
fn a_second_serve_on_the_same_profile_fails_loudly_naming_the_owner() {
    let (_tmp, profile) = profile_dir();
    let first = Serve::start(&profile, &[]);
    let second = match Serve::try_start(&profile, &["--port", "0"]) {
        Ok(s) => panic!("a second owner started on port {}", s.port),
        Err(f) => f,
    };
    assert!(!second.status.success());
    assert!(
        second.stderr.contains(&first.pid().to_string()),
        "the refusal names the owner's pid: {}",
        second.stderr
    );
    let info: serde_json::Value =
        serde_json::from_slice(&std::fs::read(profile.join("bridge.json")).unwrap()).unwrap();
    assert_eq!(
        info["pid"],
        first.pid(),
        "bridge.json still names the first owner"
    );
    assert_eq!(
        first.client().get("/v1/status").status,
        200,
        "which still serves"
    );
}

#[test]
fn sigint_stops_serve_as_cleanly_as_sigterm() {
    let (_tmp, profile) = profile_dir();
    let mut serve = Serve::start(&profile, &[]);
    serve.client().queue("kept", "queued before Ctrl-C");
    serve.signal(libc::SIGINT);
    assert!(serve.wait_exit().success(), "Ctrl-C is a clean stop");
    assert!(!profile.join("bridge.json").exists());
    let next = Serve::start(&profile, &[]);
    assert_eq!(
        next.client().state("kept"),
        "rejected",
        "the next owner's recovery: it never left the host"
    );
}

/// A new profile's port is fixed in its config.json at its first start; a profile that
/// already had a ledger before the default moved keeps the old one, since its extension
/// was paired to it (an upgrade never moves the bridge under a paired extension).
#[test]
fn an_upgrade_never_moves_the_bridge_from_under_a_paired_extension() {
    use sendledger::profile::discovery::{default_port, DEFAULT_PORT, LEGACY_DEFAULT_PORT};
    use sendledger::profile::Profile;
    let (_tmp, dir) = profile_dir();
    let fresh = Profile::at(dir.clone()).unwrap();
    assert_eq!(default_port(&fresh).unwrap(), DEFAULT_PORT, "a new profile");
    // An old profile: it has a ledger and names no port.
    drop(Serve::start(&dir, &[]));
    assert!(!dir.join("config.json").exists(), "--port 0 pins nothing");
    assert_eq!(
        default_port(&fresh).unwrap(),
        LEGACY_DEFAULT_PORT,
        "a profile made before the default moved keeps its old port"
    );
    // A new profile started with no --port pins the default at once (the port may be
    // taken on this machine: the pin is written before the bind).
    let (_tmp2, dir2) = profile_dir();
    let _ = Serve::try_start(&dir2, &[]);
    let pinned = std::fs::read_to_string(dir2.join("config.json")).expect("pinned");
    assert!(pinned.contains(&DEFAULT_PORT.to_string()), "{pinned}");
    assert_eq!(
        default_port(&Profile::at(dir2).unwrap()).unwrap(),
        DEFAULT_PORT,
        "a new profile keeps the new default once it has a ledger"
    );
}

/// The port an owner started with no `--port` listens on, or, when something else holds it
/// on this machine, the port its refusal names.
fn port_tried(dir: &Path) -> String {
    match Serve::try_start(dir, &[]) {
        Ok(serve) => serve.port.to_string(),
        Err(failed) => {
            let port = failed
                .stderr
                .split(|c: char| !c.is_ascii_digit())
                .find(|w| w.len() == 5)
                .unwrap_or_default()
                .to_string();
            assert!(failed.stderr.contains("in use"), "{}", failed.stderr);
            port
        }
    }
}

/// A profile made by any first command gets the new default port (issue 40): `sendledger
/// keys create` before any owner ran made the ledger offline, and the profile was then taken
/// for one made before the default moved — the key's base URL and every later owner on
/// 47615. A real pre-0.2 profile (a ledger at the schema of then, no port named) still
/// keeps 47615: its extension is paired to it.
#[test]
fn a_new_profile_made_by_keys_create_keeps_the_new_port_and_an_old_one_keeps_its_own() {
    use sendledger::profile::discovery::{DEFAULT_PORT, LEGACY_DEFAULT_PORT};
    let (_tmp, dir) = profile_dir();
    let made = cli(&dir, &["keys", "create", "my-companion"]);
    let printed = String::from_utf8_lossy(&made.stdout);
    assert!(
        made.status.success(),
        "{printed} {}",
        String::from_utf8_lossy(&made.stderr)
    );
    assert!(
        printed.contains(&format!("http://127.0.0.1:{DEFAULT_PORT}/v1")),
        "the key's base URL is on the new port: {printed}"
    );
    assert_eq!(
        port_tried(&dir),
        DEFAULT_PORT.to_string(),
        "the first owner"
    );
    // A profile from before the default moved: its ledger at migration 10, no config.json.
    let (_tmp2, old) = profile_dir();
    {
        let profile = sendledger::profile::Profile::at(old.clone()).unwrap();
        let clock = std::sync::Arc::new(sendledger::clock::SystemClock);
        drop(sendledger::ledger::Ledger::open_at_version(&profile, clock, 10).unwrap());
    }
    assert!(!old.join("config.json").exists());
    let made = cli(&old, &["keys", "create", "my-companion"]);
    let printed = String::from_utf8_lossy(&made.stdout);
    assert!(
        printed.contains(&format!("http://127.0.0.1:{LEGACY_DEFAULT_PORT}/v1")),
        "an old profile keeps its port: {printed}"
    );
    assert_eq!(
        port_tried(&old),
        LEGACY_DEFAULT_PORT.to_string(),
        "its owner"
    );
}
