//! A send's destination (table `send_destinations`, migration 0011): written once, with
//! the send's admission, in the same transaction; read by the grant, which hands the
//! click only to a tab that confirmed it. The default destination a send that names none
//! takes is the profile's, kept in the ledger (table `default_destinations`, migration
//! 0023) by the act that sets it: the queue reads only SQLite.

use super::error::Result;
use crate::destination::{ChosenBy, Destination, Kind};
use crate::site::Site;
use rusqlite::{params, Connection, OptionalExtension, Row};

/// Records `d` as the destination of the send `op_id` (just admitted, still queued).
pub(crate) fn insert(conn: &Connection, op_id: &str, d: &Destination) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO send_destinations(op_id, kind, conversation_id, project_id, model, effort, chosen_by) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        op_id,
        d.kind.as_str(),
        d.conversation_id,
        d.project_id,
        d.model,
        d.effort,
        chosen_str(d.chosen_by)
    ])?;
    Ok(())
}

fn chosen_str(c: ChosenBy) -> &'static str {
    match c {
        ChosenBy::Send => "send",
        ChosenBy::Default => "default",
    }
}

fn from_row(r: &Row) -> rusqlite::Result<Destination> {
    let kind: String = r.get(0)?;
    let chosen: String = r.get(5)?;
    Ok(Destination {
        site: r.get(6)?,
        kind: Kind::parse(&kind).unwrap_or(Kind::NewChat),
        conversation_id: r.get(1)?,
        project_id: r.get(2)?,
        model: r.get(3)?,
        effort: r.get(4)?,
        chosen_by: if chosen == "default" {
            ChosenBy::Default
        } else {
            ChosenBy::Send
        },
    })
}

/// The destination recorded for `op_id`; `None` for a send admitted before migration 0011.
pub(crate) fn get(conn: &Connection, op_id: &str) -> Result<Option<Destination>> {
    Ok(conn
        .prepare_cached(
            "SELECT d.kind, d.conversation_id, d.project_id, d.model, d.effort, d.chosen_by, s.site \
             FROM send_destinations d JOIN sends s ON s.op_id = d.op_id WHERE d.op_id = ?1",
        )?
        .query_row([op_id], from_row)
        .optional()?)
}

/// The destinations recorded for those of the sends `ids` ([`super::rows::ids_param`])
/// that have one: what [`get`] reads for each, in one query.
pub(crate) fn of_sends(
    conn: &Connection,
    ids: &str,
) -> rusqlite::Result<std::collections::HashMap<String, Destination>> {
    super::rows::keyed(conn, &of_sends_sql(), ids, |r| {
        Ok((r.get(7)?, from_row(r)?))
    })
}

/// The SQL of [`of_sends`].
pub(crate) fn of_sends_sql() -> String {
    format!(
        "SELECT d.kind, d.conversation_id, d.project_id, d.model, d.effort, d.chosen_by, s.site, \
         d.op_id FROM send_destinations d JOIN sends s ON s.op_id = d.op_id WHERE d.op_id IN {}",
        super::rows::IN_IDS
    )
}

/// The profile's default destination for `site` (a new chat when none was set).
pub(crate) fn default_of(conn: &Connection, site: Site) -> Result<Destination> {
    let d = conn
        .prepare_cached(
            "SELECT kind, conversation_id, project_id, model, effort, 'default', site \
             FROM default_destinations WHERE site = ?1",
        )?
        .query_row([site.as_str()], from_row)
        .optional()?;
    Ok(d.unwrap_or_else(|| Destination {
        site,
        ..Destination::new_chat()
    }))
}

/// Keeps `d` as `site`'s default destination (the act `SetDefaultDestination`, or the
/// owner at start from `config.json`).
pub(crate) fn set_default(tx: &Connection, site: Site, d: &Destination, now: i64) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO default_destinations(site, kind, conversation_id, project_id, model, effort, set_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
         ON CONFLICT(site) DO UPDATE SET kind = excluded.kind, conversation_id = excluded.conversation_id, \
         project_id = excluded.project_id, model = excluded.model, effort = excluded.effort, set_at = excluded.set_at",
    )?
    .execute(params![
        site.as_str(),
        d.kind.as_str(),
        d.conversation_id,
        d.project_id,
        d.model,
        d.effort,
        now
    ])?;
    Ok(())
}
