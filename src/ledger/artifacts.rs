//! An answer's generated files in the ledger (migration 0017, "files out", issue 29):
//! recorded `wanted` in the transaction that completes the send (at most
//! [`MAX_PER_ANSWER`]; more are named in a note), then settled once — `stored` (the bytes
//! in the attachment store, recorded there as a file too, so the same bound and upkeep
//! hold) or `unavailable` with the words of the page, the tab or the owner (15 minutes
//! after the answer, [`WANTED_MS`], nobody fetched it). The bytes are in
//! `crate::attachments::Store`.

use super::error::{LedgerError, Result};
use super::{attachments, sends};
use crate::attachments::artifact::{check_words, MAX_PER_ANSWER};
use crate::attachments::{AnswerArtifact, Attachment};
use crate::clock::Millis;
use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};

/// Where an artifact stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactState {
    /// Recorded with the answer; its bytes not fetched yet.
    Wanted,
    /// Its bytes are in the store.
    Stored,
    /// It could not be fetched; `words` say why.
    Unavailable,
}

/// One of an answer's artifacts, as the send's view shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifact {
    /// Its number in the answer (0..9, in order of appearance).
    pub n: u32,
    /// Where it stands.
    pub state: ArtifactState,
    /// The page's file id (`file_<hex>`, `file-<id>`).
    pub file_id: String,
    /// The name it was stored under (stored only).
    pub name: Option<String>,
    /// Its MIME type (stored only).
    pub mime: Option<String>,
    /// Its size in bytes (stored only).
    pub size: Option<u64>,
    /// SHA-256 of its bytes, its address in the store (stored only).
    pub sha256: Option<String>,
    /// Width in pixels, as the answer gave it.
    pub width: Option<u64>,
    /// Height in pixels, as the answer gave it.
    pub height: Option<u64>,
    /// Why it is unavailable (unavailable only).
    pub words: Option<String>,
    /// Its bytes were deleted by the upkeep (30 days after its send ended); the record stays.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bytes_deleted: bool,
}

/// An artifact the tab is asked to fetch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WantedArtifact {
    /// The send whose answer carried it.
    pub op_id: String,
    /// Its number in the answer.
    pub n: u32,
    /// The conversation the tab must show to fetch it.
    pub conversation_id: String,
    /// The page's file id.
    pub file_id: String,
    /// The asset pointer as the answer wrote it.
    pub pointer: String,
    /// The size the answer gave, when it gave one.
    pub size_bytes: Option<u64>,
}

/// The sentence a wanted artifact ends with when no tab fetched it in time.
pub fn expired_words(conversation_id: &str) -> String {
    format!(
        "no tab showed conversation {conversation_id} to fetch it within 15 minutes; open the conversation in ChatGPT to see it"
    )
}

/// Records the artifacts of the answer that completes `op_id`, in this (its completing)
/// transaction: the first [`MAX_PER_ANSWER`] `wanted`, the rest named in a note. Nothing
/// when none, or when the send's artifacts were recorded already.
pub(crate) fn record_for_answer(
    tx: &Transaction,
    op_id: &str,
    found: &[AnswerArtifact],
    now: Millis,
) -> Result<()> {
    let recorded: bool = tx
        .prepare_cached("SELECT 1 FROM answer_artifacts WHERE op_id = ?1")?
        .exists([op_id])?;
    if found.is_empty() || recorded {
        return Ok(());
    }
    let mut insert = tx.prepare_cached(
        "INSERT INTO answer_artifacts(op_id, n, file_id, pointer, size_bytes, width, height, recorded_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for (n, a) in found.iter().take(MAX_PER_ANSWER).enumerate() {
        let num = |v: Option<u64>| v.map(|v| v.min(i64::MAX as u64) as i64);
        insert.execute(params![
            op_id,
            n as i64,
            a.file_id,
            a.pointer,
            num(a.size_bytes),
            num(a.width),
            num(a.height),
            now
        ])?;
    }
    if found.len() > MAX_PER_ANSWER {
        let send = sends::load(tx, op_id)?;
        sends::note(tx, &send, "owner", (&beyond_note(found), None), now)?;
    }
    Ok(())
}

/// The note naming the artifacts past the bound (bounded to fit a note).
fn beyond_note(found: &[AnswerArtifact]) -> String {
    let mut ids = String::new();
    for a in &found[MAX_PER_ANSWER..] {
        if ids.len() + a.file_id.len() > 3_000 {
            ids.push_str(", …");
            break;
        }
        if !ids.is_empty() {
            ids.push_str(", ");
        }
        ids.push_str(&a.file_id);
    }
    format!(
        "the answer carried {} generated files; the first {MAX_PER_ANSWER} are kept and these are not fetched: {ids} (open the conversation in ChatGPT to see them)",
        found.len()
    )
}

const COLUMNS: &str = "a.n, a.state, a.file_id, a.name, a.mime, a.size, a.sha256, a.width, a.height, a.words, \
     (f.bytes_deleted_at IS NOT NULL), a.op_id FROM answer_artifacts a LEFT JOIN attachments f ON f.sha256 = a.sha256";

fn from_row(r: &Row) -> rusqlite::Result<Artifact> {
    let state = match r.get::<_, String>(1)?.as_str() {
        "stored" => ArtifactState::Stored,
        "unavailable" => ArtifactState::Unavailable,
        _ => ArtifactState::Wanted,
    };
    let num = |i| {
        r.get::<_, Option<i64>>(i)
            .map(|v| v.map(|v| v.max(0) as u64))
    };
    Ok(Artifact {
        n: r.get::<_, i64>(0)? as u32,
        state,
        file_id: r.get(2)?,
        name: r.get(3)?,
        mime: r.get(4)?,
        size: num(5)?,
        sha256: r.get(6)?,
        width: num(7)?,
        height: num(8)?,
        words: r.get(9)?,
        bytes_deleted: r.get::<_, Option<bool>>(10)?.unwrap_or(false),
    })
}

/// The artifacts of `op_id`'s answer, in order (none for a send without).
pub(crate) fn of_send(conn: &Connection, op_id: &str) -> Result<Vec<Artifact>> {
    let mut stmt =
        conn.prepare_cached(&format!("SELECT {COLUMNS} WHERE a.op_id = ?1 ORDER BY a.n"))?;
    let rows = stmt.query_map([op_id], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The artifacts of each of the sends `ids` ([`super::rows::ids_param`]) that has any, in
/// order: what [`of_send`] reads for each, in one query.
pub(crate) fn of_sends(
    conn: &Connection,
    ids: &str,
) -> rusqlite::Result<std::collections::HashMap<String, Vec<Artifact>>> {
    super::rows::grouped(conn, &of_sends_sql(), ids, |r| {
        Ok((r.get(11)?, from_row(r)?))
    })
}

/// The SQL of [`of_sends`].
pub(crate) fn of_sends_sql() -> String {
    let ids = super::rows::IN_IDS;
    format!("SELECT {COLUMNS} WHERE a.op_id IN {ids} ORDER BY a.op_id, a.n")
}

/// Artifact `n` of `op_id`. Errors: `UnknownArtifact`.
pub(crate) fn get(conn: &Connection, op_id: &str, n: u32) -> Result<Artifact> {
    conn.prepare_cached(&format!("SELECT {COLUMNS} WHERE a.op_id = ?1 AND a.n = ?2"))?
        .query_row(params![op_id, n as i64], from_row)
        .optional()?
        .ok_or_else(|| LedgerError::UnknownArtifact(op_id.to_string(), n))
}

/// The wanted artifacts, oldest first, at most `limit`; only those of `conversation` when
/// one is named (a tab asks for the conversation it shows).
pub(crate) fn wanted(
    conn: &Connection,
    limit: u32,
    conversation: Option<&str>,
) -> Result<Vec<WantedArtifact>> {
    let mut stmt = conn.prepare_cached(
        "SELECT a.op_id, a.n, r.conversation_id, a.file_id, a.pointer, a.size_bytes \
         FROM answer_artifacts a JOIN receipts r ON r.op_id = a.op_id \
         WHERE a.state = 'wanted' AND (?2 IS NULL OR r.conversation_id = ?2) \
         ORDER BY a.recorded_at, a.op_id, a.n LIMIT ?1",
    )?;
    let rows = stmt.query_map(params![limit as i64, conversation], |r| {
        Ok(WantedArtifact {
            op_id: r.get(0)?,
            n: r.get::<_, i64>(1)? as u32,
            conversation_id: r.get(2)?,
            file_id: r.get(3)?,
            pointer: r.get(4)?,
            size_bytes: r.get::<_, Option<i64>>(5)?.map(|v| v.max(0) as u64),
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether bytes with address `sha` may be stored for artifact `n` of `op_id`:
/// `Ok(None)` when it is wanted (store them), `Ok(Some(it))` when it is stored with these
/// very bytes already (nothing to do). Errors: `UnknownArtifact`; `ArtifactSettled` when
/// it is unavailable or stored with other bytes.
pub(crate) fn admits(
    conn: &Connection,
    op_id: &str,
    n: u32,
    sha: &str,
) -> Result<Option<Artifact>> {
    let a = get(conn, op_id, n)?;
    match a.state {
        ArtifactState::Wanted => Ok(None),
        ArtifactState::Stored if a.sha256.as_deref() == Some(sha) => Ok(Some(a)),
        ArtifactState::Stored => Err(LedgerError::ArtifactSettled(format!(
            "artifact {n} of send {op_id} is stored already with other bytes ({}): nothing was changed; fetch it with GET /v1/sends/{op_id}/artifacts/{n}",
            a.sha256.unwrap_or_default()
        ))),
        ArtifactState::Unavailable => Err(LedgerError::ArtifactSettled(format!(
            "artifact {n} of send {op_id} is unavailable already ({}): its bytes are no longer taken; open the conversation in ChatGPT to see it",
            a.words.unwrap_or_default()
        ))),
    }
}

/// Records the bytes of artifact `n` of `op_id` stored at `file.sha256` (already in the
/// store): the file's record (as an upload's) and the artifact stored, in this
/// transaction. Returns the artifact and whether it was stored now (`false`: these bytes
/// were recorded already). Errors: as [`admits`].
pub(crate) fn store(
    tx: &Transaction,
    op_id: &str,
    n: u32,
    file: &Attachment,
    now: Millis,
) -> Result<(Artifact, bool)> {
    if let Some(kept) = admits(tx, op_id, n, &file.sha256)? {
        return Ok((kept, false));
    }
    attachments::record_upload(tx, file, now)?;
    tx.prepare_cached(
        "UPDATE answer_artifacts SET state = 'stored', sha256 = ?1, name = ?2, mime = ?3, size = ?4, \
         settled_at = ?5 WHERE op_id = ?6 AND n = ?7",
    )?
    .execute(params![
        file.sha256,
        file.name,
        file.mime,
        file.size as i64,
        now,
        op_id,
        n as i64
    ])?;
    let note = format!("artifact {n} stored: {}, {} bytes", file.mime, file.size);
    settled_note(tx, op_id, &note, now)?;
    Ok((get(tx, op_id, n)?, true))
}

/// The note on the send's timeline that artifact(s) settled: the row grows, so the queue's
/// feed pushes it to the window (which then shows the file, or why it is missing).
fn settled_note(tx: &Transaction, op_id: &str, note: &str, now: Millis) -> Result<()> {
    let send = sends::load(tx, op_id)?;
    sends::note(tx, &send, "owner", (note, None), now)
}

/// Artifact `n` of `op_id` cannot be fetched: wanted → unavailable with `words` (1 to
/// 500 characters). Already unavailable: unchanged (`false`). Errors: `Invalid` words,
/// `UnknownArtifact`, `ArtifactSettled` when it is stored.
pub(crate) fn give_up(
    tx: &Transaction,
    op_id: &str,
    n: u32,
    words: &str,
    now: Millis,
) -> Result<bool> {
    check_words(words).map_err(LedgerError::Invalid)?;
    let a = get(tx, op_id, n)?;
    match a.state {
        ArtifactState::Unavailable => Ok(false),
        ArtifactState::Stored => Err(LedgerError::ArtifactSettled(format!(
            "artifact {n} of send {op_id} is stored already: it stays available; nothing was changed"
        ))),
        ArtifactState::Wanted => {
            tx.prepare_cached(
                "UPDATE answer_artifacts SET state = 'unavailable', words = ?1, settled_at = ?2 \
                 WHERE op_id = ?3 AND n = ?4",
            )?
            .execute(params![words.trim(), now, op_id, n as i64])?;
            settled_note(tx, op_id, &format!("artifact {n} unavailable: {}", words.trim()), now)?;
            Ok(true)
        }
    }
}

/// Ends every artifact of `op_id` still wanted ([`WANTED_MS`] after its answer): unavailable
/// with [`expired_words`]. Returns how many.
pub(crate) fn expire(tx: &Transaction, op_id: &str, now: Millis) -> Result<usize> {
    let conversation: String = tx
        .prepare_cached("SELECT conversation_id FROM receipts WHERE op_id = ?1")?
        .query_row([op_id], |r| r.get(0))
        .optional()?
        .unwrap_or_else(|| "(unknown)".into());
    let words = expired_words(&conversation);
    let ended = tx
        .prepare_cached(
            "UPDATE answer_artifacts SET state = 'unavailable', words = ?1, settled_at = ?2 \
             WHERE op_id = ?3 AND state = 'wanted'",
        )?
        .execute(params![words, now, op_id])?;
    if ended > 0 {
        settled_note(
            tx,
            op_id,
            &format!("{ended} artifact(s) unavailable: {words}"),
            now,
        )?;
    }
    Ok(ended)
}
