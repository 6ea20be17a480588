//! Withdraw: a person takes back one send before it is clicked, without Stop's fence.

mod support;

use sendledger::ledger::LedgerRead;
use sendledger::ledger::{LedgerError, SendState};
use support::*;

/// A withdrawn send never goes out: queued or claimed → stopped with who and why on its
/// trail; a grant its tab asks for afterwards is refused, so nothing is clicked; the gate
/// stays open and the next send is claimed as usual.
#[test]
fn a_withdrawn_send_is_stopped_and_its_grant_is_refused_while_the_others_go_on() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    // Claimed: its tab is typing it.
    let lease = drive_to(&mut ledger, "op-typing", SendState::Claimed).unwrap();
    ledger
        .queue(&request("op-next", "the one after"), "test")
        .unwrap();
    let taken = ledger.withdraw("op-typing", "alice").unwrap();
    assert_eq!(taken.state, SendState::Stopped);
    assert_eq!(taken.actor, "alice");
    assert_eq!(
        taken.evidence.as_deref(),
        Some("withdrawn by alice before it was clicked: nothing was sent")
    );
    let before = dump(ledger.raw_connection());
    assert_refused(ledger.dispatch("op-typing", &lease), "stopped");
    assert_eq!(
        before,
        dump(ledger.raw_connection()),
        "the refused grant wrote nothing"
    );
    assert_eq!(dispatch_events(ledger.raw_connection(), "op-typing"), 0);
    assert!(!ledger.status().unwrap().gate_closed, "the gate stays open");
    let next = ledger.claim_next(&lease).unwrap().expect("the next send");
    assert_eq!(next.op_id, "op-next", "the others go on");

    // Queued: taken back before any tab saw it.
    ledger
        .queue(&request("op-queued", "never mind"), "test")
        .unwrap();
    assert_eq!(
        ledger.withdraw("op-queued", "bob").unwrap().state,
        SendState::Stopped
    );
    // Withdrawn again (a retry): the same answer, nothing written.
    let before = dump(ledger.raw_connection());
    let again = ledger.withdraw("op-queued", "bob").unwrap();
    assert_eq!(again.state, SendState::Stopped);
    assert_eq!(
        before,
        dump(ledger.raw_connection()),
        "a retry writes nothing"
    );
    // It can be queued again, as a new operation linked to it.
    let again = ledger.requeue("op-queued", "bob").unwrap();
    assert_eq!(again.resend_of.as_deref(), Some("op-queued"));
}

/// Only a send not yet clicked can be withdrawn: a dispatched one went out (Stop asks its
/// tab to stop the answer), a settled one is history; each refusal says why and writes
/// nothing, and so does an unknown id or a blank name. One that never left this computer
/// (rejected) is answered as it is.
#[test]
fn only_a_send_not_yet_clicked_can_be_withdrawn_and_a_refusal_writes_nothing() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    for (op, state) in [
        ("op-dispatched", SendState::Dispatched),
        ("op-accepted", SendState::Accepted),
        ("op-completed", SendState::Completed),
        ("op-uncertain", SendState::Uncertain),
    ] {
        drive_to(&mut ledger, op, state);
        let before = dump(ledger.raw_connection());
        let e = assert_refused(
            ledger.withdraw(op, "alice"),
            "only a send not yet clicked is",
        );
        assert_eq!(e.code(), "wrong_state");
        assert_eq!(before, dump(ledger.raw_connection()), "{op}");
        if state == SendState::Dispatched || state == SendState::Accepted {
            // Leave the slot for the next one.
            ledger
                .fail(op, "test: done with it", "extension")
                .or_else(|_| ledger.complete(op, "m", "a", "extension"))
                .ok();
        }
    }
    drive_to(&mut ledger, "op-rejected", SendState::Rejected);
    let before = dump(ledger.raw_connection());
    let rejected = ledger.withdraw("op-rejected", "alice").unwrap();
    assert_eq!(rejected.state, SendState::Rejected, "answered as it is");
    assert_eq!(before, dump(ledger.raw_connection()));
    assert!(matches!(
        ledger.withdraw("op-none", "alice"),
        Err(LedgerError::UnknownSend(_))
    ));
    ledger.queue(&request("op-q", "text"), "test").unwrap();
    let before_blank = dump(ledger.raw_connection());
    assert!(ledger.withdraw("op-q", "  ").is_err(), "a blank name");
    assert_eq!(before_blank, dump(ledger.raw_connection()));
}
