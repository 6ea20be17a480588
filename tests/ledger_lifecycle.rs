//! The send lifecycle (issue 2): every edge at the API and at the SQL level, payload,
//! receipt and audit immutability, one send in flight, the idempotent queue, resolve
//! provenance, receipt rules, text normalisation and bad input.

mod support;

use sendledger::clock::Millis;
use sendledger::ledger::LedgerRead;
use sendledger::ledger::{
    Bounds, Decision, Ledger, LedgerError, QueueRequest, Resolution, SendState, MAX_OP_ID_BYTES,
};
use sendledger::send_text::MAX_TEXT_BYTES;
use std::collections::BTreeSet;
use support::*;

/// What the API can do to a send; each targets the send under test or sweeps the profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Act {
    Claim,
    Dispatch,
    Fail,
    Accept,
    Complete,
    Confirm,
    Abandon,
    PageError,
    Stop,
    Restart,
    Expire,
}

const ACTS: [Act; 11] = [
    Act::Claim,
    Act::Dispatch,
    Act::Fail,
    Act::Accept,
    Act::Complete,
    Act::Confirm,
    Act::Abandon,
    Act::PageError,
    Act::Stop,
    Act::Restart,
    Act::Expire,
];

/// The API's edges, as DESIGN.md draws them: (from, act, to). Any (state, act) not
/// listed must leave the send where it is.
const API_EDGES: &[(SendState, Act, SendState)] = {
    use SendState::*;
    &[
        (Queued, Act::Claim, Claimed),
        (Queued, Act::Stop, Stopped),
        (Queued, Act::Restart, Rejected),
        (Claimed, Act::Dispatch, Dispatched),
        (Claimed, Act::Fail, Rejected),
        (Claimed, Act::Stop, Stopped),
        (Claimed, Act::Restart, Uncertain),
        (Claimed, Act::Expire, Rejected),
        (Dispatched, Act::Accept, Accepted),
        (Dispatched, Act::Fail, Uncertain),
        (Dispatched, Act::Restart, Uncertain),
        (Dispatched, Act::Expire, Uncertain),
        (Accepted, Act::Complete, Completed),
        (Accepted, Act::PageError, PageError),
        (Uncertain, Act::Accept, Accepted),
        (Uncertain, Act::Confirm, Confirmed),
        (Uncertain, Act::Abandon, Abandoned),
    ]
};

/// Acts aimed at one send: when they are not an edge they must be refused, writing nothing
/// (a repeated identical receipt is the one accepted no-op).
fn targeted(act: Act) -> bool {
    matches!(
        act,
        Act::Dispatch
            | Act::Fail
            | Act::Accept
            | Act::Complete
            | Act::Confirm
            | Act::Abandon
            | Act::PageError
    )
}

fn perform(
    fx: &Fixture,
    mut ledger: Ledger,
    op: &str,
    lease: &str,
    act: Act,
) -> (Ledger, Result<(), LedgerError>) {
    let result = match act {
        Act::Claim => ledger.claim_next(lease).map(drop),
        Act::Dispatch => ledger.dispatch(op, lease).map(drop),
        Act::Fail => ledger
            .fail(op, "the tab reported an error", "extension")
            .map(drop),
        Act::Accept => ledger.accept(op, &receipt(op), "extension").map(drop),
        Act::Complete => ledger
            .complete(op, "answer-1", "the answer", "extension")
            .map(drop),
        Act::Confirm => ledger.resolve(op, &decision(Decision::Confirmed)).map(drop),
        Act::Abandon => ledger.resolve(op, &decision(Decision::Abandoned)).map(drop),
        Act::PageError => ledger
            .page_error(op, &page_said("Something went wrong."), "extension")
            .map(drop),
        Act::Stop => ledger.stop("alice").map(drop),
        Act::Restart => {
            let (l, _) = fx.restart(ledger);
            ledger = l;
            Ok(())
        }
        Act::Expire => {
            fx.clock.advance(3_600_000);
            ledger.expire(&Bounds::default()).map(drop)
        }
    };
    (ledger, result)
}

#[test]
fn api_makes_every_legal_edge_and_refuses_every_illegal_one() {
    let mut made = BTreeSet::new();
    for from in SendState::ALL {
        for act in ACTS {
            let fx = Fixture::new();
            let mut ledger = fx.open();
            let lease = drive_to(&mut ledger, "op-1", from).unwrap_or_else(|| {
                // Queued and stopped sends have no lease yet; a stopped gate refuses one.
                ledger
                    .lease(&tab("tab-1"))
                    .map(|l| l.lease_id)
                    .unwrap_or_else(|_| "no-lease".into())
            });
            let before = dump(ledger.raw_connection());
            let events_before = transitions(ledger.raw_connection(), "op-1").len();
            let (ledger, result) = perform(&fx, ledger, "op-1", &lease, act);
            let now = state_of(&ledger, "op-1");
            let events = transitions(ledger.raw_connection(), "op-1");
            match API_EDGES.iter().find(|(f, a, _)| *f == from && *a == act) {
                Some((_, _, to)) => {
                    assert!(
                        result.is_ok(),
                        "{from} --{act:?}--> {to} is legal, got {result:?}"
                    );
                    assert_eq!(now, *to, "{from} --{act:?}--> must reach {to}");
                    assert_eq!(
                        events[events_before..],
                        [(Some(from.to_string()), to.to_string())],
                        "{from} --{act:?}--> {to} appends exactly its transition event"
                    );
                    made.insert((from, *to));
                }
                None => {
                    assert_eq!(
                        now, from,
                        "{act:?} must not move a {from} send (got {now}, {result:?})"
                    );
                    assert_eq!(
                        events.len(),
                        events_before,
                        "{act:?} on {from}: no transition event"
                    );
                    if targeted(act) {
                        let same_receipt_again = act == Act::Accept
                            && matches!(
                                from,
                                SendState::Accepted | SendState::Completed | SendState::PageError
                            );
                        let same_page_error_again =
                            act == Act::PageError && from == SendState::PageError;
                        assert!(
                            result.is_err() || same_receipt_again || same_page_error_again,
                            "{act:?} on a {from} send must be refused, got {result:?}"
                        );
                        assert_eq!(
                            before,
                            dump(ledger.raw_connection()),
                            "{act:?} on a {from} send wrote nothing"
                        );
                    }
                }
            }
        }
    }
    let design: BTreeSet<_> = DESIGN_EDGES.into_iter().collect();
    assert_eq!(made, design, "the API reaches exactly DESIGN.md's edges");
}

#[test]
fn sql_trigger_refuses_every_illegal_edge_and_passes_every_legal_one() {
    for from in SendState::ALL {
        let fx = Fixture::new();
        let mut ledger = drive_ready(&fx, from);
        if from == SendState::Stopped {
            ledger.resume("alice").unwrap(); // so that only the edge rule can refuse
        }
        // An active, unfenced lease: the dispatch fence has no reason to refuse, so every
        // refusal below is the edge rule's.
        let lease = ledger.lease(&tab("tab-sql")).unwrap().lease_id;
        let conn = ledger.raw_connection();
        for to in SendState::ALL.into_iter().filter(|to| *to != from) {
            conn.execute_batch("BEGIN IMMEDIATE").unwrap();
            let result = conn.execute(
                "UPDATE sends SET state = ?1, lease_id = ?2 WHERE op_id = 'op-1'",
                [to.as_str(), lease.as_str()],
            );
            let appended: i64 = conn
                .query_row(
                    "SELECT count(*) FROM events WHERE op_id = 'op-1' AND kind = 'transition' \
                     AND from_state = ?1 AND to_state = ?2",
                    [from.as_str(), to.as_str()],
                    |r| r.get(0),
                )
                .unwrap();
            conn.execute_batch("ROLLBACK").unwrap();
            if design_allows(from, to) {
                assert_eq!(
                    result.as_ref().ok(),
                    Some(&1),
                    "raw {from} -> {to} is legal: {result:?}"
                );
                assert_eq!(appended, 1, "raw {from} -> {to} appends its audit event");
            } else {
                let err = result.expect_err(&format!("raw {from} -> {to} must be refused"));
                // A stopped send's own epoch stays fenced, so the fence may refuse first.
                let fenced = from == SendState::Stopped && to == SendState::Dispatched;
                assert!(
                    err.to_string().contains("illegal state edge")
                        || (fenced && err.to_string().contains("epoch stopped")),
                    "raw {from} -> {to} refused as an illegal edge, got {err}"
                );
            }
        }
        assert_eq!(state_of(&ledger, "op-1"), from);
        ledger
            .queue(&request("op-2", "still writable"), "test")
            .ok();
    }
}

/// A fresh ledger with op-1 in `from`.
fn drive_ready(fx: &Fixture, from: SendState) -> Ledger {
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", from);
    ledger
}

#[test]
fn send_payload_is_immutable_in_sql() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Rejected);
    let resend = ledger.requeue("op-1", "alice").unwrap();
    let conn = ledger.raw_connection();
    let before = dump(conn);
    for (column, value) in [
        ("text", "'another text'"),
        ("conversation_id", "'conv-other'"),
        ("epoch", "'0000'"),
        ("op_id", "'op-renamed'"),
        ("created_at", "42"),
        ("seq", "999"),
        ("resend_of", "NULL"),
    ] {
        let err = try_raw(
            conn,
            &format!("UPDATE sends SET {column} = {value} WHERE op_id = ?1"),
            [&resend.op_id],
        )
        .expect_err(&format!("changing {column} must be refused"));
        assert!(err.contains("send payload is immutable"), "{column}: {err}");
    }
    let err = try_raw(conn, "DELETE FROM sends WHERE op_id = 'op-1'", []).unwrap_err();
    assert!(err.contains("sends are never deleted"), "{err}");
    assert_eq!(before, dump(conn), "nothing changed");
}

#[test]
fn receipt_is_immutable_in_sql() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Accepted);
    let conn = ledger.raw_connection();
    let before = dump(conn);
    for (column, value) in [
        ("conversation_id", "'conv-other'"),
        ("user_message_id", "'msg-other'"),
        ("turn_id", "'turn-other'"),
        ("observed_at", "1"),
        ("op_id", "'op-2'"),
    ] {
        let err = try_raw(conn, &format!("UPDATE receipts SET {column} = {value}"), [])
            .expect_err(&format!("changing the receipt's {column} must be refused"));
        assert!(err.contains("receipt is immutable"), "{column}: {err}");
    }
    let err = try_raw(conn, "DELETE FROM receipts", []).unwrap_err();
    assert!(err.contains("receipt is immutable"), "{err}");
    assert_eq!(before, dump(conn));
}

#[test]
fn audit_events_are_append_only_in_sql() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Completed);
    let conn = ledger.raw_connection();
    let before = dump(conn);
    for set in [
        "to_state = 'queued'",
        "actor = 'mallory'",
        "evidence = NULL",
        "at = 0",
    ] {
        let err = try_raw(conn, &format!("UPDATE events SET {set}"), []).unwrap_err();
        assert!(err.contains("audit events are append-only"), "{set}: {err}");
    }
    let err = try_raw(conn, "DELETE FROM events", []).unwrap_err();
    assert!(err.contains("audit events are append-only"), "{err}");
    assert_eq!(before, dump(conn));
}

#[test]
fn dispatch_time_is_written_once_in_sql() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Uncertain);
    let conn = ledger.raw_connection();
    for value in ["NULL", "1"] {
        let err = try_raw(
            conn,
            &format!("UPDATE sends SET dispatched_at = {value}"),
            [],
        )
        .unwrap_err();
        assert!(err.contains("dispatch is recorded once"), "{value}: {err}");
    }
}

#[test]
fn one_send_in_flight_while_another_is_claimed_dispatched_or_awaiting_its_answer() {
    for holder in [
        SendState::Claimed,
        SendState::Dispatched,
        SendState::Accepted,
    ] {
        let fx = Fixture::new();
        let mut ledger = fx.open();
        let lease = drive_to(&mut ledger, "op-1", holder).unwrap();
        ledger.queue(&request("op-2", "second"), "test").unwrap();
        let other = ledger.lease(&tab("tab-other")).unwrap().lease_id;
        for l in [&lease, &other] {
            assert_eq!(
                ledger.claim_next(l).unwrap(),
                None,
                "nothing is handed out while op-1 is {holder}"
            );
        }
        let err = try_raw(
            ledger.raw_connection(),
            "UPDATE sends SET state = 'claimed' WHERE op_id = 'op-2'",
            [],
        )
        .unwrap_err();
        // The default cap (max_in_flight 1) is the database's refusal too.
        assert!(
            err.contains("max_in_flight sends are in flight already"),
            "{holder}: {err}"
        );
        assert_eq!(ledger.status().unwrap().in_flight.as_deref(), Some("op-1"));
        // Settling the holder frees the slot.
        match holder {
            SendState::Claimed => drop(ledger.fail("op-1", "gone", "extension").unwrap()),
            SendState::Dispatched => drop(ledger.fail("op-1", "gone", "extension").unwrap()),
            _ => drop(
                ledger
                    .complete("op-1", "a-1", "answer", "extension")
                    .unwrap(),
            ),
        }
        let next = ledger
            .claim_next(&other)
            .unwrap()
            .expect("the slot is free again");
        assert_eq!(next.op_id, "op-2");
    }
}

#[test]
fn queue_is_idempotent_per_operation_id() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let req = QueueRequest {
        op_id: Some("op-1".into()),
        text: "hello\r\nworld".into(),
        conversation_id: Some("conv-1".into()),
        ..Default::default()
    };
    let (first, created) = ledger.queue(&req, "client").unwrap();
    assert!(created);
    let before = dump(ledger.raw_connection());
    fx.clock.advance(1_000);
    let (again, created) = ledger.queue(&req, "another client").unwrap();
    assert!(
        !created,
        "the same operation id and payload is the same send"
    );
    assert_eq!(again, first);
    let lf = QueueRequest {
        text: "hello\nworld".into(),
        ..req.clone()
    };
    let (same, created) = ledger.queue(&lf, "client").unwrap();
    assert!(
        !created && same == first,
        "the payload is compared after normalisation"
    );
    assert_eq!(
        before,
        dump(ledger.raw_connection()),
        "idempotent queues write nothing"
    );
}

#[test]
fn queue_of_a_finished_operation_returns_it_and_never_sends_it_again() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Completed);
    let before = dump(ledger.raw_connection());
    let (send, created) = ledger
        .queue(&request("op-1", "text of op-1"), "client")
        .unwrap();
    assert!(!created);
    assert_eq!(send.state, SendState::Completed);
    assert_eq!(before, dump(ledger.raw_connection()));
}

#[test]
fn operation_identity_payload_changed_is_refused_with_nothing_written() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let req = QueueRequest {
        op_id: Some("op-1".into()),
        text: "hello".into(),
        conversation_id: Some("conv-1".into()),
        ..Default::default()
    };
    ledger.queue(&req, "client").unwrap();
    let before = dump(ledger.raw_connection());
    for changed in [
        QueueRequest {
            text: "hello ".into(),
            ..req.clone()
        },
        QueueRequest {
            conversation_id: Some("conv-2".into()),
            ..req.clone()
        },
        QueueRequest {
            conversation_id: None,
            ..req.clone()
        },
    ] {
        let e = assert_refused(
            ledger.queue(&changed, "client"),
            "operation identity payload changed",
        );
        assert_eq!(e.code(), "payload_changed");
    }
    assert_eq!(before, dump(ledger.raw_connection()));
}

#[test]
fn resolve_records_who_when_and_evidence_in_the_timeline() {
    for d in [Decision::Confirmed, Decision::Abandoned] {
        let fx = Fixture::new();
        let mut ledger = fx.open();
        drive_to(&mut ledger, "op-1", SendState::Uncertain);
        fx.clock.advance(5_000);
        let at: Millis = fx.clock_now();
        let r = Resolution {
            decision: d,
            by: "bob".into(),
            evidence: "saw it in the conversation at 10:02".into(),
        };
        let resolved = ledger.resolve("op-1", &r).unwrap();
        assert!(resolved.resent_as.is_none());
        let last = ledger.timeline("op-1").unwrap().pop().unwrap();
        assert_eq!(last.from, Some(SendState::Uncertain));
        assert_eq!(last.actor, "bob", "who decided");
        assert_eq!(last.at, at, "when");
        assert_eq!(
            last.evidence.as_deref(),
            Some("saw it in the conversation at 10:02")
        );
    }
}

#[test]
fn resolve_requires_who_and_evidence_and_an_uncertain_send() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Uncertain);
    drive_to(&mut ledger, "op-2", SendState::Queued);
    let before = dump(ledger.raw_connection());
    let nobody = Resolution {
        by: " ".into(),
        ..decision(Decision::Confirmed)
    };
    assert_refused(
        ledger.resolve("op-1", &nobody),
        "who decided (--by) is required",
    );
    let no_evidence = Resolution {
        evidence: "".into(),
        ..decision(Decision::Confirmed)
    };
    assert_refused(ledger.resolve("op-1", &no_evidence), "evidence is required");
    assert_refused(
        ledger.resolve("op-2", &decision(Decision::Confirmed)),
        "cannot be resolved",
    );
    assert_refused(
        ledger.resolve("nope", &decision(Decision::Confirmed)),
        "no send with operation id",
    );
    assert_eq!(before, dump(ledger.raw_connection()));
}

#[test]
fn resend_abandons_and_queues_a_new_operation_linked_to_the_old() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Uncertain);
    let resolved = ledger.resolve("op-1", &decision(Decision::Resend)).unwrap();
    assert_eq!(
        resolved.send.state,
        SendState::Abandoned,
        "the old send is abandoned"
    );
    let new = resolved.resent_as.expect("a resend queues a new operation");
    assert_ne!(new.op_id, "op-1");
    assert_eq!(new.resend_of.as_deref(), Some("op-1"), "linked to the old");
    assert_eq!(new.state, SendState::Queued);
    assert_eq!(new.text, "text of op-1");
    let old_last = ledger.timeline("op-1").unwrap().pop().unwrap();
    assert_eq!(old_last.actor, "alice");
    assert!(old_last.evidence.unwrap().contains("resend as new"));
    let admission = &ledger.timeline(&new.op_id).unwrap()[0];
    assert_eq!(
        (admission.from, admission.actor.as_str()),
        (None, "alice"),
        "who resent it"
    );
    assert_refused(
        ledger.resolve("op-1", &decision(Decision::Resend)),
        "cannot be resolved",
    );
}

#[test]
fn requeue_of_a_rejected_or_stopped_send_queues_a_linked_operation_once() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Rejected);
    let new = ledger.requeue("op-1", "alice").unwrap();
    assert_eq!(
        (new.resend_of.as_deref(), new.state),
        (Some("op-1"), SendState::Queued)
    );
    assert_eq!(
        ledger.requeue("op-1", "alice").unwrap().op_id,
        new.op_id,
        "asking twice: same op"
    );
    assert_eq!(
        state_of(&ledger, "op-1"),
        SendState::Rejected,
        "the old send keeps its bin"
    );

    drive_to(&mut ledger, "op-2", SendState::Stopped);
    assert_refused(
        ledger.requeue("op-2", "alice"),
        "epoch stopped: resume first",
    );
    assert!(ledger.resume("alice").unwrap());
    let again = ledger.requeue("op-2", "alice").unwrap();
    assert_eq!(again.resend_of.as_deref(), Some("op-2"));

    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-3", SendState::Uncertain);
    assert_refused(
        ledger.requeue("op-3", "alice"),
        "only stopped, rejected or page_error",
    );
}

#[test]
fn receipt_precedes_durable_dispatch_is_refused() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Claimed);
    let before = dump(ledger.raw_connection());
    let e = assert_refused(
        ledger.accept("op-1", &receipt("op-1"), "extension"),
        "receipt precedes durable dispatch",
    );
    assert_eq!(e.code(), "receipt_before_dispatch");
    let err = try_raw(
        ledger.raw_connection(),
        "INSERT INTO receipts(op_id, conversation_id, user_message_id, turn_id, observed_at) \
         VALUES ('op-1', 'c', 'u', 't', 1)",
        [],
    )
    .unwrap_err();
    assert!(err.contains("receipt precedes durable dispatch"), "{err}");
    assert_eq!(before, dump(ledger.raw_connection()));
}

#[test]
fn native_receipt_owner_changed_is_refused() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Accepted);
    let before = dump(ledger.raw_connection());
    let mut other = receipt("op-1");
    other.turn_id = "turn-other".into();
    let e = assert_refused(
        ledger.accept("op-1", &other, "extension"),
        "native receipt owner changed",
    );
    assert_eq!(e.code(), "receipt_owner_changed");
    ledger
        .accept("op-1", &receipt("op-1"), "extension")
        .expect("the same receipt again is a no-op");
    assert_eq!(before, dump(ledger.raw_connection()));
}

#[test]
fn one_receipt_belongs_to_one_send() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Completed);
    let lease = ledger.lease(&tab("tab-2")).unwrap().lease_id;
    ledger.queue(&request("op-2", "second"), "test").unwrap();
    ledger.claim_next(&lease).unwrap().unwrap();
    ledger.dispatch("op-2", &lease).unwrap();
    let before = dump(ledger.raw_connection());
    let e = assert_refused(
        ledger.accept("op-2", &receipt("op-1"), "extension"),
        "one receipt belongs to one send",
    );
    assert_eq!(e.code(), "receipt_taken");
    let err = try_raw(
        ledger.raw_connection(),
        "INSERT INTO receipts(op_id, conversation_id, user_message_id, turn_id, observed_at) \
         SELECT 'op-2', conversation_id, user_message_id, 'turn-x', 1 FROM receipts WHERE op_id = 'op-1'",
        [],
    )
    .unwrap_err();
    assert!(
        err.contains("UNIQUE"),
        "the unique index refuses it too: {err}"
    );
    assert_eq!(before, dump(ledger.raw_connection()));
}

#[test]
fn reobserved_receipt_moves_uncertain_to_accepted_and_grants_nothing() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = drive_to(&mut ledger, "op-1", SendState::Uncertain).unwrap();
    let dispatched_at = ledger.get("op-1").unwrap().unwrap().dispatched_at;
    ledger.queue(&request("op-2", "waiting"), "test").unwrap();
    let accepted = ledger
        .accept("op-1", &receipt("op-1"), "extension")
        .unwrap();
    assert_eq!(accepted.state, SendState::Accepted);
    assert_eq!(
        accepted.dispatched_at, dispatched_at,
        "the dispatch is not rewritten"
    );
    assert_eq!(
        dispatch_events(ledger.raw_connection(), "op-1"),
        1,
        "no new dispatch"
    );
    assert_eq!(
        state_of(&ledger, "op-2"),
        SendState::Queued,
        "nothing else moved"
    );
    assert_eq!(
        ledger.claim_next(&lease).unwrap(),
        None,
        "no new send is granted while it awaits its answer"
    );
    assert_refused(ledger.dispatch("op-1", &lease), "not claimed");
}

#[test]
fn stored_text_is_normalised_crlf_to_lf_and_nothing_else() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let raw_text = "  line one\r\nline two\rline three\n\u{0065}\u{0301} é 🙂\t \u{00a0}trailing  ";
    let expected = "  line one\nline two\nline three\n\u{0065}\u{0301} é 🙂\t \u{00a0}trailing  ";
    let (send, _) = ledger.queue(&request("op-1", raw_text), "client").unwrap();
    assert_eq!(send.text, expected);
    let stored: String = ledger
        .raw_connection()
        .query_row("SELECT text FROM sends WHERE op_id = 'op-1'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(stored, expected, "the stored bytes are the normalised text");
}

#[test]
fn text_size_limit_applies_to_the_normalised_text() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    ledger
        .queue(&request("at-limit", &"a".repeat(MAX_TEXT_BYTES)), "client")
        .expect("exactly the limit fits");
    let crlf = format!("x{}", "\r\n".repeat(MAX_TEXT_BYTES / 2));
    assert!(crlf.len() > MAX_TEXT_BYTES);
    ledger
        .queue(&request("crlf", &crlf), "client")
        .expect("CRLF pairs count once normalised");
}

#[test]
fn whitespace_only_text_is_refused_because_the_page_would_not_send_it() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    for text in [" ", "\n\r\n", "\t \u{a0}"] {
        let err = ledger
            .queue(&request("blank", text), "client")
            .expect_err("nothing visible to send");
        assert!(err.to_string().contains("white space"), "{err}");
    }
    assert!(ledger.get("blank").unwrap().is_none(), "nothing written");
}

#[test]
fn bad_input_is_refused_with_nothing_written() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-ok", SendState::Queued);
    let before = dump(ledger.raw_connection());
    let cases: Vec<(QueueRequest, &str, &str)> = vec![
        (request("op-1", ""), "client", "the text is empty"),
        (
            request("op-1", &"x".repeat(MAX_TEXT_BYTES + 1)),
            "client",
            "over the limit",
        ),
        (request("", "hi"), "client", "is malformed"),
        (request("has space", "hi"), "client", "is malformed"),
        (request("a/b", "hi"), "client", "is malformed"),
        (request("ünïcode", "hi"), "client", "is malformed"),
        (
            request(&"a".repeat(MAX_OP_ID_BYTES + 1), "hi"),
            "client",
            "is malformed",
        ),
        (request("op-1", "hi"), "", "actor is required"),
        (
            QueueRequest {
                conversation_id: Some("".into()),
                ..request("op-1", "hi")
            },
            "client",
            "conversation id must be",
        ),
        (
            QueueRequest {
                conversation_id: Some("c\n1".into()),
                ..request("op-1", "hi")
            },
            "client",
            "conversation id must be",
        ),
    ];
    for (req, actor, needle) in cases {
        let e = assert_refused(ledger.queue(&req, actor), needle);
        assert_eq!(e.code(), "invalid", "{needle}");
        assert_eq!(
            before,
            dump(ledger.raw_connection()),
            "{needle}: nothing written"
        );
    }
    let unknown = "bogus".parse::<SendState>().unwrap_err();
    assert!(
        unknown.contains("unknown state \"bogus\"") && unknown.contains("uncertain"),
        "{unknown}"
    );
    assert!(serde_json::from_str::<SendState>("\"bogus\"").is_err());
    let conn = ledger.raw_connection();
    assert!(
        try_raw(conn, "UPDATE sends SET state = 'bogus'", []).is_err(),
        "SQL refuses an unknown state"
    );
    assert!(
        try_raw(
            conn,
            "INSERT INTO sends(op_id, text, epoch, created_at, state, updated_at, actor) \
             VALUES ('op-x', 't', 'e', 1, 'bogus', 1, 'sql')",
            [],
        )
        .is_err(),
        "a send is admitted as queued only"
    );
    assert_eq!(before, dump(conn));
}
