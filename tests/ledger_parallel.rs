//! Parallel conversations (issue 27): one send in flight per conversation and per tab,
//! never more than the profile's `max_in_flight`; Stop fences every tab at once.

mod support;

use sendledger::destination::Confirmation;
use sendledger::ledger::{
    Grant, Ledger, LedgerError, LedgerRead, QueueRequest, Receipt, SendState, TabBinding,
};
use support::*;

/// A tab showing `conversation` (`None`: a new chat).
fn tab_in(id: &str, conversation: Option<&str>) -> TabBinding {
    TabBinding {
        conversation_id: conversation.map(str::to_string),
        ..tab(id)
    }
}

/// A send for `conversation` (`None`: the default destination, a new chat).
fn send_to(op: &str, conversation: Option<&str>) -> QueueRequest {
    QueueRequest {
        conversation_id: conversation.map(str::to_string),
        ..request(op, &format!("text of {op}"))
    }
}

fn claimed(ledger: &mut Ledger, lease: &str) -> Option<String> {
    ledger.claim_next(lease).unwrap().map(|s| s.op_id)
}

/// The grant, the tab confirming it shows `conversation`.
fn grant(ledger: &mut Ledger, op: &str, lease: &str, conversation: Option<&str>) {
    let shows = Confirmation {
        conversation_id: conversation.map(str::to_string),
        ..Confirmation::default()
    };
    let got = ledger.dispatch_confirmed(op, lease, Some(&shows)).unwrap();
    assert!(matches!(got, Grant::Granted(_)), "{got:?}");
}

/// Leases `tab` showing `conversation`; its lease id.
fn leased(ledger: &mut Ledger, tab: &str, conversation: Option<&str>) -> String {
    ledger.lease(&tab_in(tab, conversation)).unwrap().lease_id
}

fn with_cap(fx: &Fixture, cap: u32) -> Ledger {
    let mut ledger = fx.open();
    ledger.set_max_in_flight(cap).unwrap();
    ledger
}

#[test]
fn two_sends_in_two_conversations_go_out_at_once_under_a_cap_of_two_never_two_in_one() {
    let fx = Fixture::new();
    let mut ledger = with_cap(&fx, 2);
    let a = leased(&mut ledger, "tab-a", Some("conv-a"));
    let a2 = leased(&mut ledger, "tab-a2", Some("conv-a"));
    let b = leased(&mut ledger, "tab-b", Some("conv-b"));
    for (op, c) in [("a-1", "conv-a"), ("a-2", "conv-a"), ("b-1", "conv-b")] {
        ledger.queue(&send_to(op, Some(c)), "test").unwrap();
    }
    assert_eq!(claimed(&mut ledger, &a).as_deref(), Some("a-1"));
    assert_eq!(
        claimed(&mut ledger, &a2),
        None,
        "a second tab in conversation A waits: a-1 is in flight there"
    );
    assert_eq!(claimed(&mut ledger, &b).as_deref(), Some("b-1"));
    grant(&mut ledger, "a-1", &a, Some("conv-a"));
    grant(&mut ledger, "b-1", &b, Some("conv-b"));
    assert_eq!(ledger.status().unwrap().counts[&SendState::Dispatched], 2);
    assert!(matches!(
        ledger.waiting(&ledger.get("a-2").unwrap().unwrap()).unwrap(),
        Some(sendledger::ledger::Waiting::InFlight { op_id }) if op_id == "a-1"
    ));
    ledger.accept("a-1", &receipt("a-1"), "extension").unwrap();
    ledger
        .complete("a-1", "done", "answer", "extension")
        .unwrap();
    assert_eq!(claimed(&mut ledger, &a2).as_deref(), Some("a-2"));
}

#[test]
fn the_cap_holds_a_third_send_back_whatever_conversation_it_is_for() {
    let fx = Fixture::new();
    let mut ledger = with_cap(&fx, 2);
    let leases: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|c| {
            let conv = format!("conv-{c}");
            ledger
                .queue(&send_to(&format!("op-{c}"), Some(&conv)), "t")
                .unwrap();
            ledger
                .lease(&tab_in(&format!("tab-{c}"), Some(&conv)))
                .unwrap()
                .lease_id
        })
        .collect();
    assert!(claimed(&mut ledger, &leases[0]).is_some());
    assert!(claimed(&mut ledger, &leases[1]).is_some());
    assert_eq!(claimed(&mut ledger, &leases[2]), None, "2 of 2 in flight");
    let waiting = ledger
        .waiting(&ledger.get("op-c").unwrap().unwrap())
        .unwrap();
    assert_eq!(waiting, Some(sendledger::ledger::Waiting::AtCap { max: 2 }));
}

#[test]
fn a_tab_takes_one_send_at_a_time_even_for_two_new_chats() {
    let fx = Fixture::new();
    let mut ledger = with_cap(&fx, 3);
    let t = leased(&mut ledger, "tab-new", None);
    ledger.queue(&send_to("new-1", None), "t").unwrap();
    ledger.queue(&send_to("new-2", None), "t").unwrap();
    assert_eq!(claimed(&mut ledger, &t).as_deref(), Some("new-1"));
    grant(&mut ledger, "new-1", &t, None);
    assert_eq!(
        claimed(&mut ledger, &t),
        None,
        "the tab is busy with new-1 until its answer"
    );
    let other = leased(&mut ledger, "tab-other", None);
    assert_eq!(
        claimed(&mut ledger, &other).as_deref(),
        Some("new-2"),
        "two new chats are two conversations"
    );
}

#[test]
fn a_send_naming_the_conversation_a_new_chat_became_waits_while_that_new_chat_is_in_flight() {
    let fx = Fixture::new();
    let mut ledger = with_cap(&fx, 2);
    let t = leased(&mut ledger, "tab-new", None);
    ledger.queue(&send_to("first", None), "t").unwrap();
    assert_eq!(claimed(&mut ledger, &t).as_deref(), Some("first"));
    grant(&mut ledger, "first", &t, None);
    let named = Receipt {
        conversation_id: "conv-made".into(),
        user_message_id: "user-first".into(),
        turn_id: "turn-first".into(),
    };
    ledger.accept("first", &named, "extension").unwrap();
    // The next send continues the new chat, from another tab that shows it.
    ledger
        .queue(&send_to("next", Some("conv-made")), "t")
        .unwrap();
    let u = leased(&mut ledger, "tab-made", Some("conv-made"));
    assert_eq!(
        claimed(&mut ledger, &u),
        None,
        "the page named the new chat conv-made: 'first' is in flight there"
    );
    let err = try_raw(
        ledger.raw_connection(),
        "UPDATE sends SET state = 'claimed', lease_id = ?1 WHERE op_id = 'next'",
        [&u],
    )
    .unwrap_err();
    assert!(
        err.contains("one browser send at a time in a conversation"),
        "{err}"
    );
    ledger
        .complete("first", "answer", "answer", "extension")
        .unwrap();
    assert_eq!(claimed(&mut ledger, &u).as_deref(), Some("next"));
}

#[test]
fn a_new_chat_claimed_by_a_tab_that_shows_a_conversation_counts_as_in_it() {
    let fx = Fixture::new();
    let mut ledger = with_cap(&fx, 2);
    let a = leased(&mut ledger, "tab-a", Some("conv-a"));
    ledger.queue(&send_to("new", None), "t").unwrap();
    assert_eq!(claimed(&mut ledger, &a).as_deref(), Some("new"));
    ledger
        .queue(&send_to("for-a", Some("conv-a")), "t")
        .unwrap();
    let a2 = leased(&mut ledger, "tab-a2", Some("conv-a"));
    assert_eq!(
        claimed(&mut ledger, &a2),
        None,
        "a tab that types where it stands would put 'new' into conv-a"
    );
}

#[test]
fn a_claim_never_moves_into_a_conversation_another_send_is_in_flight_in() {
    let fx = Fixture::new();
    let mut ledger = with_cap(&fx, 2);
    let n = leased(&mut ledger, "tab-n", None);
    ledger.queue(&send_to("new", None), "t").unwrap();
    assert_eq!(claimed(&mut ledger, &n).as_deref(), Some("new"));
    let b = leased(&mut ledger, "tab-b", Some("conv-b"));
    ledger
        .queue(&send_to("for-b", Some("conv-b")), "t")
        .unwrap();
    assert_eq!(claimed(&mut ledger, &b).as_deref(), Some("for-b"));
    // The new-chat tab now shows conv-b (a person moved it): its claim cannot follow.
    ledger.lease(&tab_in("tab-n", Some("conv-b"))).unwrap();
    let moved = ledger.get("new").unwrap().unwrap();
    assert_eq!(moved.state, SendState::Rejected, "{moved:?}");
    assert!(
        moved
            .evidence
            .as_deref()
            .unwrap_or_default()
            .contains("for-b is in flight"),
        "{moved:?}"
    );
}

#[test]
fn stop_fences_every_tab_at_once_with_two_sends_in_flight() {
    let fx = Fixture::new();
    let mut ledger = with_cap(&fx, 2);
    let a = leased(&mut ledger, "tab-a", Some("conv-a"));
    let b = leased(&mut ledger, "tab-b", Some("conv-b"));
    ledger.queue(&send_to("a-1", Some("conv-a")), "t").unwrap();
    ledger.queue(&send_to("b-1", Some("conv-b")), "t").unwrap();
    assert!(claimed(&mut ledger, &a).is_some());
    assert!(claimed(&mut ledger, &b).is_some());
    ledger.stop("alice").unwrap();
    for (op, lease) in [("a-1", &a), ("b-1", &b)] {
        assert_eq!(state_of(&ledger, op), SendState::Stopped);
        let refused = ledger.dispatch(op, lease);
        assert!(refused.is_err(), "{refused:?}");
    }
}

#[test]
fn max_in_flight_outside_one_to_eight_is_refused_and_the_cap_unchanged() {
    let fx = Fixture::new();
    let mut ledger = with_cap(&fx, 3);
    for bad in [0, 9] {
        assert!(matches!(
            ledger.set_max_in_flight(bad),
            Err(LedgerError::Invalid(_))
        ));
    }
    assert_eq!(ledger.max_in_flight().unwrap(), 3);
    assert_eq!(ledger.status().unwrap().max_in_flight, 3);
}

/// A usage limit the page named on refusing a send's request (`None`: until a person).
fn limit_until(until_ms: Option<i64>) -> sendledger::ledger::PageError {
    sendledger::ledger::PageError {
        message: "Too many requests".into(),
        limit: Some(sendledger::ledger::LimitHold { until_ms }),
    }
}

/// Two tabs in two conversations with a send each claimed (cap 2): (lease a, lease b).
fn two_claimed(ledger: &mut Ledger) -> (String, String) {
    let a = leased(ledger, "tab-a", Some("conv-a"));
    let b = leased(ledger, "tab-b", Some("conv-b"));
    ledger
        .queue(&send_to("a-1", Some("conv-a")), "test")
        .unwrap();
    ledger
        .queue(&send_to("b-1", Some("conv-b")), "test")
        .unwrap();
    assert_eq!(claimed(ledger, &a).as_deref(), Some("a-1"));
    assert_eq!(claimed(ledger, &b).as_deref(), Some("b-1"));
    (a, b)
}

#[test]
fn a_claim_made_before_the_limit_gate_closed_is_not_granted_after_it() {
    let fx = Fixture::new();
    let mut ledger = with_cap(&fx, 2);
    let (a, b) = two_claimed(&mut ledger);
    grant(&mut ledger, "a-1", &a, Some("conv-a"));
    let until = fx.clock_now() + 60_000;
    ledger
        .refused("a-1", 429, &limit_until(Some(until)), "extension")
        .unwrap();
    let shows = Confirmation {
        conversation_id: Some("conv-b".into()),
        ..Confirmation::default()
    };
    let got = ledger.dispatch_confirmed("b-1", &b, Some(&shows)).unwrap();
    let Grant::Held { send, reason } = got else {
        panic!("granted into the usage limit: {got:?}");
    };
    assert_eq!(send.state, SendState::Rejected);
    assert!(reason.contains("nothing was clicked"), "{reason}");
    assert!(
        !reason.contains("text of"),
        "never the send's text: {reason}"
    );
    assert_eq!(state_of(&ledger, "b-1"), SendState::Rejected);
    assert_eq!(dispatch_events(ledger.raw_connection(), "b-1"), 0);
}

#[test]
fn a_shorter_hold_never_shortens_a_hold_until_a_person_resumes() {
    let fx = Fixture::new();
    let mut ledger = with_cap(&fx, 2);
    let (a, b) = two_claimed(&mut ledger);
    grant(&mut ledger, "a-1", &a, Some("conv-a"));
    grant(&mut ledger, "b-1", &b, Some("conv-b"));
    ledger
        .refused("a-1", 403, &limit_until(None), "extension")
        .unwrap();
    let later = fx.clock_now() + 60_000;
    ledger
        .refused("b-1", 429, &limit_until(Some(later)), "extension")
        .unwrap();
    assert_eq!(ledger.limit_gate().unwrap().until_ms, None);
    fx.clock.advance(3_600_000);
    ledger
        .queue(&send_to("a-2", Some("conv-a")), "test")
        .unwrap();
    assert_eq!(
        claimed(&mut ledger, &a),
        None,
        "the 403 holds until a person resumes, not the 429's 60 s"
    );
    assert!(ledger.resume("alice").unwrap());
    assert_eq!(claimed(&mut ledger, &a).as_deref(), Some("a-2"));
}

#[test]
fn a_later_limit_lengthens_a_shorter_hold_never_the_reverse() {
    let fx = Fixture::new();
    let mut ledger = with_cap(&fx, 2);
    let (a, b) = two_claimed(&mut ledger);
    grant(&mut ledger, "a-1", &a, Some("conv-a"));
    grant(&mut ledger, "b-1", &b, Some("conv-b"));
    let (long, short) = (fx.clock_now() + 600_000, fx.clock_now() + 60_000);
    ledger
        .refused("a-1", 429, &limit_until(Some(long)), "extension")
        .unwrap();
    ledger
        .refused("b-1", 429, &limit_until(Some(short)), "extension")
        .unwrap();
    assert_eq!(ledger.limit_gate().unwrap().until_ms, Some(long));
}

#[test]
fn a_send_whose_page_went_elsewhere_counts_in_flight_there_too() {
    let fx = Fixture::new();
    let mut ledger = with_cap(&fx, 2);
    let y = leased(&mut ledger, "tab-y", Some("conv-y"));
    let w = leased(&mut ledger, "tab-w", Some("conv-w"));
    ledger
        .queue(&send_to("a-1", Some("conv-y")), "test")
        .unwrap();
    assert_eq!(claimed(&mut ledger, &y).as_deref(), Some("a-1"));
    grant(&mut ledger, "a-1", &y, Some("conv-y"));
    ledger
        .record_page_destination("a-1", Some("conv-w"), None)
        .unwrap();
    ledger
        .queue(&send_to("b-1", Some("conv-w")), "test")
        .unwrap();
    assert_eq!(
        claimed(&mut ledger, &w),
        None,
        "a-1's answer streams in conv-w: b-1 waits"
    );
    let err = raw(
        ledger.raw_connection(),
        "UPDATE sends SET state = 'claimed', lease_id = ?1, claimed_at = ?2 WHERE op_id = 'b-1'",
        rusqlite::params![w, fx.clock_now()],
    )
    .expect_err("the trigger holds it too");
    assert!(err.contains("one_in_flight"), "{err}");
    ledger
        .queue(&send_to("y-2", Some("conv-y")), "test")
        .unwrap();
    let y2 = leased(&mut ledger, "tab-y2", Some("conv-y"));
    assert_eq!(
        claimed(&mut ledger, &y2),
        None,
        "and in conv-y, the one it named"
    );
    ledger.accept("a-1", &receipt("a-1"), "extension").unwrap();
    ledger
        .complete("a-1", "done", "answer", "extension")
        .unwrap();
    assert_eq!(claimed(&mut ledger, &w).as_deref(), Some("b-1"));
}
