//! Conversation titles as the page names them: the `title` of the page's own read of a
//! conversation (`GET /backend-api/conversation/{id}`, forwarded by a tab; see
//! `bridge::conversation_read`), so the window can say where a send goes in the words a
//! person knows ("conversation “Bakery ledger”"). Table `conversation_titles` (migration
//! 0015). A title is the page's words about the person's conversation: it is kept here
//! and shown in the window, never logged.

use super::error::Result;
use super::rows::cached_row;
use crate::clock::Millis;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

/// Most titles kept; past it the least recently seen go first.
pub const MAX_TITLES: i64 = 1_000;
/// Longest title kept, in characters; a longer one is cut and ends with "…".
pub const MAX_TITLE_CHARS: usize = 200;

/// The title as kept: whitespace runs (line breaks, tabs) become one space, control
/// characters go, at most [`MAX_TITLE_CHARS`]; `None` when nothing is left.
pub fn bounded(title: &str) -> Option<String> {
    let words: Vec<&str> = title
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect();
    let joined = words.join(" ");
    if joined.is_empty() {
        return None;
    }
    if joined.chars().count() <= MAX_TITLE_CHARS {
        return Some(joined);
    }
    let mut cut: String = joined.chars().take(MAX_TITLE_CHARS - 1).collect();
    cut.push('…');
    Some(cut)
}

/// Whether `id` can name a conversation here (1 to 128 characters, never the transient
/// `WEB:` route the page shows right after a submit).
fn keepable(id: &str) -> bool {
    (1..=128).contains(&id.len()) && !id.starts_with("WEB:")
}

/// Records `title` for `conversation_id`, seen at `now` (ms), and drops the least recently
/// seen past [`MAX_TITLES`]. Returns whether a title was kept (`false`: an id that cannot
/// name a conversation, or nothing left of the title).
pub(crate) fn note(
    tx: &Transaction,
    conversation_id: &str,
    title: &str,
    now: Millis,
) -> Result<bool> {
    let Some(title) = bounded(title) else {
        return Ok(false);
    };
    if !keepable(conversation_id) {
        return Ok(false);
    }
    tx.prepare_cached(
        "INSERT INTO conversation_titles(conversation_id, title, seen_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT(conversation_id) DO UPDATE SET title = excluded.title, seen_at = excluded.seen_at",
    )?
    .execute(params![conversation_id, title, now])?;
    tx.prepare_cached(
        "DELETE FROM conversation_titles WHERE rowid IN (SELECT rowid FROM conversation_titles \
         ORDER BY seen_at DESC, rowid DESC LIMIT -1 OFFSET ?1)",
    )?
    .execute([MAX_TITLES])?;
    Ok(true)
}

/// The titles of those of the conversations `ids` ([`super::rows::ids_param`]) the page
/// named: what [`get`] reads for each, in one query.
pub(crate) fn of_conversations(
    conn: &Connection,
    ids: &str,
) -> rusqlite::Result<std::collections::HashMap<String, String>> {
    super::rows::keyed(conn, &of_conversations_sql(), ids, |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
}

/// The SQL of [`of_conversations`].
pub(crate) fn of_conversations_sql() -> String {
    let ids = super::rows::IN_IDS;
    format!("SELECT conversation_id, title FROM conversation_titles WHERE conversation_id IN {ids}")
}

/// The title the page last gave `conversation_id`, if any.
pub(crate) fn get(conn: &Connection, conversation_id: &str) -> rusqlite::Result<Option<String>> {
    cached_row(
        conn,
        "SELECT title FROM conversation_titles WHERE conversation_id = ?1",
        [conversation_id],
        |r| r.get(0),
    )
    .optional()
}
