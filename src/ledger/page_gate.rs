//! The *page changed* gate (migration 0018, issue 35): closed when a tab fails a send on
//! a page fact every send needs (the extension's page contract, `needs: "every"`: the
//! composer, the send button) or when the provider cannot read the page's stream at all
//! (`traffic.stream_markers`). While it is closed no send is claimed by any tab — queued
//! sends wait, nothing is typed — until a person resumes (`Ledger::resume`: the window's
//! or the tray's Resume, `sendledger resume`). One notification per closing.
//!
//! Claims check it in `sends::claim_next`; the trigger
//! `sends_claimed_only_while_page_gate_open` re-checks it in SQL; a claim made before the
//! gate closed is refused at the grant (`sends::dispatch`, nothing clicked).

use super::error::Result;
use super::rows::cached_row;
use crate::clock::Millis;
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};

/// The page-changed gate as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageGate {
    /// Whether a page fact closed it (only a person's resume opens it).
    pub closed: bool,
    /// The page contract's fact that did not hold (`composer.present`), `<area>.<fact>`.
    pub fact_id: Option<String>,
    /// What the tab (or the owner) said, without the send's text.
    pub reason: Option<String>,
    /// The send that failed on it.
    pub op_id: Option<String>,
    /// The tab that reported it; `None` when the owner found it (the stream).
    pub tab_id: Option<String>,
    /// When it last changed (ms since the Unix epoch).
    pub changed_at: Millis,
    /// Who changed it (`extension`, `owner`, or a person's name for a resume).
    pub changed_by: String,
    /// When a person was notified of this closing (once).
    pub notified_at: Option<Millis>,
}

/// What closes the gate: the fact, the words, the send, the tab, and who.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Closing<'a> {
    /// The fact id.
    pub fact_id: &'a str,
    /// What was said (no message text).
    pub reason: &'a str,
    /// The send that failed on it.
    pub op_id: &'a str,
    /// The lease whose tab reported it, if a tab did.
    pub lease_id: Option<&'a str>,
    /// `extension` or `owner`.
    pub by: &'a str,
}

pub(crate) fn get(conn: &Connection) -> rusqlite::Result<PageGate> {
    cached_row(
        conn,
        "SELECT closed, fact_id, reason, op_id, tab_id, changed_at, changed_by, notified_at \
         FROM page_gate WHERE id = 1",
        [],
        |r| {
            Ok(PageGate {
                closed: r.get::<_, i64>(0)? == 1,
                fact_id: r.get(1)?,
                reason: r.get(2)?,
                op_id: r.get(3)?,
                tab_id: r.get(4)?,
                changed_at: r.get(5)?,
                changed_by: r.get(6)?,
                notified_at: r.get(7)?,
            })
        },
    )
}

/// Closes the gate naming `c.fact_id`. A gate already closed keeps its first closing (its
/// fact, tab and notification: one notification however many tabs report). Returns
/// whether this closed it.
pub(crate) fn close(tx: &Transaction, c: Closing, now: Millis) -> Result<bool> {
    if get(tx)?.closed {
        return Ok(false);
    }
    let tab: Option<String> = match c.lease_id {
        Some(l) => tx
            .query_row("SELECT tab_id FROM leases WHERE lease_id = ?1", [l], |r| {
                r.get(0)
            })
            .optional()?,
        None => None,
    };
    let reason: String = c.reason.chars().take(4096).collect();
    tx.execute(
        "UPDATE page_gate SET closed = 1, fact_id = ?1, reason = ?2, op_id = ?3, tab_id = ?4, \
         changed_at = ?5, changed_by = ?6, notified_at = NULL WHERE id = 1",
        params![c.fact_id, reason, c.op_id, tab, now, c.by],
    )?;
    Ok(true)
}

/// A person's resume: opens the gate. Returns whether it was holding sends back.
pub(crate) fn open(tx: &Transaction, by: &str, now: Millis) -> Result<bool> {
    if !get(tx)?.closed {
        return Ok(false);
    }
    tx.execute(
        "UPDATE page_gate SET closed = 0, changed_at = ?1, changed_by = ?2 WHERE id = 1",
        params![now, by],
    )?;
    Ok(true)
}

/// Records that a person was notified of the current closing; `false` when already.
pub(crate) fn mark_notified(tx: &Transaction, now: Millis) -> Result<bool> {
    let n = tx.execute(
        "UPDATE page_gate SET notified_at = ?1 WHERE id = 1 AND closed = 1 AND notified_at IS NULL",
        [now],
    )?;
    Ok(n == 1)
}

/// Why the grant is refused while the gate is closed (it closed after the send was
/// claimed); `None`: it is open.
pub(crate) fn refusal(tx: &Transaction) -> Result<Option<String>> {
    let gate = get(tx)?;
    Ok(gate.closed.then(|| {
        format!(
            "the page changed after this send was claimed ({} was not recognised), so the page gate closed: nothing was clicked (queue it again once a person resumes)",
            gate.fact_id.as_deref().unwrap_or("a page fact")
        )
    }))
}
