//! The queue a person sees over a long history: every send that needs a person stays in
//! view however many sends came after it, History is paged newest first, and every part of
//! the queue is read through an index of its own (issue 25).

mod support;

use rusqlite::{params, Connection};
use sendledger::api::queue::{self, Section};
use sendledger::ledger::{Ledger, LedgerRead, SendState, Shelf};
use std::collections::BTreeSet;
use support::*;

/// Seeds `n` completed sends after everything already in the ledger, in one transaction of
/// plain SQL through the schema's own triggers (each goes queued → claimed → dispatched →
/// accepted → completed, one at a time, under `lease`).
fn seed_completed(ledger: &Ledger, lease: &str, n: usize) {
    let conn: &Connection = ledger.raw_connection();
    let epoch: String = conn
        .query_row(
            "SELECT epoch FROM leases WHERE lease_id = ?1",
            [lease],
            |r| r.get(0),
        )
        .expect("the lease exists");
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    // Each statement prepared once (SQLite compiles the triggers into every statement it
    // prepares: preparing 50,000 took most of this seeding's time).
    let mut insert = conn
        .prepare_cached(
            "INSERT INTO sends(op_id, text, epoch, created_at, state, updated_at, actor) \
             VALUES (?1, ?2, ?3, ?4, 'queued', ?4, 'seed')",
        )
        .unwrap();
    let steps = [
        ("lease_id = ?2, claimed_at = ?3", "claimed"),
        ("dispatched_at = ?3", "dispatched"),
        ("updated_at = ?3", "accepted"),
        (
            "answer_message_id = 'm-' || ?1, answer_text = 'the answer', answered_at = ?3",
            "completed",
        ),
    ];
    let mut steps = steps.map(|(set, to)| {
        let sql = format!("UPDATE sends SET state = '{to}', {set} WHERE op_id = ?1");
        (conn.prepare(&sql).unwrap(), to)
    });
    for i in 0..n {
        let op = format!("later-{i:06}");
        let at = T0 + 1_000 + i as i64;
        insert
            .execute(params![op, format!("text of {op}"), epoch, at])
            .expect("queued");
        for (update, to) in steps.iter_mut() {
            update
                .execute(params![op, lease, at])
                .unwrap_or_else(|e| panic!("{op} → {to}: {e}"));
        }
    }
    drop((insert, steps));
    conn.execute_batch("COMMIT").unwrap();
}

fn ids(rows: &[queue::Row]) -> Vec<String> {
    rows.iter().map(|r| r.op_id.clone()).collect()
}

/// The report: one send made uncertain, then more than 10,000 sends through a tab,
/// and the window's queue no longer listed it. Every send waiting for a person is listed
/// however long the history, and its count agrees with its rows.
#[test]
fn an_uncertain_send_stays_in_the_queue_after_ten_thousand_and_one_later_sends() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-old", SendState::Uncertain);
    let lease = ledger.lease(&tab("tab-later")).unwrap().lease_id;
    seed_completed(&ledger, &lease, 10_001);

    let view = queue::queue_view(&ledger).unwrap();
    assert_eq!(
        ids(&view.uncertain),
        ["op-old"],
        "the old uncertain send is still in Uncertain — needs you"
    );
    assert_eq!(view.uncertain[0].section, Section::Uncertain);
    assert_eq!(view.status.uncertain, 1, "the count and the rows agree");
    assert_eq!(view.history.len(), queue::HISTORY_ROWS);
    assert_eq!(
        view.history[0].op_id, "later-010000",
        "History starts at the newest"
    );
    assert!(
        view.history_next.is_some(),
        "older settled sends are a page away"
    );
    let status = queue::queue_status(&ledger).unwrap();
    assert_eq!(status.uncertain, 1);
}

/// Stopped and pending sends are listed in full too, whatever their age.
#[test]
fn old_stopped_and_queued_sends_stay_in_the_queue_after_a_long_history() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-rejected", SendState::Rejected);
    let lease = ledger.lease(&tab("tab-later")).unwrap().lease_id;
    seed_completed(&ledger, &lease, 10_001);
    ledger
        .queue(&request("op-queued", "waits its turn"), "test")
        .unwrap();
    let view = queue::queue_view(&ledger).unwrap();
    assert_eq!(ids(&view.stopped), ["op-rejected"]);
    assert_eq!(ids(&view.pending), ["op-queued"]);
    assert_eq!((view.status.pending, view.status.stopped), (1, 1));
}

/// History pages walk every settled send once, newest first, and never a send that needs
/// a person; the last page says there is nothing older.
#[test]
fn history_pages_walk_every_settled_send_once_newest_first() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-uncertain", SendState::Uncertain);
    let lease = ledger.lease(&tab("tab-later")).unwrap().lease_id;
    seed_completed(&ledger, &lease, 450);
    let mut seen = Vec::new();
    let mut before = None;
    let mut pages = 0;
    loop {
        let page = queue::history_page(&ledger, before.clone(), 200).unwrap();
        pages += 1;
        assert!(page.rows.iter().all(|r| r.section == Section::History));
        seen.extend(ids(&page.rows));
        match page.next {
            Some(next) => before = Some(next),
            None => break,
        }
    }
    assert_eq!(pages, 3, "200 + 200 + 50");
    let expected: Vec<String> = (0..450).rev().map(|i| format!("later-{i:06}")).collect();
    assert_eq!(seen, expected, "every settled send once, newest first");
    assert_eq!(
        seen.iter().collect::<BTreeSet<_>>().len(),
        450,
        "no send twice"
    );
}

/// Reading any part of the queue never scans the sends table nor sorts the whole history:
/// SQLite's own plan for each section's query names an index (`SEARCH … USING INDEX` or a
/// scan of a partial index that holds only that section), so its cost follows what is on
/// that section, not how many sends there have been.
#[test]
fn every_section_of_the_queue_is_read_through_an_index_of_its_own() {
    let fx = Fixture::new();
    let ledger = fx.open();
    let conn = ledger.raw_connection();
    let shelves = [
        (
            Shelf::Pending,
            vec!["sends_by_state", "sends_awaiting_answer"],
        ),
        (Shelf::Uncertain, vec!["sends_by_state"]),
        (Shelf::Stopped, vec!["sends_by_state"]),
        (
            Shelf::Settled {
                before: None,
                limit: 200,
            },
            vec!["sends_settled"],
        ),
    ];
    for (shelf, indexes) in shelves {
        let sql = sendledger::ledger::shelf_sql(&shelf);
        let plan = query_plan(conn, &sql, "1");
        for step in &plan {
            let scan = step.starts_with("SCAN");
            assert!(
                !scan
                    || step.contains("USING INDEX sends_settled")
                    || step.contains("USING INDEX sends_awaiting_answer"),
                "{shelf:?} scans more than its section: {plan:#?}"
            );
        }
        for index in indexes {
            assert!(
                plan.iter().any(|s| s.contains(&format!("INDEX {index}"))),
                "{shelf:?} is read through {index}: {plan:#?}"
            );
        }
    }
}

/// Issue 39: the queue view holds the newest [`queue::STOPPED_ROWS`] stopped sends, and its
/// counts still say every one (the header's and the section's), however many there are: a
/// send that needs a person is never left out of the count. Both counts are read inside
/// the section's indexes (no scan of the sends table).
#[test]
fn the_queue_views_stopped_count_is_the_true_count_beyond_the_rows_it_holds() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    for i in 0..205 {
        let op = format!("stopped-{i:04}");
        ledger
            .queue(&request(&op, "asks about an invoice"), "test")
            .unwrap();
        ledger.withdraw(&op, "test").unwrap();
    }
    ledger.requeue("stopped-0000", "test").unwrap();

    let view = queue::queue_view(&ledger).unwrap();
    assert_eq!(
        view.stopped.len(),
        queue::STOPPED_ROWS,
        "the view holds a page"
    );
    assert!(
        view.stopped_next.is_some(),
        "older stopped sends are a page away"
    );
    assert_eq!(
        (view.status.stopped_total, view.status.stopped),
        (205, 204),
        "every stopped send counted, and every one not yet queued again"
    );
    let status = queue::queue_status(&ledger).unwrap();
    assert_eq!((status.stopped_total, status.stopped), (205, 204));

    let conn = ledger.raw_connection();
    {
        let sql = sendledger::ledger::STOPPED_AGAIN_SQL;
        let plan = query_plan(conn, sql, "1");
        // The cost follows the sends queued again, not the stopped ones: the resends'
        // index is the outer loop (a history's stopped sends are tens of thousands).
        assert!(
            plan.first().is_some_and(|s| s.contains("sends_by_resend")),
            "{sql} walks the resends, then looks each original up: {plan:#?}"
        );
        assert!(
            plan.iter()
                .all(|s| !s.starts_with("SCAN") || s.contains("COVERING INDEX")),
            "{sql} reads only indexes: {plan:#?}"
        );
    }
}

/// `op` queued with a file, clicked, the page's request seen elsewhere and without the
/// file, then answered with two pictures, a note of what was observed and the title of
/// the chat it became: every part a row shows beside the send, each with something in it.
fn send_with_every_part(fx: &Fixture, ledger: &mut Ledger, op: &str) {
    use sendledger::attachments::{AnswerArtifact, Attachment, ConfirmedFile, PageFile, Store};
    let (sha256, _) = Store::new(fx.profile.dir()).put(op.as_bytes()).unwrap();
    let file = Attachment {
        sha256: sha256.clone(),
        name: "notes.pdf".into(),
        mime: "application/pdf".into(),
        size: op.len() as u64,
    };
    ledger.record_upload(&file).unwrap();
    let req = sendledger::ledger::QueueRequest {
        attachments: vec![sha256],
        ..request(op, &format!("text of {op}"))
    };
    ledger.queue(&req, "test").unwrap();
    let lease = ledger.lease(&tab(&format!("tab-{op}"))).unwrap().lease_id;
    assert_eq!(ledger.claim_next(&lease).unwrap().unwrap().op_id, op);
    let shown = sendledger::destination::Confirmation {
        attachments: Some(vec![ConfirmedFile {
            file_id: Some(format!("file-{op}")),
            name: "notes.pdf".into(),
            size: op.len() as u64,
        }]),
        ..Default::default()
    };
    let grant = ledger.dispatch_confirmed(op, &lease, Some(&shown)).unwrap();
    assert!(
        matches!(grant, sendledger::ledger::Grant::Granted(_)),
        "{grant:?}"
    );
    let other = PageFile {
        file_id: format!("file-other-{op}"),
        name: Some("other.png".into()),
        size: Some(3),
    };
    ledger.record_page_attachments(op, &[other]).unwrap();
    ledger
        .record_page_destination(op, Some("somewhere-else"), None)
        .unwrap();
    let chat = format!("conv-{op}");
    let got = sendledger::ledger::Receipt {
        conversation_id: chat.clone(),
        ..receipt(op)
    };
    ledger.accept(op, &got, "extension").unwrap();
    let pictures: Vec<AnswerArtifact> = (0..2)
        .map(|i| AnswerArtifact {
            file_id: format!("file_{i:031x}{}", &op[op.len() - 1..]),
            pointer: format!("sediment://file_{i:031x}{}", &op[op.len() - 1..]),
            size_bytes: Some(100 + i),
            width: Some(64),
            height: Some(32),
        })
        .collect();
    ledger
        .complete_with_artifacts(
            op,
            (&format!("answer-{op}"), "the answer"),
            &pictures,
            "extension",
        )
        .unwrap();
    ledger
        .note_evidence(
            op,
            sendledger::ledger::EvidenceKind::Observed,
            "seen in the chat",
        )
        .unwrap();
    ledger
        .note_conversation_title(&chat, &format!("Title of {op}"))
        .unwrap();
}

/// Issue 39: a row's timeline, artifacts, destination and title, the page's mismatch, the
/// stop of its answer and the send that queued it again are read for a whole page of
/// rows at once (one query a part); each row shows exactly what its own send's reads give,
/// however many rows are read together — never another send's part, never one left out.
#[test]
fn each_row_shows_what_its_own_sends_reads_give_when_a_page_is_read_at_once() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    for op in ["op-every-a", "op-every-b"] {
        send_with_every_part(&fx, &mut ledger, op);
    }
    drive_to(&mut ledger, "op-rejected", SendState::Rejected);
    drive_to(&mut ledger, "op-uncertain", SendState::Uncertain);
    drive_to(&mut ledger, "op-answering", SendState::Accepted);
    ledger.requeue("op-rejected", "test").unwrap();
    ledger.stop("test").unwrap();

    let view = queue::queue_view(&ledger).unwrap();
    let rows: Vec<&queue::Row> = [&view.pending, &view.uncertain, &view.stopped, &view.history]
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(
        rows.len(),
        6,
        "every send is a row once (the one queued again was stopped by the Stop): {:?}",
        rows.iter().map(|r| &r.op_id).collect::<Vec<_>>()
    );
    for row in &rows {
        let op = row.op_id.as_str();
        let events = ledger.timeline(op).unwrap();
        let steps: Vec<queue::Step> = events.iter().cloned().map(Into::into).collect();
        assert_eq!(row.timeline, steps, "{op}: its own timeline");
        assert_eq!(
            row.artifacts,
            ledger.artifacts(op).unwrap(),
            "{op}: its artifacts"
        );
        assert_eq!(
            row.queued_again_as,
            ledger.queued_again_as(op).unwrap(),
            "{op}"
        );
        let mismatch = queue::mismatch_of(&ledger, op, &events).unwrap();
        assert_eq!(row.mismatch, mismatch, "{op}: its mismatch");
        let stop = ledger.remote_stop(op).unwrap();
        assert_eq!(
            row.remote_stop
                .as_ref()
                .map(|s| (s.phase, s.updated_at, s.words.clone())),
            stop.map(|s| (s.phase, s.updated_at, queue::answer_stop_words(&s))),
            "{op}: the stop of its answer"
        );
        let d = ledger.destination(op).unwrap();
        let send = ledger.get(op).unwrap().unwrap();
        let chat = d.as_ref().and_then(|d| {
            d.conversation_id
                .clone()
                .or_else(|| send.receipt.as_ref().map(|r| r.conversation_id.clone()))
        });
        let title = chat.and_then(|c| ledger.conversation_title(&c).unwrap());
        let words = d.map(|d| d.words_titled(title.as_deref()));
        assert_eq!(row.destination, words, "{op}: where it goes, titled");
    }
    let row = |op: &str| *rows.iter().find(|r| r.op_id == op).unwrap();
    for op in ["op-every-a", "op-every-b"] {
        let r = row(op);
        assert_eq!(r.artifacts.len(), 2, "{op}: both pictures");
        assert!(r
            .artifacts
            .iter()
            .all(|a| a.file_id.ends_with(&op[op.len() - 1..])));
        assert!(
            r.destination
                .as_deref()
                .unwrap()
                .contains(&format!("Title of {op}")),
            "{op}: {:?}",
            r.destination
        );
        let m = r.mismatch.as_deref().expect("the page's mismatch");
        assert!(
            m.contains("somewhere-else") && m.contains("; "),
            "{op}: both mismatches: {m}"
        );
        assert_eq!(
            r.observed.as_deref(),
            Some("seen in the chat"),
            "{op}: its note"
        );
    }
    assert!(row("op-rejected").queued_again_as.is_some(), "queued again");
    assert!(
        row("op-answering").remote_stop.is_some(),
        "the stop of its answer"
    );
}

/// Issue 39: each batched part of the rows is read through its table's key or an index
/// (`SEARCH`), never a scan of a table that grows with the history.
#[test]
fn each_part_of_a_page_of_rows_is_read_through_an_index_never_a_scan() {
    let fx = Fixture::new();
    let ledger = fx.open();
    let conn = ledger.raw_connection();
    for (part, sql) in sendledger::ledger::row_parts_sql() {
        let plan = query_plan(conn, &sql, "[\"op-1\",\"op-2\"]");
        for step in &plan {
            assert!(
                !step.starts_with("SCAN") || step.contains("json_each"),
                "{part} scans a table: {plan:#?}"
            );
        }
        assert!(
            plan.iter().any(|s| s.starts_with("SEARCH")),
            "{part} searches by key: {plan:#?}"
        );
    }
}
