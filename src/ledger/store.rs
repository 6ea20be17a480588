//! Opening the ledger file: pragmas, permissions, migrations.
//!
//! The owner's connection is the only writer (WAL, `synchronous=FULL`, foreign keys,
//! busy timeout 5000 ms, every write an immediate transaction). Readers get a
//! read-only connection and never touch the owner lock.

use super::error::{from_sqlite, LedgerError, Result};
use super::migrations;
use rusqlite::{Connection, OpenFlags};
use std::fs::OpenOptions;
use std::path::Path;

/// Busy timeout for every connection, in ms.
pub const BUSY_TIMEOUT_MS: u64 = 5_000;

/// Opens (creating 0600 if missing) the ledger for writing and migrates it to `target`.
pub(crate) fn open_writer(path: &Path, target: i64, check: bool) -> Result<Connection> {
    let sql = |e| from_sqlite(e, path);
    // Create the file ourselves so it is 0600 from its first byte.
    crate::platform::private_file(OpenOptions::new().create(true).append(true))
        .open(path)
        .map_err(|source| {
            LedgerError::Profile(crate::profile::ProfileError::Io {
                path: path.into(),
                source,
            })
        })?;
    crate::platform::tighten_file(path);
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sql)?;
    conn.busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS))
        .map_err(sql)?;
    // journal_mode answers with a row; a damaged file fails here first.
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .map_err(sql)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(LedgerError::Refused(format!(
            "the ledger could not switch to WAL (got {mode}); check the file system supports shared memory"
        )));
    }
    conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")
        .map_err(sql)?;
    // Room for every statement of the write paths (see `sends::exec`).
    conn.set_prepared_statement_cache_capacity(64);
    // Before the first write (migrations, recovery): a damaged page anywhere is found now,
    // not when a later write or read happens on it (docs/performance.md: its cost).
    if check {
        whole(&conn, path)?;
    }
    migrations::migrate(&mut conn, path, target)?;
    for side in ["-wal", "-shm"] {
        crate::platform::tighten_file(&path.with_file_name(format!(
            "{}{side}",
            path.file_name().unwrap_or_default().to_string_lossy()
        )));
    }
    Ok(conn)
}

/// `PRAGMA quick_check` over the whole file: every page of every table and index read and
/// its structure checked (not the indexes' agreement with their tables, which is
/// `integrity_check`'s extra, much slower work). Errors: `Corrupt` naming the file and
/// SQLite's first finding.
pub(crate) fn whole(conn: &Connection, path: &Path) -> Result<()> {
    let first: String = conn
        .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
        .map_err(|e| from_sqlite(e, path))?;
    if first == "ok" {
        return Ok(());
    }
    Err(LedgerError::Corrupt {
        path: path.into(),
        detail: format!("PRAGMA quick_check: {first}"),
    })
}

/// Opens an existing ledger read-only; refuses a newer schema.
pub(crate) fn open_reader(path: &Path) -> Result<Connection> {
    if !path.exists() {
        return Err(LedgerError::NoLedger(path.into()));
    }
    let sql = |e| from_sqlite(e, path);
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sql)?;
    conn.busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS))
        .map_err(sql)?;
    let found = migrations::version(&conn).map_err(sql)?;
    if found > migrations::CURRENT_VERSION {
        return Err(LedgerError::NewerSchema {
            path: path.into(),
            found,
            known: migrations::CURRENT_VERSION,
        });
    }
    if found < migrations::CURRENT_VERSION {
        return Err(LedgerError::Refused(format!(
            "the ledger is at schema {found} and needs upgrading to {}: run any writing command (or `sendledger serve`) once",
            migrations::CURRENT_VERSION
        )));
    }
    Ok(conn)
}
