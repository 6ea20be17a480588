//! The counts `status` reads (issue 39: a million sends are not counted at each `status`)
//! are kept by the ledger's triggers in the same transaction as each write: after every
//! kind of write — a queue, each edge, Stop, recovery at start, a retention prune — they
//! are the sends counted; `doctor --full` names a count that is not.

mod support;

use sendledger::ledger::{Ledger, LedgerRead, SendState};
use std::collections::BTreeMap;
use support::*;

const DAY: i64 = 24 * 3600 * 1000;

/// The sends counted per state, every state listed.
fn counted(ledger: &Ledger) -> BTreeMap<SendState, i64> {
    let mut out: BTreeMap<SendState, i64> = SendState::ALL.iter().map(|s| (*s, 0)).collect();
    let conn = ledger.raw_connection();
    let mut stmt = conn
        .prepare("SELECT state, count(*) FROM sends GROUP BY state")
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
        .unwrap();
    for row in rows {
        let (state, n) = row.unwrap();
        out.insert(state.parse().unwrap(), n);
    }
    out
}

fn assert_counts_true(ledger: &Ledger, after: &str) {
    assert_eq!(
        ledger.status().unwrap().counts,
        counted(ledger),
        "after {after}, status counts what the ledger holds"
    );
}

#[test]
fn the_counts_status_reads_are_the_sends_counted_after_every_kind_of_write() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    assert_counts_true(&ledger, "nothing");
    use SendState::*;
    // Settled ones first, then the ones left open (one send in flight at a time).
    for (op, state) in [
        ("op-completed", Completed),
        ("op-rejected", Rejected),
        ("op-confirmed", Confirmed),
        ("op-abandoned", Abandoned),
        ("op-page-error", PageError),
        ("op-dispatched", Dispatched),
        ("op-queued", Queued),
    ] {
        drive_to(&mut ledger, op, state);
        assert_eq!(state_of(&ledger, op), state);
        assert_counts_true(&ledger, op);
    }
    assert!(counted(&ledger).values().filter(|n| **n > 0).count() >= 7);
    ledger.stop("tester").unwrap();
    assert_eq!(state_of(&ledger, "op-queued"), Stopped);
    assert_counts_true(&ledger, "Stop");
    let (mut ledger, report) = fx.restart(ledger);
    assert_eq!(report.uncertain, ["op-dispatched"], "recovery moved it");
    assert_counts_true(&ledger, "recovery");
    fx.clock.advance(400 * DAY);
    ledger.set_retention(Some(30), "tester").unwrap();
    let pruned = ledger.prune_retention(100).unwrap();
    assert!(pruned.sends >= 5, "settled sends pruned: {pruned:?}");
    assert_counts_true(&ledger, "a retention prune");
}

#[test]
fn doctor_full_names_a_count_that_is_not_the_sends_counted() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    drive_to(&mut ledger, "op-1", SendState::Completed);
    drop(ledger);
    let doctor = |fx: &Fixture| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sendledger"))
            .arg("--profile")
            .arg(fx.profile.dir())
            .args(["doctor", "--full"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
    };
    let healthy = doctor(&fx);
    assert!(healthy.contains("healthy"), "{healthy}");
    let conn = rusqlite::Connection::open(fx.ledger_path()).unwrap();
    conn.execute("UPDATE send_counts SET n = 7 WHERE state = 'completed'", [])
        .unwrap();
    drop(conn);
    let said = doctor(&fx);
    assert!(
        said.contains("the ledger's count of completed sends says 7 but it holds 1"),
        "{said}"
    );
}
