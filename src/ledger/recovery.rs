//! Start-up recovery, run by the owner at every open before anything else. Blind: it
//! knows only what is on disk, so it never submits browser work and never guesses.
//!
//! - queued → rejected (it never left the host; a person may queue it again)
//! - claimed and dispatched → uncertain, identically (the click may have happened)
//! - accepted stays accepted; remote stop dispatched → uncertain;
//!   tool call started → uncertain; every lease of the previous owner ends.
//!
//! Compare `fail()`, which knows where the caller stood: claimed → rejected.

use super::error::Result;
use super::sends;
use crate::clock::Millis;
use rusqlite::{params, Transaction};
use serde::{Deserialize, Serialize};

/// Actor recorded on recovery's transitions.
pub const RECOVERY_ACTOR: &str = "recovery";
/// Evidence recorded for a send still queued at a restart.
pub const QUEUED_AT_RESTART: &str =
    "still queued when the previous owner stopped: it never left the host; queue it again if it is still wanted";
/// Evidence recorded for a send claimed or dispatched at a restart.
pub const IN_FLIGHT_AT_RESTART: &str =
    "claimed or dispatched when the previous owner stopped: it may or may not have been sent; check the conversation";
/// Evidence recorded for a remote stop whose click was dispatched at a restart.
pub const STOP_CLICK_AT_RESTART: &str =
    "the owner restarted after the tab was told to click the stop button: nobody knows whether the answer stopped";

/// What recovery changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecoveryReport {
    /// Sends moved queued → rejected.
    pub rejected: Vec<String>,
    /// Sends moved claimed/dispatched → uncertain.
    pub uncertain: Vec<String>,
    /// Remote stops moved dispatched → uncertain.
    pub remote_stops_uncertain: usize,
    /// Tool calls moved started → uncertain.
    pub tool_calls_uncertain: usize,
}

fn ids(tx: &Transaction, states: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = tx.prepare(&format!(
        "SELECT op_id FROM sends WHERE state IN ({states}) ORDER BY seq"
    ))?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    rows.collect()
}

pub(crate) fn recover(tx: &Transaction, now: Millis) -> Result<RecoveryReport> {
    let rejected = ids(tx, "'queued'")?;
    let uncertain = ids(tx, "'claimed', 'dispatched'")?;
    tx.execute(
        "UPDATE sends SET state = 'rejected', updated_at = ?1, actor = ?2, evidence = ?3 WHERE state = 'queued'",
        params![now, RECOVERY_ACTOR, QUEUED_AT_RESTART],
    )?;
    tx.execute(
        "UPDATE sends SET state = 'uncertain', updated_at = ?1, actor = ?2, evidence = ?3 \
         WHERE state IN ('claimed', 'dispatched')",
        params![now, RECOVERY_ACTOR, IN_FLIGHT_AT_RESTART],
    )?;
    let clicking: Vec<String> = {
        let mut stmt = tx.prepare("SELECT op_id FROM remote_stops WHERE phase = 'dispatched'")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let remote_stops_uncertain = tx.execute(
        "UPDATE remote_stops SET phase = 'uncertain', updated_at = ?1, \
         evidence = ?2 WHERE phase = 'dispatched'",
        params![now, STOP_CLICK_AT_RESTART],
    )?;
    for op_id in &clicking {
        let send = sends::load(tx, op_id)?;
        let note = format!("remote stop uncertain: {STOP_CLICK_AT_RESTART}");
        sends::note(tx, &send, RECOVERY_ACTOR, (&note, None), now)?;
    }
    let tool_calls_uncertain = tx.execute(
        "UPDATE tool_calls SET state = 'uncertain' WHERE state = 'started'",
        [],
    )?;
    tx.execute(
        "UPDATE leases SET ended_at = ?1, ended_reason = 'the owner restarted' WHERE ended_at IS NULL",
        [now],
    )?;
    Ok(RecoveryReport {
        rejected,
        uncertain,
        remote_stops_uncertain,
        tool_calls_uncertain,
    })
}
