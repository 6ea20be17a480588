//! Crash custody with a real child process and SIGKILL (issues 2 and 3): the child
//! commits a scripted sequence of ledger calls and is killed right after one of them;
//! the test then opens the profile (recovery runs) and checks the exact bins.

mod support;

use sendledger::ledger::LedgerRead;
use sendledger::ledger::{
    Admission, Ledger, RecoveryReport, SendState, ToolState, IN_FLIGHT_AT_RESTART,
    QUEUED_AT_RESTART, RECOVERY_ACTOR,
};
use support::script::receipt_for;
use support::*;

/// Runs the child through `steps` and SIGKILLs it right after the last one committed.
fn kill_after(fx: &Fixture, steps: &[&str]) {
    let child = CustodyChild::spawn(fx.profile.dir(), steps);
    child.wait_ready(steps.last().expect("a script"));
    child.kill();
}

/// Checks what no restart may ever do: dispatch a send again.
fn assert_dispatched_at_most_once(ledger: &Ledger) {
    let conn = ledger.raw_connection();
    let twice: Vec<String> = conn
        .prepare(
            "SELECT op_id FROM events WHERE kind = 'transition' AND to_state = 'dispatched' \
             GROUP BY op_id HAVING count(*) > 1",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert!(twice.is_empty(), "dispatched twice: {twice:?}");
}

fn reopen(fx: &Fixture) -> (Ledger, RecoveryReport) {
    let (ledger, report) = fx.open_reporting();
    assert_dispatched_at_most_once(&ledger);
    (ledger, report)
}

#[test]
fn sigkill_after_queue_bins_the_send_rejected() {
    let fx = Fixture::new();
    kill_after(&fx, &["open", "queue:op-1"]);
    let (ledger, report) = reopen(&fx);
    assert_eq!(report.rejected, ["op-1"]);
    let send = ledger.get("op-1").unwrap().unwrap();
    assert_eq!(send.state, SendState::Rejected, "it never left the host");
    assert_eq!(
        (send.actor.as_str(), send.evidence.as_deref()),
        (RECOVERY_ACTOR, Some(QUEUED_AT_RESTART))
    );
    assert_eq!(send.dispatched_at, None);
}

#[test]
fn sigkill_after_claim_bins_the_send_uncertain() {
    let fx = Fixture::new();
    kill_after(
        &fx,
        &["open", "queue:op-1", "queue:op-2", "lease:tab-1", "claim"],
    );
    let (mut ledger, report) = reopen(&fx);
    assert_eq!(report.uncertain, ["op-1"]);
    assert_eq!(
        report.rejected,
        ["op-2"],
        "the one still queued never left the host"
    );
    assert_eq!(state_of(&ledger, "op-1"), SendState::Uncertain);
    assert_eq!(ledger.get("op-1").unwrap().unwrap().dispatched_at, None);
    // Nothing of the old owner is handed out again.
    let lease = ledger.lease(&tab("tab-2")).unwrap().lease_id;
    assert_eq!(ledger.claim_next(&lease).unwrap(), None);
}

#[test]
fn sigkill_after_the_dispatch_commit_bins_the_send_uncertain_and_never_dispatches_again() {
    let fx = Fixture::new();
    kill_after(
        &fx,
        &[
            "open",
            "queue:op-1",
            "lease:tab-1",
            "claim",
            "dispatch:op-1",
        ],
    );
    let dispatched_at = {
        let reader = sendledger::ledger::LedgerReader::open(&fx.profile).unwrap();
        reader
            .get("op-1")
            .unwrap()
            .unwrap()
            .dispatched_at
            .expect("the dispatch commit is on disk")
    };
    let (mut ledger, report) = reopen(&fx);
    assert_eq!(report.uncertain, ["op-1"]);
    let send = ledger.get("op-1").unwrap().unwrap();
    assert_eq!(send.state, SendState::Uncertain);
    assert_eq!(
        send.dispatched_at,
        Some(dispatched_at),
        "the dispatch time is kept, not rewritten"
    );
    assert_eq!(dispatch_events(ledger.raw_connection(), "op-1"), 1);
    let lease = ledger.lease(&tab("tab-2")).unwrap().lease_id;
    assert_eq!(
        ledger.claim_next(&lease).unwrap(),
        None,
        "an uncertain send is never re-offered"
    );
    assert!(
        ledger.dispatch("op-1", &lease).is_err(),
        "nor granted again"
    );
    // A second crash and restart changes nothing.
    drop(ledger);
    kill_after(&fx, &["open"]);
    let (ledger, report) = reopen(&fx);
    assert_eq!(report, RecoveryReport::default());
    assert_eq!(state_of(&ledger, "op-1"), SendState::Uncertain);
}

#[test]
fn sigkill_after_accept_leaves_the_send_accepted() {
    let fx = Fixture::new();
    kill_after(
        &fx,
        &[
            "open",
            "queue:op-1",
            "lease:tab-1",
            "claim",
            "dispatch:op-1",
            "accept:op-1",
        ],
    );
    let (ledger, report) = reopen(&fx);
    assert_eq!(
        report,
        RecoveryReport::default(),
        "recovery leaves an accepted send alone"
    );
    let send = ledger.get("op-1").unwrap().unwrap();
    assert_eq!(send.state, SendState::Accepted);
    assert_eq!(send.receipt, Some(receipt_for("op-1")));
    assert_eq!(dispatch_events(ledger.raw_connection(), "op-1"), 1);
}

#[test]
fn claim_window_and_dispatch_window_crashes_bin_identically() {
    let claim = Fixture::new();
    kill_after(&claim, &["open", "queue:op-1", "lease:tab-1", "claim"]);
    let dispatch = Fixture::new();
    kill_after(
        &dispatch,
        &[
            "open",
            "queue:op-1",
            "lease:tab-1",
            "claim",
            "dispatch:op-1",
        ],
    );
    let (a, ra) = reopen(&claim);
    let (b, rb) = reopen(&dispatch);
    assert_eq!(ra, rb, "recovery reports the same");
    let (a, b) = (
        a.get("op-1").unwrap().unwrap(),
        b.get("op-1").unwrap().unwrap(),
    );
    assert_eq!(a.state, SendState::Uncertain);
    assert_eq!(
        (a.state, &a.actor, &a.evidence),
        (b.state, &b.actor, &b.evidence),
        "a crash before the grant and after it look the same to a person"
    );
    assert_eq!(a.evidence.as_deref(), Some(IN_FLIGHT_AT_RESTART));
}

#[derive(serde::Deserialize)]
struct AsymmetryFixture {
    points: Vec<AsymmetryPoint>,
}

#[derive(serde::Deserialize)]
struct AsymmetryPoint {
    point: SendState,
    fail: String,
    recover: SendState,
}

#[test]
fn fail_and_recover_bin_the_same_point_differently_as_the_fixture_pins() {
    let fixture: AsymmetryFixture =
        serde_json::from_str(include_str!("fixtures/ledger/fail_recover_asymmetry.json")).unwrap();
    assert!(fixture.points.iter().any(|p| p.point == SendState::Claimed
        && p.fail == "rejected"
        && p.recover == SendState::Uncertain));
    for p in fixture.points {
        // fail(): the caller witnessed where it stood.
        let fx = Fixture::new();
        let mut ledger = fx.open();
        drive_to(&mut ledger, "op-1", p.point);
        let failed = ledger.fail("op-1", "the tab reported an error", "extension");
        match p.fail.as_str() {
            "refused" => {
                assert!(failed.is_err(), "fail() at {} is refused", p.point);
                assert_eq!(state_of(&ledger, "op-1"), p.point);
            }
            bin => assert_eq!(failed.unwrap().state.as_str(), bin, "fail() at {}", p.point),
        }
        // recover(): blind, at the same point, after a real crash of the owner.
        let fx = Fixture::new();
        let mut ledger = fx.open();
        drive_to(&mut ledger, "op-1", p.point);
        drop(ledger);
        kill_after(&fx, &["open"]); // the child's open runs recovery, then it dies
        let (ledger, _) = reopen(&fx);
        assert_eq!(
            state_of(&ledger, "op-1"),
            p.recover,
            "recover() at {}",
            p.point
        );
    }
}

#[test]
fn sigkill_between_tool_start_and_settle_answers_uncertain_after_restart() {
    let fx = Fixture::new();
    kill_after(&fx, &["open", "tool-admit:call-1", "tool-start:call-1"]);
    let (mut ledger, report) = reopen(&fx);
    assert_eq!(report.tool_calls_uncertain, 1);
    let expected = "tool outcome is uncertain after restart; do not retry the side effect";
    assert_eq!(
        ledger.tool_admit("call-1").unwrap(),
        Admission::Uncertain {
            message: expected.into()
        }
    );
    assert_eq!(
        ledger.tool_start("call-1").unwrap_err().to_string(),
        expected,
        "never executed again"
    );
    assert_eq!(
        ledger
            .tool_settle("call-1", "late")
            .unwrap_err()
            .to_string(),
        expected
    );
    assert_eq!(
        ledger.tool_show("call-1").unwrap().unwrap().state,
        ToolState::Uncertain
    );
}

#[test]
fn sigkill_after_tool_settle_keeps_the_recorded_outcome() {
    let fx = Fixture::new();
    kill_after(
        &fx,
        &[
            "open",
            "tool-admit:call-1",
            "tool-start:call-1",
            "tool-settle:call-1",
        ],
    );
    let (mut ledger, report) = reopen(&fx);
    assert_eq!(report.tool_calls_uncertain, 0);
    assert_eq!(
        ledger.tool_admit("call-1").unwrap(),
        Admission::AlreadySettled {
            outcome: "done".into()
        }
    );
}

#[test]
fn sigkill_right_after_stop_commit_stays_stopped_with_the_gate_closed() {
    let fx = Fixture::new();
    kill_after(
        &fx,
        &[
            "open",
            "queue:op-1",
            "queue:op-2",
            "lease:tab-1",
            "claim",
            "stop",
        ],
    );
    let (mut ledger, report) = reopen(&fx);
    assert!(
        report.rejected.is_empty() && report.uncertain.is_empty(),
        "{report:?}"
    );
    assert_eq!(
        state_of(&ledger, "op-1"),
        SendState::Stopped,
        "the claimed send"
    );
    assert_eq!(
        state_of(&ledger, "op-2"),
        SendState::Stopped,
        "the queued send"
    );
    let status = ledger.status().unwrap();
    assert!(status.gate_closed, "the gate stays closed across the crash");
    assert!(
        status.stopped_epochs >= 2,
        "the unbound epoch and the lease's epoch"
    );
    assert_refused(
        ledger.queue(&request("op-3", "after"), "test"),
        "epoch stopped: resume first",
    );
    assert_refused(ledger.lease(&tab("tab-2")), "epoch stopped: resume first");
}

/// A withdrawal is durable when it answers: killed right after it, the claimed send its
/// tab was typing stays stopped (recovery would have made a claimed send uncertain), and
/// it is never dispatched.
#[test]
fn sigkill_after_a_withdrawal_keeps_the_send_stopped_and_never_dispatched() {
    let fx = Fixture::new();
    kill_after(
        &fx,
        &[
            "open",
            "queue:op-1",
            "lease:tab-1",
            "claim",
            "withdraw:op-1",
        ],
    );
    let (ledger, report) = reopen(&fx);
    assert!(report.uncertain.is_empty(), "{report:?}");
    let send = ledger.get("op-1").unwrap().unwrap();
    assert_eq!(send.state, SendState::Stopped);
    assert_eq!(
        send.evidence.as_deref(),
        Some("withdrawn by child before it was clicked: nothing was sent")
    );
    assert_eq!(send.dispatched_at, None);
}

/// The note a Stop leaves on a clicked send's trail commits with the Stop: killed right
/// after it, the note and the pending remote stop are both there.
#[test]
fn sigkill_after_a_stop_keeps_the_remote_stop_and_its_note_together() {
    let fx = Fixture::new();
    kill_after(
        &fx,
        &[
            "open",
            "queue:op-1",
            "lease:tab-1",
            "claim",
            "dispatch:op-1",
            "stop",
        ],
    );
    let (ledger, _) = reopen(&fx);
    let pending = ledger
        .remote_stop("op-1")
        .unwrap()
        .expect("the remote stop");
    assert_eq!(pending.phase, sendledger::ledger::RemotePhase::Pending);
    let noted = ledger.timeline("op-1").unwrap().iter().any(|e| {
        e.evidence
            .as_deref()
            .is_some_and(|v| v.ends_with("(remote stop pending)"))
    });
    assert!(noted, "the Stop's note is on the trail");
}
