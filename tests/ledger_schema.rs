//! A new ledger is made from one script, src/ledger/schema.sql (src/ledger/schema.rs),
//! instead of the 26 migrations one by one: the script must make exactly the ledger the
//! migrations make — every table, row, index, view and trigger, every migration recorded
//! with its SHA-256, the same `user_version` — or a new profile would start on a ledger
//! no older profile has.

use rusqlite::Connection;
use sendledger::ledger::{migrations, schema};
use std::path::{Path, PathBuf};

/// A new ledger file at `path`, migrated to the newest version one migration at a time
/// (to version 1 first: a ledger that is not new takes the migrations, never the script).
fn migrated_one_by_one(path: &Path) -> Connection {
    let mut conn = Connection::open(path).unwrap();
    migrations::migrate(&mut conn, path, 1).unwrap();
    migrations::migrate(&mut conn, path, migrations::CURRENT_VERSION).unwrap();
    conn
}

/// A new ledger file at `path`, opened as the owner opens one (`migrate` from version 0).
fn made_new(path: &Path) -> Connection {
    let mut conn = Connection::open(path).unwrap();
    migrations::migrate(&mut conn, path, migrations::CURRENT_VERSION).unwrap();
    conn
}

/// `(version, name, sha256)` of every migration the ledger records as applied.
fn applied(conn: &Connection) -> Vec<(i64, String, String)> {
    conn.prepare("SELECT version, name, sha256 FROM schema_migrations ORDER BY version")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// The `sqlite_master` types of the ledger's own objects, in the order they were made.
fn made_in_order(conn: &Connection) -> Vec<String> {
    conn.prepare(
        "SELECT type FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
            AND name <> 'schema_migrations' ORDER BY rowid",
    )
    .unwrap()
    .query_map([], |r| r.get(0))
    .unwrap()
    .collect::<rusqlite::Result<_>>()
    .unwrap()
}

fn script_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ledger/schema.sql")
}

#[test]
fn a_new_ledger_from_the_schema_script_is_the_one_every_migration_makes() {
    let dir = tempfile::tempdir().unwrap();
    let one_by_one = migrated_one_by_one(&dir.path().join("one-by-one.sqlite3"));
    let want = schema::dump(&one_by_one).unwrap();
    if std::env::var_os("SENDLEDGER_WRITE_SCHEMA").is_some() && schema::SCHEMA != want {
        std::fs::write(script_path(), &want).unwrap();
        panic!(
            "{} written: build and run the test again",
            script_path().display()
        );
    }
    assert!(
        schema::SCHEMA == want,
        "src/ledger/schema.sql is not what the migrations make (a migration was added or the \
         file edited): write it again with `SENDLEDGER_WRITE_SCHEMA=1 cargo test --test ledger \
         a_new_ledger`, then run the test again"
    );
    let new = made_new(&dir.path().join("new.sqlite3"));
    assert_eq!(
        schema::dump(&new).unwrap(),
        want,
        "the script's ledger: every object and row"
    );
    let kinds = made_in_order(&new);
    let tables = kinds.iter().take_while(|k| *k == "table").count();
    assert!(
        tables > 0 && kinds[tables..].iter().all(|k| k != "table"),
        "a new ledger is made from the script (its tables first), not migration by migration: {kinds:?}"
    );
    assert_eq!(applied(&new), applied(&one_by_one), "schema_migrations");
    assert_eq!(applied(&new).len() as i64, migrations::CURRENT_VERSION);
    let version = |c: &Connection| migrations::version(c).unwrap();
    assert_eq!(version(&new), migrations::CURRENT_VERSION);
    let sequence = |c: &Connection| -> Vec<(String, i64)> {
        c.prepare("SELECT name, seq FROM sqlite_sequence ORDER BY name")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    };
    assert_eq!(sequence(&new), sequence(&one_by_one), "sqlite_sequence");
    // And it is a ledger the next open takes as it is: the checks of every applied migration.
    drop(new);
    made_new(&dir.path().join("new.sqlite3"));
}

#[test]
fn a_script_of_another_version_is_not_used_and_the_migrations_run() {
    assert_eq!(
        schema::version_of(schema::SCHEMA),
        Some(migrations::CURRENT_VERSION)
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("older.sqlite3");
    let mut conn = Connection::open(&path).unwrap();
    // A new ledger made at an older version (as a test of a migration makes one).
    migrations::migrate(&mut conn, &path, 17).unwrap();
    assert_eq!(migrations::version(&conn).unwrap(), 17);
    assert_eq!(applied(&conn).len(), 17);
}
