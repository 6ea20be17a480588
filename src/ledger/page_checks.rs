//! Checks of the page (migration 0019; issue 35, *Check this page*): what the extension's
//! page contract found in a tab — each fact holds, fails or was not seen yet, with what the
//! page showed (structure only). The last one per tab is shown in `status` and the window's
//! tab line; one a tab sent with a send it failed on a page fact is linked to that send
//! (`op_id`) and shown with the failure (`sendledger show`). Bounded: [`MAX_PAGE_CHECKS`] rows.

use super::error::{LedgerError, Result};
use crate::clock::Millis;
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Most checks kept (the oldest go first).
pub const MAX_PAGE_CHECKS: i64 = 256;
/// Most bytes of one check's results, as JSON.
pub const MAX_RESULTS_BYTES: usize = 256 * 1024;

/// One check of a tab's page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageCheck {
    /// The browser's tab id.
    pub tab_id: String,
    /// The send the tab failed on a page fact, when the check went with that failure.
    pub op_id: Option<String>,
    /// When the owner recorded it (ms since the Unix epoch; the ledger's time).
    pub checked_at: Millis,
    /// How many facts hold, fail, and were not seen yet.
    pub holds: i64,
    /// How many facts fail.
    pub fails: i64,
    /// How many facts the page has not shown yet (no answer streamed, no file attached).
    pub unseen: i64,
    /// The ids of the facts that fail, in the contract's order.
    pub failing: Vec<String>,
    /// `[{id, needs, state, shows}]` as the extension's `checkAll` gave them.
    pub results: Value,
}

impl PageCheck {
    /// "12 facts hold, 1 fails: composer.present" (the popup says the same).
    pub fn summary(&self) -> String {
        let mut parts = vec![format!(
            "{} {}",
            self.holds,
            if self.holds == 1 {
                "fact holds"
            } else {
                "facts hold"
            }
        )];
        if self.fails > 0 {
            let verb = if self.fails == 1 { "fails" } else { "fail" };
            parts.push(format!(
                "{} {verb}: {}",
                self.fails,
                self.failing.join(", ")
            ));
        }
        if self.unseen > 0 {
            parts.push(format!("{} not seen yet", self.unseen));
        }
        parts.join(", ")
    }
}

/// Records a check (stamped with `now`), keeping at most [`MAX_PAGE_CHECKS`].
pub(crate) fn record(tx: &Transaction, check: &PageCheck, now: Millis) -> Result<()> {
    let results = serde_json::to_string(&check.results).unwrap_or_else(|_| "[]".into());
    if results.len() > MAX_RESULTS_BYTES {
        return Err(LedgerError::Invalid(format!(
            "a page check's results must be at most {MAX_RESULTS_BYTES} bytes of JSON"
        )));
    }
    if check.tab_id.is_empty() || check.tab_id.len() > 64 {
        return Err(LedgerError::Invalid(
            "tab id must be 1 to 64 characters".into(),
        ));
    }
    let failing = serde_json::to_string(&check.failing).unwrap_or_else(|_| "[]".into());
    tx.execute(
        "INSERT INTO page_checks(tab_id, op_id, checked_at, holds, fails, unseen, failing, results) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![check.tab_id, check.op_id, now, check.holds, check.fails, check.unseen, failing, results],
    )?;
    tx.execute(
        "DELETE FROM page_checks WHERE rowid NOT IN \
         (SELECT rowid FROM page_checks ORDER BY rowid DESC LIMIT ?1)",
        [MAX_PAGE_CHECKS],
    )?;
    Ok(())
}

const COLUMNS: &str = "tab_id, op_id, checked_at, holds, fails, unseen, failing, results";

fn row(r: &rusqlite::Row) -> rusqlite::Result<PageCheck> {
    let failing: String = r.get(6)?;
    let results: String = r.get(7)?;
    Ok(PageCheck {
        tab_id: r.get(0)?,
        op_id: r.get(1)?,
        checked_at: r.get(2)?,
        holds: r.get(3)?,
        fails: r.get(4)?,
        unseen: r.get(5)?,
        failing: serde_json::from_str(&failing).unwrap_or_default(),
        results: serde_json::from_str(&results).unwrap_or(Value::Null),
    })
}

/// The newest check of each tab, newest first.
pub(crate) fn latest_per_tab(conn: &Connection) -> rusqlite::Result<Vec<PageCheck>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM page_checks p WHERE rowid = \
         (SELECT max(rowid) FROM page_checks q WHERE q.tab_id = p.tab_id) ORDER BY rowid DESC"
    ))?;
    let rows = stmt.query_map([], row)?;
    rows.collect()
}

/// The newest check sent with the failure of `op_id`, if any.
pub(crate) fn of_send(conn: &Connection, op_id: &str) -> rusqlite::Result<Option<PageCheck>> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM page_checks WHERE op_id = ?1 ORDER BY rowid DESC LIMIT 1"),
        [op_id],
        row,
    )
    .optional()
}

/// The tab ids of the leases not ended, the newest lease first (a tab once).
pub(crate) fn leased_tabs(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT tab_id FROM leases WHERE ended_at IS NULL GROUP BY tab_id \
         ORDER BY max(created_at) DESC, max(rowid) DESC",
    )?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    rows.collect()
}
