//! Queries shared by the owner and read-only readers.

use super::epochs;
use super::limit_gate::{self, LimitGate};
use super::record::{Answer, Event, EventKind, EvidenceKind, Receipt, Send};
use super::state::SendState;
use super::tab_reports::{self, TabReport};
use super::waiting::{self, Waiting};
use crate::clock::Millis;
use rusqlite::{Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub(crate) const SEND_COLUMNS: &str = "s.op_id, s.text, s.conversation_id, s.epoch, s.resend_of, \
    s.created_at, s.state, s.updated_at, s.actor, s.evidence, s.lease_id, s.claimed_at, \
    s.dispatched_at, r.conversation_id, r.user_message_id, r.turn_id, s.answer_message_id, \
    s.answer_text, s.answered_at, s.answer_not_observed_at, s.notified_at";

pub(crate) const SEND_FROM: &str = "sends s LEFT JOIN receipts r ON r.op_id = s.op_id";

fn state_of(row: &Row, i: usize) -> rusqlite::Result<SendState> {
    let s: String = row.get(i)?;
    s.parse().map_err(|e: String| {
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

/// Which sends to list.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ListFilter {
    /// Only these states (empty: all).
    #[serde(default)]
    pub states: Vec<SendState>,
    /// At most this many, newest first (`None`: 1,000).
    #[serde(default)]
    pub limit: Option<u32>,
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
    sql.push_str(&format!(" ORDER BY s.seq DESC LIMIT {limit}"));
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([], send_from_row)?;
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
    })
}

const EVENT_COLUMNS: &str =
    "id, op_id, kind, from_state, to_state, at, actor, evidence, evidence_kind";

pub(crate) fn timeline(conn: &Connection, op_id: &str) -> rusqlite::Result<Vec<Event>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {EVENT_COLUMNS} FROM events WHERE op_id = ?1 ORDER BY id"
    ))?;
    let rows = stmt.query_map([op_id], event_from_row)?;
    rows.collect()
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

/// The profile at a glance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    /// Whether Stop closed the gate (no new send or lease until a person resumes).
    pub gate_closed: bool,
    /// How many times a person resumed (part of every epoch).
    pub generation: i64,
    /// Epoch of sends queued while no tab is leased.
    pub unbound_epoch: String,
    /// Epochs of the active leases, newest first.
    pub lease_epochs: Vec<String>,
    /// Number of sends per state (every state listed, zeros included).
    pub counts: BTreeMap<SendState, i64>,
    /// The oldest send in flight, if any.
    pub in_flight: Option<String>,
    /// How many sends may be in flight at once (`max_in_flight`, 1 to 8): at most one in a
    /// conversation and one in a tab.
    #[serde(default = "one")]
    pub max_in_flight: u32,
    /// Stopped epochs on record.
    pub stopped_epochs: i64,
    /// Tool-call receipts retained (not archived), out of 1,000.
    pub tool_receipts_retained: i64,
    /// Remote stops not yet confirmed or uncertain.
    pub remote_stops_open: i64,
    /// The limit gate while it holds sends back (a page's usage limit).
    pub limit_gate: Option<LimitGate>,
    /// Tabs that said they cannot take a send, newest first.
    pub tab_reports: Vec<TabReport>,
    /// Why nothing goes out, if something holds every send back.
    pub waiting: Option<Waiting>,
    /// [`Status::waiting`] as the sentence a person reads (local times).
    pub waiting_sentence: Option<String>,
}

pub(crate) fn status(conn: &Connection, now: Millis) -> rusqlite::Result<Status> {
    let (closed, generation): (i64, i64) = conn.query_row(
        "SELECT closed, generation FROM gate WHERE id = 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let mut counts: BTreeMap<SendState, i64> = SendState::ALL.iter().map(|s| (*s, 0)).collect();
    let mut stmt = conn.prepare_cached("SELECT state, count(*) FROM sends GROUP BY state")?;
    for row in stmt.query_map([], |r| Ok((state_of(r, 0)?, r.get::<_, i64>(1)?)))? {
        let (s, n) = row?;
        counts.insert(s, n);
    }
    let waiting = waiting::for_profile(conn, now)?;
    let mut stmt = conn.prepare_cached(
        "SELECT epoch FROM leases WHERE ended_at IS NULL ORDER BY created_at DESC, rowid DESC",
    )?;
    let lease_epochs = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(Status {
        gate_closed: closed == 1,
        generation,
        unbound_epoch: epochs::unbound_epoch(generation),
        lease_epochs,
        counts,
        in_flight: in_flight(conn)?,
        max_in_flight: super::in_flight::cap(conn)?,
        stopped_epochs: conn.query_row("SELECT count(*) FROM stopped_epochs", [], |r| r.get(0))?,
        tool_receipts_retained: conn.query_row(
            "SELECT count(*) FROM tool_calls WHERE archived_at IS NULL",
            [],
            |r| r.get(0),
        )?,
        remote_stops_open: conn.query_row(
            "SELECT count(*) FROM remote_stops WHERE phase IN ('pending', 'dispatched')",
            [],
            |r| r.get(0),
        )?,
        limit_gate: Some(limit_gate::get(conn)?).filter(|g| g.holds_at(now)),
        tab_reports: tab_reports::list(conn)?,
        waiting_sentence: waiting.as_ref().map(|w| w.sentence(now)),
        waiting,
    })
}

/// What the queue's header needs of the profile: [`Status`] without counting every send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Glance {
    /// Whether Stop closed the gate.
    pub gate_closed: bool,
    /// Why nothing goes out, as the sentence a person reads (local times), if anything.
    pub waiting_sentence: Option<String>,
    /// The same in a few words ([`super::Waiting::words`]).
    pub waiting_words: Option<String>,
    /// Whether a tab is leased.
    pub leased: bool,
    /// Who last stopped or resumed sends, and when (ms since the epoch); `None` before the
    /// first Stop.
    pub gate_changed: Option<(String, Millis)>,
}

pub(crate) fn glance(conn: &Connection, now: Millis) -> rusqlite::Result<Glance> {
    let (closed, changed_at, changed_by): (i64, Millis, String) = conn.query_row(
        "SELECT closed, changed_at, changed_by FROM gate WHERE id = 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    let leased: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM leases WHERE ended_at IS NULL)",
        [],
        |r| r.get(0),
    )?;
    let why = waiting::for_profile(conn, now)?;
    Ok(Glance {
        gate_closed: closed == 1,
        waiting_sentence: why.as_ref().map(|w| w.sentence(now)),
        waiting_words: why.as_ref().map(|w| w.words().to_string()),
        leased,
        // The row made with the ledger (changed_at 0) is no one's Stop or Resume.
        gate_changed: (changed_at > 0).then_some((changed_by, changed_at)),
    })
}

fn one() -> u32 {
    1
}

/// The oldest send in flight (the `sends_in_flight` view, which the claim's triggers read
/// too; where each is: `in_flight_places`).
pub(crate) fn in_flight(conn: &Connection) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT op_id FROM sends_in_flight ORDER BY seq LIMIT 1")?
        .query_row([], |r| r.get(0))
        .optional()
}
