//! The Stop fence (DESIGN.md, "Stop: a fenced epoch" and "The brake"): one transaction
//! that fences the current epochs, stops every send not yet dispatched, asks a remote stop
//! for every clicked one and closes the gate.
//!
//! The owner commits it through [`super::Ledger::stop`]. When the owner cannot answer
//! (stuck, or its bridge saturated), [`super::Ledger::stop_from_outside`] commits the very
//! same transaction from another process without the owner lock: SQLite's own file locks
//! serialise it with the owner's immediate transactions, and the owner's dispatch
//! re-checks the fence in its own transaction, so whichever commits first, no dispatch
//! follows the fence (`tests/cli_stop.rs`, `tests/ledger_stop.rs`).

use super::error::{from_sqlite, LedgerError, Result};
use super::{epochs, migrations, remote_stop, store};
use crate::clock::Millis;
use rusqlite::{params, Connection, OpenFlags, Transaction, TransactionBehavior};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What Stop did, committed before this value exists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopReport {
    /// Epochs recorded as stopped.
    pub epochs: Vec<String>,
    /// Sends moved queued/claimed → stopped.
    pub stopped: Vec<String>,
    /// Sends already clicked, now with a pending remote stop.
    pub remote_stops: Vec<String>,
    /// Whether the disk was full and the profile's reserve was released to commit it.
    #[serde(default)]
    pub used_reserve: bool,
}

/// The whole Stop inside the caller's immediate transaction.
pub(crate) fn stop_in(tx: &Transaction, by: &str, now: Millis) -> Result<StopReport> {
    let epochs = epochs::fence(tx, by, now)?;
    let mut stmt =
        tx.prepare("SELECT op_id FROM sends WHERE state IN ('queued', 'claimed') ORDER BY seq")?;
    let stopped: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    tx.execute(
        "UPDATE sends SET state = 'stopped', updated_at = ?1, actor = ?2, \
         evidence = 'Stop: the epoch was fenced before dispatch' WHERE state IN ('queued', 'claimed')",
        params![now, by],
    )?;
    let remote_stops = remote_stop::request_for_clicked(tx, by, now)?;
    Ok(StopReport {
        epochs,
        stopped,
        remote_stops,
        used_reserve: false,
    })
}

/// Opens an existing ledger for the one outside write (the fence): no owner lock, no
/// migration (a ledger at another schema is refused untouched), same pragmas as the
/// owner's connection.
pub(crate) fn open_outside(path: &Path) -> Result<Connection> {
    if !path.exists() {
        return Err(LedgerError::NoLedger(path.into()));
    }
    let sql = |e| from_sqlite(e, path);
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sql)?;
    conn.busy_timeout(std::time::Duration::from_millis(store::BUSY_TIMEOUT_MS))
        .map_err(sql)?;
    conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")
        .map_err(sql)?;
    let found = migrations::version(&conn).map_err(sql)?;
    if found != migrations::CURRENT_VERSION {
        return Err(LedgerError::Refused(format!(
            "the ledger is at schema {found}, this sendledger writes schema {}: stop the owner (kill it) and run `sendledger stop` again",
            migrations::CURRENT_VERSION
        )));
    }
    Ok(conn)
}

/// Runs the Stop in one immediate transaction on `conn` and commits it.
pub(crate) fn commit_stop(
    conn: &mut Connection,
    path: &Path,
    by: &str,
    now: Millis,
) -> Result<StopReport> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| from_sqlite(e, path))?;
    let report = stop_in(&tx, by, now).map_err(|e| match e {
        LedgerError::Sqlite(e) => from_sqlite(e, path),
        other => other,
    })?;
    tx.commit().map_err(|e| from_sqlite(e, path))?;
    Ok(report)
}
