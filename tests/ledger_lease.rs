//! Leases and the rules around them that no other ledger test pinned (issue 11): a lease
//! that ends frees what it claimed at once, an ended lease or a fenced epoch claims
//! nothing, and the bounds of a tab id and a conversation id are exact. Also the brake
//! from outside the owner and the refusal of a send nobody serves, at the ledger level.

mod support;

use sendledger::api::{self, Caller, Request};
use sendledger::ledger::{
    unbound_epoch, Ledger, LedgerError, QueueRequest, SendState, RELEASED_BEFORE_GRANT,
};
use sendledger::ledger::{LedgerRead, TabBinding};
use support::*;

fn claimed(ledger: &mut Ledger, tab_id: &str, op: &str) -> String {
    ledger.queue(&request(op, "held by a tab"), "test").unwrap();
    let lease = ledger.lease(&tab(tab_id)).unwrap().lease_id;
    let send = ledger.claim_next(&lease).unwrap().expect("claimed");
    assert_eq!(send.op_id, op);
    lease
}

#[test]
fn a_send_claimed_by_a_lease_that_ends_is_rejected_at_once_and_the_next_send_goes_out() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = claimed(&mut ledger, "tab-1", "op-held");
    ledger.queue(&request("op-next", "next"), "test").unwrap();
    let released = ledger.end_lease(&lease, "the tab closed").unwrap();
    assert_eq!(released, ["op-held"]);
    let send = ledger.get("op-held").unwrap().unwrap();
    assert_eq!(
        send.state,
        SendState::Rejected,
        "no grant was asked: nothing was clicked"
    );
    let evidence = send.evidence.unwrap_or_default();
    assert!(
        evidence.starts_with(RELEASED_BEFORE_GRANT) && evidence.contains("the tab closed"),
        "the true reason: {evidence}"
    );
    // No clock advance: the queue moves on at once, not after the claim bound.
    let other = ledger.lease(&tab("tab-2")).unwrap().lease_id;
    let next = ledger
        .claim_next(&other)
        .unwrap()
        .expect("the next send is claimed at once");
    assert_eq!(next.op_id, "op-next");
}

#[test]
fn leasing_a_tab_again_ends_its_old_lease_and_hands_a_fitting_claim_to_the_new_one() {
    // Issue 12: a send naming no conversation goes into the conversation the tab shows
    // now (the new-chat race), instead of being rejected with the old lease.
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let old = claimed(&mut ledger, "tab-1", "op-held");
    let new = ledger.lease(&tab("tab-1")).unwrap().lease_id;
    let held = ledger.get("op-held").unwrap().unwrap();
    assert_eq!(
        held.state,
        SendState::Claimed,
        "nothing was clicked: still claimed"
    );
    assert_eq!(
        held.lease_id.as_deref(),
        Some(new.as_str()),
        "by the new lease"
    );
    assert!(ledger.get_lease(&old).unwrap().ended_at.is_some());
    assert!(matches!(
        ledger.dispatch("op-held", &old),
        Err(LedgerError::NotGranted(_))
    ));
    ledger
        .dispatch("op-held", &new)
        .expect("granted under the new lease");
}

#[test]
fn a_new_lease_names_the_claims_it_took_over_and_not_one_it_rejected() {
    // Issue 39: a tab that moved to a new chat in place types the claim its new lease
    // names at once; one the owner rejected instead must not be named.
    let fx = Fixture::new();
    let mut ledger = fx.open();
    ledger.set_max_in_flight(2).unwrap();
    let bound = |t: &str, c: Option<&str>| sendledger::ledger::TabBinding {
        tab_id: t.into(),
        conversation_id: c.map(Into::into),
        ..Default::default()
    };
    claimed(&mut ledger, "tab-1", "op-new"); // a new chat's send, claimed by the tab's lease
    let (lease, moved) = ledger.lease_taking_claims(&bound("tab-1", None)).unwrap();
    assert_eq!(
        moved,
        ["op-new"],
        "the claim naming no conversation moved with the tab"
    );
    let held = ledger.get("op-new").unwrap().unwrap();
    assert_eq!(held.lease_id.as_deref(), Some(lease.lease_id.as_str()));
    // Another tab has a send in flight in conversation b; the tab leases again showing b.
    let other = ledger
        .lease(&bound("tab-2", Some("conv-b")))
        .unwrap()
        .lease_id;
    ledger
        .queue(
            &QueueRequest {
                op_id: Some("op-b".into()),
                text: "for conversation b".into(),
                conversation_id: Some("conv-b".into()),
                ..Default::default()
            },
            "test",
        )
        .unwrap();
    assert_eq!(ledger.claim_next(&other).unwrap().unwrap().op_id, "op-b");
    let (_, moved) = ledger
        .lease_taking_claims(&bound("tab-1", Some("conv-b")))
        .unwrap();
    assert!(
        moved.is_empty(),
        "a claim rejected is not named as taken over: {moved:?}"
    );
    assert_eq!(state_of(&ledger, "op-new"), SendState::Rejected);
}

#[test]
fn leasing_a_tab_again_for_another_conversation_frees_a_claim_that_does_not_fit() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let bound = |c: &str| sendledger::ledger::TabBinding {
        tab_id: "tab-1".into(),
        conversation_id: Some(c.into()),
        ..Default::default()
    };
    let old = ledger.lease(&bound("conv-a")).unwrap().lease_id;
    ledger
        .queue(
            &sendledger::ledger::QueueRequest {
                op_id: Some("op-held".into()),
                text: "for conversation a".into(),
                conversation_id: Some("conv-a".into()),
                ..Default::default()
            },
            "test",
        )
        .unwrap();
    assert_eq!(ledger.claim_next(&old).unwrap().unwrap().op_id, "op-held");
    let new = ledger.lease(&bound("conv-b")).unwrap().lease_id;
    assert_eq!(state_of(&ledger, "op-held"), SendState::Rejected);
    ledger.queue(&request("op-2", "second"), "test").unwrap();
    assert_eq!(ledger.claim_next(&new).unwrap().unwrap().op_id, "op-2");
}

#[test]
fn an_ended_lease_claims_nothing_and_ending_it_twice_changes_nothing() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = ledger.lease(&tab("tab-1")).unwrap().lease_id;
    ledger.end_lease(&lease, "navigated away").unwrap();
    ledger.queue(&request("op-1", "waiting"), "test").unwrap();
    assert!(
        matches!(ledger.claim_next(&lease), Err(LedgerError::LeaseEnded(_))),
        "an ended lease is refused"
    );
    let ended = ledger.get_lease(&lease).unwrap().ended_at;
    assert!(ended.is_some());
    fx.clock.advance(5);
    assert!(ledger.end_lease(&lease, "again").unwrap().is_empty());
    assert_eq!(
        ledger.get_lease(&lease).unwrap().ended_at,
        ended,
        "ended once"
    );
    assert!(matches!(
        ledger.end_lease("no-such-lease", "x"),
        Err(LedgerError::UnknownLease(_))
    ));
    assert_eq!(state_of(&ledger, "op-1"), SendState::Queued);
}

#[test]
fn a_closed_gate_alone_refuses_a_claim_with_the_epoch_stopped_sentence() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = ledger.lease(&tab("tab-1")).unwrap().lease_id;
    ledger.queue(&request("op-1", "waiting"), "test").unwrap();
    // The gate closed without the lease's epoch fenced: either alone refuses.
    raw(ledger.raw_connection(), "UPDATE gate SET closed = 1", []).unwrap();
    let refused = ledger.claim_next(&lease).unwrap_err();
    assert!(matches!(refused, LedgerError::EpochStopped), "{refused:?}");
    assert!(refused
        .to_string()
        .starts_with("epoch stopped: resume first"));
    assert_eq!(state_of(&ledger, "op-1"), SendState::Queued);
}

#[test]
fn a_fenced_lease_epoch_alone_refuses_a_claim_in_rust_before_any_trigger() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = ledger.lease(&tab("tab-1")).unwrap();
    ledger.queue(&request("op-1", "waiting"), "test").unwrap();
    // The lease's epoch fenced while the gate is open (only SQL can make this state):
    // no trigger guards a claim, so only the Rust-side check refuses it.
    raw(
        ledger.raw_connection(),
        "INSERT INTO stopped_epochs(epoch, lease_id, generation, stopped_at, stopped_by) VALUES (?1, ?2, 0, 1, 'test')",
        rusqlite::params![lease.epoch, lease.lease_id],
    )
    .unwrap();
    let refused = ledger.claim_next(&lease.lease_id).unwrap_err();
    assert!(matches!(refused, LedgerError::EpochStopped), "{refused:?}");
    assert!(
        refused.to_string().contains("resume first"),
        "the sentence says what to do: {refused}"
    );
    assert_eq!(state_of(&ledger, "op-1"), SendState::Queued);
}

#[test]
fn a_tab_id_of_1_to_128_bytes_is_leased_and_empty_or_129_is_refused() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    for ok in ["7".to_string(), "t".repeat(127), "t".repeat(128)] {
        ledger
            .lease(&tab(&ok))
            .unwrap_or_else(|e| panic!("{} bytes: {e}", ok.len()));
    }
    for bad in [String::new(), "t".repeat(129), "t".repeat(1000)] {
        let before = dump(ledger.raw_connection());
        let e = ledger.lease(&tab(&bad)).unwrap_err();
        assert!(
            matches!(&e, LedgerError::Invalid(m) if m.contains("1 to 128")),
            "{} bytes: {e:?}",
            bad.len()
        );
        assert_eq!(dump(ledger.raw_connection()), before, "nothing written");
    }
}

#[test]
fn a_conversation_id_of_128_bytes_is_queued_and_129_is_refused() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let with = |op: &str, c: String| QueueRequest {
        op_id: Some(op.into()),
        text: "for a named conversation".into(),
        conversation_id: Some(c),
        ..Default::default()
    };
    ledger
        .queue(&with("op-128", "c".repeat(128)), "test")
        .unwrap();
    ledger.queue(&with("op-1", "c".into()), "test").unwrap();
    for (op, bad) in [
        ("op-129", "c".repeat(129)),
        ("op-0", String::new()),
        ("op-ctl", "a\u{7}".into()),
    ] {
        let e = ledger.queue(&with(op, bad), "test").unwrap_err();
        assert!(
            matches!(&e, LedgerError::Invalid(m) if m.contains("1 to 128 printable")),
            "{op}: {e:?}"
        );
        assert!(ledger.get(op).unwrap().is_none(), "{op}: nothing written");
    }
}

/// A lease names the ids its page shows within the bounds a send has: 1 to 128 printable
/// characters each (a 12,000-character conversation id was leased).
#[test]
fn a_lease_binds_page_ids_of_1_to_128_printable_characters() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let ok = sendledger::ledger::TabBinding {
        tab_id: "1".into(),
        conversation_id: Some("c".repeat(128)),
        thread_id: Some("t".repeat(128)),
        workspace_id: Some("w".repeat(128)),
        site: Default::default(),
    };
    ledger.lease(&ok).unwrap();
    for (what, bad) in [
        ("conversation id", "c".repeat(12_000)),
        ("thread id", "t".repeat(129)),
        ("workspace id", String::new()),
        ("conversation id", "a\u{0}".into()),
    ] {
        let mut binding = ok.clone();
        match what {
            "conversation id" => binding.conversation_id = Some(bad),
            "thread id" => binding.thread_id = Some(bad),
            _ => binding.workspace_id = Some(bad),
        }
        let before = dump(ledger.raw_connection());
        let e = ledger.lease(&binding).unwrap_err();
        assert!(
            matches!(&e, LedgerError::Invalid(m) if m.starts_with(what) && m.contains("1 to 128 printable")),
            "{what}: {e:?}"
        );
        assert_eq!(
            dump(ledger.raw_connection()),
            before,
            "{what}: nothing written"
        );
    }
}

#[test]
fn an_offline_caller_cannot_admit_a_send_and_writes_nothing() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-stopped", SendState::Stopped);
    ledger.resume("alice").unwrap();
    let before = dump(ledger.raw_connection());
    for req in [
        Request::Queue {
            send: request("op-new", "would never leave the host"),
            actor: "cli".into(),
        },
        Request::Requeue {
            op_id: "op-stopped".into(),
            by: "alice".into(),
        },
    ] {
        let e = api::apply_as(Caller::Offline, &mut ledger, &req).unwrap_err();
        assert!(matches!(e, LedgerError::NoOwner), "{e:?}");
        assert!(e.to_string().contains("sendledger serve"), "{e}");
        assert_eq!(dump(ledger.raw_connection()), before, "nothing written");
    }
    // What cannot doom a send still works offline, and the owner may queue.
    api::apply_as(
        Caller::Offline,
        &mut ledger,
        &Request::Stop { by: "alice".into() },
    )
    .unwrap();
    ledger.resume("alice").unwrap();
    let owner = Request::Queue {
        send: request("op-new", "served"),
        actor: "owner".into(),
    };
    api::apply(&mut ledger, &owner).unwrap();
    assert_eq!(state_of(&ledger, "op-new"), SendState::Queued);
}

#[test]
fn stop_from_outside_commits_the_whole_fence_while_the_owner_holds_the_profile() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = claimed(&mut ledger, "tab-1", "op-claimed");
    ledger
        .queue(&request("op-queued", "behind it"), "test")
        .unwrap();
    // The owner (this handle) keeps the profile; the fence comes from another connection.
    let report = Ledger::stop_from_outside(&fx.profile, "alice", &fx.clock).unwrap();
    assert_eq!(report.stopped, ["op-claimed", "op-queued"]);
    assert!(report.epochs.contains(&unbound_epoch(0)));
    assert!(ledger.status().unwrap().gate_closed);
    assert!(matches!(
        ledger.dispatch("op-claimed", &lease),
        Err(LedgerError::NotGranted(_))
    ));
    assert!(matches!(
        ledger.queue(&request("op-late", "too late"), "test"),
        Err(LedgerError::EpochStopped)
    ));
    assert!(matches!(
        ledger.lease(&tab("tab-2")),
        Err(LedgerError::EpochStopped)
    ));
    let by: String = ledger
        .raw_connection()
        .query_row(
            "SELECT by FROM gate_events ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(by, "alice");
}

#[test]
fn a_long_release_reason_is_kept_to_256_bytes_cut_on_a_character_boundary() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = claimed(&mut ledger, "tab-1", "op-held");
    let reason = "€".repeat(100); // 300 bytes; byte 256 falls inside a character
    ledger.end_lease(&lease, &reason).unwrap();
    let evidence = ledger.get("op-held").unwrap().unwrap().evidence.unwrap();
    let kept = evidence
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(r, _)| r)
        .unwrap();
    assert_eq!(
        kept,
        "€".repeat(85),
        "the longest whole-character prefix of 256 bytes"
    );
}

/// A tab on a new chat (its lease binds no conversation) sends "op-new", which the page
/// accepts into conversation `conv-created` and answers; returns the lease.
fn new_chat_sent(ledger: &mut Ledger) -> String {
    let lease = ledger.lease(&tab("tab-1")).unwrap().lease_id;
    ledger
        .queue(&request("op-new", "the first words of a new chat"), "test")
        .unwrap();
    assert_eq!(ledger.claim_next(&lease).unwrap().unwrap().op_id, "op-new");
    ledger.dispatch("op-new", &lease).unwrap();
    let created = sendledger::ledger::Receipt {
        conversation_id: "conv-created".into(),
        user_message_id: "msg-1".into(),
        turn_id: "turn-1".into(),
    };
    ledger.accept("op-new", &created, "test").unwrap();
    ledger
        .complete("op-new", "answer-1", "the answer", "test")
        .unwrap();
    lease
}

fn for_conversation(op: &str, c: &str) -> QueueRequest {
    QueueRequest {
        op_id: Some(op.into()),
        text: format!("meant for {c}"),
        conversation_id: Some(c.into()),
        ..Default::default()
    }
}

#[test]
fn a_new_chat_lease_whose_send_got_its_conversation_claims_no_send_for_another() {
    // The browser race behind a rejected send: a tab on a new chat sent, the page moved to
    // the new conversation in place, and before the tab leased again for it, its old lease's
    // long-poll claimed a send for another conversation — which the new lease then rejected
    // ("the tab leased again"). The old lease now waits; the new one takes the send.
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = new_chat_sent(&mut ledger);
    ledger
        .queue(&for_conversation("op-away", "conv-a"), "test")
        .unwrap();
    assert!(
        ledger.claim_next(&lease).unwrap().is_none(),
        "the lease of a tab on its way to conv-created claims no send for conv-a"
    );
    let moved = TabBinding {
        tab_id: "tab-1".into(),
        conversation_id: Some("conv-created".into()),
        ..Default::default()
    };
    let new = ledger.lease(&moved).unwrap().lease_id;
    let send = ledger
        .claim_next(&new)
        .unwrap()
        .expect("the new lease takes it");
    assert_eq!(send.op_id, "op-away", "and the tab goes to conv-a for it");
}

#[test]
fn a_new_chat_lease_whose_send_got_its_conversation_still_claims_a_send_for_it() {
    // What the tab's next lease takes over is still handed to the old one meanwhile.
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = new_chat_sent(&mut ledger);
    ledger
        .queue(&for_conversation("op-there", "conv-created"), "test")
        .unwrap();
    let there = ledger
        .claim_next(&lease)
        .unwrap()
        .expect("it fits the new chat");
    assert_eq!(there.op_id, "op-there");
}
