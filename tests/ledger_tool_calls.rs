//! At-most-once tool-call receipts (issue 3): admit answers, the retention cap, archive
//! rules, and the upgrade of a schema-2 ledger whose admissions were generation-wide.

mod support;

use sendledger::ledger::LedgerRead;
use sendledger::ledger::{
    migrations, Admission, Ledger, LedgerError, LedgerReader, ToolState, TOOL_RECEIPTS_CAP,
};
use std::sync::Arc;
use support::*;

#[test]
fn admit_answers_admitted_in_flight_settled_and_start_runs_once() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    assert_eq!(ledger.tool_admit("call-1").unwrap(), Admission::Admitted);
    assert_eq!(
        ledger.tool_admit("call-1").unwrap(),
        Admission::Admitted,
        "not started yet"
    );
    ledger.tool_start("call-1").unwrap();
    assert_eq!(ledger.tool_admit("call-1").unwrap(), Admission::InFlight);
    assert_refused(
        ledger.tool_start("call-1"),
        "do not run the side effect again",
    );
    assert_refused(ledger.tool_start("call-unknown"), "admit it first");
    ledger.tool_admit("call-2").unwrap();
    assert_refused(ledger.tool_settle("call-2", "x"), "never started");
    let settled = ledger.tool_settle("call-1", "42 rows").unwrap();
    assert_eq!(
        (settled.state, settled.outcome.as_deref()),
        (ToolState::Settled, Some("42 rows"))
    );
    assert_eq!(
        ledger.tool_admit("call-1").unwrap(),
        Admission::AlreadySettled {
            outcome: "42 rows".into()
        }
    );
    ledger
        .tool_settle("call-1", "42 rows")
        .expect("the same outcome again is a no-op");
    assert_refused(
        ledger.tool_settle("call-1", "43 rows"),
        "an outcome is written once",
    );
    let err = try_raw(
        ledger.raw_connection(),
        "UPDATE tool_calls SET outcome = 'x' WHERE call_id = 'call-1'",
        [],
    )
    .unwrap_err();
    assert!(err.contains("tool receipt outcome is immutable"), "{err}");
    let err = try_raw(
        ledger.raw_connection(),
        "UPDATE tool_calls SET state = 'admitted' WHERE call_id = 'call-1'",
        [],
    )
    .unwrap_err();
    assert!(err.contains("illegal tool call edge"), "{err}");
    assert_refused(ledger.tool_admit(""), "tool call id must be");
}

#[test]
fn tool_receipts_cap_refuses_the_1001st_admission_and_forgets_nothing() {
    assert_eq!(TOOL_RECEIPTS_CAP, 1_000);
    let fx = Fixture::new();
    let mut ledger = fx.open();
    for i in 0..1_000 {
        assert_eq!(
            ledger.tool_admit(&format!("call-{i}")).unwrap(),
            Admission::Admitted
        );
    }
    let before = dump(ledger.raw_connection());
    let err = ledger.tool_admit("call-1000").unwrap_err();
    assert!(matches!(err, LedgerError::ToolReceiptsFull), "{err:?}");
    assert!(
        err.to_string().contains("archive settled ones"),
        "says what to do: {err}"
    );
    assert_eq!(
        before,
        dump(ledger.raw_connection()),
        "nothing written, nothing forgotten"
    );
    assert_eq!(
        ledger.tool_admit("call-0").unwrap(),
        Admission::Admitted,
        "the oldest is still known"
    );
    assert_eq!(ledger.status().unwrap().tool_receipts_retained, 1_000);
    ledger.tool_start("call-0").unwrap();
    ledger.tool_settle("call-0", "ok").unwrap();
    ledger.tool_archive("call-0", "alice").unwrap();
    assert_eq!(
        ledger.tool_admit("call-1000").unwrap(),
        Admission::Admitted,
        "archiving freed a place"
    );
    assert_eq!(
        ledger.tool_admit("call-0").unwrap(),
        Admission::AlreadySettled {
            outcome: "ok".into()
        },
        "an archived receipt still answers"
    );
}

#[test]
fn only_settled_tool_receipts_can_be_archived_and_who_is_recorded() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    ledger.tool_admit("admitted").unwrap();
    ledger.tool_admit("started").unwrap();
    ledger.tool_start("started").unwrap();
    ledger.tool_admit("uncertain").unwrap();
    ledger.tool_start("uncertain").unwrap();
    let (mut ledger, _) = fx.restart(ledger); // "uncertain" and "started" become uncertain
    ledger.tool_admit("started-now").unwrap();
    ledger.tool_start("started-now").unwrap();
    ledger.tool_admit("settled").unwrap();
    ledger.tool_start("settled").unwrap();
    ledger.tool_settle("settled", "ok").unwrap();
    let before = dump(ledger.raw_connection());
    for id in ["admitted", "started-now", "uncertain", "started"] {
        assert_refused(
            ledger.tool_archive(id, "alice"),
            "only settled receipts can be archived",
        );
        let err = try_raw(
            ledger.raw_connection(),
            "UPDATE tool_calls SET archived_at = 1, archived_by = 'sql' WHERE call_id = ?1",
            [id],
        )
        .unwrap_err();
        assert!(
            err.contains("only settled tool receipts can be archived"),
            "{id}: {err}"
        );
    }
    assert_refused(
        ledger.tool_archive("settled", " "),
        "who archives (--by) is required",
    );
    assert_eq!(before, dump(ledger.raw_connection()));
    fx.clock.advance(7);
    let archived = ledger.tool_archive("settled", "alice").unwrap();
    assert_eq!(
        (archived.archived_by.as_deref(), archived.archived_at),
        (Some("alice"), Some(fx.clock_now()))
    );
    assert_eq!(
        ledger
            .tool_archive("settled", "bob")
            .unwrap()
            .archived_by
            .as_deref(),
        Some("alice"),
        "archived once"
    );
    let err = try_raw(ledger.raw_connection(), "DELETE FROM tool_calls", []).unwrap_err();
    assert!(err.contains("never deleted"), "{err}");
}

#[test]
fn legacy_generation_wide_admissions_become_receipts_no_new_call_matches() {
    let fx = Fixture::new();
    {
        let old = Ledger::open_at_version(&fx.profile, Arc::new(fx.clock.clone()), 2).unwrap();
        assert_eq!(migrations::version(old.raw_connection()).unwrap(), 2);
        old.raw_connection()
            .execute_batch(
                "INSERT INTO tool_admissions(generation, admitted_at, outcome) VALUES (0, 100, 'sent the mail'); \
                 INSERT INTO tool_admissions(generation, admitted_at, outcome) VALUES (1, 200, NULL);",
            )
            .unwrap();
    }
    let err = LedgerReader::open(&fx.profile)
        .err()
        .expect("a reader does not upgrade");
    assert!(err.to_string().contains("needs upgrading"), "{err}");
    let mut ledger = fx.open();
    assert_eq!(
        migrations::version(ledger.raw_connection()).unwrap(),
        migrations::CURRENT_VERSION
    );
    let legacy: Vec<(Option<String>, i64, String, Option<String>)> = ledger
        .raw_connection()
        .prepare("SELECT call_id, legacy_generation, state, outcome FROM tool_calls ORDER BY seq")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(
        legacy,
        [
            (None, 0, "settled".into(), Some("sent the mail".into())),
            (None, 1, "uncertain".into(), None),
        ]
    );
    for call in ["0", "1", "generation-0", "generation:1", "legacy"] {
        assert_eq!(
            ledger.tool_admit(call).unwrap(),
            Admission::Admitted,
            "{call:?} is a new call"
        );
    }
    let matched: i64 = ledger
        .raw_connection()
        .query_row(
            "SELECT count(*) FROM tool_calls WHERE call_id IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(matched, 2, "the legacy rows are kept, unmatched");
    let err = try_raw(
        ledger.raw_connection(),
        "UPDATE tool_calls SET call_id = 'claimed' WHERE call_id IS NULL",
        [],
    )
    .unwrap_err();
    assert!(err.contains("identity is immutable"), "{err}");
}
