//! Stop as a fenced epoch, remote stop phases and expiry bounds (issue 3, and the
//! expiry rules of issue 2), at the ledger level.

mod support;

use sendledger::ledger::LedgerRead;
use sendledger::ledger::{
    unbound_epoch, Bounds, Ledger, LedgerError, RemotePhase, SendState, TabBinding,
    STOPPED_EPOCHS_KEPT,
};
use support::*;

fn conv_tab(id: &str, conversation: &str) -> TabBinding {
    TabBinding {
        tab_id: id.into(),
        conversation_id: Some(conversation.into()),
        ..TabBinding::default()
    }
}

fn queue_for(
    ledger: &mut sendledger::ledger::Ledger,
    op: &str,
    conversation: Option<&str>,
) -> String {
    let req = sendledger::ledger::QueueRequest {
        op_id: Some(op.into()),
        text: format!("text of {op}"),
        conversation_id: conversation.map(str::to_string),
        ..Default::default()
    };
    ledger.queue(&req, "test").unwrap().0.epoch
}

fn stopped_epochs(ledger: &sendledger::ledger::Ledger) -> Vec<String> {
    let conn = ledger.raw_connection();
    let mut stmt = conn
        .prepare("SELECT epoch FROM stopped_epochs ORDER BY seq")
        .unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

#[test]
fn stop_moves_queued_and_claimed_sends_of_every_epoch_to_stopped_and_closes_the_gate() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let unbound = queue_for(&mut ledger, "op-unbound", None);
    let l1 = ledger.lease(&conv_tab("tab-1", "c1")).unwrap();
    let l2 = ledger.lease(&conv_tab("tab-2", "c2")).unwrap();
    let e1 = queue_for(&mut ledger, "op-c1", Some("c1"));
    let e2 = queue_for(&mut ledger, "op-c2", Some("c2"));
    assert_eq!(
        (unbound.as_str(), e1.as_str(), e2.as_str()),
        (
            unbound_epoch(0).as_str(),
            l1.epoch.as_str(),
            l2.epoch.as_str()
        )
    );
    let claimed = ledger.claim_next(&l1.lease_id).unwrap().unwrap();
    assert_eq!(claimed.op_id, "op-unbound");

    let report = ledger.stop("alice").unwrap();
    assert_eq!(report.stopped, ["op-unbound", "op-c1", "op-c2"]);
    for op in ["op-unbound", "op-c1", "op-c2"] {
        assert_eq!(state_of(&ledger, op), SendState::Stopped, "{op}");
        let last = ledger.timeline(op).unwrap().pop().unwrap();
        assert_eq!(last.actor, "alice", "who stopped it is on record");
    }
    let fenced = stopped_epochs(&ledger);
    for e in [&unbound, &l1.epoch, &l2.epoch] {
        assert!(fenced.contains(e), "epoch {e} is fenced");
    }
    assert!(ledger.status().unwrap().gate_closed);
    let (by, action): (String, String) = ledger
        .raw_connection()
        .query_row(
            "SELECT by, action FROM gate_events ORDER BY id DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((by.as_str(), action.as_str()), ("alice", "stop"));
}

#[test]
fn stop_is_one_transaction_a_failure_at_its_last_step_leaves_nothing() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-clicked", SendState::Dispatched);
    drive_to(&mut ledger, "op-queued", SendState::Queued);
    // Make the last write of stop (the remote stop request) fail.
    ledger
        .raw_connection()
        .execute_batch("CREATE TRIGGER test_fail_remote_stop BEFORE INSERT ON remote_stops BEGIN SELECT RAISE(ABORT, 'injected failure'); END;")
        .unwrap();
    let before = dump(ledger.raw_connection());
    assert_refused(ledger.stop("alice"), "injected failure");
    assert_eq!(
        before,
        dump(ledger.raw_connection()),
        "no epoch fenced, no send stopped, gate open"
    );
    ledger
        .raw_connection()
        .execute_batch("DROP TRIGGER test_fail_remote_stop")
        .unwrap();
    ledger.stop("alice").unwrap();
    assert_eq!(state_of(&ledger, "op-queued"), SendState::Stopped);
}

#[test]
fn queue_and_lease_while_stopped_are_refused_epoch_stopped_resume_first() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    ledger.stop("alice").unwrap();
    let before = dump(ledger.raw_connection());
    let e = assert_refused(
        ledger.queue(&request("op-1", "hi"), "test"),
        "epoch stopped: resume first",
    );
    assert_eq!(e.code(), "epoch_stopped");
    assert_refused(ledger.lease(&tab("tab-1")), "epoch stopped: resume first");
    assert_eq!(before, dump(ledger.raw_connection()));
    // The database refuses it too.
    let err = try_raw(
        ledger.raw_connection(),
        "INSERT INTO sends(op_id, text, epoch, created_at, state, updated_at, actor) VALUES ('op-x', 't', 'e', 1, 'queued', 1, 'sql')",
        [],
    )
    .unwrap_err();
    assert!(err.contains("epoch stopped"), "{err}");
    let err = try_raw(
        ledger.raw_connection(),
        "INSERT INTO leases(lease_id, tab_id, generation, epoch, created_at) VALUES ('l', 't', 0, 'e', 1)",
        [],
    )
    .unwrap_err();
    assert!(err.contains("epoch stopped"), "{err}");
}

#[test]
fn dispatch_rechecks_the_fence_in_its_own_transaction() {
    // Each way the fence can be up when the grant is asked: gate closed, the send's
    // epoch fenced, the lease's epoch fenced, the lease ended.
    let setups: [(&str, &str); 4] = [
        ("gate closed", "UPDATE gate SET closed = 1"),
        (
            "send epoch fenced",
            "INSERT INTO stopped_epochs(epoch, generation, stopped_at, stopped_by) SELECT epoch, 0, 1, 'x' FROM sends WHERE op_id = 'op-1'",
        ),
        (
            "lease epoch fenced",
            "INSERT INTO stopped_epochs(epoch, lease_id, generation, stopped_at, stopped_by) SELECT epoch, lease_id, 0, 1, 'x' FROM leases",
        ),
        ("lease ended", "UPDATE leases SET ended_at = 1, ended_reason = 'test'"),
    ];
    for (what, sql) in setups {
        let fx = Fixture::new();
        let mut ledger = fx.open();
        let lease = drive_to(&mut ledger, "op-1", SendState::Claimed).unwrap();
        ledger.raw_connection().execute_batch(sql).unwrap();
        let err = try_raw(
            ledger.raw_connection(),
            "UPDATE sends SET state = 'dispatched', dispatched_at = 1 WHERE op_id = 'op-1'",
            [],
        )
        .expect_err(what);
        assert!(
            err.contains("epoch stopped: dispatch refused"),
            "{what}: SQL says {err}"
        );
        let before = dump(ledger.raw_connection());
        let e = ledger.dispatch("op-1", &lease).expect_err(what);
        assert!(
            matches!(
                e,
                LedgerError::EpochStopped | LedgerError::NotGranted(_) | LedgerError::LeaseEnded(_)
            ),
            "{what}: {e:?}"
        );
        assert_eq!(
            before,
            dump(ledger.raw_connection()),
            "{what}: nothing written"
        );
        assert_eq!(state_of(&ledger, "op-1"), SendState::Claimed);
    }
}

#[test]
fn stop_and_dispatch_in_either_order_never_dispatch_after_the_fence() {
    // Dispatch first: the click may have happened, so a remote stop is pending.
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = drive_to(&mut ledger, "op-1", SendState::Claimed).unwrap();
    ledger.dispatch("op-1", &lease).unwrap();
    let report = ledger.stop("alice").unwrap();
    assert_eq!(report.remote_stops, ["op-1"]);
    assert_eq!(state_of(&ledger, "op-1"), SendState::Dispatched);
    let open = ledger.remote_stops().unwrap();
    assert_eq!((open.len(), open[0].phase), (1, RemotePhase::Pending));
    // Stop first: the claim is stopped and the grant refused.
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = drive_to(&mut ledger, "op-1", SendState::Claimed).unwrap();
    ledger.stop("alice").unwrap();
    assert!(ledger.dispatch("op-1", &lease).is_err());
    assert_eq!(state_of(&ledger, "op-1"), SendState::Stopped);
    assert_eq!(dispatch_events(ledger.raw_connection(), "op-1"), 0);
}

#[test]
fn stopped_epochs_and_the_closed_gate_survive_restart() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = ledger.lease(&tab("tab-1")).unwrap();
    drive_to(&mut ledger, "op-1", SendState::Queued);
    let report = ledger.stop("alice").unwrap();
    let fenced = stopped_epochs(&ledger);
    let (mut ledger, _) = fx.restart(ledger);
    assert_eq!(stopped_epochs(&ledger), fenced);
    assert!(report.epochs.contains(&lease.epoch));
    assert!(ledger.status().unwrap().gate_closed);
    assert_eq!(
        state_of(&ledger, "op-1"),
        SendState::Stopped,
        "recovery does not touch stopped sends"
    );
    assert_refused(
        ledger.queue(&request("op-2", "x"), "test"),
        "epoch stopped: resume first",
    );
}

#[test]
fn resume_records_who_and_when_and_a_new_lease_is_a_new_epoch_while_the_old_stays_fenced() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let old = ledger.lease(&tab("tab-1")).unwrap();
    ledger.stop("alice").unwrap();
    fx.clock.advance(42_000);
    assert!(ledger.resume("bob").unwrap());
    assert!(
        !ledger.resume("bob").unwrap(),
        "resuming an open gate writes nothing"
    );
    let (action, at, by, generation): (String, i64, String, i64) = ledger
        .raw_connection()
        .query_row(
            "SELECT action, at, by, generation FROM gate_events ORDER BY id DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(
        (action.as_str(), at, by.as_str(), generation),
        ("resume", fx.clock_now(), "bob", 1)
    );
    assert_refused(ledger.resume(""), "who resumes (--by) is required");
    let new = ledger.lease(&tab("tab-1")).unwrap();
    assert_ne!(
        new.epoch, old.epoch,
        "the same tab leased after resume is a new epoch"
    );
    assert_eq!(new.generation, 1);
    assert!(
        stopped_epochs(&ledger).contains(&old.epoch),
        "the old epoch stays fenced"
    );
    assert!(
        ledger.get_lease(&old.lease_id).unwrap().ended_at.is_some(),
        "resume ended the old lease"
    );
    drive_to(&mut ledger, "op-1", SendState::Queued);
    assert!(
        ledger.claim_next(&old.lease_id).is_err(),
        "the old lease admits nothing"
    );
    assert_eq!(
        ledger.claim_next(&new.lease_id).unwrap().unwrap().op_id,
        "op-1"
    );
    let err = try_raw(
        ledger.raw_connection(),
        "INSERT INTO sends(op_id, text, epoch, created_at, state, updated_at, actor) VALUES ('op-x', 't', ?1, 1, 'queued', 1, 'sql')",
        [&old.epoch],
    )
    .unwrap_err();
    assert!(
        err.contains("epoch stopped"),
        "SQL admits nothing under a fenced epoch: {err}"
    );
    let err = try_raw(
        ledger.raw_connection(),
        "UPDATE stopped_epochs SET epoch = 'x'",
        [],
    )
    .unwrap_err();
    assert!(err.contains("a stopped epoch stays stopped"), "{err}");
}

#[test]
fn pruning_at_the_1001st_epoch_removes_only_the_oldest_whose_lease_ended() {
    assert_eq!(STOPPED_EPOCHS_KEPT, 1_000);
    let fx = Fixture::new();
    let mut ledger = fx.open();
    // Each cycle fences two epochs: the generation's unbound one and the lease's.
    let mut first_lease = None;
    for i in 0..500 {
        let lease = ledger.lease(&tab(&format!("tab-{i}"))).unwrap();
        first_lease.get_or_insert(lease);
        ledger.stop("alice").unwrap();
        ledger.resume("alice").unwrap();
    }
    let first_lease = first_lease.unwrap();
    let before = stopped_epochs(&ledger);
    assert_eq!(before.len(), 1_000);
    assert_eq!(before[..2], [unbound_epoch(0), first_lease.epoch.clone()]);
    ledger.lease(&tab("tab-last")).unwrap();
    ledger.stop("alice").unwrap(); // the 1,001st and 1,002nd epochs
    let after = stopped_epochs(&ledger);
    assert_eq!(after.len(), 1_000, "the newest 1,000 are kept");
    assert_eq!(
        after[..998],
        before[2..],
        "only the two oldest went, and their leases had ended"
    );
    // The pruned lease can never admit anything again.
    assert!(ledger
        .get_lease(&first_lease.lease_id)
        .unwrap()
        .ended_at
        .is_some());
}

#[test]
fn an_old_stopped_epoch_whose_lease_lives_is_not_pruned() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let alive = ledger.lease(&tab("tab-alive")).unwrap();
    {
        // 999 older fenced epochs of ended leases, plus the live lease's, oldest first.
        let conn = ledger.raw_connection();
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        conn.execute(
            "INSERT INTO stopped_epochs(epoch, lease_id, generation, stopped_at, stopped_by) VALUES (?1, ?2, 0, 1, 'x')",
            [&alive.epoch, &alive.lease_id],
        )
        .unwrap();
        for i in 0..999 {
            conn.execute(
                "INSERT INTO leases(lease_id, tab_id, generation, epoch, created_at, ended_at) VALUES (?1, 'old', 0, ?2, 1, 2)",
                [format!("old-{i}"), format!("epoch-{i}")],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO stopped_epochs(epoch, lease_id, generation, stopped_at, stopped_by) VALUES (?1, ?2, 0, 1, 'x')",
                [format!("epoch-{i}"), format!("old-{i}")],
            )
            .unwrap();
        }
        conn.execute_batch("COMMIT").unwrap();
        let err = try_raw(
            conn,
            "DELETE FROM stopped_epochs WHERE lease_id = ?1",
            [&alive.lease_id],
        )
        .unwrap_err();
        assert!(err.contains("pruned only after its lease ended"), "{err}");
    }
    ledger.stop("alice").unwrap(); // fences the unbound epoch: the 1,001st
    let after = stopped_epochs(&ledger);
    assert_eq!(after[0], alive.epoch, "kept: its lease has not ended");
    assert_eq!(after.len(), 1_001);
    ledger.resume("alice").unwrap(); // ends every lease, then prunes
    let after = stopped_epochs(&ledger);
    assert!(!after.contains(&alive.epoch), "pruned once its lease ended");
    assert_eq!(after.len(), 1_000);
}

#[test]
fn remote_stop_moves_pending_dispatched_confirmed_and_refuses_other_phases() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-done", SendState::Completed);
    let lease = drive_to(&mut ledger, "op-1", SendState::Accepted).unwrap();
    let report = ledger.stop("alice").unwrap();
    assert_eq!(
        report.remote_stops,
        ["op-1"],
        "only sends whose answer may still be running"
    );
    let open = ledger.remote_stops().unwrap();
    assert_eq!(
        open[0].conversation_id.as_deref(),
        Some("conv-kill"),
        "from the receipt"
    );
    assert_eq!(open[0].requested_by, "alice");
    let before = dump(ledger.raw_connection());
    for empty in [
        None,
        Some(""),
        Some("   "),
        Some("\t"),
        Some("\n\r\t "),
        Some("\u{200b}"),
        Some("\u{a0}\u{3000}\u{feff}"),
    ] {
        assert_refused(
            ledger.remote_stop_phase(&lease, "op-1", RemotePhase::Confirmed, empty),
            "cannot go from pending to confirmed",
        );
    }
    assert_refused(
        ledger.remote_stop_phase(&lease, "op-none", RemotePhase::Dispatched, None),
        "no remote stop",
    );
    assert_eq!(before, dump(ledger.raw_connection()));
    ledger
        .remote_stop_phase(&lease, "op-1", RemotePhase::Dispatched, None)
        .unwrap();
    assert_refused(
        ledger.remote_stop_phase(&lease, "op-1", RemotePhase::Pending, None),
        "cannot go from dispatched to pending",
    );
    ledger
        .remote_stop_phase(
            &lease,
            "op-1",
            RemotePhase::Confirmed,
            Some("the page shows the answer stopped"),
        )
        .unwrap();
    assert!(ledger.remote_stops().unwrap().is_empty());
    for bad in [
        RemotePhase::Pending,
        RemotePhase::Dispatched,
        RemotePhase::Uncertain,
    ] {
        assert_refused(
            ledger.remote_stop_phase(&lease, "op-1", bad, None),
            "is already settled",
        );
    }
}

/// A ledger where `op` was accepted (its answer still awaited) when Stop came: one pending
/// remote stop, for `op`, and the lease that took `op`. The fixture holds the ledger's
/// folder.
fn accepted_then_stopped(op: &str) -> (Fixture, Ledger, String) {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = drive_to(&mut ledger, op, SendState::Accepted).unwrap();
    ledger.stop("alice").unwrap();
    (fx, ledger, lease)
}

/// A stop that clicks nothing still ends: the tab found no stop button (uncertain), or it
/// saw nothing being generated (confirmed, with that evidence only); and it is no longer
/// handed out as open. Neither can go back to pending or on to dispatched.
#[test]
fn a_remote_stop_that_clicks_nothing_ends_uncertain_or_confirmed_on_evidence() {
    let (_fx, mut ledger, lease) = accepted_then_stopped("op-1");
    assert_refused(
        ledger.remote_stop_phase(&lease, "op-1", RemotePhase::Confirmed, None),
        "cannot go from pending to confirmed",
    );
    ledger
        .remote_stop_phase(
            &lease,
            "op-1",
            RemotePhase::Confirmed,
            Some("no answer was being generated in the tab; nothing was clicked"),
        )
        .unwrap();
    assert!(
        ledger.remote_stops().unwrap().is_empty(),
        "a confirmed stop is no longer open"
    );
    for bad in [RemotePhase::Pending, RemotePhase::Dispatched] {
        assert_refused(
            ledger.remote_stop_phase(&lease, "op-1", bad, Some("x")),
            "is already settled",
        );
    }

    let (_fx, mut ledger, lease) = accepted_then_stopped("op-2");
    ledger
        .remote_stop_phase(
            &lease,
            "op-2",
            RemotePhase::Uncertain,
            Some("stop button not found"),
        )
        .unwrap();
    assert!(ledger.remote_stops().unwrap().is_empty());
    assert_refused(
        ledger.remote_stop_phase(&lease, "op-2", RemotePhase::Dispatched, None),
        "is already settled",
    );
}

/// Only the tab that clicked a send reports on its remote stop: another tab's lease is
/// handed none of it and cannot settle it (that tab's stop button would stop some other
/// answer, and its "nothing was generating" says nothing about this one).
#[test]
fn a_remote_stop_is_seen_and_reported_only_by_the_lease_that_took_the_send() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let taker = drive_to(&mut ledger, "op-1", SendState::Accepted).unwrap();
    let other = ledger.lease(&tab("tab-other")).unwrap().lease_id;
    ledger.stop("alice").unwrap();
    assert!(
        ledger.remote_stops_of_lease(&other).unwrap().is_empty(),
        "another tab is not handed the stop"
    );
    assert_eq!(ledger.remote_stops_of_lease(&taker).unwrap().len(), 1);
    let before = dump(ledger.raw_connection());
    for phase in [
        RemotePhase::Dispatched,
        RemotePhase::Confirmed,
        RemotePhase::Uncertain,
    ] {
        let e = assert_refused(
            ledger.remote_stop_phase(&other, "op-1", phase, Some("what the other tab saw")),
            "is not the live lease of the tab that clicked send op-1",
        );
        assert_eq!(e.code(), "not_your_remote_stop");
    }
    assert_eq!(
        before,
        dump(ledger.raw_connection()),
        "the stop stays as it was"
    );
    ledger
        .remote_stop_phase(&taker, "op-1", RemotePhase::Dispatched, None)
        .unwrap();
}

/// The tab that clicked a send, leased again (after a Resume, a restart or a reload), is
/// handed its stop and reports on it while it shows the conversation the send went to —
/// not while it shows another, never another tab showing that conversation, and never
/// through a lease that has ended.
#[test]
fn the_clicking_tab_leased_again_reports_the_stop_while_it_shows_the_sends_conversation() {
    let (_fx, mut ledger, taker) = accepted_then_stopped("op-1");
    let conversation = receipt("op-1").conversation_id;
    ledger.resume("alice").unwrap(); // ends every lease
    let try_report = |ledger: &mut Ledger, lease: &str| {
        ledger.remote_stop_phase(lease, "op-1", RemotePhase::Dispatched, None)
    };
    assert!(
        ledger.remote_stops_of_lease(&taker).unwrap().is_empty(),
        "the taking lease, ended, is no longer handed it (its tab may show anything now)"
    );
    assert_refused(try_report(&mut ledger, &taker), "is not the live lease");
    for (binding, why) in [
        (
            conv_tab("tab-op-1", "conv-elsewhere"),
            "the same tab on another conversation",
        ),
        (
            conv_tab("tab-other", &conversation),
            "another tab on the same conversation",
        ),
        (tab("tab-op-1"), "the same tab on a new chat"),
    ] {
        let lease = ledger.lease(&binding).unwrap().lease_id;
        assert!(
            ledger.remote_stops_of_lease(&lease).unwrap().is_empty(),
            "{why}"
        );
        let e = assert_refused(
            try_report(&mut ledger, &lease),
            "is not the live lease of the tab that clicked",
        );
        assert_eq!(e.code(), "not_your_remote_stop", "{why}");
    }
    let again = ledger
        .lease(&conv_tab("tab-op-1", &conversation))
        .unwrap()
        .lease_id;
    assert_eq!(ledger.remote_stops_of_lease(&again).unwrap().len(), 1);
    try_report(&mut ledger, &again).expect("the clicking tab, on its conversation");
}

/// Blank evidence is no evidence in SQL too (for whoever writes the file directly), and a
/// settled stop is written once: a second report, even of its own phase, changes nothing.
#[test]
fn a_settled_remote_stop_is_written_once_and_blank_evidence_confirms_nothing() {
    let (_fx, mut ledger, lease) = accepted_then_stopped("op-1");
    for blank in ["\t", "\u{200b}", "\u{a0} \u{3000}", "\u{feff}\n"] {
        let direct = ledger.raw_connection().execute(
            "UPDATE remote_stops SET phase = 'confirmed', evidence = ?1 WHERE op_id = 'op-1'",
            [blank],
        );
        assert!(
            direct
                .unwrap_err()
                .to_string()
                .contains("illegal remote stop phase"),
            "blank evidence {blank:?} confirms nothing, even written directly"
        );
    }
    ledger
        .remote_stop_phase(
            &lease,
            "op-1",
            RemotePhase::Confirmed,
            Some("nothing was generating"),
        )
        .unwrap();
    let settled = dump(ledger.raw_connection());
    for (phase, evidence) in [
        (RemotePhase::Confirmed, None),
        (RemotePhase::Confirmed, Some("a later, different story")),
        (RemotePhase::Uncertain, Some("x")),
    ] {
        assert_refused(
            ledger.remote_stop_phase(&lease, "op-1", phase, evidence),
            "already settled",
        );
    }
    assert_eq!(
        settled,
        dump(ledger.raw_connection()),
        "the first report's phase and evidence stay"
    );
}

/// Evidence made only of characters a person cannot read — controls, bidi and zero-width
/// marks, tag characters, fillers, variation selectors, lone combining marks,
/// noncharacters (migration 0009's set, one of each kind two helpers found confirming a
/// stop) — is no evidence; any script's words are, and a mark on a letter.
#[test]
fn invisible_evidence_confirms_no_remote_stop_and_readable_evidence_in_any_script_does() {
    let invisible = [
        "\u{1}",
        "\u{1f}",
        "\u{7f}",
        "\u{85}",
        "\u{ad}",
        "\u{34f}",
        "\u{61c}",
        "\u{115f}",
        "\u{1160}",
        "\u{17b4}",
        "\u{180e}",
        "\u{200e}",
        "\u{200f}",
        "\u{202a}",
        "\u{202e}",
        "\u{2061}",
        "\u{2064}",
        "\u{2066}",
        "\u{2069}",
        "\u{206a}",
        "\u{2800}",
        "\u{3164}",
        "\u{fe0f}",
        "\u{ffa0}",
        "\u{fffc}",
        "\u{1d173}",
        "\u{e0020}",
        "\u{e0100}",
        "\u{301}",
        "\u{20dd}",
        "\u{303f}",
        "\u{16fe4}",
        "\u{1d159}",
        "\u{fdd0}",
        "\u{ffff}",
        "\u{10ffff}",
        "\u{1f3fb}",
    ];
    let (_fx, mut ledger, lease) = accepted_then_stopped("op-1");
    let before = dump(ledger.raw_connection());
    for c in invisible {
        let evidence = format!("{c}{c}{c} \u{200b}{c}");
        let e = assert_refused(
            ledger.remote_stop_phase(&lease, "op-1", RemotePhase::Confirmed, Some(&evidence)),
            "has no readable character",
        );
        assert_eq!(e.code(), "illegal_remote_stop_phase", "{c:?}");
    }
    assert_eq!(before, dump(ledger.raw_connection()), "nothing written");
    for readable in [
        "生成は行われていませんでした",
        "لا شيء",
        "\u{200f}ok\u{200e}",
        "0",
        "e\u{301}",
        "\u{1f44d}\u{1f3fb}",
    ] {
        let (_fx, mut ledger, lease) = accepted_then_stopped("op-2");
        ledger
            .remote_stop_phase(&lease, "op-2", RemotePhase::Confirmed, Some(readable))
            .unwrap_or_else(|e| panic!("{readable:?} is evidence: {e}"));
    }
}

/// A dispatched stop's report is written once: a second `dispatched` is refused and its
/// evidence stays (a repeated report rewrote it, even to nothing).
#[test]
fn a_remote_stop_takes_each_phase_once() {
    let (_fx, mut ledger, lease) = accepted_then_stopped("op-1");
    ledger
        .remote_stop_phase(&lease, "op-1", RemotePhase::Dispatched, Some("first"))
        .unwrap();
    let once = dump(ledger.raw_connection());
    for evidence in [Some("second"), None] {
        let e = assert_refused(
            ledger.remote_stop_phase(&lease, "op-1", RemotePhase::Dispatched, evidence),
            "each phase is reported once",
        );
        assert_eq!(e.code(), "illegal_remote_stop_phase");
    }
    let direct = ledger.raw_connection().execute(
        "UPDATE remote_stops SET evidence = 'rewritten' WHERE op_id = 'op-1'",
        [],
    );
    assert!(direct.is_err(), "not even written directly");
    assert_eq!(
        once,
        dump(ledger.raw_connection()),
        "the first report stands"
    );
}

#[test]
fn recovery_moves_a_dispatched_remote_stop_to_uncertain_and_never_confirms() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = drive_to(&mut ledger, "op-1", SendState::Dispatched).unwrap();
    ledger.stop("alice").unwrap();
    ledger
        .remote_stop_phase(&lease, "op-1", RemotePhase::Dispatched, None)
        .unwrap();
    let (ledger, report) = fx.restart(ledger);
    assert_eq!(report.remote_stops_uncertain, 1);
    let phase: String = ledger
        .raw_connection()
        .query_row(
            "SELECT phase FROM remote_stops WHERE op_id = 'op-1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(phase, "uncertain");
    assert_eq!(
        state_of(&ledger, "op-1"),
        SendState::Uncertain,
        "the send itself too"
    );
    // A pending one stays pending: nobody clicked, nothing to be unsure about.
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Dispatched);
    ledger.stop("alice").unwrap();
    let (ledger, report) = fx.restart(ledger);
    assert_eq!(report.remote_stops_uncertain, 0);
    assert_eq!(
        ledger.remote_stops().unwrap()[0].phase,
        RemotePhase::Pending
    );
}

#[test]
fn expired_claim_is_rejected_as_an_audit_event() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Claimed);
    let b = Bounds::default();
    fx.clock.advance(b.claim_ms - 1);
    assert!(ledger.expire(&b).unwrap().is_empty(), "not yet");
    fx.clock.advance(1);
    assert_eq!(ledger.expire(&b).unwrap().claims, ["op-1"]);
    let last = ledger.timeline("op-1").unwrap().pop().unwrap();
    assert_eq!(
        (last.from, last.to),
        (Some(SendState::Claimed), SendState::Rejected)
    );
    assert_eq!(last.actor, "owner");
    assert!(last.evidence.unwrap().contains("claim expired"));
}

#[test]
fn dispatch_without_receipt_in_time_becomes_uncertain_as_an_audit_event() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Dispatched);
    let b = Bounds::default();
    fx.clock.advance(b.receipt_ms - 1);
    assert!(ledger.expire(&b).unwrap().is_empty());
    fx.clock.advance(1);
    assert_eq!(ledger.expire(&b).unwrap().receipts, ["op-1"]);
    let last = ledger.timeline("op-1").unwrap().pop().unwrap();
    assert_eq!(
        (last.from, last.to, last.actor.as_str()),
        (Some(SendState::Dispatched), SendState::Uncertain, "owner")
    );
    assert!(last.evidence.unwrap().contains("no receipt within"));
}

#[test]
fn unanswered_accepted_send_stops_holding_the_queue_and_can_still_complete() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = drive_to(&mut ledger, "op-1", SendState::Accepted).unwrap();
    ledger.queue(&request("op-2", "next"), "test").unwrap();
    assert_eq!(
        ledger.claim_next(&lease).unwrap(),
        None,
        "op-1 holds the queue"
    );
    // The tab is kept however long it is silent: this is the answer bound's test.
    let b = Bounds {
        lease_silence_ms: i64::MAX / 4,
        ..Bounds::default()
    };
    fx.clock.advance(b.answer_ms - 1);
    assert!(ledger.expire(&b).unwrap().is_empty());
    fx.clock.advance(1);
    assert_eq!(ledger.expire(&b).unwrap().answers, ["op-1"]);
    let send = ledger.get("op-1").unwrap().unwrap();
    assert_eq!(send.state, SendState::Accepted, "it stays accepted");
    assert_eq!(send.answer_not_observed_at, Some(fx.clock_now()));
    let note = ledger.timeline("op-1").unwrap().pop().unwrap();
    assert_eq!(note.kind, sendledger::ledger::EventKind::Note);
    assert!(note.evidence.unwrap().contains("answer not observed"));
    assert!(ledger.expire(&b).unwrap().is_empty(), "marked once");
    assert_eq!(
        ledger.claim_next(&lease).unwrap().unwrap().op_id,
        "op-2",
        "the queue moves on"
    );
    let done = ledger
        .complete("op-1", "answer-late", "late answer", "extension")
        .unwrap();
    assert_eq!(
        done.state,
        SendState::Completed,
        "a later completion is still allowed"
    );
}

/// The Stop fence committed from another process's own connection (the way `sqlite3`
/// would): every active lease's epoch and the unbound epoch recorded as stopped and the
/// gate closed — but, unlike `Ledger::stop`, no sweep of claimed sends, so only the
/// dispatch's own re-check of the fence stands between a claimed send and its click.
/// Returns the last audit event id at the fence's commit.
fn raced_fence(path: &std::path::Path) -> i64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .unwrap();
    // The racer dispatches in a tight loop and may win the write lock again and again
    // past one busy timeout on a loaded machine: keep asking, within a bound.
    let asked = std::time::Instant::now();
    while let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
        assert!(
            asked.elapsed() < std::time::Duration::from_secs(120),
            "the fence never got the write lock: {e}"
        );
    }
    conn.execute(
        "INSERT OR IGNORE INTO stopped_epochs(epoch, lease_id, generation, stopped_at, stopped_by) \
         SELECT epoch, lease_id, generation, 1, 'racer' FROM leases WHERE ended_at IS NULL",
        [],
    )
    .unwrap();
    conn.execute(
        "INSERT OR IGNORE INTO stopped_epochs(epoch, lease_id, generation, stopped_at, stopped_by) \
         VALUES (?1, NULL, 0, 1, 'racer')",
        [unbound_epoch(0)],
    )
    .unwrap();
    conn.execute(
        "UPDATE gate SET closed = 1, changed_at = 1, changed_by = 'racer'",
        [],
    )
    .unwrap();
    let fence: i64 = conn
        .query_row("SELECT coalesce(max(id), 0) FROM events", [], |r| r.get(0))
        .unwrap();
    conn.execute_batch("COMMIT").unwrap();
    fence
}

#[test]
fn stop_racing_dispatch_from_another_process_never_lets_a_dispatch_follow_the_fence() {
    let mut outcomes = std::collections::BTreeMap::<String, u32>::new();
    for round in 0..24u32 {
        let fx = Fixture::new();
        drop(fx.open()); // create and migrate the ledger
        let child = CustodyChild::spawn(fx.profile.dir(), &["open", "race:100000"]);
        child.wait_ready("open");
        // Fence right after a claim commits: the owner is about to ask the grant.
        let target = format!("claimed race-{}", round % 3);
        while child.next_line() != target {}
        let fence = raced_fence(&fx.ledger_path());
        // The owner's next write is refused; it reports which and exits.
        let refusal = loop {
            let line = child.next_line();
            if line.starts_with("error") {
                break line;
            }
        };
        let mut proc = child.child;
        assert_eq!(proc.wait().unwrap().code(), Some(3), "{refusal}");
        let code = refusal
            .split_whitespace()
            .nth(2)
            .unwrap_or("")
            .trim_end_matches(':');
        let dispatched_first = {
            let reader = sendledger::ledger::LedgerReader::open(&fx.profile).unwrap();
            reader
                .get(&format!("race-{}", round % 3))
                .unwrap()
                .unwrap()
                .dispatched_at
                .is_some()
        };
        let key = format!("{code}, raced send dispatched: {dispatched_first}");
        *outcomes.entry(key).or_default() += 1;

        let (ledger, _) = fx.open_reporting();
        let after: i64 = ledger
            .raw_connection()
            .query_row(
                "SELECT count(*) FROM events WHERE kind = 'transition' AND to_state = 'dispatched' AND id > ?1",
                [fence],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(
            after, 0,
            "round {round}: a dispatch committed after the fence ({refusal})"
        );
        assert!(ledger.status().unwrap().gate_closed);
    }
    // Which write the fence caught varies with timing (the grant itself, or a later queue
    // or claim once the raced send went out first); each is the ledger's named refusal.
    for key in outcomes.keys() {
        assert!(
            key.starts_with("epoch_stopped"),
            "unexpected refusal {key}: {outcomes:?}"
        );
    }
    eprintln!("raced fence caught the owner at: {outcomes:?}");
}

#[test]
fn stop_asks_no_remote_stop_for_an_accepted_send_whose_answer_is_no_longer_awaited() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-stale", SendState::Accepted).unwrap();
    let b = Bounds::default();
    fx.clock.advance(b.answer_ms);
    assert_eq!(ledger.expire(&b).unwrap().answers, ["op-stale"]);
    let report = ledger.stop("alice").unwrap();
    assert!(
        report.remote_stops.is_empty(),
        "its tab may be generating something else by now: a stop click would hit that"
    );
    assert!(ledger.remote_stops().unwrap().is_empty());
}

/// The notes on `op`'s audit trail, oldest first: (actor, evidence).
fn notes(ledger: &Ledger, op: &str) -> Vec<(String, String)> {
    ledger
        .timeline(op)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == sendledger::ledger::EventKind::Note)
        .map(|e| (e.actor, e.evidence.unwrap_or_default()))
        .collect()
}

/// A person who pressed Stop can see what became of the answer's stop: every phase —
/// asked, clicking, confirmed or uncertain, with what the tab said, and recovery's
/// uncertain — is a note on the send's own audit trail (so the window's timeline, `show`
/// and the change feed carry it), and the send's view carries the phase.
#[test]
fn every_remote_stop_phase_is_on_the_sends_audit_trail_and_in_its_view() {
    let (_fx, mut ledger, lease) = accepted_then_stopped("op-1");
    assert_eq!(
        notes(&ledger, "op-1"),
        [(
            "alice".to_string(),
            "Stop asked the tab to click the page's stop button for this send's answer (remote stop pending)"
                .to_string()
        )]
    );
    let view = sendledger::api::show(&ledger, &"op-1".into()).unwrap();
    assert_eq!(view.remote_stop.unwrap().phase, RemotePhase::Pending);
    ledger
        .remote_stop_phase(&lease, "op-1", RemotePhase::Dispatched, None)
        .unwrap();
    ledger
        .remote_stop_phase(
            &lease,
            "op-1",
            RemotePhase::Uncertain,
            Some("the stop button did not go away"),
        )
        .unwrap();
    let said = notes(&ledger, "op-1");
    assert_eq!(said.len(), 3, "{said:?}");
    assert_eq!(said[1].0, "extension");
    assert!(said[1].1.starts_with("remote stop dispatched"), "{said:?}");
    assert_eq!(
        said[2].1,
        "remote stop uncertain: the stop button did not go away"
    );
    let view = sendledger::api::show(&ledger, &"op-1".into()).unwrap();
    let rs = view.remote_stop.unwrap();
    assert_eq!(rs.phase, RemotePhase::Uncertain);
    assert_eq!(
        rs.evidence.as_deref(),
        Some("the stop button did not go away")
    );
    let row = &sendledger::api::queue::rows(&ledger, ["op-1".to_string()].into()).unwrap()[0];
    let shown = row.remote_stop.as_ref().unwrap();
    assert_eq!(shown.phase, RemotePhase::Uncertain);
    assert_eq!(
        shown.words,
        "Stop of its answer: not known whether the answer stopped: the stop button did not go away; look at the conversation"
    );

    // Confirmed without a click, on the tab's evidence.
    let (_fx, mut ledger, lease) = accepted_then_stopped("op-2");
    ledger
        .remote_stop_phase(
            &lease,
            "op-2",
            RemotePhase::Confirmed,
            Some("no answer was being generated"),
        )
        .unwrap();
    assert_eq!(
        notes(&ledger, "op-2")[1].1,
        "remote stop confirmed without a click: no answer was being generated"
    );

    // A refused report leaves no note.
    assert!(ledger
        .remote_stop_phase(&lease, "op-2", RemotePhase::Uncertain, Some("x"))
        .is_err());
    assert_eq!(notes(&ledger, "op-2").len(), 2);

    // Recovery's uncertain, for a click dispatched when the owner went down.
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = drive_to(&mut ledger, "op-3", SendState::Dispatched).unwrap();
    ledger.stop("alice").unwrap();
    ledger
        .remote_stop_phase(&lease, "op-3", RemotePhase::Dispatched, None)
        .unwrap();
    let (ledger, _) = fx.restart(ledger);
    let said = notes(&ledger, "op-3");
    assert_eq!(said.last().unwrap().0, "recovery");
    assert!(
        said.last()
            .unwrap()
            .1
            .starts_with("remote stop uncertain: the owner restarted"),
        "{said:?}"
    );
}

/// The tab's words become a note, so they are bounded like every note (4 KiB) and a
/// refusal writes nothing; words with no visible character read as none.
#[test]
fn a_remote_stops_evidence_is_bounded_and_invisible_words_say_nothing() {
    let (_fx, mut ledger, lease) = accepted_then_stopped("op-1");
    let before = dump(ledger.raw_connection());
    assert_refused(
        ledger.remote_stop_phase(
            &lease,
            "op-1",
            RemotePhase::Uncertain,
            Some(&"x".repeat(4097)),
        ),
        "over the limit of 4096 bytes",
    );
    assert_eq!(before, dump(ledger.raw_connection()));
    assert_eq!(
        sendledger::ledger::remote_said(Some(" \u{200b}\u{feff} ")),
        None
    );
    assert_eq!(
        sendledger::ledger::remote_said(Some(" no button ")),
        Some("no button")
    );
    ledger
        .remote_stop_phase(&lease, "op-1", RemotePhase::Uncertain, Some("\u{200b}"))
        .unwrap();
    assert_eq!(
        notes(&ledger, "op-1").last().unwrap().1,
        "remote stop uncertain: the tab could not tell whether the answer stopped"
    );
}

/// An observation repeated after a remote-stop note is still the same observation: the
/// "same as the latest" check compares notes of the same kind, so the trail does not grow
/// a second copy of it.
#[test]
fn a_repeated_observation_is_written_once_even_with_a_remote_stop_note_between() {
    let (_fx, mut ledger, lease) = accepted_then_stopped("op-1");
    let seen = "observed the conversation: one user message with this text";
    let observed = sendledger::ledger::EvidenceKind::Observed;
    assert!(ledger.note_evidence("op-1", observed, seen).unwrap());
    ledger
        .remote_stop_phase(&lease, "op-1", RemotePhase::Dispatched, None)
        .unwrap();
    assert!(
        !ledger.note_evidence("op-1", observed, seen).unwrap(),
        "the same observation again writes nothing"
    );
    let copies = notes(&ledger, "op-1")
        .into_iter()
        .filter(|(_, e)| e == seen)
        .count();
    assert_eq!(copies, 1);
}
