//! What the page's own conversation request carried after the click (table
//! `page_attachments`, migration 0016), recorded once and compared with the send's files:
//! a difference is an `attachment_mismatch` note on the send's timeline; nothing is resent.

use super::attachments::{of_send, send_files};
use super::error::Result;
use super::sends;
use crate::attachments::PageFile;
use crate::clock::Millis;
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};

/// What the page's request carried after the click, once observed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageAttachments {
    /// The request's files.
    pub seen: Vec<PageFile>,
    /// When they are not the send's: the `attachment_mismatch` sentence.
    pub mismatch: Option<String>,
}

/// Records, once, the files the page's request for the dispatched send `op_id` carried;
/// when they are not the send's, also an `attachment_mismatch` note on its timeline (the
/// send keeps its state: nothing is resent). A send without files whose request carried
/// none records nothing. Returns what is recorded.
pub(crate) fn record_page(
    tx: &Transaction,
    op_id: &str,
    seen: &[PageFile],
    now: Millis,
) -> Result<Option<PageAttachments>> {
    if let Some(kept) = page_of(tx, op_id)? {
        return Ok(Some(kept));
    }
    let list = of_send(tx, op_id)?;
    if list.is_empty() && seen.is_empty() {
        return Ok(None);
    }
    let seen: Vec<PageFile> = seen.iter().take(64).cloned().collect();
    let why = crate::attachments::page::request_mismatch(&send_files(&list), &seen);
    let json = serde_json::to_string(&seen).unwrap_or_else(|_| "[]".into());
    tx.prepare_cached(
        "INSERT INTO page_attachments(op_id, seen, mismatch, observed_at) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![op_id, json, why, now])?;
    if let Some(why) = &why {
        let send = sends::load(tx, op_id)?;
        let says = Some(super::record::NoteKind::AttachmentMismatch);
        sends::note_as(tx, &send, "owner", (why, None, says), now)?;
    }
    Ok(Some(PageAttachments {
        seen,
        mismatch: why,
    }))
}

/// What the page's requests carried for those of the sends `ids`
/// ([`super::rows::ids_param`]) observed: what [`page_of`] reads for each, in one query.
pub(crate) fn pages_of(
    conn: &Connection,
    ids: &str,
) -> rusqlite::Result<std::collections::HashMap<String, PageAttachments>> {
    super::rows::keyed(conn, &pages_of_sql(), ids, |r| {
        let seen: String = r.get(1)?;
        Ok((
            r.get(0)?,
            PageAttachments {
                seen: serde_json::from_str(&seen).unwrap_or_default(),
                mismatch: r.get(2)?,
            },
        ))
    })
}

/// The SQL of [`pages_of`].
pub(crate) fn pages_of_sql() -> String {
    let ids = super::rows::IN_IDS;
    format!("SELECT op_id, seen, mismatch FROM page_attachments WHERE op_id IN {ids}")
}

/// What the page's request for `op_id` carried, once observed.
pub(crate) fn page_of(conn: &Connection, op_id: &str) -> Result<Option<PageAttachments>> {
    let row: Option<(String, Option<String>)> = conn
        .prepare_cached("SELECT seen, mismatch FROM page_attachments WHERE op_id = ?1")?
        .query_row([op_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Ok(row.map(|(seen, mismatch)| PageAttachments {
        seen: serde_json::from_str(&seen).unwrap_or_default(),
        mismatch,
    }))
}
