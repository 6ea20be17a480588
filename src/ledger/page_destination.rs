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
        sends::note(tx, &send, "owner", (why, None), now)?;
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
    sends::note(tx, &send, "owner", (&why, None), now)?;
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
