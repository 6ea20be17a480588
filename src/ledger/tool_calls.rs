//! At-most-once tool-call receipts (DESIGN.md, "Tool-call receipts").
//!
//! A side effect asked for by a reply is identified by its native call id:
//! admitted → started → settled. `start` is the single gate before the side effect:
//! it succeeds once. A call started but unsettled at a crash becomes uncertain and is
//! never executed again. At most 1,000 receipts are retained (trigger
//! `tool_calls_retention_cap`); a person archives settled ones explicitly.

use super::error::{LedgerError, Result};
use crate::clock::Millis;
use rusqlite::{params, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};

/// Receipts retained at most (not archived).
pub const TOOL_RECEIPTS_CAP: i64 = 1_000;

/// A tool call's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolState {
    /// Admitted; the side effect has not started.
    Admitted,
    /// The side effect may be under way.
    Started,
    /// The outcome is recorded.
    Settled,
    /// Started before a crash and never settled: do not retry.
    Uncertain,
}

/// The answer to `admit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "admission", rename_all = "snake_case")]
pub enum Admission {
    /// First time (or admitted and not yet started): go on and `start` it.
    Admitted,
    /// Done before: here is the recorded outcome; do not run it again.
    AlreadySettled { outcome: String },
    /// Started and not settled: someone is running it now.
    InFlight,
    /// Started before a restart and never settled.
    Uncertain { message: String },
}

/// A tool-call receipt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The native call id; `None` for a legacy (generation-wide) receipt.
    pub call_id: Option<String>,
    /// The generation of a legacy receipt (schema 2), else `None`.
    pub legacy_generation: Option<i64>,
    /// State.
    pub state: ToolState,
    /// Recorded outcome, once settled.
    pub outcome: Option<String>,
    /// When admitted, started, settled, archived (ms).
    pub admitted_at: Millis,
    pub started_at: Option<Millis>,
    pub settled_at: Option<Millis>,
    pub archived_at: Option<Millis>,
    /// Who archived it.
    pub archived_by: Option<String>,
}

fn validate_call_id(call_id: &str) -> Result<()> {
    if call_id.is_empty() || call_id.len() > 256 || call_id.chars().any(char::is_control) {
        return Err(LedgerError::Invalid(
            "tool call id must be 1 to 256 printable characters".into(),
        ));
    }
    Ok(())
}

pub(crate) fn get(tx: &rusqlite::Connection, call_id: &str) -> Result<Option<ToolCall>> {
    Ok(tx
        .query_row(
            "SELECT call_id, legacy_generation, state, outcome, admitted_at, started_at, settled_at, \
             archived_at, archived_by FROM tool_calls WHERE call_id = ?1",
            [call_id],
            |r| {
                let state: String = r.get(2)?;
                Ok(ToolCall {
                    call_id: r.get(0)?,
                    legacy_generation: r.get(1)?,
                    state: match state.as_str() {
                        "admitted" => ToolState::Admitted,
                        "started" => ToolState::Started,
                        "settled" => ToolState::Settled,
                        _ => ToolState::Uncertain,
                    },
                    outcome: r.get(3)?,
                    admitted_at: r.get(4)?,
                    started_at: r.get(5)?,
                    settled_at: r.get(6)?,
                    archived_at: r.get(7)?,
                    archived_by: r.get(8)?,
                })
            },
        )
        .optional()?)
}

fn existing(tx: &Transaction, call_id: &str) -> Result<ToolCall> {
    get(tx, call_id)?.ok_or_else(|| LedgerError::UnknownToolCall(call_id.into()))
}

pub(crate) fn admit(tx: &Transaction, call_id: &str, now: Millis) -> Result<Admission> {
    validate_call_id(call_id)?;
    if let Some(call) = get(tx, call_id)? {
        return Ok(match call.state {
            ToolState::Admitted => Admission::Admitted,
            ToolState::Started => Admission::InFlight,
            ToolState::Settled => Admission::AlreadySettled {
                outcome: call.outcome.unwrap_or_default(),
            },
            ToolState::Uncertain => Admission::Uncertain {
                message: LedgerError::ToolUncertain.to_string(),
            },
        });
    }
    tx.execute(
        "INSERT INTO tool_calls(call_id, state, admitted_at) VALUES (?1, 'admitted', ?2)",
        params![call_id, now],
    )?;
    Ok(Admission::Admitted)
}

pub(crate) fn start(tx: &Transaction, call_id: &str, now: Millis) -> Result<ToolCall> {
    let call = existing(tx, call_id)?;
    match call.state {
        ToolState::Admitted => {}
        ToolState::Uncertain => return Err(LedgerError::ToolUncertain),
        _ => {
            return Err(LedgerError::NotGranted(format!(
                "tool call {call_id} was started already: do not run the side effect again"
            )))
        }
    }
    tx.execute(
        "UPDATE tool_calls SET state = 'started', started_at = ?1 WHERE call_id = ?2",
        params![now, call_id],
    )?;
    existing(tx, call_id)
}

pub(crate) fn settle(
    tx: &Transaction,
    call_id: &str,
    outcome: &str,
    now: Millis,
) -> Result<ToolCall> {
    let call = existing(tx, call_id)?;
    match call.state {
        ToolState::Started => {}
        ToolState::Settled if call.outcome.as_deref() == Some(outcome) => return Ok(call),
        ToolState::Uncertain => return Err(LedgerError::ToolUncertain),
        ToolState::Settled => {
            return Err(LedgerError::Refused(format!(
                "tool call {call_id} is settled with another outcome; an outcome is written once"
            )))
        }
        ToolState::Admitted => {
            return Err(LedgerError::Refused(format!(
                "tool call {call_id} was never started: start it before settling"
            )))
        }
    }
    tx.execute(
        "UPDATE tool_calls SET state = 'settled', outcome = ?1, settled_at = ?2 WHERE call_id = ?3",
        params![outcome, now, call_id],
    )?;
    existing(tx, call_id)
}

pub(crate) fn archive(tx: &Transaction, call_id: &str, by: &str, now: Millis) -> Result<ToolCall> {
    super::sends::validate_note("who archives (--by)", by)?;
    let call = existing(tx, call_id)?;
    if call.state != ToolState::Settled {
        return Err(LedgerError::Refused(
            format!(
                "tool call {call_id} is {:?}, not settled: only settled receipts can be archived",
                call.state
            )
            .to_lowercase(),
        ));
    }
    if call.archived_at.is_some() {
        return Ok(call);
    }
    tx.execute(
        "UPDATE tool_calls SET archived_at = ?1, archived_by = ?2 WHERE call_id = ?3",
        params![now, by, call_id],
    )?;
    existing(tx, call_id)
}
