//! When the page says no (issue 12), in the ledger: an error turn ends an accepted send
//! `page_error` with the page's message and frees the in-flight slot; a usage limit closes
//! the limit gate until the time the page named or a person's resume; a tab that cannot
//! take a send is remembered so a queued send can say why it waits. Each rule is checked
//! at the API and, where SQL can hold it, by the triggers of migration 0007.

mod support;

use sendledger::ledger::LedgerRead;
use sendledger::ledger::{LimitHold, PageError, SendState, TabReport, Waiting};
use support::*;

fn limit(until_ms: Option<i64>) -> PageError {
    PageError {
        message: "You have used up the usage limit of this plan.".into(),
        limit: Some(LimitHold { until_ms }),
    }
}

#[test]
fn an_error_turn_ends_the_accepted_send_page_error_with_the_pages_message_and_frees_the_slot() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = drive_to(&mut ledger, "op-1", SendState::Accepted).unwrap();
    ledger
        .queue(&request("op-2", "the next one"), "test")
        .unwrap();
    assert!(
        ledger.claim_next(&lease).unwrap().is_none(),
        "the accepted send holds the slot"
    );
    let send = ledger
        .page_error("op-1", &page_said("Something went wrong."), "extension")
        .unwrap();
    assert_eq!(send.state, SendState::PageError);
    assert_eq!(
        send.evidence.as_deref(),
        Some("the page answered with an error: Something went wrong.")
    );
    assert!(SendState::PageError.is_final(), "an error turn is terminal");
    let again = ledger
        .page_error("op-1", &page_said("Something went wrong."), "extension")
        .unwrap();
    assert_eq!(again, send, "the same error again changes nothing");
    assert_eq!(
        transitions(ledger.raw_connection(), "op-1").last(),
        Some(&(Some("accepted".into()), "page_error".into())),
        "one transition event, accepted → page_error"
    );
    let next = ledger
        .claim_next(&lease)
        .unwrap()
        .expect("the queue moved on");
    assert_eq!(next.op_id, "op-2");
}

#[test]
fn a_page_error_needs_an_accepted_send_and_the_pages_message() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Dispatched);
    let before = dump(ledger.raw_connection());
    assert!(
        ledger
            .page_error("op-1", &page_said("Something went wrong."), "extension")
            .is_err(),
        "no receipt, no page error: whether it went out is the receipt's to say"
    );
    assert_eq!(before, dump(ledger.raw_connection()), "nothing written");
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-2", SendState::Accepted);
    assert!(
        ledger
            .page_error("op-2", &page_said(" "), "extension")
            .is_err(),
        "the page's message is required"
    );
    assert_eq!(state_of(&ledger, "op-2"), SendState::Accepted);
}

#[test]
fn sql_refuses_a_page_error_without_the_pages_message() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Accepted);
    let err = raw(
        ledger.raw_connection(),
        "UPDATE sends SET state = 'page_error', evidence = NULL WHERE op_id = 'op-1'",
        [],
    )
    .expect_err("refused");
    assert!(err.contains("page's message"), "{err}");
    assert_eq!(state_of(&ledger, "op-1"), SendState::Accepted);
    raw(
        ledger.raw_connection(),
        "UPDATE sends SET state = 'page_error', evidence = 'the page said no' WHERE op_id = 'op-1'",
        [],
    )
    .expect("with its message the edge is legal");
    assert_eq!(state_of(&ledger, "op-1"), SendState::PageError);
}

#[test]
fn a_usage_limit_holds_claims_until_the_time_the_page_named_then_opens_by_itself() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = drive_to(&mut ledger, "op-1", SendState::Accepted).unwrap();
    let until = fx.clock_now() + 60_000;
    ledger
        .page_error("op-1", &limit(Some(until)), "extension")
        .unwrap();
    ledger
        .queue(&request("op-2", "waits for the limit"), "t")
        .unwrap();
    assert!(ledger.claim_next(&lease).unwrap().is_none(), "held back");
    let status = ledger.status().unwrap();
    assert_eq!(status.limit_gate.as_ref().unwrap().until_ms, Some(until));
    assert!(matches!(
        status.waiting,
        Some(Waiting::UsageLimit { until_ms: Some(t), .. }) if t == until
    ));
    let queued = ledger.get("op-2").unwrap().unwrap();
    let why = ledger
        .waiting(&queued)
        .unwrap()
        .expect("the queued send says why");
    assert!(
        why.sentence(fx.clock_now())
            .starts_with("ChatGPT usage limit: sending resumes at "),
        "{}",
        why.sentence(fx.clock_now())
    );
    fx.clock.advance(59_999);
    assert!(ledger.claim_next(&lease).unwrap().is_none(), "not yet");
    fx.clock.advance(1);
    let claimed = ledger
        .claim_next(&lease)
        .unwrap()
        .expect("open at the named time");
    assert_eq!(claimed.op_id, "op-2");
    assert!(ledger.status().unwrap().limit_gate.is_none());
}

#[test]
fn sql_refuses_a_claim_while_the_limit_gate_holds() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = drive_to(&mut ledger, "op-1", SendState::Accepted).unwrap();
    ledger
        .page_error("op-1", &limit(None), "extension")
        .unwrap();
    ledger.queue(&request("op-2", "waits"), "t").unwrap();
    let now = fx.clock_now();
    let err = raw(
        ledger.raw_connection(),
        "UPDATE sends SET state = 'claimed', lease_id = ?1, claimed_at = ?2 WHERE op_id = 'op-2'",
        rusqlite::params![lease, now + 86_400_000],
    )
    .expect_err("a gate with no reset time holds at any time");
    assert!(err.contains("usage limit"), "{err}");
    assert_eq!(state_of(&ledger, "op-2"), SendState::Queued);
}

#[test]
fn a_persons_resume_opens_the_limit_gate_before_its_time() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = drive_to(&mut ledger, "op-1", SendState::Accepted).unwrap();
    ledger
        .page_error(
            "op-1",
            &limit(Some(fx.clock_now() + 3_600_000)),
            "extension",
        )
        .unwrap();
    ledger
        .queue(&request("op-2", "after the resume"), "t")
        .unwrap();
    assert!(
        ledger.resume("alice").unwrap(),
        "the resume opened something"
    );
    assert!(!ledger.resume("alice").unwrap(), "nothing left to open");
    let gate = ledger.limit_gate().unwrap();
    assert!(!gate.closed);
    assert_eq!(gate.changed_by, "alice");
    assert_eq!(
        ledger
            .claim_next(&lease)
            .unwrap()
            .map(|s| s.op_id)
            .as_deref(),
        Some("op-2"),
        "the lease survives a limit resume (the Stop gate was open)"
    );
}

#[test]
fn a_limit_is_notified_once_per_closing() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Accepted);
    ledger
        .page_error("op-1", &limit(None), "extension")
        .unwrap();
    assert!(ledger.mark_limit_notified().unwrap());
    assert!(!ledger.mark_limit_notified().unwrap(), "once");
    assert!(ledger.resume("alice").unwrap());
    assert!(
        !ledger.mark_limit_notified().unwrap(),
        "an open gate is not notified"
    );
    drive_to(&mut ledger, "op-2", SendState::Accepted);
    ledger
        .page_error("op-2", &limit(None), "extension")
        .unwrap();
    assert!(
        ledger.mark_limit_notified().unwrap(),
        "a new closing is notified anew"
    );
}

#[test]
fn a_queued_send_says_why_it_waits_from_the_first_second() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let (send, _) = ledger.queue(&request("op-1", "no tab yet"), "t").unwrap();
    let no_tab = Waiting::NoTab {
        site: Default::default(),
    };
    assert_eq!(ledger.waiting(&send).unwrap(), Some(no_tab.clone()));
    assert!(no_tab
        .sentence(0)
        .starts_with("no chatgpt.com tab is leased"));
    ledger
        .report_tab(TabReport {
            tab_id: "7".into(),
            reason: "composer not found after 20 s: layout changed or page not loaded".into(),
            path: Some("/".into()),
            reported_at: 0,
        })
        .unwrap();
    let why = ledger.waiting(&send).unwrap().unwrap();
    assert_eq!(
        why.sentence(0),
        "no chatgpt.com tab can take a send: tab 7: composer not found after 20 s: layout changed or page not loaded"
    );
    assert_eq!(ledger.status().unwrap().tab_reports.len(), 1);
    assert_eq!(
        ledger.status().unwrap().tab_reports[0].reported_at,
        fx.clock_now(),
        "stamped with the ledger's time"
    );
    ledger.lease(&tab("7")).unwrap();
    assert!(
        ledger.status().unwrap().tab_reports.is_empty(),
        "a lease of the tab clears its report"
    );
    assert!(ledger.status().unwrap().waiting.is_none());
}

#[test]
fn tab_reports_are_bounded_and_refuse_bad_input_writing_nothing() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    for i in 0..(sendledger::ledger::MAX_TAB_REPORTS + 5) {
        ledger
            .report_tab(TabReport {
                tab_id: format!("tab-{i}"),
                reason: "composer not found".into(),
                path: None,
                reported_at: 0,
            })
            .unwrap();
        fx.clock.advance(1);
    }
    let kept = ledger.status().unwrap().tab_reports;
    assert_eq!(kept.len() as i64, sendledger::ledger::MAX_TAB_REPORTS);
    assert_eq!(
        kept[0].tab_id, "tab-36",
        "the newest first, the oldest gone"
    );
    let before = dump(ledger.raw_connection());
    for bad in [
        TabReport {
            tab_id: String::new(),
            reason: "x".into(),
            path: None,
            reported_at: 0,
        },
        TabReport {
            tab_id: "t".into(),
            reason: "x".repeat(2000),
            path: None,
            reported_at: 0,
        },
    ] {
        assert!(ledger.report_tab(bad).is_err());
    }
    assert_eq!(before, dump(ledger.raw_connection()));
}

#[test]
fn a_claim_taken_just_before_the_tab_moved_to_its_new_chat_goes_to_the_tabs_new_lease() {
    // The order that lost a send: the second send is claimed under the new-chat binding,
    // then the tab moves to /c/<id> (our own first send created it) and leases again.
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let old = ledger.lease(&tab("9")).unwrap().lease_id;
    ledger
        .queue(&request("any", "names no conversation"), "t")
        .unwrap();
    assert_eq!(ledger.claim_next(&old).unwrap().unwrap().op_id, "any");
    let moved = ledger
        .lease(&sendledger::ledger::TabBinding {
            tab_id: "9".into(),
            conversation_id: Some("conv-new".into()),
            ..Default::default()
        })
        .unwrap()
        .lease_id;
    let send = ledger.get("any").unwrap().unwrap();
    assert_eq!(
        send.state,
        SendState::Claimed,
        "nothing was clicked: still claimed"
    );
    assert_eq!(
        send.lease_id.as_deref(),
        Some(moved.as_str()),
        "the new lease holds it"
    );
    assert!(
        ledger.dispatch("any", &old).is_err(),
        "never under the ended lease"
    );
    ledger
        .dispatch("any", &moved)
        .expect("dispatched into the conversation the tab shows");
    assert_eq!(
        transitions(ledger.raw_connection(), "any")
            .iter()
            .filter(|(_, to)| to == "dispatched")
            .count(),
        1
    );
}

#[test]
fn a_claim_for_another_conversation_is_never_handed_to_the_new_lease() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let old = ledger
        .lease(&sendledger::ledger::TabBinding {
            tab_id: "9".into(),
            conversation_id: Some("conv-a".into()),
            ..Default::default()
        })
        .unwrap()
        .lease_id;
    ledger
        .queue(
            &sendledger::ledger::QueueRequest {
                op_id: Some("for-a".into()),
                text: "for conversation a".into(),
                conversation_id: Some("conv-a".into()),
                ..Default::default()
            },
            "t",
        )
        .unwrap();
    ledger.claim_next(&old).unwrap().unwrap();
    let other = ledger
        .lease(&sendledger::ledger::TabBinding {
            tab_id: "9".into(),
            conversation_id: Some("conv-b".into()),
            ..Default::default()
        })
        .unwrap()
        .lease_id;
    assert_eq!(
        ledger.get("for-a").unwrap().unwrap().lease_id.as_deref(),
        Some(old.as_str())
    );
    assert!(
        ledger.dispatch("for-a", &other).is_err(),
        "never into another conversation"
    );
}
