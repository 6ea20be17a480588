//! The deadlines the owner's sweeps sleep until (issue 15): the next expiry bound of what
//! is in flight, and the next uncertain send to become stale. A sweep scheduled for them
//! wakes nothing while nothing is due, so each deadline must be exactly when the sweep
//! itself would act — earlier wakes it for nothing, later misses the bound.

mod support;

use sendledger::ledger::LedgerRead;
use sendledger::ledger::{Bounds, SendState};
use support::*;

/// The default bounds, but a tab that is never let go for silence: these tests are about
/// the sends' own bounds (the lease's is `a_lease_whose_tab_stopped_answering_…`).
fn quiet_tabs_kept() -> Bounds {
    Bounds {
        lease_silence_ms: i64::MAX / 4,
        ..Bounds::default()
    }
}

/// The next deadline of a send or a stop under [`quiet_tabs_kept`] (its tabs' far-off
/// silence bound left out).
fn next_send_deadline(ledger: &mut sendledger::ledger::Ledger, b: &Bounds) -> Option<i64> {
    ledger
        .next_expiry_at(b)
        .unwrap()
        .filter(|at| *at < i64::MAX / 8)
}

#[test]
fn nothing_in_flight_has_no_expiry_deadline() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let b = Bounds::default();
    assert_eq!(ledger.next_expiry_at(&b).unwrap(), None, "an empty ledger");
    let lease = drive_to(&mut ledger, "op-done", SendState::Completed).unwrap();
    ledger.end_lease(&lease, "the tab closed").unwrap();
    assert_eq!(
        ledger.next_expiry_at(&b).unwrap(),
        None,
        "a completed send has no bound"
    );
    let lease = drive_to(&mut ledger, "op-uncertain", SendState::Uncertain).unwrap();
    ledger.end_lease(&lease, "the tab closed").unwrap();
    assert_eq!(
        ledger.next_expiry_at(&b).unwrap(),
        None,
        "an uncertain send waits for a person, not a bound"
    );
    ledger
        .queue(&request("op-q", "queued only"), "test")
        .unwrap();
    assert_eq!(
        ledger.next_expiry_at(&b).unwrap(),
        None,
        "a queued send has none either"
    );
}

#[test]
fn the_expiry_deadline_is_the_bound_of_each_in_flight_stage_and_the_sweep_acts_exactly_then() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let b = quiet_tabs_kept();
    let stages = [
        (SendState::Claimed, b.claim_ms),
        (SendState::Dispatched, b.receipt_ms),
        (SendState::Accepted, b.answer_ms),
    ];
    for (i, (stage, bound)) in stages.into_iter().enumerate() {
        let op = format!("op-{i}");
        drive_to(&mut ledger, &op, stage);
        let at = fx.clock_now() + bound;
        assert_eq!(next_send_deadline(&mut ledger, &b), Some(at), "{stage}");
        fx.clock.advance(bound - 1);
        assert!(ledger.expire(&b).unwrap().is_empty(), "{stage}: not before");
        assert_eq!(
            next_send_deadline(&mut ledger, &b),
            Some(at),
            "{stage}: unchanged"
        );
        fx.clock.advance(1);
        assert!(!ledger.expire(&b).unwrap().is_empty(), "{stage}: due then");
        assert_eq!(
            next_send_deadline(&mut ledger, &b),
            None,
            "{stage}: expired, nothing left"
        );
    }
}

#[test]
fn the_expiry_deadline_is_the_earliest_of_several() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let b = Bounds {
        claim_ms: 5_000,
        receipt_ms: 1_000,
        answer_ms: 60_000,
        lease_silence_ms: i64::MAX / 4,
    };
    let lease = drive_to(&mut ledger, "op-1", SendState::Claimed).unwrap();
    let claim_due = fx.clock_now() + b.claim_ms;
    assert_eq!(ledger.next_expiry_at(&b).unwrap(), Some(claim_due));
    fx.clock.advance(100);
    ledger.dispatch("op-1", &lease).unwrap();
    assert_eq!(
        ledger.next_expiry_at(&b).unwrap(),
        Some(fx.clock_now() + b.receipt_ms),
        "dispatched replaces claimed, and its bound is the earlier"
    );
}

#[test]
fn the_next_stale_uncertain_deadline_counts_only_sends_not_yet_stale_nor_notified() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let threshold = 300_000;
    assert_eq!(ledger.next_stale_uncertain_at(threshold).unwrap(), None);
    drive_to(&mut ledger, "op-1", SendState::Uncertain);
    let first = fx.clock_now() + threshold;
    fx.clock.advance(1_000);
    drive_to(&mut ledger, "op-2", SendState::Uncertain);
    let second = fx.clock_now() + threshold;
    assert_eq!(
        ledger.next_stale_uncertain_at(threshold).unwrap(),
        Some(first)
    );
    fx.clock.advance(first - fx.clock_now());
    assert_eq!(
        ledger
            .stale_uncertain(threshold)
            .unwrap()
            .iter()
            .map(|s| s.op_id.as_str())
            .collect::<Vec<_>>(),
        ["op-1"],
        "stale exactly at its deadline"
    );
    assert_eq!(
        ledger.next_stale_uncertain_at(threshold).unwrap(),
        Some(second),
        "a stale one is the sweep's now, not its next deadline"
    );
    ledger.mark_notified("op-2").unwrap();
    assert_eq!(
        ledger.next_stale_uncertain_at(threshold).unwrap(),
        None,
        "a notified send is never due again"
    );
}

/// A remote stop no tab reports on (its tab closed, or shows another conversation) does
/// not stay open for good: `answer_ms` after the Stop it becomes uncertain, with the
/// owner's note on the send's timeline, and the deadline is exactly then. A later report
/// finds it settled.
#[test]
fn a_remote_stop_nobody_reports_on_becomes_uncertain_at_the_answer_bound() {
    use sendledger::ledger::RemotePhase;
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let b = quiet_tabs_kept();
    let lease = drive_to(&mut ledger, "op-1", SendState::Dispatched).unwrap();
    let stopped_at = fx.clock_now();
    ledger.stop("alice").unwrap();
    fx.clock.advance(b.receipt_ms);
    assert_eq!(
        ledger.expire(&b).unwrap().receipts,
        ["op-1"],
        "the send's own bound"
    );
    assert_eq!(
        next_send_deadline(&mut ledger, &b),
        Some(stopped_at + b.answer_ms),
        "the open stop's bound is what is left"
    );
    fx.clock.advance(b.answer_ms - b.receipt_ms - 1);
    assert!(ledger.expire(&b).unwrap().is_empty(), "not yet");
    fx.clock.advance(1);
    assert_eq!(ledger.expire(&b).unwrap().remote_stops, ["op-1"]);
    assert!(ledger.remote_stops().unwrap().is_empty(), "no longer open");
    assert_eq!(next_send_deadline(&mut ledger, &b), None);
    let note = ledger.timeline("op-1").unwrap().pop().unwrap();
    assert_eq!(note.actor, "owner");
    assert!(
        note.evidence
            .unwrap()
            .contains("remote stop uncertain: no tab reported on it"),
        "the timeline says why"
    );
    let late = ledger.remote_stop_phase(&lease, "op-1", RemotePhase::Dispatched, None);
    assert_eq!(late.unwrap_err().code(), "remote_stop_settled");
}

#[test]
fn a_lease_whose_tab_stopped_answering_is_ended_at_its_silence_bound_and_its_claim_rejected() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let b = Bounds {
        claim_ms: 600_000,
        lease_silence_ms: 120_000,
        ..Bounds::default()
    };
    let lease = drive_to(&mut ledger, "op-1", SendState::Claimed).unwrap();
    // The tab asks at 100 s: its silence bound runs again from then.
    fx.clock.advance(100_000);
    ledger.hear_lease(&lease);
    fx.clock.advance(119_999);
    assert!(
        ledger.expire(&b).unwrap().is_empty(),
        "heard 119.999 s ago: the tab is kept"
    );
    fx.clock.advance(1);
    let x = ledger.expire(&b).unwrap();
    assert_eq!(
        x.leases,
        [lease.as_str()],
        "silent for the whole bound: let go"
    );
    assert_eq!(x.claims, ["op-1"], "its claim is rejected with it");
    assert_eq!(state_of(&ledger, "op-1"), SendState::Rejected);
    assert!(ledger.get_lease(&lease).unwrap().ended_at.is_some());
}

/// The claim bound holds by construction, not by which of the grant and the sweep reaches
/// the ledger first (issue 40: a laptop asleep for hours wakes both at once): a grant asked
/// with the clock past the claim bound, the sweep not yet run, is refused with the sweep's
/// own words and the send failed as the sweep fails it — 1,000 times in a row; one
/// millisecond before the bound the grant is given.
#[test]
fn an_overdue_claim_is_never_granted_and_is_failed_with_the_sweeps_reason() {
    use sendledger::ledger::Grant;
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let b = quiet_tabs_kept();
    ledger.set_bounds(b);
    // The sweep's own words for an expired claim.
    drive_to(&mut ledger, "swept", SendState::Claimed);
    fx.clock.advance(b.claim_ms);
    assert_eq!(ledger.expire(&b).unwrap().claims, ["swept"]);
    let sweeps_reason = ledger.get("swept").unwrap().unwrap().evidence.unwrap();
    let lease = ledger.lease(&tab("tab-grant")).unwrap().lease_id;
    for i in 0..1_000 {
        let op = format!("op-{i}");
        ledger
            .queue(&request(&op, "typed, then asleep"), "test")
            .unwrap();
        assert_eq!(ledger.claim_next(&lease).unwrap().unwrap().op_id, op);
        fx.clock.advance(b.claim_ms + (i % 7) * 3_600_000);
        let grant = ledger.dispatch_confirmed(&op, &lease, None).unwrap();
        let Grant::Expired { send, reason } = grant else {
            panic!("#{i}: a claim past its bound was not refused: {grant:?}");
        };
        assert_eq!(reason, sweeps_reason, "#{i}: the sweep's reason");
        assert_eq!(
            send.state,
            SendState::Rejected,
            "#{i}: failed as the sweep fails it"
        );
        assert_eq!(state_of(&ledger, &op), SendState::Rejected);
        assert!(
            ledger.expire(&b).unwrap().claims.is_empty(),
            "#{i}: nothing left to sweep"
        );
    }
    ledger
        .queue(&request("in-time", "granted"), "test")
        .unwrap();
    ledger.claim_next(&lease).unwrap().unwrap();
    fx.clock.advance(b.claim_ms - 1);
    let grant = ledger.dispatch_confirmed("in-time", &lease, None).unwrap();
    assert!(
        matches!(grant, Grant::Granted(_)),
        "within its bound: {grant:?}"
    );
}
