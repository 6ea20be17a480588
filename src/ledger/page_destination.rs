//! What the page's own conversation request named after the click (table
//! `page_destinations`), recorded once and compared with the send's destination: a
//! difference is a `destination_mismatch` note on the send's timeline; nothing is resent.

use super::destinations::get;
use super::error::Result;
use super::sends;
use crate::destination::{Destination, Kind, LATEST_MODEL};
use rusqlite::{params, Connection, OptionalExtension};

/// What the page's own conversation request showed after the click.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PageDestination {
    /// The conversation the request named; `None`: it started a new chat.
    pub conversation_id: Option<String>,
    /// The model slug the request named, if any.
    pub model: Option<String>,
    /// When it is not the send's destination: the `destination_mismatch` sentence.
    pub mismatch: Option<String>,
    /// When the page's own POST after the click went to a route that is not a chat
    /// conversation route (Work mode): that route as a template
    /// (`/backend-api/work/<id>/messages`); `None` for a chat conversation request.
    #[serde(default)]
    pub route: Option<String>,
    /// When it was observed (ms).
    pub observed_at: crate::clock::Millis,
}

pub use crate::destination::MISMATCH_NOTE;

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
        // `latest` is the page's to resolve: the slug its request names is the resolution.
        Some(asked) if asked != LATEST_MODEL && model != Some(asked.as_str()) => Some(format!(
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
        let send = sends::load(tx, op_id)?;
        let says = Some(super::record::NoteKind::DestinationMismatch);
        sends::note_as(tx, &send, "owner", (why, None, says), now)?;
    }
    Ok(PageDestination {
        conversation_id: conversation,
        model,
        mismatch: why,
        route: None,
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
    let page = page_of(tx, op_id)?;
    let noted = page.as_ref().is_some_and(|p| p.mismatch.is_some());
    // For `latest`, the answer is compared with the model the page's request resolved it to.
    let resolved = page.and_then(|p| p.model).filter(|_| asked == LATEST_MODEL);
    if asked == LATEST_MODEL && resolved.is_none() || resolved.as_deref() == Some(model.as_str()) {
        return Ok(None);
    }
    if model == asked || noted {
        return Ok(None);
    }
    let asked = match resolved {
        Some(r) => format!("{asked} ({r} in the page's request)"),
        None => asked,
    };
    let why = format!(
        "{MISMATCH_NOTE}: the page answered with model {model}; the send asked for {asked} (sent once; never resent)"
    );
    let written: bool = tx
        .prepare_cached("SELECT EXISTS(SELECT 1 FROM events WHERE op_id = ?1 AND evidence = ?2)")?
        .query_row(params![op_id, why], |r| r.get(0))?;
    if written {
        return Ok(None);
    }
    let send = sends::load(tx, op_id)?;
    let says = Some(super::record::NoteKind::DestinationMismatch);
    sends::note_as(tx, &send, "owner", (&why, None, says), now)?;
    Ok(Some(why))
}

/// The page's own `method` request to `route` (a template, ≤ 256 bytes) after the click of
/// the dispatched send `op_id`, a route that is not a chat conversation route: the message
/// went out, but not into a chat conversation (Work mode). Recorded as its page
/// destination with a `destination_mismatch` sentence naming the route, and the send
/// becomes `uncertain` at once with it — for a person to decide; never resent, and the
/// queue does not wait out the receipt bound on it. `None` (nothing written) when the send
/// is no longer `dispatched` or its page destination is already recorded (a chat
/// request was seen first: the receipt's to say).
pub(crate) fn record_elsewhere(
    tx: &rusqlite::Transaction,
    op_id: &str,
    (method, route): (&str, &str),
    now: crate::clock::Millis,
) -> Result<Option<String>> {
    let send = sends::load(tx, op_id)?;
    if send.state != crate::ledger::SendState::Dispatched || page_of(tx, op_id)?.is_some() {
        return Ok(None);
    }
    let why = format!(
        "{MISMATCH_NOTE}: after the click the page's own {method} went to {route}, which is not a chat conversation route (the Work surface or another place): the message may have gone there, so this send is uncertain at once for a person to decide (sent once; never resent)"
    );
    tx.prepare_cached(
        "INSERT INTO page_destinations(op_id, conversation_id, model, mismatch, observed_at, route) \
         VALUES (?1, NULL, NULL, ?2, ?3, ?4)",
    )?
    .execute(params![op_id, why, now, route])?;
    sends::fail(tx, op_id, &why, "owner", now)?;
    Ok(Some(why))
}

/// What the page's request for `op_id` showed, once observed.
pub(crate) fn page_of(conn: &Connection, op_id: &str) -> Result<Option<PageDestination>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM page_destinations WHERE op_id = ?1"
        ))?
        .query_row([op_id], from_row)
        .optional()?)
}

/// What the page's requests showed for those of the sends `ids`
/// ([`super::rows::ids_param`]) observed: what [`page_of`] reads for each, in one query.
pub(crate) fn pages_of(
    conn: &Connection,
    ids: &str,
) -> rusqlite::Result<std::collections::HashMap<String, PageDestination>> {
    super::rows::keyed(conn, &pages_of_sql(), ids, |r| {
        Ok((r.get(5)?, from_row(r)?))
    })
}

/// The SQL of [`pages_of`].
pub(crate) fn pages_of_sql() -> String {
    let ids = super::rows::IN_IDS;
    format!("SELECT {COLUMNS} FROM page_destinations WHERE op_id IN {ids}")
}

const COLUMNS: &str = "conversation_id, model, mismatch, observed_at, route, op_id";

fn from_row(r: &rusqlite::Row) -> rusqlite::Result<PageDestination> {
    Ok(PageDestination {
        conversation_id: r.get(0)?,
        model: r.get(1)?,
        mismatch: r.get(2)?,
        observed_at: r.get(3)?,
        route: r.get(4)?,
    })
}
