//! Queries shared by the owner and read-only readers.

use super::record::{Answer, Event, EventKind, EvidenceKind, Receipt, Send};
use super::state::SendState;
use crate::clock::Millis;
use rusqlite::{Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The operation ids bound as `?1` of a batched read, as SQL: `op_id IN` this reads each
/// through the table's own key (`?1` is a JSON array of strings, [`ids_param`], walked by
/// SQLite's `json_each`).
pub(crate) const IN_IDS: &str = "(SELECT value FROM json_each(?1))";

/// `ids` as the JSON array [`IN_IDS`] binds (RFC 8259 strings, as serde_json writes them).
pub(crate) fn ids_param<'a>(ids: impl IntoIterator<Item = &'a str>) -> String {
    let ids: Vec<&str> = ids.into_iter().collect();
    serde_json::to_string(&ids).unwrap_or_else(|_| "[]".into())
}

/// Runs the batched read `sql` (its `?1` bound to `ids`, a [`ids_param`] array) and groups
/// what `f` reads of each row under the key it returns, in the order SQLite gives them.
pub(crate) fn grouped<T>(
    conn: &Connection,
    sql: &str,
    ids: &str,
    f: impl Fn(&Row) -> rusqlite::Result<(String, T)>,
) -> rusqlite::Result<HashMap<String, Vec<T>>> {
    let mut out: HashMap<String, Vec<T>> = HashMap::new();
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query([ids])?;
    while let Some(row) = rows.next()? {
        let (key, value) = f(row)?;
        out.entry(key).or_default().push(value);
    }
    Ok(out)
}

/// [`grouped`] keeping the first row of each key (a table keyed on `op_id`, or the first
/// in the read's order).
pub(crate) fn keyed<T>(
    conn: &Connection,
    sql: &str,
    ids: &str,
    f: impl Fn(&Row) -> rusqlite::Result<(String, T)>,
) -> rusqlite::Result<HashMap<String, T>> {
    Ok(grouped(conn, sql, ids, f)?
        .into_iter()
        .filter_map(|(k, mut v)| (!v.is_empty()).then(|| (k, v.swap_remove(0))))
        .collect())
}

pub(crate) const SEND_COLUMNS: &str = "s.op_id, s.text, s.conversation_id, s.epoch, s.resend_of, \
    s.created_at, s.state, s.updated_at, s.actor, s.evidence, s.lease_id, s.claimed_at, \
    s.dispatched_at, r.conversation_id, r.user_message_id, r.turn_id, s.answer_message_id, \
    s.answer_text, s.answered_at, s.answer_not_observed_at, s.notified_at, s.site";

pub(crate) const SEND_FROM: &str = "sends s LEFT JOIN receipts r ON r.op_id = s.op_id";

pub(crate) fn state_of(row: &Row, i: usize) -> rusqlite::Result<SendState> {
    let s: String = row.get(i)?;
    s.parse().map_err(|e: String| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into())
    })
}

pub(crate) fn site_of(row: &Row, i: usize) -> rusqlite::Result<crate::site::Site> {
    let s: String = row.get(i)?;
    crate::site::Site::parse(&s).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into())
    })
}

pub(crate) fn send_from_row(row: &Row) -> rusqlite::Result<Send> {
    let receipt = match (
        row.get::<_, Option<String>>(13)?,
        row.get::<_, Option<String>>(14)?,
        row.get::<_, Option<String>>(15)?,
    ) {
        (Some(c), Some(u), Some(t)) => Some(Receipt {
            conversation_id: c,
            user_message_id: u,
            turn_id: t,
        }),
        _ => None,
    };
    let answer = match (
        row.get::<_, Option<String>>(16)?,
        row.get::<_, Option<String>>(17)?,
        row.get::<_, Option<Millis>>(18)?,
    ) {
        (Some(message_id), Some(text), Some(at)) => Some(Answer {
            message_id,
            text,
            at,
        }),
        _ => None,
    };
    Ok(Send {
        op_id: row.get(0)?,
        text: row.get(1)?,
        conversation_id: row.get(2)?,
        epoch: row.get(3)?,
        resend_of: row.get(4)?,
        created_at: row.get(5)?,
        state: state_of(row, 6)?,
        updated_at: row.get(7)?,
        actor: row.get(8)?,
        evidence: row.get(9)?,
        lease_id: row.get(10)?,
        claimed_at: row.get(11)?,
        dispatched_at: row.get(12)?,
        receipt,
        answer,
        answer_not_observed_at: row.get(19)?,
        notified_at: row.get(20)?,
        site: site_of(row, 21)?,
    })
}

/// `query_row` through the connection's statement cache (see `sends::exec`).
pub(crate) fn cached_row<T>(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    f: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.prepare_cached(sql)?.query_row(params, f)
}

pub(crate) fn get(conn: &Connection, op_id: &str) -> rusqlite::Result<Option<Send>> {
    conn.prepare_cached(&format!(
        "SELECT {SEND_COLUMNS} FROM {SEND_FROM} WHERE s.op_id = ?1"
    ))?
    .query_row([op_id], send_from_row)
    .optional()
}

/// The send `lease_id` holds claimed (the oldest, should it hold several), if any.
pub(crate) fn claimed_by(conn: &Connection, lease_id: &str) -> rusqlite::Result<Option<Send>> {
    conn.prepare_cached(&format!(
        "SELECT {SEND_COLUMNS} FROM {SEND_FROM} \
         WHERE s.state = 'claimed' AND s.lease_id = ?1 ORDER BY s.seq LIMIT 1"
    ))?
    .query_row([lease_id], send_from_row)
    .optional()
}

/// Which sends to list.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ListFilter {
    /// Only these states (empty: all).
    #[serde(default)]
    pub states: Vec<SendState>,
    /// At most this many, newest first (`None`: 1,000).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Only this site's sends (`None`: every site's).
    #[serde(default)]
    pub site: Option<crate::site::Site>,
}

pub(crate) fn list(conn: &Connection, filter: &ListFilter) -> rusqlite::Result<Vec<Send>> {
    let limit = filter.limit.unwrap_or(1000);
    let mut sql = format!("SELECT {SEND_COLUMNS} FROM {SEND_FROM}");
    if !filter.states.is_empty() {
        let names: Vec<String> = filter
            .states
            .iter()
            .map(|s| format!("'{}'", s.as_str()))
            .collect();
        sql.push_str(&format!(" WHERE s.state IN ({})", names.join(",")));
    }
    let glue = if filter.states.is_empty() {
        "WHERE"
    } else {
        "AND"
    };
    sql.push_str(&format!(" {glue} (?1 IS NULL OR s.site = ?1)"));
    sql.push_str(&format!(" ORDER BY s.seq DESC LIMIT {limit}"));
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([filter.site], send_from_row)?;
    rows.collect()
}

fn event_from_row(row: &Row) -> rusqlite::Result<Event> {
    let kind: String = row.get(2)?;
    let from: Option<String> = row.get(3)?;
    Ok(Event {
        id: row.get(0)?,
        op_id: row.get(1)?,
        kind: if kind == "note" {
            EventKind::Note
        } else {
            EventKind::Transition
        },
        from: match from {
            Some(_) => Some(state_of(row, 3)?),
            None => None,
        },
        to: state_of(row, 4)?,
        at: row.get(5)?,
        actor: row.get(6)?,
        evidence: row.get(7)?,
        evidence_kind: row
            .get::<_, Option<String>>(8)?
            .as_deref()
            .and_then(EvidenceKind::parse),
        note_kind: row
            .get::<_, Option<String>>(9)?
            .as_deref()
            .and_then(super::record::NoteKind::parse),
    })
}

const EVENT_COLUMNS: &str =
    "id, op_id, kind, from_state, to_state, at, actor, evidence, evidence_kind, note_kind";

pub(crate) fn timeline(conn: &Connection, op_id: &str) -> rusqlite::Result<Vec<Event>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {EVENT_COLUMNS} FROM events WHERE op_id = ?1 ORDER BY id"
    ))?;
    let rows = stmt.query_map([op_id], event_from_row)?;
    rows.collect()
}

/// The audit trails of the sends `ids` ([`ids_param`]), each oldest first: what
/// [`timeline`] reads for each, in one query through `events_by_op`.
pub(crate) fn timelines(
    conn: &Connection,
    ids: &str,
) -> rusqlite::Result<HashMap<String, Vec<Event>>> {
    grouped(conn, &timelines_sql(), ids, |r| {
        let e = event_from_row(r)?;
        Ok((e.op_id.clone(), e))
    })
}

/// The SQL of [`timelines`].
pub(crate) fn timelines_sql() -> String {
    format!("SELECT {EVENT_COLUMNS} FROM events WHERE op_id IN {IN_IDS} ORDER BY op_id, id")
}

pub(crate) fn events_since(
    conn: &Connection,
    after_id: i64,
    limit: u32,
) -> rusqlite::Result<Vec<Event>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {EVENT_COLUMNS} FROM events WHERE id > ?1 ORDER BY id LIMIT ?2"
    ))?;
    let rows = stmt.query_map(rusqlite::params![after_id, limit], event_from_row)?;
    rows.collect()
}

/// The oldest send in flight (the `sends_in_flight` view, which the claim's triggers read
/// too; where each is: `in_flight_places`).
pub(crate) fn in_flight(conn: &Connection) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT op_id FROM sends_in_flight ORDER BY seq LIMIT 1")?
        .query_row([], |r| r.get(0))
        .optional()
}
