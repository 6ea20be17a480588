//! Numbered migrations, embedded at build time from `migrations/`.
//!
//! Each is applied in its own immediate transaction, recorded with its SHA-256 in
//! `schema_migrations`, and `PRAGMA user_version` follows. A ledger whose version is
//! above the newest known one is refused untouched; an applied migration whose text
//! changed since is refused (shipped migrations are never edited).

use super::error::{from_sqlite, LedgerError, Result};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::sync::OnceLock;

/// One embedded migration.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// 1-based version this migration brings the ledger to.
    pub version: i64,
    /// File name under `migrations/`.
    pub name: &'static str,
    /// The SQL.
    pub sql: &'static str,
}

/// Every migration, in order.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "0001_sends.sql",
        sql: include_str!("../../migrations/0001_sends.sql"),
    },
    Migration {
        version: 2,
        name: "0002_tool_admissions_generation_wide.sql",
        sql: include_str!("../../migrations/0002_tool_admissions_generation_wide.sql"),
    },
    Migration {
        version: 3,
        name: "0003_tool_call_receipts.sql",
        sql: include_str!("../../migrations/0003_tool_call_receipts.sql"),
    },
    Migration {
        version: 4,
        name: "0004_evidence_kind.sql",
        sql: include_str!("../../migrations/0004_evidence_kind.sql"),
    },
    Migration {
        version: 5,
        name: "0005_in_flight_view.sql",
        sql: include_str!("../../migrations/0005_in_flight_view.sql"),
    },
    Migration {
        version: 6,
        name: "0006_openai_door.sql",
        sql: include_str!("../../migrations/0006_openai_door.sql"),
    },
    Migration {
        version: 7,
        name: "0007_page_errors_limit_gate_tab_reports.sql",
        sql: include_str!("../../migrations/0007_page_errors_limit_gate_tab_reports.sql"),
    },
    Migration {
        version: 8,
        name: "0008_remote_stop_without_a_click.sql",
        sql: include_str!("../../migrations/0008_remote_stop_without_a_click.sql"),
    },
    Migration {
        version: 9,
        name: "0009_remote_stop_blank_evidence_and_one_report_per_phase.sql",
        sql: include_str!(
            "../../migrations/0009_remote_stop_blank_evidence_and_one_report_per_phase.sql"
        ),
    },
    Migration {
        version: 10,
        name: "0010_queue_sections_indexed.sql",
        sql: include_str!("../../migrations/0010_queue_sections_indexed.sql"),
    },
    Migration {
        version: 11,
        name: "0011_send_destinations.sql",
        sql: include_str!("../../migrations/0011_send_destinations.sql"),
    },
    Migration {
        version: 12,
        name: "0012_trigger_codes.sql",
        sql: include_str!("../../migrations/0012_trigger_codes.sql"),
    },
    Migration {
        version: 13,
        name: "0013_one_in_flight_per_conversation.sql",
        sql: include_str!("../../migrations/0013_one_in_flight_per_conversation.sql"),
    },
    Migration {
        version: 14,
        name: "0014_refused_request_page_error.sql",
        sql: include_str!("../../migrations/0014_refused_request_page_error.sql"),
    },
    Migration {
        version: 15,
        name: "0015_conversation_titles.sql",
        sql: include_str!("../../migrations/0015_conversation_titles.sql"),
    },
    Migration {
        version: 16,
        name: "0016_attachments.sql",
        sql: include_str!("../../migrations/0016_attachments.sql"),
    },
    Migration {
        version: 17,
        name: "0017_answer_artifacts.sql",
        sql: include_str!("../../migrations/0017_answer_artifacts.sql"),
    },
    Migration {
        version: 18,
        name: "0018_page_gate.sql",
        sql: include_str!("../../migrations/0018_page_gate.sql"),
    },
    Migration {
        version: 19,
        name: "0019_page_checks.sql",
        sql: include_str!("../../migrations/0019_page_checks.sql"),
    },
    Migration {
        version: 20,
        name: "0020_key_scopes.sql",
        sql: include_str!("../../migrations/0020_key_scopes.sql"),
    },
    Migration {
        version: 21,
        name: "0021_retention.sql",
        sql: include_str!("../../migrations/0021_retention.sql"),
    },
    Migration {
        version: 22,
        name: "0022_sites.sql",
        sql: include_str!("../../migrations/0022_sites.sql"),
    },
    Migration {
        version: 23,
        name: "0023_default_destinations.sql",
        sql: include_str!("../../migrations/0023_default_destinations.sql"),
    },
    Migration {
        version: 24,
        name: "0024_note_kinds.sql",
        sql: include_str!("../../migrations/0024_note_kinds.sql"),
    },
    Migration {
        version: 25,
        name: "0025_send_counts.sql",
        sql: include_str!("../../migrations/0025_send_counts.sql"),
    },
    Migration {
        version: 26,
        name: "0026_lease_new_chat.sql",
        sql: include_str!("../../migrations/0026_lease_new_chat.sql"),
    },
];

/// The schema version this binary writes.
pub const CURRENT_VERSION: i64 = MIGRATIONS.len() as i64;

/// The SHA-256 of a migration's SQL (hex), computed once per process: every open checks
/// each applied migration against it.
fn checksum(m: &Migration) -> &'static str {
    static SUMS: OnceLock<Vec<String>> = OnceLock::new();
    let sums = SUMS.get_or_init(|| {
        MIGRATIONS
            .iter()
            .map(|m| format!("{:x}", Sha256::digest(m.sql.as_bytes())))
            .collect()
    });
    let at = MIGRATIONS.iter().position(|x| x.version == m.version);
    at.map_or("", |i| sums[i].as_str())
}

/// The ledger's schema version (`PRAGMA user_version`).
pub fn version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// Checks the applied migrations and applies the missing ones up to `target`. A new
/// ledger (version 0) whose target is the schema script's version is made from that script
/// in one transaction, every migration recorded as applied ([`super::schema`]).
pub fn migrate(conn: &mut Connection, path: &Path, target: i64) -> Result<()> {
    let sql = |e| from_sqlite(e, path);
    let found = version(conn).map_err(sql)?;
    if found > CURRENT_VERSION {
        return Err(LedgerError::NewerSchema {
            path: path.into(),
            found,
            known: CURRENT_VERSION,
        });
    }
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
           version INTEGER PRIMARY KEY, name TEXT NOT NULL, sha256 TEXT NOT NULL)",
    )
    .map_err(sql)?;
    for m in MIGRATIONS.iter().filter(|m| m.version <= found) {
        let applied: Option<String> = conn
            .query_row(
                "SELECT sha256 FROM schema_migrations WHERE version = ?1",
                [m.version],
                |r| r.get(0),
            )
            .optional()
            .map_err(sql)?;
        if applied.as_deref() != Some(checksum(m)) {
            return Err(LedgerError::MigrationEdited {
                version: m.version,
                name: m.name.into(),
            });
        }
    }
    if found == 0 {
        if let Some(script) = super::schema::at(target) {
            return create(conn, script, target).map_err(sql);
        }
    }
    for m in MIGRATIONS
        .iter()
        .filter(|m| m.version > found && m.version <= target)
    {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        tx.execute_batch(m.sql).map_err(sql)?;
        tx.execute(
            "INSERT INTO schema_migrations(version, name, sha256) VALUES (?1, ?2, ?3)",
            rusqlite::params![m.version, m.name, checksum(m)],
        )
        .map_err(sql)?;
        tx.pragma_update(None, "user_version", m.version)
            .map_err(sql)?;
        tx.commit().map_err(sql)?;
    }
    Ok(())
}

/// Makes a new ledger at `version` from `script` (the schema of that version) in one
/// immediate transaction: the script, every migration up to `version` recorded with its
/// SHA-256, `user_version`. Nothing is left of it on an error.
fn create(conn: &mut Connection, script: &str, version: i64) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch(script)?;
    for m in MIGRATIONS.iter().filter(|m| m.version <= version) {
        tx.execute(
            "INSERT INTO schema_migrations(version, name, sha256) VALUES (?1, ?2, ?3)",
            rusqlite::params![m.version, m.name, checksum(m)],
        )?;
    }
    tx.pragma_update(None, "user_version", version)?;
    tx.commit()
}
