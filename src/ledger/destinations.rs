//! A send's destination (table `send_destinations`, migration 0011): written once, with
//! the send's admission, in the same transaction; read by the grant, which hands the
//! click only to a tab that confirmed it. The default destination a send that names none
//! takes is the profile's (`config.json` beside the ledger file), read at queue time.

use super::error::{LedgerError, Result};
use crate::destination::{ChosenBy, Destination, Kind};
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
            "SELECT kind, conversation_id, project_id, model, effort, chosen_by \
             FROM send_destinations WHERE op_id = ?1",
        )?
        .query_row([op_id], from_row)
        .optional()?)
}

/// The profile's default destination: `config.json` in the directory of the ledger file
/// (a new chat when it names none, or for a ledger with no file). Errors: `Invalid`, with
/// the sentence saying how to set it again.
pub(crate) fn default_of(conn: &Connection) -> Result<Destination> {
    let dir = conn
        .path()
        .filter(|p| !p.is_empty())
        .and_then(|p| std::path::Path::new(p).parent().map(|d| d.to_path_buf()));
    match dir {
        Some(dir) => crate::destination::read_default(&dir).map_err(LedgerError::Invalid),
        None => Ok(Destination::new_chat()),
    }
}
