//! Custody bounds run on a clock that does not jump (issue 26): a wall clock set forward
//! or back while the owner runs moves no bound (claim, receipt, answer, remote stop),
//! while every time recorded for people stays the wall clock's. Across a restart the wall
//! clock ages what survived once, never below zero: no bound is longer than the whole bound
//! counted from the restart. The clock is injected (`ManualClock::jump_wall`).

mod support;

use sendledger::clock::Millis;
use sendledger::ledger::LedgerRead;
use sendledger::ledger::{Bounds, Ledger, SendState};
use support::*;

const HOURS_2: Millis = 2 * 3_600_000;
const HOURS_8: Millis = 8 * 3_600_000;

fn bounds() -> Bounds {
    Bounds {
        claim_ms: 60_000,
        receipt_ms: 60_000,
        answer_ms: 600_000,
        // Longer than every bound tested here: the tab is silent throughout.
        lease_silence_ms: 3_600_000,
    }
}

/// Drives `op` to `stage`, jumps the wall clock by `jump`, and checks that its bound still
/// runs out exactly `bound` ms of real time after the stage was entered.
fn bound_keeps_its_length(stage: SendState, bound: Millis, jump: Millis) {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let b = bounds();
    drive_to(&mut ledger, "op-1", stage);
    fx.clock.advance(300);
    fx.clock.jump_wall(jump);
    // Any write after the jump (here a queued send) runs the sweep in the owner.
    ledger
        .queue(&request("op-2", "after the jump"), "test")
        .unwrap();
    assert!(
        ledger.expire(&b).unwrap().is_empty(),
        "{stage} 0.3 s old, wall clock moved {jump} ms: nothing is due"
    );
    assert_eq!(state_of(&ledger, "op-1"), stage);
    fx.clock.advance(bound - 300 - 1);
    assert!(
        ledger.expire(&b).unwrap().is_empty(),
        "{stage}: not before its bound"
    );
    fx.clock.advance(1);
    assert!(
        !ledger.expire(&b).unwrap().is_empty(),
        "{stage}: due exactly at its bound, whatever the wall clock did ({jump} ms)"
    );
}

#[test]
fn a_wall_clock_set_forward_moves_no_custody_bound() {
    let b = bounds();
    bound_keeps_its_length(SendState::Claimed, b.claim_ms, HOURS_2);
    bound_keeps_its_length(SendState::Dispatched, b.receipt_ms, HOURS_2);
    bound_keeps_its_length(SendState::Accepted, b.answer_ms, HOURS_2);
}

#[test]
fn a_wall_clock_set_back_moves_no_custody_bound() {
    let b = bounds();
    for jump in [-HOURS_2, -HOURS_8] {
        bound_keeps_its_length(SendState::Claimed, b.claim_ms, jump);
        bound_keeps_its_length(SendState::Dispatched, b.receipt_ms, jump);
        bound_keeps_its_length(SendState::Accepted, b.answer_ms, jump);
    }
}

#[test]
fn a_remote_stops_bound_keeps_its_length_when_the_wall_clock_jumps() {
    let b = bounds();
    for jump in [HOURS_2, -HOURS_8] {
        let fx = Fixture::new();
        let mut ledger = fx.open();
        drive_to(&mut ledger, "op-1", SendState::Accepted);
        ledger.stop("alice").unwrap();
        fx.clock.jump_wall(jump);
        fx.clock.advance(b.answer_ms - 1);
        // The send's own answer bound ran out (it started before the Stop); not the stop's.
        let x = ledger.expire(&b).unwrap();
        assert!(x.remote_stops.is_empty(), "{jump}: the stop is not due yet");
        fx.clock.advance(1);
        assert_eq!(ledger.expire(&b).unwrap().remote_stops, ["op-1"], "{jump}");
    }
}

#[test]
fn times_recorded_for_people_stay_the_wall_clocks() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let b = bounds();
    drive_to(&mut ledger, "op-1", SendState::Claimed);
    fx.clock.jump_wall(-HOURS_8);
    fx.clock.advance(b.claim_ms);
    assert_eq!(ledger.expire(&b).unwrap().claims, ["op-1"]);
    let expired = ledger.timeline("op-1").unwrap().pop().unwrap();
    assert_eq!(expired.to, SendState::Rejected);
    assert_eq!(
        expired.at,
        fx.clock_now(),
        "the expiry is stamped with the wall clock as it reads"
    );
}

/// An accepted send survives a restart; its answer bound goes on from what the wall clock
/// says remains, never more than a whole bound from the restart, never less than zero.
fn answer_bound_after_a_restart(jump_while_down: Millis, expect_remaining: Millis) {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let b = bounds();
    drive_to(&mut ledger, "op-1", SendState::Accepted);
    fx.clock.advance(100_000);
    drop(ledger);
    fx.clock.jump_wall(jump_while_down);
    let mut ledger: Ledger = fx.open();
    assert_eq!(state_of(&ledger, "op-1"), SendState::Accepted);
    if expect_remaining > 0 {
        fx.clock.advance(expect_remaining - 1);
        assert!(
            ledger.expire(&b).unwrap().is_empty(),
            "{jump_while_down}: not yet"
        );
    }
    fx.clock.advance(1);
    assert_eq!(
        ledger.expire(&b).unwrap().answers,
        ["op-1"],
        "{jump_while_down}: due after {expect_remaining} ms"
    );
}

#[test]
fn across_a_restart_a_bound_goes_on_from_what_remains_and_never_past_a_whole_bound() {
    let b = bounds();
    // No jump: 100 s had passed, the rest remains.
    answer_bound_after_a_restart(0, b.answer_ms - 100_000);
    // Set back 8 h while no owner ran: never longer than a whole bound from the restart.
    answer_bound_after_a_restart(-HOURS_8, b.answer_ms);
    // Set forward 2 h while no owner ran: counted as time passed (due at once).
    answer_bound_after_a_restart(HOURS_2, 0);
}
