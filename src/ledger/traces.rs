//! What `doctor` and `salvage` say about what a salvage cannot change: the rows that still
//! refer to a row lost on a damaged page (expected after a salvage: the history is kept
//! as read), and a first page nobody can read (no salvage can help; say so once, and what
//! is left to do).

use super::error::LedgerError;
use rusqlite::types::Value;
use rusqlite::{Connection, OpenFlags};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Rows of `table` that refer to a `parent` row that is missing, by the missing key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokenReference {
    /// The table holding the rows (e.g. `events`).
    pub table: String,
    /// The table the missing row belonged to (e.g. `sends`).
    pub parent: String,
    /// The missing row's key as the rows name it (e.g. an operation id).
    pub key: String,
    /// How many rows refer to it.
    pub rows: u64,
}

/// Every missing row that rows of `conn` still refer to (`PRAGMA foreign_key_check`),
/// grouped by table, parent and key, in the order found.
pub(crate) fn broken_references(conn: &Connection) -> rusqlite::Result<Vec<BrokenReference>> {
    let mut stmt = conn.prepare("PRAGMA foreign_key_check")?;
    let found = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, Option<i64>>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, i64>(3)?,
        ))
    })?;
    let mut out: Vec<BrokenReference> = Vec::new();
    for row in found {
        let (table, rowid, parent, fkid) = row?;
        let key = rowid.map_or(Ok(String::from("?")), |id| {
            child_key(conn, &table, id, fkid)
        })?;
        match out
            .iter_mut()
            .find(|b| b.table == table && b.parent == parent && b.key == key)
        {
            Some(b) => b.rows += 1,
            None => out.push(BrokenReference {
                table,
                parent,
                key,
                rows: 1,
            }),
        }
    }
    Ok(out)
}

/// The value in row `rowid` of `table` of the column of its foreign key `fkid`.
fn child_key(conn: &Connection, table: &str, rowid: i64, fkid: i64) -> rusqlite::Result<String> {
    let column: String = conn.query_row(
        "SELECT \"from\" FROM pragma_foreign_key_list(?1) WHERE id = ?2",
        rusqlite::params![table, fkid],
        |r| r.get(0),
    )?;
    let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let value: Value = conn.query_row(
        &format!(
            "SELECT {} FROM {} WHERE rowid = ?1",
            quote(&column),
            quote(table)
        ),
        [rowid],
        |r| r.get(0),
    )?;
    Ok(match value {
        Value::Text(t) => t,
        Value::Integer(i) => i.to_string(),
        other => format!("{other:?}"),
    })
}

/// Whether the first page of the ledger at `path` (the header and the table of tables) is
/// unreadable: then no row can be found in it, by salvage or anything that needs the schema.
pub fn first_page_unreadable(path: &Path) -> bool {
    let Ok(conn) = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY) else {
        return false;
    };
    match conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    }) {
        Err(rusqlite::Error::SqliteFailure(f, _)) => matches!(
            f.code,
            rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt
        ),
        _ => false,
    }
}

/// The one answer for a ledger whose first page cannot be read: what it means and what a
/// person can still do. Nothing was changed.
pub fn unreadable_first_page(path: &Path) -> LedgerError {
    let p = path.display();
    LedgerError::Unsalvageable(format!(
        "the first page of the ledger file {p} cannot be read (its header and table of tables), so no row can be found in it: `sendledger salvage` cannot help and changed nothing. What you can still do: keep a copy of the whole profile; the sqlite3 shell may still find rows by scanning every page (`sqlite3 {p} .recover > rows.sql`); to go on with an empty ledger, move ledger.sqlite3 and every ledger.* file beside it out of the profile, then start the app (its history is then only in what you kept)"
    ))
}
