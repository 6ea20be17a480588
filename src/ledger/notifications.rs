//! A person told of an uncertain send: which uncertain sends have waited long enough to be
//! told of, when the next one will have, and the once-only record that a person was told
//! (`notified_at`, with a note on the send's timeline). The tray's notification sweep reads
//! and writes through [`super::Ledger`]'s methods of the same names.

use super::error::Result;
use super::record::{EvidenceKind, Send};
use super::rows;
use super::sends;
use crate::clock::Millis;
use rusqlite::{Connection, Transaction};

/// Uncertain sends never notified whose last change is at or before `cutoff` (ms).
pub(crate) fn stale_uncertain(conn: &Connection, cutoff: Millis) -> Result<Vec<Send>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {} FROM {} WHERE s.state = 'uncertain' AND s.notified_at IS NULL \
         AND s.updated_at <= ?1 ORDER BY s.seq",
        rows::SEND_COLUMNS,
        rows::SEND_FROM
    ))?;
    let rows = stmt.query_map([cutoff], rows::send_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// When the next uncertain send not yet notified and not yet stale at `now` becomes stale
/// (its `updated_at + threshold_ms`); `None` when there is none.
pub(crate) fn next_stale_uncertain_at(
    conn: &Connection,
    now: Millis,
    threshold_ms: Millis,
) -> Result<Option<Millis>> {
    let first: Option<Millis> = conn
        .prepare_cached(
            "SELECT min(updated_at) FROM sends WHERE state = 'uncertain' AND notified_at IS NULL \
             AND updated_at > ?1",
        )?
        .query_row([now - threshold_ms], |r| r.get(0))?;
    Ok(first.map(|at| at + threshold_ms))
}

/// Records once that a person was notified about `op_id`; `false` when already recorded.
pub(crate) fn mark_notified(tx: &Transaction, op_id: &str, now: Millis) -> Result<bool> {
    let send = sends::load(tx, op_id)?;
    if send.notified_at.is_some() {
        return Ok(false);
    }
    tx.execute(
        "UPDATE sends SET notified_at = ?1 WHERE op_id = ?2",
        rusqlite::params![now, op_id],
    )?;
    sends::note(
        tx,
        &send,
        "owner",
        (
            "a person was notified that this send is uncertain",
            Some(EvidenceKind::Notified),
        ),
        now,
    )?;
    Ok(true)
}
