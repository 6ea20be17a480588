//! Retention (issue 39): a person may choose that settled sends older than N days are
//! pruned, with the files only they used; off by default; never an open send; a crash
//! mid-prune leaves a consistent ledger.

mod support;

use sendledger::attachments::{Attachment, Store};
use sendledger::clock::SystemClock;
use sendledger::ledger::{Ledger, LedgerRead, QueueRequest, SendState, PRUNE_BATCH};
use sendledger::owner::attachment_upkeep::prune_once;
use support::*;

const DAY: i64 = 24 * 3600 * 1000;

fn upload(fx: &Fixture, ledger: &mut Ledger, name: &str, bytes: &[u8]) -> String {
    let (sha, _) = Store::new(fx.profile.dir()).put(bytes).unwrap();
    let a = Attachment {
        sha256: sha.clone(),
        name: name.into(),
        mime: "image/png".into(),
        size: bytes.len() as u64,
    };
    ledger.record_upload(&a).unwrap();
    sha
}

/// Queues `op` carrying `shas`, then takes it back (stopped: settled, never sent).
fn settled_with_files(ledger: &mut Ledger, op: &str, shas: &[&String]) {
    let req = QueueRequest {
        attachments: shas.iter().map(|s| s.to_string()).collect(),
        ..request(op, "with files")
    };
    ledger.queue(&req, "test").unwrap();
    ledger.withdraw(op, "tester").unwrap();
}

/// Runs prune passes until one is not full; returns how many sends went.
fn prune_all(ledger: &mut Ledger) -> u64 {
    let mut n = 0;
    loop {
        let p = ledger.prune_retention(PRUNE_BATCH).unwrap();
        n += p.sends;
        if !p.more {
            return n;
        }
    }
}

fn count(ledger: &Ledger, sql: &str) -> i64 {
    ledger
        .raw_connection()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

#[test]
fn off_by_default_prunes_nothing() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-done", SendState::Completed);
    settled_with_files(&mut ledger, "op-taken-back", &[]);
    fx.clock.advance(3650 * DAY);
    assert_eq!(ledger.retention().unwrap().days, None, "off until set");
    assert_eq!(prune_all(&mut ledger), 0);
    assert_eq!(count(&ledger, "SELECT count(*) FROM sends"), 2);
    assert!(count(&ledger, "SELECT count(*) FROM events") >= 2);
    // Turned on, then off again: nothing either.
    ledger.set_retention(Some(1), "tester").unwrap();
    ledger.set_retention(None, "tester").unwrap();
    assert_eq!(prune_all(&mut ledger), 0);
    assert_eq!(count(&ledger, "SELECT count(*) FROM sends"), 2);
}

#[test]
fn an_open_send_is_never_pruned() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-done", SendState::Completed);
    drive_to(&mut ledger, "op-unsure", SendState::Dispatched);
    let (mut ledger, report) = fx.restart(ledger);
    assert_eq!(report.uncertain, ["op-unsure"]);
    drive_to(&mut ledger, "op-waiting", SendState::Accepted);
    ledger
        .queue(&request("op-queued", "still queued"), "test")
        .unwrap();
    fx.clock.advance(400 * DAY);
    ledger.set_retention(Some(30), "tester").unwrap();
    assert_eq!(
        prune_all(&mut ledger),
        1,
        "only the completed send is old and settled"
    );
    assert!(ledger.get("op-done").unwrap().is_none());
    for (op, state) in [
        ("op-unsure", SendState::Uncertain),
        ("op-waiting", SendState::Accepted),
        ("op-queued", SendState::Queued),
    ] {
        assert_eq!(state_of(&ledger, op), state, "{op} is kept");
        assert!(
            !ledger.timeline(op).unwrap().is_empty(),
            "{op} keeps its events"
        );
    }
    // The schema refuses it too, even inside a prune.
    let conn = ledger.raw_connection();
    conn.execute_batch("BEGIN; UPDATE retention SET pruning = 1;")
        .unwrap();
    for op in ["op-unsure", "op-waiting", "op-queued"] {
        conn.execute("DELETE FROM events WHERE op_id = ?1", [op])
            .unwrap();
        let err = conn
            .execute("DELETE FROM sends WHERE op_id = ?1", [op])
            .unwrap_err();
        assert!(
            err.to_string().contains("an open send is never pruned"),
            "{err}"
        );
    }
    conn.execute_batch("ROLLBACK").unwrap();
    // And outside a prune, no send is deleted at all.
    let err = conn.execute("DELETE FROM sends", []).unwrap_err();
    assert!(err.to_string().contains("append_only"), "{err}");
    let err = conn.execute("DELETE FROM events", []).unwrap_err();
    assert!(err.to_string().contains("append-only"), "{err}");
}

#[test]
fn a_file_used_by_a_kept_send_is_kept() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let store = Store::new(fx.profile.dir());
    let shared = upload(
        &fx,
        &mut ledger,
        "shared.png",
        b"used by an old and a new send",
    );
    let own = upload(&fx, &mut ledger, "own.png", b"used by the old send only");
    settled_with_files(&mut ledger, "op-old", &[&shared, &own]);
    fx.clock.advance(100 * DAY);
    settled_with_files(&mut ledger, "op-new", &[&shared]);
    ledger.set_retention(Some(30), "tester").unwrap();
    let pruned = prune_once(&mut ledger, &store).unwrap();
    assert_eq!((pruned.sends, pruned.files.clone()), (1, vec![own.clone()]));
    assert!(ledger.get("op-old").unwrap().is_none());
    assert!(store.read(&own).is_err(), "the old send's own file is gone");
    assert!(store.read(&shared).is_ok(), "the kept send's file is kept");
    let kept = ledger.attachments_of("op-new").unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].file.sha256, shared);
    assert_eq!(
        count(&ledger, "SELECT count(*) FROM attachments"),
        1,
        "the shared file's record stays"
    );
    let fk: i64 = count(&ledger, "SELECT count(*) FROM pragma_foreign_key_check");
    assert_eq!(fk, 0, "no row names a pruned one");
}

#[test]
fn a_sigkill_mid_prune_leaves_a_consistent_ledger() {
    let fx = Fixture::new();
    let n = 6_000;
    {
        let (mut ledger, _) = Ledger::open(&fx.profile, std::sync::Arc::new(SystemClock)).unwrap();
        old_history(&mut ledger, n, 400);
        ledger
            .queue(&request("op-queued", "an open send"), "test")
            .unwrap();
        ledger.set_retention(Some(30), "tester").unwrap();
    }
    let child = CustodyChild::spawn(fx.profile.dir(), &["open", &format!("prune:{n}")]);
    child.wait_ready("open");
    assert_eq!(child.next_line(), "pruning");
    std::thread::sleep(std::time::Duration::from_millis(150));
    child.kill();
    let (ledger, _) = Ledger::open(&fx.profile, std::sync::Arc::new(SystemClock)).unwrap();
    let conn = ledger.raw_connection();
    let ok: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
    assert_eq!(
        count(&ledger, "SELECT count(*) FROM pragma_foreign_key_check"),
        0
    );
    assert_eq!(count(&ledger, "SELECT pruning FROM retention"), 0);
    let sends = count(
        &ledger,
        "SELECT count(*) FROM sends WHERE op_id GLOB 'hist-*'",
    );
    assert!(
        sends == 0 || sends == n,
        "one batch, all or nothing: {sends} of {n} left"
    );
    assert_eq!(
        count(&ledger, "SELECT count(*) FROM events e WHERE NOT EXISTS (SELECT 1 FROM sends s WHERE s.op_id = e.op_id)"),
        0,
        "no event outlives its send"
    );
    assert_eq!(
        count(&ledger, "SELECT count(*) FROM sends s WHERE op_id GLOB 'hist-*' AND (SELECT count(*) FROM events e WHERE e.op_id = s.op_id) <> 5"),
        0,
        "every kept send keeps its whole trail"
    );
    assert_eq!(
        ledger.get("op-queued").unwrap().map(|s| s.state),
        Some(SendState::Rejected),
        "the open send was kept (the restart's recovery then rejects it)"
    );
}

#[test]
fn the_newest_send_and_event_are_never_pruned_so_no_number_is_taken_again() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Completed);
    drive_to(&mut ledger, "op-2", SendState::Completed);
    let newest_event = count(&ledger, "SELECT max(id) FROM events");
    let newest_seq = count(&ledger, "SELECT max(seq) FROM sends");
    fx.clock.advance(400 * DAY);
    ledger.set_retention(Some(30), "tester").unwrap();
    assert_eq!(prune_all(&mut ledger), 1, "the newest send stays");
    assert!(ledger.get("op-1").unwrap().is_none());
    assert!(ledger.get("op-2").unwrap().is_some());
    ledger
        .queue(&request("op-3", "after the prune"), "test")
        .unwrap();
    assert!(count(&ledger, "SELECT max(id) FROM events") > newest_event);
    assert!(count(&ledger, "SELECT seq FROM sends WHERE op_id = 'op-3'") > newest_seq);
}
