//! The sends of each part of the queue a person sees, each read through an index of its own
//! (migration 0010), so the cost of a read follows what is live, never how long the history
//! is. Pending, uncertain and stopped sends are read in full: a send that needs a person
//! never falls out of reach. Settled sends are read a page at a time, newest first.

use super::record::Send;
use super::rows::{send_from_row, SEND_COLUMNS, SEND_FROM};
use super::state::SendState;
use rusqlite::{Connection, OptionalExtension};

/// The most settled sends one page holds.
pub const MAX_PAGE: u32 = 1_000;

/// A part of the queue, as the ledger reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shelf {
    /// Queued, claimed, dispatched, or accepted and waiting for its answer (the slot's
    /// holders, as the `sends_in_flight` view says): oldest first.
    Pending,
    /// Waiting for a person's decision: oldest first.
    Uncertain,
    /// Stopped or rejected (never left the host), queued again or not: newest first.
    Stopped,
    /// The same, a page at a time (issue 39: a year of a heavy user holds tens of
    /// thousands): at most `limit` (≤ [`MAX_PAGE`]) queued before `before` (an operation
    /// id; `None`: from the newest), newest first. Reads at most `limit` rows of each
    /// state through `sends_by_state`.
    StoppedPage {
        /// Only sends queued before this one.
        before: Option<String>,
        /// At most this many.
        limit: u32,
    },
    /// Settled (accepted and no longer waiting, completed, confirmed, abandoned, the page
    /// said no): newest first, at most `limit` (≤ [`MAX_PAGE`]) older than `before` (an
    /// operation id; `None`: from the newest).
    Settled {
        /// Only sends queued before this one.
        before: Option<String>,
        /// At most this many.
        limit: u32,
    },
}

/// The `WHERE` of a shelf. Each is written so SQLite reads it through its index: the
/// partial indexes' own terms, word for word, named with `INDEXED BY` (a query that could
/// not use it is an error, never a quiet scan); `tests/ledger_sections.rs` holds the plans.
fn condition(shelf: &Shelf) -> &'static str {
    match shelf {
        Shelf::Pending => {
            "s.seq IN (SELECT seq FROM sends WHERE state IN ('queued', 'claimed', 'dispatched') \
             UNION ALL SELECT seq FROM sends INDEXED BY sends_awaiting_answer \
             WHERE state = 'accepted' AND answered_at IS NULL \
             AND answer_not_observed_at IS NULL)"
        }
        Shelf::Uncertain => "s.state = 'uncertain'",
        Shelf::Stopped => "s.state IN ('stopped', 'rejected')",
        Shelf::StoppedPage { .. } => {
            "s.seq IN (SELECT seq FROM (SELECT seq FROM sends INDEXED BY sends_by_state \
             WHERE state = 'stopped' AND seq < ?1 ORDER BY seq DESC LIMIT ?2) \
             UNION ALL SELECT seq FROM (SELECT seq FROM sends INDEXED BY sends_by_state \
             WHERE state = 'rejected' AND seq < ?1 ORDER BY seq DESC LIMIT ?2))"
        }
        Shelf::Settled { .. } => {
            "s.seq IN (SELECT seq FROM sends INDEXED BY sends_settled \
             WHERE state IN ('accepted', 'completed', 'confirmed', 'abandoned', 'page_error') \
             AND seq < ?1 AND NOT (state = 'accepted' AND answered_at IS NULL \
             AND answer_not_observed_at IS NULL) ORDER BY seq DESC LIMIT ?2)"
        }
    }
}

fn order(shelf: &Shelf) -> &'static str {
    match shelf {
        Shelf::Pending | Shelf::Uncertain => "ASC",
        Shelf::Stopped | Shelf::StoppedPage { .. } | Shelf::Settled { .. } => "DESC",
    }
}

/// The SQL that reads `shelf` (also what the plan tests explain).
pub fn sql(shelf: &Shelf) -> String {
    format!(
        "SELECT {SEND_COLUMNS} FROM {SEND_FROM} WHERE {} ORDER BY s.seq {}",
        condition(shelf),
        order(shelf)
    )
}

/// The sends on `shelf`. A `before` that names no send reads from the newest.
pub(crate) fn read(conn: &Connection, shelf: &Shelf) -> rusqlite::Result<Vec<Send>> {
    let mut stmt = conn.prepare_cached(&sql(shelf))?;
    let rows = match shelf {
        Shelf::Settled { before, limit } | Shelf::StoppedPage { before, limit } => {
            let below = match before {
                Some(op) => seq_of(conn, op)?.unwrap_or(i64::MAX),
                None => i64::MAX,
            };
            let limit = (*limit).min(MAX_PAGE);
            let mut rows = stmt
                .query_map(rusqlite::params![below, limit], send_from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            rows.truncate(limit as usize);
            rows
        }
        _ => stmt
            .query_map([], send_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?,
    };
    Ok(rows)
}

fn seq_of(conn: &Connection, op_id: &str) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT seq FROM sends WHERE op_id = ?1")?
        .query_row([op_id], |r| r.get(0))
        .optional()
}

/// How many sends the Pending section holds, per site (sites with none left out): the
/// tray's and `status`'s counts. Read through the section's own indexes.
pub(crate) fn pending_by_site(
    conn: &Connection,
) -> rusqlite::Result<std::collections::BTreeMap<crate::site::Site, i64>> {
    let mut stmt = conn.prepare_cached(&pending_by_site_sql())?;
    let counts = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    counts.collect()
}

/// The SQL of [`pending_by_site`] (what the plan test explains).
pub fn pending_by_site_sql() -> String {
    format!(
        "SELECT s.site, count(*) FROM sends AS s WHERE {} GROUP BY s.site",
        condition(&Shelf::Pending)
    )
}

/// How many sends the Stopped section holds: `(all, open)`, where `open` are those not yet
/// queued again (issue 39: the true numbers however long the history). `all` is read from
/// the kept counts ([`super::counts`]: two rows); the queued-again ones are counted through
/// `sends_by_resend` (the cost follows how many sends were queued again).
pub(crate) fn stopped_counts(conn: &Connection) -> rusqlite::Result<(i64, i64)> {
    let all = super::counts::of(conn, &[SendState::Stopped, SendState::Rejected])?;
    let again: i64 = conn
        .prepare_cached(STOPPED_AGAIN_SQL)?
        .query_row([], |r| r.get(0))?;
    Ok((all, all - again))
}

/// Counts the stopped or rejected sends queued again, read from the resends' own index.
/// `CROSS JOIN` keeps the resends the outer loop: left to choose, SQLite walked every
/// stopped and rejected send instead (28 ms at 10⁶ sends with 40,000 of them; 0.02 ms so).
pub const STOPPED_AGAIN_SQL: &str = "SELECT count(DISTINCT r.resend_of) \
     FROM sends AS r INDEXED BY sends_by_resend CROSS JOIN sends AS o ON o.op_id = r.resend_of \
     WHERE r.resend_of IS NOT NULL AND o.state IN ('stopped', 'rejected')";

/// The operation that queued each of the sends `ids` ([`super::rows::ids_param`]) again,
/// for those queued again: what [`queued_again_as`] reads for each, in one query.
pub(crate) fn queued_again_as_of(
    conn: &Connection,
    ids: &str,
) -> rusqlite::Result<std::collections::HashMap<String, String>> {
    super::rows::keyed(conn, &queued_again_sql(), ids, |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
}

/// The SQL of [`queued_again_as_of`]: the oldest resend of each first.
pub(crate) fn queued_again_sql() -> String {
    format!(
        "SELECT resend_of, op_id FROM sends INDEXED BY sends_by_resend \
         WHERE resend_of IS NOT NULL AND resend_of IN {} ORDER BY resend_of, seq",
        super::rows::IN_IDS
    )
}

/// The operation that queued `op_id` again (a resend or *Queue again*): the oldest, as the
/// ledger allows one. Read through `sends_by_resend`.
pub(crate) fn queued_again_as(conn: &Connection, op_id: &str) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT op_id FROM sends WHERE resend_of = ?1 ORDER BY seq LIMIT 1")?
        .query_row([op_id], |r| r.get(0))
        .optional()
}
