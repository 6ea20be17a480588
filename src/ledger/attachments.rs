//! A send's attachments in the ledger (migration 0016): the record of every stored file
//! (`attachments`), the files each send carries in its order (`send_attachments`, written
//! in the transaction that admits the send, part of its identity), the page's file ids
//! written at the grant, and what the page's request carried after the click
//! (`page_attachments`: `page_attachments.rs`).
//! The bytes themselves are in the profile's store (`crate::attachments::Store`).

use super::error::{LedgerError, Result};
use crate::attachments::{self as files, Attachment, ConfirmedFile, SendFile};
use crate::clock::Millis;
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};

/// One of a send's files, with the page's id once the grant recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SendAttachment {
    /// The file: address, name, MIME type, size.
    #[serde(flatten)]
    pub file: Attachment,
    /// The page's id for the uploaded file, recorded at the grant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_id: Option<String>,
}

/// Records an upload (the bytes are in the store): a new file's record, or the same bytes
/// again under the latest name and MIME type (its bytes no longer marked deleted).
pub(crate) fn record_upload(tx: &Transaction, a: &Attachment, now: Millis) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO attachments(sha256, name, mime, size, stored_at) VALUES (?1, ?2, ?3, ?4, ?5) \
         ON CONFLICT(sha256) DO UPDATE SET name = excluded.name, mime = excluded.mime, \
         stored_at = excluded.stored_at, bytes_deleted_at = NULL",
    )?
    .execute(params![a.sha256, a.name, a.mime, a.size as i64, now])?;
    Ok(())
}

/// Checks the addresses a send names: at most [`files::MAX_PER_SEND`], each 64 hex
/// digits, none twice. Errors: `Invalid`.
pub(crate) fn check_list(shas: &[String]) -> Result<()> {
    if shas.len() > files::MAX_PER_SEND {
        return Err(LedgerError::Invalid(format!(
            "a send carries at most {} attachments ({} given): send the rest in another send",
            files::MAX_PER_SEND,
            shas.len()
        )));
    }
    for (i, sha) in shas.iter().enumerate() {
        files::check_sha256(sha).map_err(LedgerError::Invalid)?;
        if shas[..i].contains(sha) {
            return Err(LedgerError::Invalid(format!(
                "attachment {sha} is named twice: name each file once"
            )));
        }
    }
    Ok(())
}

/// The stored file at `sha` whose bytes are still kept; `None` otherwise.
fn stored(conn: &Connection, sha: &str) -> Result<Option<Attachment>> {
    Ok(conn
        .prepare_cached(
            "SELECT name, mime, size FROM attachments WHERE sha256 = ?1 AND bytes_deleted_at IS NULL",
        )?
        .query_row([sha], |r| {
            Ok(Attachment {
                sha256: sha.to_string(),
                name: r.get(0)?,
                mime: r.get(1)?,
                size: r.get::<_, i64>(2)? as u64,
            })
        })
        .optional()?)
}

/// Writes the files `shas` (checked by [`check_list`]) as the just-admitted send's, in
/// order. Errors: `UnknownAttachment` (not stored, or its bytes deleted).
pub(crate) fn insert_for_send(tx: &Transaction, op_id: &str, shas: &[String]) -> Result<()> {
    for (position, sha) in shas.iter().enumerate() {
        let a = stored(tx, sha)?.ok_or_else(|| LedgerError::UnknownAttachment(sha.clone()))?;
        tx.prepare_cached(
            "INSERT INTO send_attachments(op_id, position, sha256, name, mime, size) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![
            op_id,
            position as i64,
            sha,
            a.name,
            a.mime,
            a.size as i64
        ])?;
    }
    Ok(())
}

/// The files `op_id` carries, in its order (none for a send without).
pub(crate) fn of_send(conn: &Connection, op_id: &str) -> Result<Vec<SendAttachment>> {
    let mut stmt = conn.prepare_cached(
        "SELECT sha256, name, mime, size, file_id FROM send_attachments WHERE op_id = ?1 ORDER BY position",
    )?;
    let rows = stmt.query_map([op_id], |r| {
        Ok(SendAttachment {
            file: Attachment {
                sha256: r.get(0)?,
                name: r.get(1)?,
                mime: r.get(2)?,
                size: r.get::<_, i64>(3)? as u64,
            },
            file_id: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The addresses `op_id` carries, in order.
pub(crate) fn shas_of(conn: &Connection, op_id: &str) -> Result<Vec<String>> {
    Ok(of_send(conn, op_id)?
        .into_iter()
        .map(|a| a.file.sha256)
        .collect())
}

pub(crate) fn send_files(list: &[SendAttachment]) -> Vec<SendFile<'_>> {
    list.iter()
        .map(|a| SendFile {
            name: &a.file.name,
            size: a.file.size,
            file_id: a.file_id.as_deref(),
        })
        .collect()
}

/// The grant's check of the tab's uploaded files (`confirmed`; `None`: the tab reported
/// none) against the send's: `Ok(None)` when they match one for one (the page's file ids
/// are then written, in this transaction); `Ok(Some(sentence))` when not.
pub(crate) fn grant_check(
    tx: &Transaction,
    op_id: &str,
    confirmed: Option<&[ConfirmedFile]>,
) -> Result<Option<String>> {
    let list = of_send(tx, op_id)?;
    let confirmed = confirmed.unwrap_or_default();
    if let Err(why) = files::page::check_confirmed(confirmed) {
        return Ok(Some(format!("{why}: nothing was clicked")));
    }
    let order = match files::page::grant_refusal(&send_files(&list), confirmed) {
        Ok(order) => order,
        Err(why) => return Ok(Some(why)),
    };
    for (position, i) in order.into_iter().enumerate() {
        tx.prepare_cached(
            "UPDATE send_attachments SET file_id = ?1 WHERE op_id = ?2 AND position = ?3",
        )?
        .execute(params![confirmed[i].file_id, op_id, position as i64])?;
    }
    Ok(None)
}

/// Addresses whose bytes no send needs any more as of `now`: uploaded more than
/// `keep_ms` ago, and every send carrying them ended (not queued, claimed, dispatched,
/// accepted or uncertain) more than `keep_ms` ago.
pub(crate) fn unneeded(conn: &Connection, now: Millis, keep_ms: Millis) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT a.sha256 FROM attachments a WHERE a.bytes_deleted_at IS NULL AND a.stored_at < ?1 \
         AND NOT EXISTS (SELECT 1 FROM send_attachments sa JOIN sends s ON s.op_id = sa.op_id \
           WHERE sa.sha256 = a.sha256 AND (s.state IN ('queued', 'claimed', 'dispatched', 'accepted', 'uncertain') \
             OR s.updated_at >= ?1)) \
         AND NOT EXISTS (SELECT 1 FROM answer_artifacts aa JOIN sends s ON s.op_id = aa.op_id \
           WHERE aa.sha256 = a.sha256 AND s.updated_at >= ?1) ORDER BY a.sha256",
    )?;
    let rows = stmt.query_map([now - keep_ms], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Marks the bytes of `sha` deleted (its record stays).
pub(crate) fn mark_deleted(tx: &Transaction, sha: &str, now: Millis) -> Result<()> {
    tx.prepare_cached("UPDATE attachments SET bytes_deleted_at = ?1 WHERE sha256 = ?2")?
        .execute(params![now, sha])?;
    Ok(())
}
