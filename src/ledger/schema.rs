//! The ledger's schema at the newest version in one script (`schema.sql` beside this file):
//! what the numbered migrations make of an empty file, so that a new ledger is made in one
//! transaction instead of 26.
//!
//! Why: most of a new ledger's cost is SQLite parsing the migrations, and re-parsing the
//! whole schema after each `ALTER TABLE` (a profile of a test making 132 new ledgers: 73 %
//! of its time in `migrate`). The script creates each object once, in its final form
//! (docs/performance.md, "A new ledger in one script").
//!
//! The script is generated from the migrations, never written by hand: [`dump`] of a
//! ledger migrated step by step, written by `SENDLEDGER_WRITE_SCHEMA=1 cargo test --test
//! ledger a_new_ledger` (tests/ledger_schema.rs), which fails while the file differs from
//! what the migrations make. Its first line names its version; a script of another version
//! than [`super::migrations::CURRENT_VERSION`] is not used (the migrations run one by one).
//!
//! Shape of the script: a header of `--` lines; then, separated by a blank line, each
//! statement ending in `;`: the tables (`CREATE TABLE`, in `sqlite_master` order), the rows
//! the migrations put in them (`INSERT INTO "table"(…) VALUES(…)`, SQLite's `quote()` of each
//! value, the rowid kept), then the indexes, views and triggers (in `sqlite_master` order,
//! after the rows, so no trigger fires on them). `schema_migrations` is left out: the
//! caller records every migration in it.

use rusqlite::Connection;

/// The script: `schema.sql` beside this file.
pub const SCHEMA: &str = include_str!("schema.sql");

/// The version the script's first line names (`-- … schema at version N …`), if any.
pub fn version_of(script: &str) -> Option<i64> {
    let first = script.lines().next()?;
    let (_, after) = first.split_once("at version ")?;
    after
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// The script, when it is of `version` (the version a new ledger is to be made at).
pub(crate) fn at(version: i64) -> Option<&'static str> {
    (version_of(SCHEMA) == Some(version)).then_some(SCHEMA)
}

/// The header of a script of `version`.
fn header(version: i64) -> String {
    format!(
        "-- The ledger's schema at version {version}: what migrations/ make of an empty file, in one script.\n\
         -- Generated, never edited: SENDLEDGER_WRITE_SCHEMA=1 cargo test --test ledger a_new_ledger\n\
         -- (src/ledger/schema.rs says how it is used and checked).\n"
    )
}

/// The script of the ledger on `conn`: its header (the ledger's `user_version`), its
/// tables, their rows, then its indexes, views and triggers. Errors: SQLite's.
pub fn dump(conn: &Connection) -> rusqlite::Result<String> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let mut objects = conn.prepare(
        "SELECT type, name, sql FROM sqlite_master
          WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations'
          ORDER BY rowid",
    )?;
    let objects: Vec<(String, String, String)> = objects
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut out = vec![header(version)];
    let tables = objects.iter().filter(|(kind, ..)| kind == "table");
    out.extend(tables.clone().map(|(.., sql)| format!("{sql};\n")));
    for (_, name, _) in tables {
        out.extend(rows(conn, name)?);
    }
    out.extend(
        objects
            .iter()
            .filter(|(kind, ..)| kind != "table")
            .map(|(.., sql)| format!("{sql};\n")),
    );
    Ok(out.join("\n"))
}

/// One `INSERT` statement per row of `table`: in rowid order with the rowid kept, or, for a
/// `WITHOUT ROWID` table, in the order of its columns' values.
fn rows(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let quoted = format!("\"{}\"", table.replace('"', "\"\""));
    let mut columns: Vec<String> = conn
        .prepare(&format!("PRAGMA table_info({quoted})"))?
        .query_map([], |r| r.get::<_, String>(1))?
        .map(|c| c.map(|c| format!("\"{}\"", c.replace('"', "\"\""))))
        .collect::<rusqlite::Result<_>>()?;
    let has_rowid = conn
        .prepare(&format!("SELECT rowid FROM {quoted} LIMIT 0"))
        .is_ok();
    if has_rowid {
        columns.insert(0, "rowid".into());
    }
    let list = columns.join(", ");
    let order = if has_rowid { "rowid" } else { list.as_str() };
    let values = columns
        .iter()
        .map(|c| format!("quote({c})"))
        .collect::<Vec<_>>()
        .join(" || ', ' || ");
    let mut stmt = conn.prepare(&format!(
        "SELECT 'INSERT INTO {quoted}({list}) VALUES(' || {values} || ');' FROM {quoted} ORDER BY {order}"
    ))?;
    let rows = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .map(|line| line.map(|l| format!("{l}\n")))
        .collect();
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_read_from_the_first_line() {
        assert_eq!(version_of(&header(26)), Some(26));
        assert_eq!(version_of("CREATE TABLE t(x);"), None);
        assert_eq!(version_of(""), None);
    }
}
