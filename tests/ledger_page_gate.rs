//! The *page changed* gate (issue 35, migration 0018), in the ledger: a send failed on a
//! page fact every send needs fails and closes the gate in one transaction; while it is
//! closed no tab claims a send (the API and the trigger `sends_claimed_only_while_page_gate_open`),
//! a claim made before it closed is not granted, queued sends say which fact and what to
//! do, one notification per closing, and a person's resume opens it.

mod support;

use sendledger::ledger::LedgerRead;
use sendledger::ledger::{SendState, Waiting};
use support::*;

const REASON: &str = "composer.present: the message box is a page fact this extension does not recognise; nothing was typed";

#[test]
fn a_fact_every_send_needs_fails_the_send_and_closes_the_page_gate() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = drive_to(&mut ledger, "op-1", SendState::Claimed).unwrap();
    ledger
        .queue(&request("op-2", "waits for a person"), "t")
        .unwrap();
    let send = ledger
        .fail_page_changed(
            "op-1",
            REASON,
            "composer.present",
            Some(&lease),
            "extension",
        )
        .unwrap();
    assert_eq!(send.state, SendState::Rejected, "nothing was clicked");
    let gate = ledger.page_gate().unwrap();
    assert!(gate.closed);
    assert_eq!(gate.fact_id.as_deref(), Some("composer.present"));
    assert_eq!(
        gate.tab_id.as_deref(),
        Some("tab-op-1"),
        "the tab that said it"
    );
    assert_eq!(gate.op_id.as_deref(), Some("op-1"));
    assert!(
        ledger.claim_next(&lease).unwrap().is_none(),
        "queued sends wait: no tab takes one"
    );
    let other = ledger.lease(&tab("tab-2")).unwrap().lease_id;
    assert!(
        ledger.claim_next(&other).unwrap().is_none(),
        "nor any other tab"
    );
    assert_eq!(state_of(&ledger, "op-2"), SendState::Queued);
    let status = ledger.status().unwrap();
    assert_eq!(
        status.page_gate.as_ref().map(|g| g.fact_id.clone()),
        Some(gate.fact_id.clone())
    );
    let queued = ledger.get("op-2").unwrap().unwrap();
    let why = ledger
        .waiting(&queued)
        .unwrap()
        .expect("it says why it waits");
    assert!(matches!(&why, Waiting::PageChanged { fact_id, .. } if fact_id == "composer.present"));
    let sentence = why.sentence(fx.clock_now());
    for words in [
        "composer.present",
        "update the extension",
        "Check this page",
        "resume",
    ] {
        assert!(sentence.contains(words), "{sentence:?} says {words:?}");
    }
    assert_eq!(why.words(), "page changed");
}

#[test]
fn sql_refuses_a_claim_while_the_page_gate_is_closed() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = drive_to(&mut ledger, "op-1", SendState::Claimed).unwrap();
    ledger
        .fail_page_changed(
            "op-1",
            REASON,
            "send_button.present",
            Some(&lease),
            "extension",
        )
        .unwrap();
    ledger.queue(&request("op-2", "waits"), "t").unwrap();
    let err = raw(
        ledger.raw_connection(),
        "UPDATE sends SET state = 'claimed', lease_id = ?1, claimed_at = ?2 WHERE op_id = 'op-2'",
        rusqlite::params![lease, fx.clock_now()],
    )
    .expect_err("the trigger holds the gate");
    assert!(err.contains("page changed"), "{err}");
    assert_eq!(state_of(&ledger, "op-2"), SendState::Queued);
}

#[test]
fn a_claim_made_before_the_page_gate_closed_is_not_granted() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    ledger.set_max_in_flight(2).unwrap();
    let a = drive_to(&mut ledger, "op-a", SendState::Claimed).unwrap();
    ledger
        .queue(&request("op-b", "claimed by another tab"), "t")
        .unwrap();
    let b = ledger.lease(&tab("tab-b")).unwrap().lease_id;
    assert_eq!(ledger.claim_next(&b).unwrap().unwrap().op_id, "op-b");
    ledger
        .fail_page_changed("op-a", REASON, "composer.present", Some(&a), "extension")
        .unwrap();
    let before = dispatch_events(ledger.raw_connection(), "op-b");
    let err = ledger
        .dispatch("op-b", &b)
        .expect_err("held: nothing is clicked");
    assert!(err.to_string().contains("page changed"), "{err}");
    assert_eq!(state_of(&ledger, "op-b"), SendState::Rejected);
    assert_eq!(dispatch_events(ledger.raw_connection(), "op-b"), before);
}

#[test]
fn a_persons_resume_opens_the_page_gate_and_the_queued_send_goes() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = drive_to(&mut ledger, "op-1", SendState::Claimed).unwrap();
    ledger
        .queue(&request("op-2", "after the resume"), "t")
        .unwrap();
    ledger
        .fail_page_changed(
            "op-1",
            REASON,
            "composer.present",
            Some(&lease),
            "extension",
        )
        .unwrap();
    assert!(
        ledger.resume("alice").unwrap(),
        "the resume opened the gate"
    );
    assert!(!ledger.resume("alice").unwrap(), "nothing left to open");
    let gate = ledger.page_gate().unwrap();
    assert!(!gate.closed);
    assert_eq!(gate.changed_by, "alice");
    assert!(ledger.status().unwrap().page_gate.is_none());
    assert_eq!(
        ledger
            .claim_next(&lease)
            .unwrap()
            .map(|s| s.op_id)
            .as_deref(),
        Some("op-2"),
        "the lease survives the resume and takes the queued send"
    );
}

#[test]
fn the_page_gate_keeps_its_first_closing_and_is_notified_once() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    ledger.set_max_in_flight(2).unwrap();
    let a = drive_to(&mut ledger, "op-a", SendState::Claimed).unwrap();
    ledger.queue(&request("op-b", "second tab"), "t").unwrap();
    let b = ledger.lease(&tab("tab-b")).unwrap().lease_id;
    ledger.claim_next(&b).unwrap().unwrap();
    ledger
        .fail_page_changed("op-a", REASON, "composer.present", Some(&a), "extension")
        .unwrap();
    assert!(ledger.mark_page_gate_notified().unwrap());
    ledger
        .fail_page_changed("op-b", REASON, "send_button.present", Some(&b), "extension")
        .unwrap();
    let gate = ledger.page_gate().unwrap();
    assert_eq!(
        gate.fact_id.as_deref(),
        Some("composer.present"),
        "the first fact is kept"
    );
    assert!(
        !ledger.mark_page_gate_notified().unwrap(),
        "once per closing"
    );
    assert!(ledger.resume("alice").unwrap());
    assert!(
        !ledger.mark_page_gate_notified().unwrap(),
        "an open gate is not notified"
    );
    let c = drive_to(&mut ledger, "op-c", SendState::Claimed).unwrap();
    ledger
        .fail_page_changed("op-c", REASON, "send_button.present", Some(&c), "extension")
        .unwrap();
    assert!(
        ledger.mark_page_gate_notified().unwrap(),
        "a new closing is notified anew"
    );
}

#[test]
fn a_plain_failure_leaves_the_page_gate_open() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = drive_to(&mut ledger, "op-1", SendState::Claimed).unwrap();
    ledger.queue(&request("op-2", "goes next"), "t").unwrap();
    ledger
        .fail("op-1", "the model picker is not recognised", "extension")
        .unwrap();
    assert!(!ledger.page_gate().unwrap().closed);
    assert_eq!(ledger.claim_next(&lease).unwrap().unwrap().op_id, "op-2");
}
