//! Salvage of a damaged ledger (`sendledger salvage`): the damaged file is renamed aside
//! and never written again, a fresh ledger is built from every row SQLite can still read
//! out of a scratch copy of it, and the fresh ledger starts the way a restart leaves one
//! (recovery: nothing in flight stays in flight) with the gate closed and a note, so a
//! person looks before anything more is sent.
//!
//! The bundled SQLite has no recover extension. When SQLite can still tell a table's
//! largest rowid, its rows are read [`RANGE`] rowids at a time (`WHERE rowid BETWEEN`),
//! each written as it is read (one row in memory), and the rest of a range whose read
//! meets damage is read one rowid at a time (`WHERE rowid = ?`): a lookup that lands on a
//! damaged page fails alone and the next rowid is tried. So a
//! 10⁶-send ledger is read in minutes, and every rowid up to the largest is probed however
//! wide the gaps (retention prunes the oldest sends: gaps of hundreds of thousands). When
//! the largest rowid cannot be read, rowids are probed one at a time from 1 until
//! [`MAX_MISSES`] rowids in a row are absent or unreadable.

use super::error::{from_sqlite, LedgerError, Result};
use super::migrations;
use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection, OpenFlags};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Rowids in a row found absent or unreadable before a table's probe ends, when its
/// largest rowid cannot be read.
pub const MAX_MISSES: i64 = 10_000;

/// How many rowids one range read covers (a range that meets damage is read again one
/// rowid at a time).
pub const RANGE: i64 = 1_000;

/// Tables whose rows are the schema's own (written by the migrations), not history, or
/// derived from other tables (`send_counts`: counted again after the copy).
const SCHEMA_OWN: [&str; 4] = [
    "send_states",
    "send_edges",
    "schema_migrations",
    "send_counts",
];

/// The tables salvage copies: every table of the migrated schema in `conn` but the
/// schema's own, in the order the migrations made them (parents first). Read from the
/// schema, so a table a migration adds is salvaged without being named here.
pub fn salvaged_tables(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
         ORDER BY rowid",
    )?;
    let names = stmt.query_map([], |r| r.get::<_, String>(0))?;
    let names: Vec<String> = names.collect::<rusqlite::Result<_>>()?;
    Ok(names
        .into_iter()
        .filter(|n| !SCHEMA_OWN.contains(&n.as_str()))
        .collect())
}

/// What salvage read out of one table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSalvage {
    /// The table.
    pub table: String,
    /// Rows read and written into the fresh ledger.
    pub rows: u64,
    /// Rowids whose lookup failed on damage (their rows, if any, are lost).
    pub unreadable: u64,
    /// The largest rowid probed.
    pub max_rowid: i64,
    /// Why the table could not be read at all, when it could not.
    pub lost: Option<String>,
    /// The largest rowid read, and the largest whose lookup failed.
    #[serde(skip)]
    pub(crate) highest: (i64, i64),
}

/// What `sendledger salvage` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SalvageReport {
    /// The damaged file, renamed aside and left untouched.
    pub damaged: PathBuf,
    /// The fresh ledger.
    pub ledger: PathBuf,
    /// Per table.
    pub tables: Vec<TableSalvage>,
    /// Rows that refer to a row that was lost (e.g. events of a lost send); kept as read.
    pub broken_references: u64,
    /// Sends recovery moved to uncertain (in flight in the damaged file).
    pub uncertain: Vec<String>,
    /// Sends recovery moved to rejected (queued: they never left the host).
    pub rejected: Vec<String>,
}

impl SalvageReport {
    /// Rows read in all.
    pub fn rows(&self) -> u64 {
        self.tables.iter().map(|t| t.rows).sum()
    }
}

/// `base` with `suffix` appended to its file name (`ledger.sqlite3` + `-wal`).
pub(crate) fn sibling(base: &Path, suffix: &str) -> PathBuf {
    let mut name = base.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    base.with_file_name(name)
}

fn io_err(path: &Path, source: std::io::Error) -> LedgerError {
    LedgerError::Profile(crate::profile::ProfileError::Io {
        path: path.into(),
        source,
    })
}

/// Renames the ledger (and its `-wal`, `-shm`) aside as `ledger.damaged-<ms>.sqlite3`.
/// Returns the new name of the main file.
pub(crate) fn move_aside(ledger: &Path, now_ms: i64) -> Result<PathBuf> {
    let aside = ledger.with_file_name(format!("ledger.damaged-{now_ms}.sqlite3"));
    for suffix in ["", "-wal", "-shm"] {
        let from = sibling(ledger, suffix);
        if from.exists() {
            std::fs::rename(&from, sibling(&aside, suffix)).map_err(|e| io_err(&from, e))?;
        }
    }
    Ok(aside)
}

/// Puts the damaged file (and its side files) back at `ledger`: salvage failed before
/// the fresh ledger was complete.
pub(crate) fn move_aside_back(aside: &Path, ledger: &Path) -> Result<()> {
    for suffix in ["", "-wal", "-shm"] {
        let from = sibling(aside, suffix);
        if from.exists() {
            std::fs::rename(&from, sibling(ledger, suffix)).map_err(|e| io_err(&from, e))?;
        }
    }
    Ok(())
}

/// Copies the damaged file (and its WAL, whose committed frames count) to a scratch copy
/// opened read-write, so that reading it never touches the damaged file itself.
pub(crate) fn open_scratch(aside: &Path, scratch: &Path) -> Result<Connection> {
    for suffix in ["", "-wal"] {
        let (from, to) = (sibling(aside, suffix), sibling(scratch, suffix));
        let _ = std::fs::remove_file(&to);
        if from.exists() {
            std::fs::copy(&from, &to).map_err(|e| io_err(&from, e))?;
        }
    }
    let _ = std::fs::remove_file(sibling(scratch, "-shm"));
    let conn = Connection::open_with_flags(
        scratch,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| from_sqlite(e, aside))?;
    let _ = conn.execute_batch("PRAGMA cell_size_check = ON; PRAGMA query_only = ON;");
    Ok(conn)
}

/// Removes the scratch copy and its side files.
pub(crate) fn remove_scratch(scratch: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(sibling(scratch, suffix));
    }
}

/// Refuses a damaged file whose schema version is not this binary's (it cannot be mapped
/// row for row); an unreadable header is refused too.
pub(crate) fn check_schema(damaged: &Connection, aside: &Path) -> Result<()> {
    let found = migrations::version(damaged).map_err(|e| from_sqlite(e, aside))?;
    if found != migrations::CURRENT_VERSION {
        return Err(LedgerError::Refused(format!(
            "the damaged ledger {} is at schema {found}, this sendledger salvages schema {}: use the matching sendledger",
            aside.display(),
            migrations::CURRENT_VERSION
        )));
    }
    Ok(())
}

/// Copies every readable row of the [`salvaged_tables`] from `damaged` into the freshly migrated
/// `fresh`, with its triggers set aside for the copy (rows are history, not transitions)
/// and put back before the commit. The fresh ledger's own gate row gives way to the
/// damaged one's when that is readable.
pub(crate) fn copy_rows(damaged: &Connection, fresh: &mut Connection) -> Result<Vec<TableSalvage>> {
    fresh.execute_batch("PRAGMA foreign_keys = OFF")?;
    let tx = fresh.transaction()?;
    let triggers: Vec<(String, String)> = {
        let mut stmt = tx
            .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY rowid")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for (name, _) in &triggers {
        tx.execute_batch(&format!("DROP TRIGGER \"{name}\""))?;
    }
    let mut out = Vec::new();
    for table in salvaged_tables(&tx)? {
        out.push(copy_table(damaged, &tx, &table)?);
    }
    if let Some(events) = out.iter().find(|t| t.table == "events") {
        mark_lost_events(&tx, events.highest)?;
    }
    // The counts are of the sends salvaged, not of those the damaged file held.
    super::counts::recount(&tx)?;
    for (_, sql) in &triggers {
        tx.execute_batch(sql)?;
    }
    tx.commit()?;
    fresh.execute_batch("PRAGMA foreign_keys = ON")?;
    Ok(out)
}

/// The table's columns, and whether one of them is its rowid (`INTEGER PRIMARY KEY`).
/// When the newest audit events were lost, a note takes the largest lost id, so that the
/// ids of events written from now on (the change feed's ids) never repeat a lost one. It
/// belongs to the newest send read (events belong to a send).
fn mark_lost_events(tx: &rusqlite::Transaction, (read, failed): (i64, i64)) -> Result<()> {
    if failed <= read {
        return Ok(());
    }
    tx.execute(
        "INSERT INTO events(id, op_id, kind, from_state, to_state, at, actor, evidence) \
         SELECT ?1, op_id, 'note', state, state, updated_at, 'salvage', ?2 \
         FROM sends ORDER BY seq DESC LIMIT 1",
        rusqlite::params![
            failed,
            format!("salvage: audit events up to id {failed} were on damaged pages and are lost; ids go on after them")
        ],
    )?;
    Ok(())
}

fn columns(conn: &Connection, table: &str) -> rusqlite::Result<(Vec<String>, bool)> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info(\"{table}\")"))?;
    let rows = stmt.query_map([], |r| {
        let (name, kind, pk): (String, String, i64) = (r.get(1)?, r.get(2)?, r.get(5)?);
        Ok((name, pk == 1 && kind.eq_ignore_ascii_case("integer")))
    })?;
    let rows: Vec<(String, bool)> = rows.collect::<rusqlite::Result<_>>()?;
    let aliased = rows.iter().any(|(_, is_rowid)| *is_rowid);
    Ok((rows.into_iter().map(|(n, _)| n).collect(), aliased))
}

fn copy_table(
    damaged: &Connection,
    fresh: &rusqlite::Transaction,
    table: &str,
) -> Result<TableSalvage> {
    let report = TableSalvage {
        table: table.into(),
        ..TableSalvage::default()
    };
    let (cols, aliased) = columns(fresh, table)?;
    let list = cols
        .iter()
        .map(|c| format!("\"{c}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let reads = (
        damaged.prepare(&format!("SELECT {list} FROM \"{table}\" WHERE rowid = ?1")),
        damaged.prepare(&format!(
            "SELECT rowid, {list} FROM \"{table}\" WHERE rowid BETWEEN ?1 AND ?2 ORDER BY rowid"
        )),
    );
    let (one, range) = match reads {
        (Ok(one), Ok(range)) => (one, range),
        (Err(e), _) | (_, Err(e)) => {
            return Ok(TableSalvage {
                lost: Some(format!("the table cannot be read at all: {e}")),
                ..report
            });
        }
    };
    let mut copy = TableCopy {
        one,
        range,
        write: fresh.prepare(&insert_sql(table, &list, cols.len(), aliased))?,
        columns: cols.len(),
        aliased,
        report,
    };
    match largest_rowid(damaged, table) {
        Some(max) => copy.by_ranges(max)?,
        None => copy.until_misses()?,
    }
    Ok(copy.report)
}

/// One table's copy: its reads out of the damaged file, its write into the fresh ledger,
/// and what it found so far.
struct TableCopy<'d, 'f> {
    /// One rowid's row.
    one: rusqlite::Statement<'d>,
    /// The rows of a range of rowids, with their rowids.
    range: rusqlite::Statement<'d>,
    write: rusqlite::Statement<'f>,
    columns: usize,
    /// Whether a column is the rowid (else the rowid is written beside the columns).
    aliased: bool,
    report: TableSalvage,
}

impl TableCopy<'_, '_> {
    /// Every rowid from 1 to `max`, [`RANGE`] at a time, each row written as it is read
    /// (one row in memory, however long the answers); where a range's read meets damage,
    /// the rest of that range one rowid at a time.
    fn by_ranges(&mut self, max: i64) -> Result<()> {
        let mut from = 1i64;
        while from <= max {
            let to = (from + RANGE - 1).min(max);
            let mut next = from; // the first rowid of the range not yet read
            let damaged = {
                let (columns, aliased) = (self.columns, self.aliased);
                let (write, report) = (&mut self.write, &mut self.report);
                match self.range.query([from, to]) {
                    Err(_) => true,
                    Ok(mut rows) => loop {
                        let row = rows.next().and_then(|r| match r {
                            None => Ok(None),
                            Some(r) => Ok(Some((r.get::<_, i64>(0)?, values(r, 1, columns)?))),
                        });
                        match row {
                            Ok(None) => break false,
                            Ok(Some((rowid, vals))) => {
                                write_row(write, aliased, report, rowid, vals)?;
                                next = rowid + 1;
                            }
                            Err(_) => break true,
                        }
                    },
                }
            };
            if damaged {
                for rowid in next..=to {
                    if let Some(values) = self.probe(rowid) {
                        self.copy(rowid, values)?;
                    }
                }
            }
            if to / PROGRESS_EVERY > (from - 1) / PROGRESS_EVERY {
                progress(&self.report.table, to, Some(max));
            }
            from = to + 1;
        }
        self.report.max_rowid = max.max(0);
        Ok(())
    }

    /// Rowids one at a time from 1 until [`MAX_MISSES`] in a row are absent or unreadable
    /// (the largest rowid is unknown).
    fn until_misses(&mut self) -> Result<()> {
        let (mut rowid, mut misses) = (0i64, 0i64);
        while misses < MAX_MISSES {
            rowid += 1;
            if rowid % PROGRESS_EVERY == 0 {
                progress(&self.report.table, rowid, None);
            }
            match self.probe(rowid) {
                Some(values) => {
                    self.copy(rowid, values)?;
                    misses = 0;
                }
                None => misses += 1,
            }
        }
        self.report.max_rowid = rowid;
        Ok(())
    }

    /// `rowid`'s row, or `None` when it is absent or unreadable (counted).
    fn probe(&mut self, rowid: i64) -> Option<Vec<Value>> {
        let columns = self.columns;
        let row = self.one.query_row([rowid], |r| values(r, 0, columns));
        match row {
            Ok(values) => Some(values),
            Err(rusqlite::Error::QueryReturnedNoRows) => None,
            Err(_) => {
                self.report.unreadable += 1;
                self.report.highest.1 = rowid;
                None
            }
        }
    }

    /// Writes `rowid`'s row into the fresh ledger.
    fn copy(&mut self, rowid: i64, values: Vec<Value>) -> Result<()> {
        write_row(
            &mut self.write,
            self.aliased,
            &mut self.report,
            rowid,
            values,
        )
    }
}

/// The `n` columns of `r` from column `first` on.
fn values(r: &rusqlite::Row, first: usize, n: usize) -> rusqlite::Result<Vec<Value>> {
    (first..first + n).map(|i| r.get::<_, Value>(i)).collect()
}

/// Writes `rowid`'s row (`values`, its columns) with `write`, and counts it in `report`.
fn write_row(
    write: &mut rusqlite::Statement,
    aliased: bool,
    report: &mut TableSalvage,
    rowid: i64,
    values: Vec<Value>,
) -> Result<()> {
    let mut all = if aliased {
        Vec::new()
    } else {
        vec![Value::Integer(rowid)]
    };
    all.extend(values);
    write.execute(params_from_iter(all))?;
    report.rows += 1;
    report.highest.0 = rowid;
    Ok(())
}

/// Where a salvage is, for a person waiting on a large ledger (issue 39: 10⁶ sends take
/// minutes): the table being copied, the rowid reached, and the table's largest rowid
/// when SQLite could read it.
pub type SalvageProgress = fn(table: &str, rowid: i64, max: Option<i64>);

static PROGRESS: std::sync::OnceLock<SalvageProgress> = std::sync::OnceLock::new();

/// How often a salvage reports its progress, in rowids read.
pub const PROGRESS_EVERY: i64 = 100_000;

/// Sets, once per process, what a salvage calls every [`PROGRESS_EVERY`] rowids and at
/// the end of a table that long (the CLI prints a line on stderr). Later calls are ignored.
pub fn on_progress(f: SalvageProgress) {
    let _ = PROGRESS.set(f);
}

fn progress(table: &str, rowid: i64, max: Option<i64>) {
    if let Some(f) = PROGRESS.get() {
        f(table, rowid, max);
    }
}

/// The statement copying one row of `table` (its `list` of `n` columns; with the rowid
/// when no column is it).
fn insert_sql(table: &str, list: &str, n: usize, aliased: bool) -> String {
    let (target, marks) = if aliased {
        (list.to_string(), vec!["?"; n].join(", "))
    } else {
        (format!("rowid, {list}"), vec!["?"; n + 1].join(", "))
    };
    format!("INSERT OR REPLACE INTO \"{table}\"({target}) VALUES ({marks})")
}

/// The table's largest rowid, when SQLite can still read it.
fn largest_rowid(damaged: &Connection, table: &str) -> Option<i64> {
    damaged
        .query_row(&format!("SELECT max(rowid) FROM \"{table}\""), [], |r| {
            r.get::<_, Option<i64>>(0)
        })
        .ok()
        .flatten()
}

/// Rows of the fresh ledger that refer to a lost row (`PRAGMA foreign_key_check`).
pub(crate) fn broken_references(fresh: &Connection) -> Result<u64> {
    let mut stmt = fresh.prepare("PRAGMA foreign_key_check")?;
    let n = stmt.query_map([], |_| Ok(()))?.count();
    Ok(n as u64)
}
