//! Shared helpers of the ledger's integration tests: a temporary profile with a manual
//! clock, driving one send to any state through the public API, a dump of every table
//! (to prove a refusal wrote nothing), and the custody child process for kill tests.
#![allow(dead_code)] // each test binary uses its own subset

#[path = "dump.rs"]
mod dump_rows;
#[path = "kill.rs"]
mod kill_child;
pub mod script;

pub use dump_rows::{dump_connection, Dump};
pub use kill_child::sigkill_and_reap;

/// How long [`Fixture::open_reporting`] tries again when the owner lock it meets names this
/// very test process (a concurrent test's child between fork and exec).
pub const OWN_LOCK_RETRY: Duration = Duration::from_secs(2);

use rusqlite::Connection;
use sendledger::clock::{ManualClock, Millis};
use sendledger::ledger::LedgerRead;
use sendledger::ledger::{
    Decision, Ledger, LedgerError, QueueRequest, Receipt, RecoveryReport, Resolution, SendState,
    TabBinding,
};
use sendledger::profile::Profile;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

/// SQLite's plan for `sql` (`EXPLAIN QUERY PLAN`), one line a step (its `detail`), with
/// each of its `?` parameters bound to `param`.
pub fn query_plan(conn: &Connection, sql: &str, param: &str) -> Vec<String> {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let n = stmt.parameter_count();
    stmt.query_map(rusqlite::params_from_iter((0..n).map(|_| param)), |r| {
        r.get::<_, String>(3)
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// Where every manual clock starts (2023-11-14, ms since the Unix epoch).
pub const T0: Millis = 1_700_000_000_000;

/// The legal edges, copied from DESIGN.md's diagram (deliberately not from the code, so
/// a rule removed from the code cannot also remove it from the expectation), with the two
/// edges docs/custody.md adds ("When the page says no"): accepted → page_error, and
/// dispatched → page_error for a conversation request the server refused.
pub const DESIGN_EDGES: [(SendState, SendState); 15] = {
    use SendState::*;
    [
        (Queued, Claimed),
        (Queued, Rejected),
        (Queued, Stopped),
        (Claimed, Dispatched),
        (Claimed, Rejected),
        (Claimed, Uncertain),
        (Claimed, Stopped),
        (Dispatched, Accepted),
        (Dispatched, Uncertain),
        (Dispatched, PageError),
        (Accepted, Completed),
        (Accepted, PageError),
        (Uncertain, Accepted),
        (Uncertain, Confirmed),
        (Uncertain, Abandoned),
    ]
};

/// The page's error for a turn, not a usage limit.
pub fn page_said(message: &str) -> sendledger::ledger::PageError {
    sendledger::ledger::PageError {
        message: message.into(),
        limit: None,
    }
}

/// Whether `from → to` is an edge of DESIGN.md's diagram.
pub fn design_allows(from: SendState, to: SendState) -> bool {
    DESIGN_EDGES.contains(&(from, to))
}

/// A temporary profile and a clock that only moves when told to.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub profile: Profile,
    pub clock: ManualClock,
}

impl Fixture {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let profile = Profile::at(dir.path().join("profile")).expect("a profile directory");
        Self {
            dir,
            profile,
            clock: ManualClock::new(T0),
        }
    }

    /// Opens the owner's ledger (recovery included).
    pub fn open(&self) -> Ledger {
        self.open_reporting().0
    }

    /// Opens the owner's ledger and returns what recovery did.
    ///
    /// A lock this test process dropped can still be held for a moment by a child another
    /// test of the same binary is starting: between its fork and its exec the child holds a
    /// copy of every descriptor, the owner lock's too (`flock` belongs to the open file,
    /// and close-on-exec closes the copy only at the exec). So a refusal naming this very
    /// process as the owner is tried again, for at most [`OWN_LOCK_RETRY`]; a lock that a
    /// dropped ledger really kept stays refused after it.
    pub fn open_reporting(&self) -> (Ledger, RecoveryReport) {
        let started = std::time::Instant::now();
        loop {
            match Ledger::open(&self.profile, Arc::new(self.clock.clone())) {
                Err(sendledger::ledger::LedgerError::Profile(
                    sendledger::profile::ProfileError::Owned { owner, .. },
                )) if owner.pid == std::process::id() && started.elapsed() < OWN_LOCK_RETRY => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                opened => return opened.expect("the ledger opens"),
            }
        }
    }

    /// Closes `ledger` and opens it again: a restart, which runs recovery.
    pub fn restart(&self, ledger: Ledger) -> (Ledger, RecoveryReport) {
        drop(ledger);
        self.open_reporting()
    }

    /// What the manual clock reads now.
    pub fn clock_now(&self) -> Millis {
        use sendledger::clock::Clock;
        self.clock.now_ms()
    }

    /// The ledger file.
    pub fn ledger_path(&self) -> std::path::PathBuf {
        self.profile
            .ledger_path()
            .expect("the ledger path stays in the profile")
    }
}

/// A tab binding for tab `id` with no conversation (it fits any send).
pub fn tab(id: &str) -> TabBinding {
    TabBinding {
        tab_id: id.into(),
        ..TabBinding::default()
    }
}

/// A queue request for operation `op` with `text` and no conversation.
pub fn request(op: &str, text: &str) -> QueueRequest {
    QueueRequest {
        op_id: Some(op.into()),
        text: text.into(),
        conversation_id: None,
        ..Default::default()
    }
}

/// A receipt unique to `op`.
pub fn receipt(op: &str) -> Receipt {
    script::receipt_for(op)
}

/// A person's decision with provenance.
pub fn decision(decision: Decision) -> Resolution {
    Resolution {
        decision,
        by: "alice".into(),
        evidence: "one matching user message after the dispatch".into(),
    }
}

/// The current state of `op`.
pub fn state_of(ledger: &Ledger, op: &str) -> SendState {
    ledger
        .get(op)
        .expect("readable")
        .expect("the send exists")
        .state
}

/// Queues `op` and moves it through the public API to `target` (the shortest legal
/// path). Returns the lease it was claimed under, if any. Reaching `Stopped` leaves the
/// gate closed.
pub fn drive_to(ledger: &mut Ledger, op: &str, target: SendState) -> Option<String> {
    use SendState::*;
    ledger
        .queue(&request(op, &format!("text of {op}")), "test")
        .expect("queue");
    if target == Queued {
        return None;
    }
    if target == Stopped {
        ledger.stop("test").expect("stop");
        return None;
    }
    let lease = ledger
        .lease(&tab(&format!("tab-{op}")))
        .expect("lease")
        .lease_id;
    let claimed = ledger
        .claim_next(&lease)
        .expect("claim")
        .expect("a send to claim");
    assert_eq!(claimed.op_id, op, "the only queued send is claimed");
    match target {
        Claimed => {}
        Rejected => {
            ledger
                .fail(op, "the tab went away", "extension")
                .expect("fail");
        }
        _ => {
            ledger.dispatch(op, &lease).expect("dispatch");
            match target {
                Dispatched => {}
                Accepted | Completed | PageError => {
                    ledger
                        .accept(op, &receipt(op), "extension")
                        .expect("accept");
                    if target == Completed {
                        ledger
                            .complete(op, &format!("answer-{op}"), "the answer", "extension")
                            .expect("complete");
                    }
                    if target == PageError {
                        ledger
                            .page_error(op, &page_said("Something went wrong."), "extension")
                            .expect("page error");
                    }
                }
                Uncertain | Confirmed | Abandoned => {
                    ledger
                        .fail(op, "the page reloaded", "extension")
                        .expect("fail");
                    match target {
                        Confirmed => {
                            ledger
                                .resolve(op, &decision(Decision::Confirmed))
                                .expect("resolve");
                        }
                        Abandoned => {
                            ledger
                                .resolve(op, &decision(Decision::Abandoned))
                                .expect("resolve");
                        }
                        _ => {}
                    }
                }
                _ => unreachable!("every state is handled"),
            }
        }
    }
    assert_eq!(state_of(ledger, op), target, "drive_to reached its target");
    Some(lease)
}

/// A dump of every table of the ledger (to prove a refusal wrote nothing).
pub fn dump(conn: &Connection) -> Dump {
    dump_connection(conn)
}

/// The transition events of `op` as (from, to), oldest first.
pub fn transitions(conn: &Connection, op: &str) -> Vec<(Option<String>, String)> {
    let mut stmt = conn
        .prepare("SELECT from_state, to_state FROM events WHERE op_id = ?1 AND kind = 'transition' ORDER BY id")
        .expect("events readable");
    stmt.query_map([op], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("events readable")
        .collect::<rusqlite::Result<_>>()
        .expect("events readable")
}

/// How many times `op` was recorded as dispatched (transition events into `dispatched`).
pub fn dispatch_events(conn: &Connection, op: &str) -> i64 {
    conn.query_row(
        "SELECT count(*) FROM events WHERE op_id = ?1 AND kind = 'transition' AND to_state = 'dispatched'",
        [op],
        |r| r.get(0),
    )
    .expect("events readable")
}

/// Runs `sql` on the raw connection inside a transaction that is always rolled back;
/// returns SQLite's error message when the statement is refused.
pub fn try_raw(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<usize, String> {
    conn.execute_batch("BEGIN IMMEDIATE").expect("begin");
    let out = conn.execute(sql, params).map_err(|e| e.to_string());
    conn.execute_batch("ROLLBACK").expect("rollback");
    out
}

/// Runs `sql` on the raw connection and keeps its effect; SQLite's message on refusal.
pub fn raw(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> Result<usize, String> {
    conn.execute(sql, params).map_err(|e| e.to_string())
}

/// Asserts that `result` is an error whose message contains `needle`.
#[track_caller]
pub fn assert_refused<T: std::fmt::Debug>(
    result: Result<T, LedgerError>,
    needle: &str,
) -> LedgerError {
    match result {
        Ok(v) => panic!("expected a refusal containing {needle:?}, got Ok({v:?})"),
        Err(e) => {
            assert!(
                e.to_string().contains(needle),
                "the refusal should say {needle:?}, it says {e}"
            );
            e
        }
    }
}

/// Bound on waiting for a child's line; generous, since it only matters when broken.
pub const CHILD_BOUND: Duration = Duration::from_secs(60);

/// A real owner process running a script of ledger calls (`tests/support/custody_child.rs`).
pub struct CustodyChild {
    pub child: Child,
    lines: mpsc::Receiver<String>,
    _stdin: ChildStdin,
}

impl CustodyChild {
    /// Starts the child on `profile` with `steps` (each `name[:arg]`, see `script::Step`).
    pub fn spawn(profile: &Path, steps: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sendledger-custody-child"))
            .arg(profile)
            .args(steps)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the custody child starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let stdin = child.stdin.take().expect("piped stdin");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            lines,
            _stdin: stdin,
        }
    }

    /// The next line the child prints (panics past [`CHILD_BOUND`] or at its exit).
    pub fn next_line(&self) -> String {
        self.lines
            .recv_timeout(CHILD_BOUND)
            .expect("the custody child printed a line before exiting or the bound")
    }

    /// Waits until the child reports `ready <step>`; panics on an `error` line.
    pub fn wait_ready(&self, step: &str) {
        loop {
            let line = self.next_line();
            assert!(
                !line.starts_with("error"),
                "the child refused a step: {line}"
            );
            if line == format!("ready {step}") {
                return;
            }
        }
    }

    /// SIGKILLs the child and reaps it (the kernel has released its locks on return).
    pub fn kill(mut self) {
        sigkill_and_reap(&mut self.child, "the child");
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

/// Runs the child to completion: returns (exit code, every line it printed).
pub fn run_child(profile: &Path, steps: &[&str]) -> (Option<i32>, Vec<String>) {
    let out = Command::new(env!("CARGO_BIN_EXE_sendledger-custody-child"))
        .arg(profile)
        .args(steps)
        .stdin(Stdio::null())
        .output()
        .expect("the custody child runs");
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    (out.status.code(), lines)
}

/// `n` completed sends created `age_days` ago, taken along the legal edges with every
/// trigger in force (one transaction), each with its receipt and events.
pub fn old_history(ledger: &mut Ledger, n: i64, age_days: i64) {
    let next: i64 = ledger
        .raw_connection()
        .query_row("SELECT coalesce(max(seq), 0) + 1 FROM sends", [], |r| {
            r.get(0)
        })
        .unwrap();
    old_history_from(ledger, next, n, age_days);
}

/// [`old_history`] numbered from `first_seq` (`sends.seq`, above every send's): the
/// rowids below it that no send holds are a gap, the one retention leaves where an older
/// history was pruned, without writing that history first.
pub fn old_history_from(ledger: &mut Ledger, first_seq: i64, n: i64, age_days: i64) {
    let lease = ledger.lease(&tab("history-tab")).unwrap();
    let t0 = sendledger::clock::Clock::now_ms(&sendledger::clock::SystemClock)
        - age_days * 24 * 3600 * 1000;
    let conn = ledger.raw_connection();
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    conn.execute(
        "INSERT INTO sends(seq, op_id, text, epoch, created_at, state, updated_at, actor) \
         WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ?1 - 1) \
         SELECT ?4 + i, 'hist-' || i, 'old message ' || i, ?2, ?3 + i, 'queued', ?3 + i, 'test' \
         FROM c",
        rusqlite::params![n, lease.epoch, t0, first_seq],
    )
    .unwrap();
    let edges = [
        "UPDATE sends SET state = 'claimed', lease_id = ?2, claimed_at = ?3, updated_at = ?3, \
         actor = 'extension' WHERE op_id = 'hist-' || ?1",
        "UPDATE sends SET state = 'dispatched', dispatched_at = ?3, updated_at = ?3 \
         WHERE op_id = 'hist-' || ?1 AND ?2 = lease_id",
        "INSERT INTO receipts(op_id, conversation_id, user_message_id, turn_id, observed_at) \
         SELECT 'hist-' || ?1, 'conv', 'user-' || ?1, 'turn-' || ?1, ?3 WHERE ?2 IS NOT NULL",
        "UPDATE sends SET state = 'accepted', updated_at = ?3 WHERE op_id = 'hist-' || ?1 \
         AND ?2 = lease_id",
        "UPDATE sends SET state = 'completed', answer_message_id = 'a-' || ?1, \
         answer_text = 'an answer', answered_at = ?3, updated_at = ?3 \
         WHERE op_id = 'hist-' || ?1 AND ?2 = lease_id",
    ];
    let mut stmts: Vec<_> = edges.iter().map(|sql| conn.prepare(sql).unwrap()).collect();
    for i in 0..n {
        for stmt in &mut stmts {
            assert_eq!(
                stmt.execute(rusqlite::params![i, lease.lease_id, t0 + i])
                    .unwrap(),
                1
            );
        }
    }
    drop(stmts);
    conn.execute_batch("COMMIT").unwrap();
}
