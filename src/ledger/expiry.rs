//! Bounds that keep the queue from stalling behind a send nobody is working on.
//! Each expiry is an audit event with actor `owner`. The bounds are measured on the
//! monotonic clock (`deadlines`); the events record the wall time.

use super::error::Result;
use super::{artifacts, leases, remote_stop, sends};
use crate::clock::Millis;
use rusqlite::{params, Transaction};
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
    /// A lease whose tab has not asked the owner anything within this is ended ("the tab
    /// stopped answering"): its claim is rejected (nothing was clicked) and the
    /// conversation it showed is free for another tab. A tab asks at least every 25 s
    /// while it can take sends. Default 120,000 ms.
    #[serde(default = "default_lease_silence_ms")]
    pub lease_silence_ms: Millis,
}

fn default_lease_silence_ms() -> Millis {
    Bounds::default().lease_silence_ms
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            claim_ms: 60_000,
            receipt_ms: 60_000,
            answer_ms: 600_000,
            lease_silence_ms: 120_000,
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
    /// Leases ended because their tab stopped answering (their claims are in `claims`).
    #[serde(default)]
    pub leases: Vec<String>,
    /// Sends whose artifacts no tab fetched within 15 minutes of the answer (→ unavailable).
    #[serde(default)]
    pub artifacts: Vec<String>,
}

impl Expired {
    /// Whether nothing expired.
    pub fn is_empty(&self) -> bool {
        self.claims.is_empty()
            && self.receipts.is_empty()
            && self.answers.is_empty()
            && self.remote_stops.is_empty()
            && self.leases.is_empty()
            && self.artifacts.is_empty()
    }
}

/// The in-flight items whose bounds have run out, by op id (from the monotonic starts the
/// ledger keeps: `deadlines`); each is checked again in the sweep's own transaction.
#[derive(Debug, Default)]
pub(crate) struct Due {
    pub(crate) claims: Vec<String>,
    pub(crate) receipts: Vec<String>,
    pub(crate) answers: Vec<String>,
    pub(crate) remote_stops: Vec<String>,
    pub(crate) leases: Vec<String>,
    pub(crate) artifacts: Vec<String>,
}

const STILL_CLAIMED: &str = "SELECT 1 FROM sends WHERE op_id = ?1 AND state = 'claimed'";
const STILL_DISPATCHED: &str = "SELECT 1 FROM sends WHERE op_id = ?1 AND state = 'dispatched'";
const STILL_AWAITING_ANSWER: &str =
    "SELECT 1 FROM sends_in_flight s JOIN receipts r ON r.op_id = s.op_id \
     WHERE s.op_id = ?1 AND s.state = 'accepted'";
const STILL_LEASED: &str = "SELECT 1 FROM leases WHERE lease_id = ?1 AND ended_at IS NULL";
const STILL_REMOTE_STOP_OPEN: &str =
    "SELECT 1 FROM remote_stops WHERE op_id = ?1 AND phase IN ('pending', 'dispatched')";

/// The ids of `ids` that `sql` (one `?1`) still finds in this transaction.
fn still(tx: &Transaction, sql: &str, ids: &[String]) -> rusqlite::Result<Vec<String>> {
    let mut stmt = tx.prepare_cached(sql)?;
    let mut out = Vec::new();
    for id in ids {
        if stmt.exists([id])? {
            out.push(id.clone());
        }
    }
    Ok(out)
}

/// What the expiry says first when a note of kind `frames_not_understood` (migration
/// 0024) is on the send: why no receipt came, instead of a bare "no receipt".
const WHY_NO_RECEIPT: &str = "hand-off frames not understood: ";

fn latest_note_prefix(tx: &Transaction, op_id: &str) -> rusqlite::Result<String> {
    let mut stmt = tx.prepare_cached(
        "SELECT EXISTS(SELECT 1 FROM events WHERE op_id = ?1 AND kind = 'note' \
         AND note_kind = 'frames_not_understood')",
    )?;
    let noted: bool = stmt.query_row([op_id], |r| r.get(0))?;
    Ok(if noted {
        WHY_NO_RECEIPT.into()
    } else {
        String::new()
    })
}

/// Why a claim was failed at its bound: the sweep's evidence, and the grant's refusal of
/// an overdue claim (the same words, whichever comes first).
pub(crate) fn claim_expired(b: &Bounds) -> String {
    format!(
        "claim expired: no dispatch grant asked within {} ms, so nothing was clicked",
        b.claim_ms
    )
}

/// Applies the bounds to `due` (stamped `now`, the wall time, for people).
pub(crate) fn sweep(tx: &Transaction, b: &Bounds, now: Millis, due: &Due) -> Result<Expired> {
    let mut out = Expired::default();
    for op_id in still(tx, STILL_CLAIMED, &due.claims)? {
        sends::fail(tx, &op_id, &claim_expired(b), "owner", now)?;
        out.claims.push(op_id);
    }
    for op_id in still(tx, STILL_DISPATCHED, &due.receipts)? {
        let why = format!(
            "{}no receipt within {} ms of the dispatch grant: it may or may not have been sent",
            latest_note_prefix(tx, &op_id)?,
            b.receipt_ms
        );
        sends::fail(tx, &op_id, &why, "owner", now)?;
        out.receipts.push(op_id);
    }
    for op_id in still(tx, STILL_AWAITING_ANSWER, &due.answers)? {
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
    for op_id in still(tx, STILL_REMOTE_STOP_OPEN, &due.remote_stops)? {
        let why = format!(
            "remote stop uncertain: no tab reported on it within {} ms of the Stop (the tab closed, or shows another conversation), so nobody knows whether the answer stopped",
            b.answer_ms
        );
        remote_stop::set_uncertain(tx, &op_id, &why, now)?;
        let send = sends::load(tx, &op_id)?;
        sends::note(tx, &send, "owner", (&why, None), now)?;
        out.remote_stops.push(op_id);
    }
    for lease_id in still(tx, STILL_LEASED, &due.leases)? {
        let why = format!(
            "the tab stopped answering: nothing heard from it within {} s (closed, crashed, or the browser asleep)",
            b.lease_silence_ms / 1000
        );
        out.claims
            .extend(leases::end_lease(tx, &lease_id, &why, now)?);
        out.leases.push(lease_id);
    }
    for op_id in &due.artifacts {
        if artifacts::expire(tx, op_id, now)? > 0 {
            out.artifacts.push(op_id.clone());
        }
    }
    Ok(out)
}
