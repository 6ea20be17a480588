//! The one ledger dump of the test suites: every table's rows rendered as text, sorted,
//! so equal dumps mean nothing was written (a refusal left the ledger unchanged).

use rusqlite::types::ValueRef;
use rusqlite::Connection;
use std::collections::BTreeMap;

/// table name → its rows, each rendered `cell|cell|…`, sorted.
pub type Dump = BTreeMap<String, Vec<String>>;

/// A dump of every table `conn` can read.
pub fn dump_connection(conn: &Connection) -> Dump {
    let names: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .expect("schema readable")
        .query_map([], |r| r.get(0))
        .expect("schema readable")
        .collect::<rusqlite::Result<_>>()
        .expect("schema readable");
    let mut out = Dump::new();
    for name in names {
        let mut stmt = conn
            .prepare(&format!("SELECT * FROM \"{name}\""))
            .expect("table readable");
        let n = stmt.column_count();
        let mut rows: Vec<String> = stmt
            .query_map([], |r| {
                let mut cells = Vec::with_capacity(n);
                for i in 0..n {
                    cells.push(match r.get_ref(i)? {
                        ValueRef::Null => "NULL".to_string(),
                        ValueRef::Integer(v) => v.to_string(),
                        ValueRef::Real(v) => v.to_string(),
                        ValueRef::Text(t) => format!("{:?}", String::from_utf8_lossy(t)),
                        ValueRef::Blob(b) => format!("blob {b:?}"),
                    });
                }
                Ok(cells.join("|"))
            })
            .expect("table readable")
            .collect::<rusqlite::Result<_>>()
            .expect("table readable");
        rows.sort();
        out.insert(name, rows);
    }
    out
}
