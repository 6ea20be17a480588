//! Tabs that cannot take a send (migration 0007): the extension reports a chatgpt.com
//! tab whose composer never appeared (still loading, a changed layout, logged out) with
//! its reason, so `status`, the app and a queued send's `show` can say why nothing goes
//! out. One row per tab, the latest report; a lease of the tab or its closing clears it.

use super::error::{LedgerError, Result};
use crate::clock::Millis;
use rusqlite::{params, Connection, Transaction};
use serde::{Deserialize, Serialize};

/// Most tabs remembered (the oldest report goes first).
pub const MAX_TAB_REPORTS: i64 = 32;
/// Longest reason, in bytes.
pub const MAX_REASON_BYTES: usize = 1024;
/// Longest page path, in bytes.
pub const MAX_PATH_BYTES: usize = 512;

/// What the extension said about a tab that cannot take a send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabReport {
    /// The browser's tab id.
    pub tab_id: String,
    /// Why it cannot take a send, and what to do (a sentence; never a message's text).
    pub reason: String,
    /// The page's path with ids masked (e.g. `/c/<id>`), when known.
    pub path: Option<String>,
    /// When it was reported (ms since the Unix epoch).
    pub reported_at: Millis,
}

fn check(report: &TabReport) -> Result<()> {
    let bad = |what: &str| Err(LedgerError::Invalid(what.to_string()));
    if report.tab_id.is_empty()
        || report.tab_id.len() > 64
        || report.tab_id.chars().any(char::is_control)
    {
        return bad("tab id must be 1 to 64 printable characters");
    }
    if report.reason.trim().is_empty() || report.reason.len() > MAX_REASON_BYTES {
        return bad("the tab report's reason must be 1 to 1024 bytes");
    }
    if report
        .path
        .as_ref()
        .is_some_and(|p| p.len() > MAX_PATH_BYTES)
    {
        return bad("the tab report's path is longer than 512 bytes");
    }
    Ok(())
}

/// Records (or replaces) a tab's report, keeping at most [`MAX_TAB_REPORTS`] tabs.
pub(crate) fn record(tx: &Transaction, report: &TabReport) -> Result<()> {
    check(report)?;
    tx.execute(
        "INSERT INTO tab_reports(tab_id, reason, path, reported_at) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT(tab_id) DO UPDATE SET reason = excluded.reason, path = excluded.path, \
         reported_at = excluded.reported_at",
        params![
            report.tab_id,
            report.reason,
            report.path,
            report.reported_at
        ],
    )?;
    tx.execute(
        "DELETE FROM tab_reports WHERE tab_id NOT IN \
         (SELECT tab_id FROM tab_reports ORDER BY reported_at DESC, rowid DESC LIMIT ?1)",
        [MAX_TAB_REPORTS],
    )?;
    Ok(())
}

/// Forgets a tab's report (it was leased, or closed). Returns whether there was one.
pub(crate) fn clear(tx: &Transaction, tab_id: &str) -> Result<bool> {
    Ok(tx.execute("DELETE FROM tab_reports WHERE tab_id = ?1", [tab_id])? == 1)
}

/// Every report, newest first.
pub(crate) fn list(conn: &Connection) -> rusqlite::Result<Vec<TabReport>> {
    let mut stmt = conn.prepare_cached(
        "SELECT tab_id, reason, path, reported_at FROM tab_reports ORDER BY reported_at DESC, rowid DESC",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(TabReport {
            tab_id: r.get(0)?,
            reason: r.get(1)?,
            path: r.get(2)?,
            reported_at: r.get(3)?,
        })
    })?;
    rows.collect()
}

/// Stamps a report with the ledger's time.
pub(crate) fn stamped(mut report: TabReport, now: Millis) -> TabReport {
    report.reported_at = now;
    report
}
