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

/// What the page's own conversation request showed after the click.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PageDestination {
    /// The conversation the request named; `None`: it started a new chat.
    pub conversation_id: Option<String>,
    /// The model slug the request named, if any.
    pub model: Option<String>,
    /// When it is not the send's destination: the `destination_mismatch` sentence.
    pub mismatch: Option<String>,
    /// When it was observed (ms).
    pub observed_at: crate::clock::Millis,
}

/// The prefix of the timeline note written when the page's request is not the send's
/// destination.
pub const MISMATCH_NOTE: &str = "destination_mismatch";

/// Why the page's request (`conversation`, `model`) is not `d`; `None` when it is.
fn mismatch(d: &Destination, conversation: Option<&str>, model: Option<&str>) -> Option<String> {
    let page = match conversation {
        Some(c) => format!("conversation {c}"),
        None => "a new chat".into(),
    };
    let place_ok = match d.kind {
        Kind::Conversation => conversation == d.conversation_id.as_deref(),
        Kind::Project | Kind::NewChat => conversation.is_none(),
    };
    if !place_ok {
        return Some(format!(
            "{MISMATCH_NOTE}: the page's request went to {page}; the send was for {} (sent once; never resent)",
            d.words()
        ));
    }
    match &d.model {
        Some(asked) if model != Some(asked.as_str()) => Some(format!(
            "{MISMATCH_NOTE}: the page's request used model {}; the send asked for {asked} (sent once; never resent)",
            model.unwrap_or("(none named)")
        )),
        _ => None,
    }
}

fn bounded(s: Option<&str>, max: usize) -> Option<String> {
    s.map(|s| s.chars().filter(|c| !c.is_control()).take(max).collect())
}

/// Records, once, what the page's conversation request for the dispatched send `op_id`
/// named; when that is not the send's destination, also a `destination_mismatch` note on
/// its timeline (the send keeps its state: nothing is resent). A second observation of
/// the same send's request changes nothing. Returns what is recorded.
pub(crate) fn record_page(
    tx: &rusqlite::Transaction,
    op_id: &str,
    (conversation, model): (Option<&str>, Option<&str>),
    now: crate::clock::Millis,
) -> Result<PageDestination> {
    if let Some(kept) = page_of(tx, op_id)? {
        return Ok(kept);
    }
    let (conversation, model) = (bounded(conversation, 128), bounded(model, 64));
    let why = get(tx, op_id)?.and_then(|d| mismatch(&d, conversation.as_deref(), model.as_deref()));
    tx.prepare_cached(
        "INSERT INTO page_destinations(op_id, conversation_id, model, mismatch, observed_at) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![op_id, conversation, model, why, now])?;
    if let Some(why) = &why {
        let send = super::sends::load(tx, op_id)?;
        super::sends::note(tx, &send, "owner", (why, None), now)?;
    }
    Ok(PageDestination {
        conversation_id: conversation,
        model,
        mismatch: why,
        observed_at: now,
    })
}

/// The answer of `op_id` came from `model`: when the send asked for another model, a
/// `destination_mismatch` note on its timeline, written once (a second answer reading
/// changes nothing) — and not when the page's request already named another model (that
/// mismatch is noted, once, from the request). Returns the note when it was written.
pub(crate) fn answer_model(
    tx: &rusqlite::Transaction,
    op_id: &str,
    model: &str,
    now: crate::clock::Millis,
) -> Result<Option<String>> {
    let Some(asked) = get(tx, op_id)?.and_then(|d| d.model) else {
        return Ok(None);
    };
    let model = bounded(Some(model), 64).unwrap_or_default();
    let noted = page_of(tx, op_id)?.is_some_and(|p| p.mismatch.is_some());
    if model == asked || noted {
        return Ok(None);
    }
    let why = format!(
        "{MISMATCH_NOTE}: the page answered with model {model}; the send asked for {asked} (sent once; never resent)"
    );
    let written: bool = tx
        .prepare_cached("SELECT EXISTS(SELECT 1 FROM events WHERE op_id = ?1 AND evidence = ?2)")?
        .query_row(params![op_id, why], |r| r.get(0))?;
    if written {
        return Ok(None);
    }
    let send = super::sends::load(tx, op_id)?;
    super::sends::note(tx, &send, "owner", (&why, None), now)?;
    Ok(Some(why))
}

/// What the page's request for `op_id` showed, once observed.
pub(crate) fn page_of(conn: &Connection, op_id: &str) -> Result<Option<PageDestination>> {
    Ok(conn
        .prepare_cached(
            "SELECT conversation_id, model, mismatch, observed_at FROM page_destinations WHERE op_id = ?1",
        )?
        .query_row([op_id], |r| {
            Ok(PageDestination {
                conversation_id: r.get(0)?,
                model: r.get(1)?,
                mismatch: r.get(2)?,
                observed_at: r.get(3)?,
            })
        })
        .optional()?)
}
