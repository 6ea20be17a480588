//! The limit gate (migration 0007): closed when the page answers a send with the
//! account's usage limit, so nothing more is clicked into that account until the reset
//! time the page named, or until a person resumes — whichever comes first.
//!
//! Claims check it in `sends::claim_next`; the trigger
//! `sends_claimed_only_while_limit_gate_open` re-checks it in SQL at the claim's time.

use super::error::Result;
use super::read::cached_row;
use crate::clock::Millis;
use rusqlite::{params, Connection, Transaction};
use serde::{Deserialize, Serialize};

/// The limit gate as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitGate {
    /// Whether a usage limit closed it (see [`LimitGate::holds_at`] for the time).
    pub closed: bool,
    /// When it opens by itself (ms since the Unix epoch); `None` while closed: only a
    /// person's resume opens it.
    pub until_ms: Option<Millis>,
    /// The page's own message that closed it.
    pub reason: Option<String>,
    /// The send whose turn the page refused with the limit.
    pub op_id: Option<String>,
    /// When it last changed.
    pub changed_at: Millis,
    /// Who changed it (`extension` for a page's limit, a person's name for a resume).
    pub changed_by: String,
    /// When a person was notified of this closing (once).
    pub notified_at: Option<Millis>,
}

/// How long a client is to wait before sending again, for a send the page refused with the
/// account's usage limit or *too many requests* (the send that closed the limit gate),
/// while the gate holds: what the doors answer (`Retry-After`, MCP's words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryAfter {
    /// Whole seconds until the gate opens by itself (rounded up, at least 1), or
    /// [`UNKNOWN_RESET_S`] when the page named no reset time (only a person's resume opens it).
    pub seconds: u64,
    /// When it opens by itself (ms since the Unix epoch); `None`: when a person resumes.
    pub until_ms: Option<Millis>,
}

/// The `Retry-After` answered when the page named no reset time: one hour, in seconds
/// (the gate then holds until a person resumes; a client asking sooner is told the same).
pub const UNKNOWN_RESET_S: u64 = 3600;

impl LimitGate {
    /// The wait a client is told for send `op_id` at `now`: `Some` only when this send
    /// closed the gate and it still holds.
    pub fn retry_after_for(&self, op_id: &str, now: Millis) -> Option<RetryAfter> {
        if !self.holds_at(now) || self.op_id.as_deref() != Some(op_id) {
            return None;
        }
        let seconds = match self.until_ms {
            Some(t) => (t.saturating_sub(now).max(1) as u64).div_ceil(1000),
            None => UNKNOWN_RESET_S,
        };
        Some(RetryAfter {
            seconds,
            until_ms: self.until_ms,
        })
    }

    /// Whether it keeps sends from being claimed at `now` (ms).
    pub fn holds_at(&self, now: Millis) -> bool {
        self.closed && self.until_ms.is_none_or(|until| until > now)
    }
}

pub(crate) fn get(conn: &Connection) -> rusqlite::Result<LimitGate> {
    cached_row(
        conn,
        "SELECT closed, until_ms, reason, op_id, changed_at, changed_by, notified_at \
         FROM limit_gate WHERE id = 1",
        [],
        |r| {
            Ok(LimitGate {
                closed: r.get::<_, i64>(0)? == 1,
                until_ms: r.get(1)?,
                reason: r.get(2)?,
                op_id: r.get(3)?,
                changed_at: r.get(4)?,
                changed_by: r.get(5)?,
                notified_at: r.get(6)?,
            })
        },
    )
}

/// Closes the gate until `until_ms` (`None`: until a person resumes). The stronger hold
/// wins: while the gate holds at `now`, a closing that would open it sooner (a time, when
/// it holds until a person resumes; an earlier time) leaves it as it is — its reason,
/// send and notification too. Otherwise the closing replaces the gate and is notified anew.
pub(crate) fn close(
    tx: &Transaction,
    until_ms: Option<Millis>,
    reason: &str,
    op_id: &str,
    now: Millis,
) -> Result<()> {
    let gate = get(tx)?;
    if gate.holds_at(now) && !outlasts(until_ms, gate.until_ms) {
        return Ok(());
    }
    tx.execute(
        "UPDATE limit_gate SET closed = 1, until_ms = ?1, reason = ?2, op_id = ?3, \
         changed_at = ?4, changed_by = 'extension', notified_at = NULL WHERE id = 1",
        params![until_ms, reason, op_id, now],
    )?;
    Ok(())
}

/// Whether a hold until `new` lasts longer than one until `held` (`None`: until a person
/// resumes, the longest).
fn outlasts(new: Option<Millis>, held: Option<Millis>) -> bool {
    match (new, held) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(n), Some(h)) => n > h,
    }
}

/// A person's resume: opens the gate. Returns whether it was holding sends back.
pub(crate) fn open(tx: &Transaction, by: &str, now: Millis) -> Result<bool> {
    let gate = get(tx)?;
    if !gate.closed {
        return Ok(false);
    }
    tx.execute(
        "UPDATE limit_gate SET closed = 0, until_ms = NULL, changed_at = ?1, changed_by = ?2 \
         WHERE id = 1",
        params![now, by],
    )?;
    Ok(gate.holds_at(now))
}

/// Records that a person was notified of the current closing; `false` when already.
pub(crate) fn mark_notified(tx: &Transaction, now: Millis) -> Result<bool> {
    let n = tx.execute(
        "UPDATE limit_gate SET notified_at = ?1 WHERE id = 1 AND closed = 1 AND notified_at IS NULL",
        [now],
    )?;
    Ok(n == 1)
}
