//! Bounds that keep the queue from stalling behind a send nobody is working on.
//! Each expiry is an audit event with actor `owner`.

use super::error::Result;
use super::{remote_stop, sends};
use crate::clock::Millis;
use rusqlite::{params, Connection, Transaction};
use serde::{Deserialize, Serialize};

/// The bounds, in ms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bounds {
    /// A claim with no grant asked within this is failed: claimed → rejected (no grant was
    /// issued, so nothing was clicked). Default 60,000 ms.
    pub claim_ms: Millis,
    /// A dispatched send with no receipt within this becomes uncertain. Default 60,000 ms.
    pub receipt_ms: Millis,
    /// An accepted send whose answer is not seen within this stops holding the queue; it
    /// stays accepted, marked "answer not observed". Default 600,000 ms. Also the bound of
    /// a remote stop nobody reported on: from the Stop, it becomes uncertain.
    pub answer_ms: Millis,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            claim_ms: 60_000,
            receipt_ms: 60_000,
            answer_ms: 600_000,
        }
    }
}

/// What one sweep expired.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expired {
    /// Claims failed (→ rejected).
    pub claims: Vec<String>,
    /// Dispatches with no receipt (→ uncertain).
    pub receipts: Vec<String>,
    /// Accepted sends marked "answer not observed".
    pub answers: Vec<String>,
    /// Sends whose remote stop no tab reported on within `answer_ms` (→ uncertain).
    #[serde(default)]
    pub remote_stops: Vec<String>,
}

impl Expired {
    /// Whether nothing expired.
    pub fn is_empty(&self) -> bool {
        self.claims.is_empty()
            && self.receipts.is_empty()
            && self.answers.is_empty()
            && self.remote_stops.is_empty()
    }
}

/// When the next bound falls due, in ms on the ledger's clock: the earliest of each
/// claimed send's `claimed_at + claim_ms`, each dispatched send's `dispatched_at +
/// receipt_ms`, each accepted send's (answer neither seen nor given up on) receipt
/// `observed_at + answer_ms`, and each open remote stop's `requested_at + answer_ms`.
/// `None` when nothing is in flight: nothing can expire until a commit puts something in
/// flight, so the owner's sweep sleeps until then.
pub(crate) fn next_deadline(conn: &Connection, b: &Bounds) -> rusqlite::Result<Option<Millis>> {
    conn.prepare_cached(
        "SELECT min(due) FROM ( \
           SELECT min(claimed_at) + ?1 AS due FROM sends WHERE state = 'claimed' \
           UNION ALL SELECT min(dispatched_at) + ?2 FROM sends WHERE state = 'dispatched' \
           UNION ALL SELECT min(r.observed_at) + ?3 FROM sends s JOIN receipts r ON r.op_id = s.op_id \
             WHERE s.state = 'accepted' AND s.answered_at IS NULL AND s.answer_not_observed_at IS NULL \
           UNION ALL SELECT min(requested_at) + ?3 FROM remote_stops WHERE phase IN ('pending', 'dispatched'))",
    )?
    .query_row(params![b.claim_ms, b.receipt_ms, b.answer_ms], |r| r.get(0))
}

fn due(tx: &Transaction, sql: &str, cutoff: Millis) -> rusqlite::Result<Vec<String>> {
    let mut stmt = tx.prepare(sql)?;
    let rows = stmt.query_map([cutoff], |r| r.get(0))?;
    rows.collect()
}

/// Notes that say why no receipt came (the hand-off frames could not be read): the
/// expiry says so first, instead of a bare "no receipt".
const WHY_NO_RECEIPT: &[&str] = &["hand-off frames not understood"];

fn latest_note_prefix(tx: &Transaction, op_id: &str) -> rusqlite::Result<String> {
    let mut stmt = tx.prepare_cached(
        "SELECT evidence FROM events WHERE op_id = ?1 AND kind = 'note' ORDER BY id DESC",
    )?;
    let notes = stmt.query_map([op_id], |r| r.get::<_, Option<String>>(0))?;
    for note in notes {
        if let Some(note) = note? {
            if let Some(why) = WHY_NO_RECEIPT.iter().find(|w| note.starts_with(**w)) {
                return Ok(format!("{why}: "));
            }
        }
    }
    Ok(String::new())
}

pub(crate) fn sweep(tx: &Transaction, b: &Bounds, now: Millis) -> Result<Expired> {
    let mut out = Expired::default();
    for op_id in due(
        tx,
        "SELECT op_id FROM sends WHERE state = 'claimed' AND claimed_at <= ?1",
        now - b.claim_ms,
    )? {
        let why = format!(
            "claim expired: no dispatch grant asked within {} ms, so nothing was clicked",
            b.claim_ms
        );
        sends::fail(tx, &op_id, &why, "owner", now)?;
        out.claims.push(op_id);
    }
    for op_id in due(
        tx,
        "SELECT op_id FROM sends WHERE state = 'dispatched' AND dispatched_at <= ?1",
        now - b.receipt_ms,
    )? {
        let why = format!(
            "{}no receipt within {} ms of the dispatch grant: it may or may not have been sent",
            latest_note_prefix(tx, &op_id)?,
            b.receipt_ms
        );
        sends::fail(tx, &op_id, &why, "owner", now)?;
        out.receipts.push(op_id);
    }
    for op_id in due(
        tx,
        "SELECT s.op_id FROM sends_in_flight s JOIN receipts r ON r.op_id = s.op_id \
         WHERE s.state = 'accepted' AND r.observed_at <= ?1",
        now - b.answer_ms,
    )? {
        tx.execute(
            "UPDATE sends SET answer_not_observed_at = ?1 WHERE op_id = ?2",
            params![now, op_id],
        )?;
        let send = sends::load(tx, &op_id)?;
        let why = format!(
            "answer not observed within {} ms: it no longer holds the queue; a later observation can still complete it",
            b.answer_ms
        );
        sends::note(tx, &send, "owner", (&why, None), now)?;
        out.answers.push(op_id);
    }
    for op_id in due(
        tx,
        "SELECT op_id FROM remote_stops WHERE phase IN ('pending', 'dispatched') AND requested_at <= ?1",
        now - b.answer_ms,
    )? {
        let why = format!(
            "remote stop uncertain: no tab reported on it within {} ms of the Stop (the tab closed, or shows another conversation), so nobody knows whether the answer stopped",
            b.answer_ms
        );
        remote_stop::set_uncertain(tx, &op_id, &why, now)?;
        let send = sends::load(tx, &op_id)?;
        sends::note(tx, &send, "owner", (&why, None), now)?;
        out.remote_stops.push(op_id);
    }
    Ok(out)
}
