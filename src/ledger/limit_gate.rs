//! The limit gates (migration 0007, one per site since 0022: table `limit_gates`): closed
//! when the page answers a send with the account's usage limit, so nothing more is
//! clicked into that site's account until the reset time the page named, or until a
//! person resumes — whichever comes first. Another site's sends go on.
//!
//! Claims check the lease's site's gate in `sends::claim_next`; the trigger
//! `sends_claimed_only_while_limit_gate_open` re-checks the send's site's in SQL.

use super::error::Result;
use crate::clock::Millis;
use crate::site::Site;
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};

/// The limit gate as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitGate {
    /// The site whose account it holds.
    #[serde(default)]
    pub site: Site,
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

const COLUMNS: &str = "closed, until_ms, reason, op_id, changed_at, changed_by, notified_at, site";

fn from_row(r: &rusqlite::Row) -> rusqlite::Result<LimitGate> {
    Ok(LimitGate {
        closed: r.get::<_, i64>(0)? == 1,
        until_ms: r.get(1)?,
        reason: r.get(2)?,
        op_id: r.get(3)?,
        changed_at: r.get(4)?,
        changed_by: r.get(5)?,
        notified_at: r.get(6)?,
        site: r.get(7)?,
    })
}

/// `site`'s gate (open when it never closed).
pub(crate) fn get_for(conn: &Connection, site: Site) -> rusqlite::Result<LimitGate> {
    let sql = format!("SELECT {COLUMNS} FROM limit_gates WHERE site = ?1");
    let gate = conn
        .prepare_cached(&sql)?
        .query_row([site], from_row)
        .optional()?;
    Ok(gate.unwrap_or(LimitGate {
        site,
        closed: false,
        until_ms: None,
        reason: None,
        op_id: None,
        changed_at: 0,
        changed_by: "ledger created".into(),
        notified_at: None,
    }))
}

/// The gate a person is told of: a closed one (the latest closing), else chatgpt.com's.
pub(crate) fn get(conn: &Connection) -> rusqlite::Result<LimitGate> {
    let sql = format!(
        "SELECT {COLUMNS} FROM limit_gates WHERE closed = 1 ORDER BY changed_at DESC LIMIT 1"
    );
    match conn
        .prepare_cached(&sql)?
        .query_row([], from_row)
        .optional()?
    {
        Some(g) => Ok(g),
        None => get_for(conn, Site::default()),
    }
}

/// The gate of the send `op_id`'s site.
pub(crate) fn of_send(conn: &Connection, op_id: &str) -> rusqlite::Result<LimitGate> {
    let site: Site = conn
        .prepare_cached("SELECT site FROM sends WHERE op_id = ?1")?
        .query_row([op_id], |r| r.get(0))
        .optional()?
        .unwrap_or_default();
    get_for(conn, site)
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
    let gate = of_send(tx, op_id)?;
    if gate.holds_at(now) && !outlasts(until_ms, gate.until_ms) {
        return Ok(());
    }
    tx.execute(
        "INSERT INTO limit_gates(site, closed, until_ms, reason, op_id, changed_at, changed_by) \
         VALUES (?5, 1, ?1, ?2, ?3, ?4, 'extension') ON CONFLICT(site) DO UPDATE SET closed = 1, \
         until_ms = ?1, reason = ?2, op_id = ?3, changed_at = ?4, changed_by = 'extension', \
         notified_at = NULL",
        params![until_ms, reason, op_id, now, gate.site],
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

/// A person's resume: opens every site's gate. Returns whether one was holding sends back.
pub(crate) fn open(tx: &Transaction, by: &str, now: Millis) -> Result<bool> {
    let mut held = false;
    for site in crate::site::ALL {
        let gate = get_for(tx, site)?;
        if !gate.closed {
            continue;
        }
        held |= gate.holds_at(now);
        tx.execute(
            "UPDATE limit_gates SET closed = 0, until_ms = NULL, changed_at = ?1, changed_by = ?2 \
             WHERE site = ?3",
            params![now, by, site],
        )?;
    }
    Ok(held)
}

/// Records that a person was notified of the current closing; `false` when already.
pub(crate) fn mark_notified(tx: &Transaction, now: Millis) -> Result<bool> {
    let n = tx.execute(
        "UPDATE limit_gates SET notified_at = ?1 WHERE closed = 1 AND notified_at IS NULL",
        [now],
    )?;
    Ok(n >= 1)
}
