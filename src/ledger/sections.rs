//! The sends of each part of the queue a person sees, each read through an index of its own
//! (migration 0010), so the cost of a read follows what is live, never how long the history
//! is. Pending, uncertain and stopped sends are read in full: a send that needs a person
//! never falls out of reach. Settled sends are read a page at a time, newest first.

use super::read::{send_from_row, SEND_COLUMNS, SEND_FROM};
use super::record::Send;
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
        Shelf::Stopped | Shelf::Settled { .. } => "DESC",
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
        Shelf::Settled { before, limit } => {
            let below = match before {
                Some(op) => seq_of(conn, op)?.unwrap_or(i64::MAX),
                None => i64::MAX,
            };
            let limit = (*limit).min(MAX_PAGE);
            stmt.query_map(rusqlite::params![below, limit], send_from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?
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

/// The operation that queued `op_id` again (a resend or *Queue again*): the oldest, as the
/// ledger allows one. Read through `sends_by_resend`.
pub(crate) fn queued_again_as(conn: &Connection, op_id: &str) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT op_id FROM sends WHERE resend_of = ?1 ORDER BY seq LIMIT 1")?
        .query_row([op_id], |r| r.get(0))
        .optional()
}
