//! The brake always gets through (issue 11): `sendledger stop` stops even when the owner
//! cannot answer — it commits the fence in the ledger file itself within a bound and says
//! so — and after the owner wakes nothing more is dispatched. The owner's own Stop keeps
//! working, on a full disk too.

#[path = "support/bridge.rs"]
mod harness;
#[path = "support/tmpfs.rs"]
mod tmpfs;

use harness::*;
use serde_json::{json, Value};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a `stop` beside a stuck owner may take before the test calls it hung (the
/// CLI waits 2 s for the bridge, then up to the 5 s busy timeout for the write lock).
const STOP_BOUND: Duration = Duration::from_secs(15);

/// Runs `sendledger --json stop --by alice`; (exit code, JSON, how long it took). Kills it
/// and fails when it runs past [`STOP_BOUND`].
fn stop(profile: &std::path::Path) -> (i32, Value, Duration) {
    let started = Instant::now();
    let mut child = Command::new(binary())
        .arg("--profile")
        .arg(profile)
        .args(["--json", "stop", "--by", "alice"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sendledger stop starts");
    while child.try_wait().expect("waitpid").is_none() {
        if started.elapsed() > STOP_BOUND {
            let _ = child.kill();
            panic!("sendledger stop did not return within {STOP_BOUND:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let took = started.elapsed();
    let out = child.wait_with_output().expect("its output");
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "stop printed JSON; stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v, took)
}

fn listed(v: &Value, key: &str, op: &str) -> bool {
    v["stop"][key]
        .as_array()
        .is_some_and(|a| a.iter().any(|x| x == op))
}

#[test]
fn stop_commits_the_fence_in_the_ledger_file_when_the_owner_does_not_answer() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("op-claimed", "claimed when the owner froze");
    assert_eq!(
        ext.next(&lease, 5_000).expect("claimed")["op_id"],
        "op-claimed"
    );
    client.queue("op-queued", "queued behind it");

    serve.signal(libc::SIGSTOP);
    let (code, v, took) = stop(&profile);
    let gate: i64 = read_only(&profile)
        .query_row("SELECT closed FROM gate", [], |r| r.get(0))
        .unwrap();
    serve.signal(libc::SIGCONT);
    eprintln!("stop beside a stuck owner took {took:?}");
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["via"], "fence", "it says which way it went: {v}");
    assert!(v["why"].as_str().unwrap().contains("did not answer"), "{v}");
    assert!(
        listed(&v, "stopped", "op-claimed") && listed(&v, "stopped", "op-queued"),
        "{v}"
    );
    assert_eq!(gate, 1, "the gate is closed while the owner is still stuck");

    // The owner wakes: its grant for the claimed send is refused, nothing more goes out.
    let grant = ext.dispatch(&lease, "op-claimed");
    assert_eq!(grant.status, 409, "{}", grant.body);
    let next = ext.next_answer(&lease, 300);
    assert!(
        next.body["send"].is_null(),
        "nothing handed out: {}",
        next.body
    );
    for op in ["op-claimed", "op-queued"] {
        assert_eq!(client.state(op), "stopped");
        assert!(
            events_of(&profile, op)
                .iter()
                .all(|(_, to, _)| to != "dispatched"),
            "{op} was never dispatched"
        );
    }
    let late = client.post(
        "/v1/sends",
        &json!({ "op_id": "op-late", "text": "after the brake" }),
    );
    assert_eq!(late.code(), "epoch_stopped", "{}", late.body);
    // The owner's own Stop still answers, and a live owner is used when it answers.
    let again = client.post("/v1/stop", &json!({ "by": "bob" }));
    assert_eq!(again.status, 200, "{}", again.body);
    let (code, v, _) = stop(&profile);
    assert_eq!((code, v["via"].as_str()), (0, Some("owner")), "{v}");
}

#[test]
fn stop_with_no_owner_running_commits_in_the_ledger_and_says_so() {
    let (_tmp, profile) = profile_dir();
    let mut serve = Serve::start(&profile, &[]);
    serve.client().queue("op-1", "left queued");
    serve.terminate();
    serve.wait_exit();
    let (code, v, _) = stop(&profile);
    assert_eq!((code, v["via"].as_str()), (0, Some("direct")), "{v}");
    let closed: i64 = read_only(&profile)
        .query_row("SELECT closed FROM gate", [], |r| r.get(0))
        .unwrap();
    assert_eq!(closed, 1);
}

#[test]
fn post_stop_answers_success_on_a_full_disk_and_closes_the_gate() {
    let Some(disk) = tmpfs::Tmpfs::mount(8 << 20) else {
        return;
    };
    let profile = disk.path().join("profile");
    std::fs::create_dir(&profile).unwrap();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    for i in 0..5 {
        client.queue(&format!("op-{i}"), "queued before the disk filled");
    }
    disk.fill("filler");
    let full = client.post("/v1/sends", &json!({ "op_id": "op-x", "text": "no room" }));
    assert_eq!(full.code(), "disk_full", "the disk is full: {}", full.body);
    let stop = client.post("/v1/stop", &json!({ "by": "alice" }));
    assert_eq!(
        stop.status, 200,
        "Stop commits whatever the disk: {}",
        stop.body
    );
    assert_eq!(stop.body["stop"]["used_reserve"], true, "{}", stop.body);
    assert_eq!(stop.body["stop"]["stopped"].as_array().unwrap().len(), 5);
    let status = client.get("/v1/status");
    assert_eq!(
        status.body["status"]["gate_closed"], true,
        "{}",
        status.body
    );
}

#[test]
fn a_stop_committed_beside_the_owner_wakes_what_waits_on_the_owner() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    client.queue("op-1", "waiting to be stopped");
    let waiter = {
        let c = client.fresh();
        std::thread::spawn(move || {
            let asked = Instant::now();
            let a = c.get("/v1/sends/op-1/wait?from=queued&timeout_ms=20000");
            (a, asked.elapsed())
        })
    };
    // Not a wait for an event: it lets the long-poll park first, so that only a wake
    // caused by the outside commit can end it early (were it late, it would answer at
    // once from the stopped row, and the test would prove less, never fail wrongly).
    std::thread::sleep(Duration::from_millis(300));
    let p = sendledger::profile::Profile::at(&profile).unwrap();
    let report =
        sendledger::ledger::Ledger::stop_from_outside(&p, "alice", &sendledger::clock::SystemClock)
            .unwrap();
    assert_eq!(report.stopped, ["op-1"]);
    let (a, took) = waiter.join().unwrap();
    assert_eq!(a.status, 200, "{}", a.body);
    // Woken, not answered at its 20 s deadline: the owner watches the ledger's files, it
    // does not poll them.
    assert!(
        took < Duration::from_secs(15),
        "the wait ran to its deadline: {took:?}"
    );
    assert_eq!(
        (
            a.body["changed"].as_bool(),
            a.body["send"]["state"].as_str()
        ),
        (Some(true), Some("stopped")),
        "the owner noticed the commit made beside it: {}",
        a.body
    );
}

#[test]
fn a_stop_on_a_profile_with_no_ledger_says_it_stopped_nothing_there() {
    let (_tmp, profile) = profile_dir();
    let typo = profile.join("mistyped");
    let said = |dir: &std::path::Path| {
        let out = Command::new(binary())
            .arg("--profile")
            .arg(dir)
            .args(["stop", "--by", "alice"])
            .output()
            .expect("sendledger stop runs");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let first = said(&typo);
    assert!(
        first.contains("there was no ledger at") && first.contains("pass its --profile"),
        "a Stop on a new profile says so: {first}"
    );
    let again = said(&typo);
    assert!(
        !again.contains("there was no ledger"),
        "a profile with a ledger is not called new: {again}"
    );
}
