//! How many sends are in each state, read from `send_counts` (migration 0025), which the
//! ledger's triggers keep in the same transaction as every insert, change of state and
//! prune of a send: `status` reads ten rows however long the history (issue 39: counting a
//! million sends took ~400 ms). [`counted`] counts the sends themselves, for `doctor --full`
//! and the tests; [`recount`] rebuilds the table from the sends, for salvage, which copies
//! the sends it can read and not their counts.

use super::rows::state_of;
use super::state::SendState;
use rusqlite::Connection;
use std::collections::BTreeMap;

/// The number of sends in each state, from `send_counts` (every state, zeros included).
pub(crate) fn by_state(conn: &Connection) -> rusqlite::Result<BTreeMap<SendState, i64>> {
    read(conn, "SELECT state, n FROM send_counts")
}

/// The number of sends in each state, counted over the sends (every state, zeros
/// included): what [`by_state`] must always equal. Reads the whole `sends_by_state` index.
pub(crate) fn counted(conn: &Connection) -> rusqlite::Result<BTreeMap<SendState, i64>> {
    read(conn, "SELECT state, count(*) FROM sends GROUP BY state")
}

/// The number of sends in any of `states`, from `send_counts`.
pub(crate) fn of(conn: &Connection, states: &[SendState]) -> rusqlite::Result<i64> {
    let all = by_state(conn)?;
    Ok(states
        .iter()
        .map(|s| all.get(s).copied().unwrap_or(0))
        .sum())
}

/// Sets every count to the number of sends in its state (salvage, after copying the rows
/// with the triggers set aside).
pub(crate) fn recount(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "UPDATE send_counts SET n = (SELECT count(*) FROM sends WHERE sends.state = send_counts.state)",
    )
}

/// The states whose count in `send_counts` differs from the sends counted, as sentences
/// (`doctor --full`); empty when they agree.
pub(crate) fn disagreements(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let kept = by_state(conn)?;
    let true_counts = counted(conn)?;
    Ok(SendState::ALL
        .iter()
        .filter(|s| kept.get(s) != true_counts.get(s))
        .map(|s| {
            format!(
                "the ledger's count of {s} sends says {} but it holds {}",
                kept.get(s).copied().unwrap_or(0),
                true_counts.get(s).copied().unwrap_or(0)
            )
        })
        .collect())
}

fn read(conn: &Connection, sql: &str) -> rusqlite::Result<BTreeMap<SendState, i64>> {
    let mut counts: BTreeMap<SendState, i64> = SendState::ALL.iter().map(|s| (*s, 0)).collect();
    let mut stmt = conn.prepare_cached(sql)?;
    for row in stmt.query_map([], |r| Ok((state_of(r, 0)?, r.get::<_, i64>(1)?)))? {
        let (s, n) = row?;
        counts.insert(s, n);
    }
    Ok(counts)
}
