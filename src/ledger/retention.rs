//! Retention (issue 39, migration 0021): a person may choose that settled sends older than
//! N days are pruned — each with its events, receipt, destinations, page evidence, door
//! request, and the records of its attachments and answer artifacts that no kept send
//! shares (their bytes go from the store after the commit). Off until set.
//!
//! Never pruned: an open send (queued, claimed, dispatched, accepted, uncertain — trigger
//! `sends_open_never_pruned` refuses it even inside a prune), a send another one queued
//! again (its `resend_of` names it; it goes once that one went), a send a gate names, the
//! newest send and the send of the newest event (`seq` and `events.id` are rowids: were
//! the newest pruned, the next would take its number again, and the change feed's ids
//! must never repeat).
//! A send is old when its last change (`updated_at`) is older than N days.
//!
//! The work is bounded: one [`prune`] deletes at most `batch` sends in one transaction, and
//! finds them through `sends_by_state` below the newest send created before the cutoff
//! (found by a binary search over `seq`), so a pass with nothing to prune reads a few
//! pages. A crash mid-prune rolls the batch back whole (one transaction); the triggers let
//! a delete through only while `retention.pruning` is 1, which is set and cleared inside
//! that same transaction, so no committed state has it set.

use super::error::{LedgerError, Result};
use crate::clock::Millis;
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};

/// The longest retention a person may choose, in days (100 years).
pub const MAX_RETENTION_DAYS: u32 = 36_500;
/// How many sends one prune pass deletes at most (one transaction).
pub const PRUNE_BATCH: u32 = 200;
const DAY_MS: Millis = 24 * 3600 * 1000;

/// The states a send may be pruned in: settled, nothing more will happen to it.
const PRUNABLE: [&str; 6] = [
    "completed",
    "confirmed",
    "abandoned",
    "page_error",
    "rejected",
    "stopped",
];

/// The retention setting (`GET /v1/retention`, `sendledger retention`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retention {
    /// Settled sends older than this many days are pruned; `None`: off (the default).
    pub days: Option<u32>,
    /// Who set it last, and when (ms since the epoch); `None` before anyone did.
    pub set_by: Option<String>,
    /// When it was set last (ms since the epoch).
    pub set_at: Option<Millis>,
}

/// What one prune pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pruned {
    /// How many sends were deleted.
    pub sends: u64,
    /// The addresses (SHA-256 hex) whose records went and whose bytes the store may delete.
    pub files: Vec<String>,
    /// Whether the pass was full (`batch` sends): another may find more.
    pub more: bool,
}

/// The setting as committed.
pub(crate) fn get(conn: &Connection) -> rusqlite::Result<Retention> {
    conn.prepare_cached("SELECT days, set_by, set_at FROM retention WHERE id = 1")?
        .query_row([], |r| {
            Ok(Retention {
                days: r.get(0)?,
                set_by: r.get(1)?,
                set_at: r.get(2)?,
            })
        })
}

/// A person's choice. Errors: `Invalid` for 0 days or more than [`MAX_RETENTION_DAYS`], or
/// an empty `by`.
pub(crate) fn set(tx: &Transaction, days: Option<u32>, by: &str, now: Millis) -> Result<Retention> {
    if let Some(d) = days.filter(|d| !(1..=MAX_RETENTION_DAYS).contains(d)) {
        return Err(LedgerError::Invalid(format!(
            "retention must be 1 to {MAX_RETENTION_DAYS} days, or off; not {d}"
        )));
    }
    if by.trim().is_empty() || by.len() > 128 {
        return Err(LedgerError::Invalid(
            "retention needs who sets it (`by`, 1 to 128 bytes)".into(),
        ));
    }
    tx.execute(
        "UPDATE retention SET days = ?1, set_by = ?2, set_at = ?3 WHERE id = 1",
        params![days, by, now],
    )?;
    Ok(get(tx)?)
}

/// One bounded pass: deletes at most `batch` settled sends older than the setting, with
/// what only they use. Nothing when retention is off.
pub(crate) fn prune(tx: &Transaction, now: Millis, batch: u32) -> Result<Pruned> {
    let Some(days) = get(tx)?.days else {
        return Ok(Pruned::default());
    };
    let cutoff = now - Millis::from(days) * DAY_MS;
    let Some(below) = newest_created_before(tx, cutoff)? else {
        return Ok(Pruned::default());
    };
    let ops = candidates(tx, cutoff, below, batch)?;
    if ops.is_empty() {
        return Ok(Pruned::default());
    }
    tx.execute("UPDATE retention SET pruning = 1 WHERE id = 1", [])?;
    let mut shas = Vec::new();
    for op in &ops {
        shas.extend(files_of(tx, op)?);
        delete_send(tx, op)?;
    }
    shas.sort();
    shas.dedup();
    let mut files = Vec::new();
    for sha in shas {
        if delete_file_record(tx, &sha, cutoff)? {
            files.push(sha);
        }
    }
    tx.execute("UPDATE retention SET pruning = 0 WHERE id = 1", [])?;
    Ok(Pruned {
        sends: ops.len() as u64,
        files,
        more: ops.len() as u32 >= batch,
    })
}

/// The highest `seq` of a send created before `cutoff`, by a binary search over `seq`
/// (sends are created in `seq` order; a send out of that order is only kept longer, as
/// [`candidates`] checks `updated_at` itself). About 2·log₂(n) index lookups.
fn newest_created_before(conn: &Connection, cutoff: Millis) -> rusqlite::Result<Option<i64>> {
    let mut at = conn
        .prepare_cached("SELECT seq, created_at FROM sends WHERE seq >= ?1 ORDER BY seq LIMIT 1")?;
    let first: Option<(i64, Millis)> = at
        .query_row([i64::MIN], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((mut lo, _)) = first.filter(|(_, c)| *c < cutoff) else {
        return Ok(None);
    };
    let mut hi: i64 = conn.query_row("SELECT max(seq) FROM sends", [], |r| r.get(0))?;
    while lo < hi {
        let mid = lo + (hi - lo + 1) / 2;
        let (seq, created): (i64, Millis) = at.query_row([mid], |r| Ok((r.get(0)?, r.get(1)?)))?;
        if created < cutoff {
            lo = seq;
        } else {
            hi = mid - 1;
        }
    }
    Ok(Some(lo))
}

/// At most `batch` prunable sends at or below `below`, oldest first within each state.
fn candidates(tx: &Transaction, cutoff: Millis, below: i64, batch: u32) -> Result<Vec<String>> {
    let mut stmt = tx.prepare_cached(
        "SELECT s.op_id FROM sends s INDEXED BY sends_by_state \
         WHERE s.state = ?1 AND s.seq <= ?2 AND s.updated_at < ?3 \
         AND NOT EXISTS (SELECT 1 FROM sends k WHERE k.resend_of = s.op_id) \
         AND NOT EXISTS (SELECT 1 FROM limit_gate g WHERE g.op_id = s.op_id) \
         AND NOT EXISTS (SELECT 1 FROM page_gate g WHERE g.op_id = s.op_id) \
         AND s.seq < (SELECT max(seq) FROM sends) \
         AND s.op_id IS NOT (SELECT op_id FROM events ORDER BY id DESC LIMIT 1) \
         ORDER BY s.seq LIMIT ?4",
    )?;
    let mut ops = Vec::new();
    for state in PRUNABLE {
        let left = batch as usize - ops.len();
        if left == 0 {
            break;
        }
        let rows = stmt.query_map(params![state, below, cutoff, left as i64], |r| r.get(0))?;
        for op in rows {
            ops.push(op?);
        }
    }
    Ok(ops)
}

/// The files `op_id` carried or its answer generated.
fn files_of(tx: &Transaction, op_id: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = tx.prepare_cached(
        "SELECT sha256 FROM send_attachments WHERE op_id = ?1 \
         UNION SELECT sha256 FROM answer_artifacts WHERE op_id = ?1 AND sha256 IS NOT NULL",
    )?;
    let rows = stmt.query_map([op_id], |r| r.get(0))?;
    rows.collect()
}

/// The tables holding rows of one send, children first.
const SEND_TABLES: [&str; 10] = [
    "events",
    "receipts",
    "remote_stops",
    "send_attachments",
    "page_attachments",
    "answer_artifacts",
    "send_destinations",
    "page_destinations",
    "door_requests",
    "sends",
];

fn delete_send(tx: &Transaction, op_id: &str) -> rusqlite::Result<()> {
    for table in SEND_TABLES {
        tx.prepare_cached(&format!("DELETE FROM {table} WHERE op_id = ?1"))?
            .execute([op_id])?;
    }
    Ok(())
}

/// Deletes the record of `sha` when no kept send carries it, no kept answer generated it,
/// and it was not uploaded since `cutoff` (a send about to name it); returns whether it went.
fn delete_file_record(tx: &Transaction, sha: &str, cutoff: Millis) -> rusqlite::Result<bool> {
    let n = tx
        .prepare_cached(
            "DELETE FROM attachments WHERE sha256 = ?1 AND stored_at < ?2 \
             AND NOT EXISTS (SELECT 1 FROM send_attachments WHERE sha256 = ?1) \
             AND NOT EXISTS (SELECT 1 FROM answer_artifacts WHERE sha256 = ?1)",
        )?
        .execute(params![sha, cutoff])?;
    Ok(n > 0)
}

impl super::handle::Ledger {
    /// A person sets retention to `days` (`None`: off), `by` who. Errors: `Invalid` (see
    /// [`set`]); nothing is pruned here: the owner's upkeep applies it in bounded passes.
    pub fn set_retention(&mut self, days: Option<u32>, by: &str) -> Result<Retention> {
        self.write(|tx, now| set(tx, days, by, now))
    }

    /// One bounded prune pass of at most `batch` sends, committed before it returns (the
    /// store may then delete the bytes of [`Pruned::files`]).
    pub fn prune_retention(&mut self, batch: u32) -> Result<Pruned> {
        self.write(|tx, now| prune(tx, now, batch.max(1)))
    }
}
