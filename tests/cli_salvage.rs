//! A damaged ledger is not the end (issue 11): `doctor` names the damaged file and the
//! next step, and `sendledger salvage` keeps the damaged file byte-identical (renamed
//! aside), brings back every row on an undamaged page, turns what was in flight into
//! uncertain, closes the gate and dispatches nothing. Damage is written at several
//! offsets of a real ledger file: a leaf page of `sends`, of `events`, the last page of
//! `events`, and an index page.

mod support;

use rusqlite::types::Value;
use rusqlite::{Connection, OpenFlags};
use sendledger::ledger::LedgerRead;
use sendledger::ledger::{Ledger, SendState};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::*;

/// Every table of the ledger's schema whose rows are history: all of them but the
/// schema's own and the counts kept from the sends (read from the file, so a table a
/// migration adds is checked too).
fn tables(conn: &Connection) -> Vec<String> {
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .unwrap();
    let names = stmt.query_map([], |r| r.get::<_, String>(0)).unwrap();
    names
        .map(Result::unwrap)
        .filter(|n| {
            ![
                "send_states",
                "send_edges",
                "schema_migrations",
                "send_counts",
            ]
            .contains(&n.as_str())
        })
        .collect()
}

type Rows = BTreeMap<String, BTreeMap<i64, Vec<Value>>>;

/// (state, n) of `send_counts` for every state with a send: the counts `status` reads.
fn kept_counts(path: &Path) -> Vec<(String, i64)> {
    pairs(
        path,
        "SELECT state, n FROM send_counts WHERE n != 0 ORDER BY state",
    )
}

/// (state, n) counted over the sends themselves.
fn sends_counted(path: &Path) -> Vec<(String, i64)> {
    pairs(
        path,
        "SELECT state, count(*) FROM sends GROUP BY state ORDER BY state",
    )
}

fn pairs(path: &Path, sql: &str) -> Vec<(String, i64)> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    let out = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    out
}

/// Every row of every salvaged table, by rowid.
fn rows(path: &Path) -> Rows {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut out = Rows::new();
    for t in tables(&conn) {
        let mut stmt = conn.prepare(&format!("SELECT rowid, * FROM {t}")).unwrap();
        let n = stmt.column_count();
        let table = stmt
            .query_map([], |r| {
                let cells = (1..n)
                    .map(|i| r.get::<_, Value>(i))
                    .collect::<rusqlite::Result<_>>()?;
                Ok((r.get::<_, i64>(0)?, cells))
            })
            .unwrap()
            .collect::<rusqlite::Result<BTreeMap<_, _>>>()
            .unwrap();
        out.insert(t, table);
    }
    out
}

/// A ledger with a history: 240 sends in every state a person meets, their events, a
/// stop and a resume, tool receipts; one send claimed (in flight) at the end. Closed, so
/// the whole history is in the main file.
fn written(fx: &Fixture) {
    let mut ledger = fx.open();
    for i in 0..240 {
        let op = format!("op-{i:03}");
        let target = match i % 6 {
            0 => SendState::Completed,
            1 => SendState::Rejected,
            2 => SendState::Uncertain,
            3 => SendState::Confirmed,
            4 => SendState::Abandoned,
            _ => SendState::Queued,
        };
        drive_to(&mut ledger, &op, target);
        if target == SendState::Queued {
            ledger.stop("alice").unwrap();
            ledger.resume("alice").unwrap();
        }
    }
    for i in 0..30 {
        ledger.tool_admit(&format!("call-{i}")).unwrap();
    }
    ledger
        .queue(
            &request("op-in-flight", "claimed when the file broke"),
            "test",
        )
        .unwrap();
    let lease = ledger.lease(&tab("tab-last")).unwrap().lease_id;
    assert_eq!(
        ledger.claim_next(&lease).unwrap().unwrap().op_id,
        "op-in-flight"
    );
    // The OpenAI door's keys and retry fingerprints, and a tab's report.
    for i in 0..5 {
        ledger
            .key_create(
                &format!("companion-{i}"),
                sendledger::ledger::KeyScope::Send,
                "alice",
            )
            .unwrap();
        let send = request(&format!("door-{i}"), "asked through the door");
        ledger
            .door_queue(&sendledger::ledger::DoorQueue {
                send,
                client: format!("key:companion-{i}"),
                actor: format!("openai:key:companion-{i}"),
                body_sha256: format!("{i:064}"),
                keyed: false,
            })
            .unwrap();
    }
    ledger
        .report_tab(sendledger::ledger::TabReport {
            tab_id: "tab-loading".into(),
            reason: "the composer did not appear: reload the tab".into(),
            path: Some("/".into()),
            reported_at: 1,
        })
        .unwrap();
}

/// (page number, cells) of pages of `name` of `kind` (`leaf`, `internal`), from dbstat.
fn pages(path: &Path, name: &str, kind: &str) -> Vec<(i64, i64)> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT pageno, ncell FROM dbstat WHERE name = ?1 AND pagetype = ?2 ORDER BY pageno",
        )
        .unwrap();
    stmt.query_map([name, kind], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

fn sha(path: &Path) -> String {
    format!("{:x}", Sha256::digest(std::fs::read(path).unwrap()))
}

/// Overwrites page `pageno` (4096 bytes) with garbage.
fn damage(path: &Path, pageno: i64) {
    use std::io::{Seek, SeekFrom, Write};
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.seek(SeekFrom::Start((pageno as u64 - 1) * 4096)).unwrap();
    let garbage: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 13) as u8 | 0x80).collect();
    f.write_all(&garbage).unwrap();
    f.sync_all().unwrap();
}

fn salvage(profile: &Path) -> (i32, serde_json::Value, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sendledger"))
        .arg("--profile")
        .arg(profile)
        .args(["--json", "salvage"])
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_default();
    (
        out.status.code().unwrap_or(-1),
        v,
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn doctor(profile: &Path) -> (i32, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sendledger"))
        .arg("--profile")
        .arg(profile)
        .arg("doctor")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

/// One damage case: the page hit, what it belongs to, and how many rows live on it.
struct Case {
    what: &'static str,
    page: i64,
    table: Option<&'static str>,
    cells: i64,
}

fn cases(pristine: &Path) -> Vec<Case> {
    let sends = pages(pristine, "sends", "leaf");
    let events = pages(pristine, "events", "leaf");
    let index = pages(pristine, "events_by_op", "leaf");
    assert!(
        sends.len() >= 3 && events.len() >= 3 && !index.is_empty(),
        "a history of many pages"
    );
    let mid = |v: &Vec<(i64, i64)>| v[v.len() / 2];
    let last = *events.last().unwrap();
    vec![
        Case {
            what: "a leaf page of sends",
            page: mid(&sends).0,
            table: Some("sends"),
            cells: mid(&sends).1,
        },
        Case {
            what: "a leaf page of events",
            page: mid(&events).0,
            table: Some("events"),
            cells: mid(&events).1,
        },
        Case {
            what: "the highest-numbered page of events",
            page: last.0,
            table: Some("events"),
            cells: last.1,
        },
        Case {
            what: "an index page",
            page: mid(&index).0,
            table: None,
            cells: 0,
        },
    ]
}

fn profile_copy(fx: &Fixture, dir: &Path, name: &str) -> PathBuf {
    let profile = dir.join(name);
    std::fs::create_dir(&profile).unwrap();
    std::fs::copy(fx.ledger_path(), profile.join("ledger.sqlite3")).unwrap();
    profile
}

#[test]
fn salvage_brings_back_every_row_on_an_undamaged_page_and_keeps_the_damaged_file_untouched() {
    let fx = Fixture::new();
    written(&fx);
    let original = rows(&fx.ledger_path());
    let max_event = *original["events"].keys().last().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut salvaged_all, mut written_all) = (0usize, 0usize);
    for (n, case) in cases(&fx.ledger_path()).into_iter().enumerate() {
        let profile = profile_copy(&fx, dir.path(), &format!("p{n}"));
        damage(&profile.join("ledger.sqlite3"), case.page);
        let damaged_sha = sha(&profile.join("ledger.sqlite3"));
        if case.table.is_some() {
            let (code, text) = doctor(&profile);
            assert_ne!(code, 0, "{}: {text}", case.what);
            assert!(
                text.contains(&profile.join("ledger.sqlite3").display().to_string())
                    && text.contains("sendledger salvage"),
                "{}: doctor names the file and the next step: {text}",
                case.what
            );
        }
        let (code, v, err) = salvage(&profile);
        assert_eq!(code, 0, "{}: {err}", case.what);
        let aside = PathBuf::from(v["salvage"]["damaged"].as_str().unwrap());
        assert_eq!(
            sha(&aside),
            damaged_sha,
            "{}: the damaged file is byte-identical",
            case.what
        );
        assert_eq!(
            kept_counts(&profile.join("ledger.sqlite3")),
            sends_counted(&profile.join("ledger.sqlite3")),
            "{}: the counts `status` reads are of the sends salvaged",
            case.what
        );
        let back = rows(&profile.join("ledger.sqlite3"));
        let mut lost = BTreeMap::new();
        for (t, table) in &original {
            let t = t.as_str();
            for (rowid, row) in table {
                let placeholder = |r: &Vec<Value>| r.get(6) == Some(&Value::Text("salvage".into()));
                match back[t]
                    .get(rowid)
                    .filter(|r| !(t == "events" && placeholder(r)))
                {
                    Some(got) if t == "sends" || t == "leases" => {
                        // Recovery and the closing Stop move these on; the payload stays.
                        assert_eq!(got[..4], row[..4], "{}: {t} {rowid}", case.what);
                    }
                    Some(got) if t == "gate" => {
                        assert_eq!(got[2], row[2], "{}: the generation is kept", case.what);
                    }
                    Some(got) => {
                        assert_eq!(got, row, "{}: {t} {rowid} comes back as written", case.what)
                    }
                    None => *lost.entry(t).or_insert(0i64) += 1,
                }
            }
        }
        let expected: BTreeMap<&str, i64> =
            case.table.map(|t| (t, case.cells)).into_iter().collect();
        assert_eq!(
            lost, expected,
            "{}: exactly the rows of the damaged page are lost",
            case.what
        );
        salvaged_all +=
            original.values().map(|t| t.len()).sum::<usize>() - lost.values().sum::<i64>() as usize;
        written_all += original.values().map(|t| t.len()).sum::<usize>();

        let ledger = Ledger::open(
            &sendledger::profile::Profile::at(&profile).unwrap(),
            std::sync::Arc::new(sendledger::clock::ManualClock::new(T0)),
        )
        .unwrap()
        .0;
        assert!(
            ledger.status().unwrap().gate_closed,
            "{}: the gate starts closed",
            case.what
        );
        if back["sends"]
            .values()
            .any(|r| r[0] == Value::Text("op-in-flight".into()))
        {
            assert_eq!(
                state_of(&ledger, "op-in-flight"),
                SendState::Uncertain,
                "{}",
                case.what
            );
        }
        let dispatched_after: i64 = ledger
            .raw_connection()
            .query_row(
                "SELECT count(*) FROM events WHERE to_state = 'dispatched' AND id > ?1",
                [max_event],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(
            dispatched_after, 0,
            "{}: salvage dispatches nothing",
            case.what
        );
    }
    eprintln!("rows salvaged: {salvaged_all} of {written_all} written, over 4 damaged files");
}

#[test]
fn salvage_refuses_a_healthy_ledger_and_a_running_owner_and_leaves_both_untouched() {
    let fx = Fixture::new();
    written(&fx);
    let before = sha(&fx.ledger_path());
    let (code, _, err) = salvage(fx.profile.dir());
    assert_eq!(code, 2, "{err}");
    assert_eq!(sha(&fx.ledger_path()), before);
    let pages = pages(&fx.ledger_path(), "sends", "leaf");
    damage(&fx.ledger_path(), pages[1].0);
    let damaged = sha(&fx.ledger_path());
    let _owner = fx.profile.lock_owner().unwrap();
    let (code, _, err) = salvage(fx.profile.dir());
    assert_eq!(code, 3, "the owner runs: stop it first; {err}");
    assert_eq!(sha(&fx.ledger_path()), damaged, "nothing moved");
}

/// After a salvage, `doctor` is healthy (exit 0) and says what was lost — the ids of the
/// sends whose rows were on the damaged pages — and that the rows still naming them are
/// expected, instead of "foreign key broken" problems with no next step.
#[test]
fn doctor_after_a_salvage_names_the_lost_sends_and_calls_their_traces_expected() {
    let fx = Fixture::new();
    written(&fx);
    let op_ids = |path: &Path| -> Vec<String> {
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let mut stmt = conn.prepare("SELECT op_id FROM sends").unwrap();
        let ids = stmt.query_map([], |r| r.get(0)).unwrap();
        ids.collect::<rusqlite::Result<_>>().unwrap()
    };
    let original = op_ids(&fx.ledger_path());
    let dir = tempfile::tempdir().unwrap();
    let profile = profile_copy(&fx, dir.path(), "p");
    let sends = pages(&fx.ledger_path(), "sends", "leaf");
    damage(&profile.join("ledger.sqlite3"), sends[sends.len() / 2].0);
    let (code, _, err) = salvage(&profile);
    assert_eq!(code, 0, "{err}");
    let kept = op_ids(&profile.join("ledger.sqlite3"));
    let lost: Vec<&String> = original.iter().filter(|o| !kept.contains(o)).collect();
    assert!(!lost.is_empty(), "the damaged page held sends");
    let (code, text) = doctor(&profile);
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains("foreign key broken"), "{text}");
    assert!(text.contains("expected after a salvage"), "{text}");
    for o in &lost {
        assert!(
            text.contains(o.as_str()),
            "doctor names lost send {o}: {text}"
        );
    }
}

/// A first page nobody can read: `doctor` says so once with what can still be done, never
/// "run salvage"; `salvage` answers the same (exit 4) and changes nothing.
#[test]
fn a_damaged_first_page_is_said_once_with_what_can_still_be_done_and_salvage_changes_nothing() {
    let fx = Fixture::new();
    written(&fx);
    let dir = tempfile::tempdir().unwrap();
    let profile = profile_copy(&fx, dir.path(), "p");
    damage(&profile.join("ledger.sqlite3"), 1);
    let before = sha(&profile.join("ledger.sqlite3"));
    let (code, text) = doctor(&profile);
    assert_eq!(code, 4, "{text}");
    assert!(
        text.contains("cannot help") && text.contains(".recover"),
        "{text}"
    );
    assert!(
        !text.contains("run `sendledger salvage`"),
        "no loop back to salvage: {text}"
    );
    let (code, v, _) = salvage(&profile);
    assert_eq!(code, 4, "{v}");
    assert_eq!(v["error"]["code"], "unsalvageable", "{v}");
    assert_eq!(
        sha(&profile.join("ledger.sqlite3")),
        before,
        "untouched, in place"
    );
    let left: Vec<_> = std::fs::read_dir(&profile)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("ledger.damaged-") || n.starts_with(".salvage"))
        .collect();
    assert!(left.is_empty(), "nothing left behind: {left:?}");
}

/// Retention prunes the oldest sends, so a ledger it pruned starts with a gap of rowids
/// wider than `MAX_MISSES` in every table it pruned. Salvage reads each table up to its
/// largest rowid whatever the gaps: the sends after the gap come back. The gap here is in
/// `sends`: a history of 1,000 numbered from past `MAX_MISSES` (the rowids below, a history
/// pruned before) and then pruned, not 12,000 sends written and pruned (a minute of the
/// Windows run's, for the same file).
#[test]
fn salvage_reads_past_a_pruned_gap_wider_than_max_misses() {
    use sendledger::clock::SystemClock;
    use sendledger::ledger::{MAX_MISSES, PRUNE_BATCH};
    let fx = Fixture::new();
    {
        let (mut ledger, _) = Ledger::open(&fx.profile, std::sync::Arc::new(SystemClock)).unwrap();
        old_history_from(&mut ledger, MAX_MISSES + 1_000, 1_000, 400);
        ledger.set_retention(Some(30), "tester").unwrap();
        while ledger.prune_retention(PRUNE_BATCH).unwrap().more {}
        for i in 0..20 {
            drive_to(&mut ledger, &format!("kept-{i:02}"), SendState::Completed);
        }
        let gap: i64 = ledger
            .raw_connection()
            .query_row("SELECT min(seq) FROM sends", [], |r| r.get(0))
            .unwrap();
        assert!(
            gap > MAX_MISSES,
            "the sends start after a gap of {gap} rowids"
        );
    }
    let index = pages(&fx.ledger_path(), "events_by_op", "leaf");
    damage(&fx.ledger_path(), index[index.len() / 2].0);
    let (code, _, err) = salvage(fx.profile.dir());
    assert_eq!(code, 0, "{err}");
    let (ledger, _) = Ledger::open(&fx.profile, std::sync::Arc::new(SystemClock)).unwrap();
    for i in 0..20 {
        let op = format!("kept-{i:02}");
        assert_eq!(
            ledger.get(&op).unwrap().map(|s| s.state),
            Some(SendState::Completed),
            "{op}, after the gap, comes back"
        );
    }
}
