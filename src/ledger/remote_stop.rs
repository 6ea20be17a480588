//! Remote Stop: for a send of a stopped epoch that was already clicked, the page's own
//! stop button is clicked by the extension, in durable phases
//! pending → dispatched → confirmed | uncertain. A stop that clicks nothing ends from
//! pending: uncertain (no stop button found), or confirmed only with the tab's evidence
//! that nothing was being generated (migration 0008). Nothing invents a confirmation.

use super::error::{LedgerError, Result};
use super::sends;
use super::trigger::{self, TriggerRefusal};
use crate::clock::Millis;
use rusqlite::{params, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};

/// A remote stop's phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RemotePhase {
    /// Recorded by Stop; nobody has clicked yet.
    Pending,
    /// The extension is about to click the page's stop button.
    Dispatched,
    /// The page showed the answer stopped.
    Confirmed,
    /// Nobody knows whether the click worked.
    Uncertain,
}

impl RemotePhase {
    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Dispatched => "dispatched",
            Self::Confirmed => "confirmed",
            Self::Uncertain => "uncertain",
        }
    }

    fn parse(s: &str) -> rusqlite::Result<Self> {
        Ok(match s {
            "pending" => Self::Pending,
            "dispatched" => Self::Dispatched,
            "confirmed" => Self::Confirmed,
            "uncertain" => Self::Uncertain,
            other => {
                return Err(rusqlite::Error::FromSqlConversionFailure(
                    3,
                    rusqlite::types::Type::Text,
                    format!("unknown remote stop phase {other:?}").into(),
                ))
            }
        })
    }
}

/// The note a Stop leaves on a clicked send's audit trail when it asks for a remote stop.
const PENDING_NOTE: &str = "Stop asked the tab to click the page's stop button for this send's answer (remote stop pending)";

/// What the tab said, for a person: `evidence` trimmed, or `None` when it has no visible
/// character (white space, controls and format characters such as U+200B only).
pub fn said(evidence: Option<&str>) -> Option<&str> {
    let e = evidence?.trim();
    e.chars()
        .any(|c| !c.is_whitespace() && !c.is_control() && !is_format(c))
        .then_some(e)
}

/// Zero-width and other invisible format characters (Unicode's Cf, the common ones).
fn is_format(c: char) -> bool {
    matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}')
}

/// The note a phase reported by the tab leaves on the send's audit trail (`from`: the
/// phase before), so the timeline, `GET /v1/sends/{op_id}` and the window show it.
fn phase_note(from: &str, phase: RemotePhase, evidence: Option<&str>) -> String {
    let said = said(evidence);
    match (phase, said) {
        (RemotePhase::Pending, _) => PENDING_NOTE.to_string(),
        (RemotePhase::Dispatched, _) => {
            "remote stop dispatched: the tab is clicking the page's stop button".to_string()
        }
        (RemotePhase::Confirmed, Some(e)) if from == "pending" => {
            format!("remote stop confirmed without a click: {e}")
        }
        (RemotePhase::Confirmed, Some(e)) => format!("remote stop confirmed: {e}"),
        (RemotePhase::Confirmed, None) => {
            "remote stop confirmed: the page showed the answer stopped".to_string()
        }
        (RemotePhase::Uncertain, Some(e)) => format!("remote stop uncertain: {e}"),
        (RemotePhase::Uncertain, None) => {
            "remote stop uncertain: the tab could not tell whether the answer stopped".to_string()
        }
    }
}

/// A remote stop request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteStop {
    /// The send whose answer is to be stopped.
    pub op_id: String,
    /// The conversation of the send (from its receipt or its target), if known.
    pub conversation_id: Option<String>,
    /// The stopped epoch it belongs to.
    pub epoch: String,
    /// Phase.
    pub phase: RemotePhase,
    /// Requested when and by whom.
    pub requested_at: Millis,
    pub requested_by: String,
    /// Last change.
    pub updated_at: Millis,
    /// What the last phase rests on.
    pub evidence: Option<String>,
}

/// Records a pending remote stop for every dispatched send, and every accepted one whose
/// answer is still awaited (not one marked "answer not observed": its tab may long since
/// be generating something else, and a stop click would hit that).
pub(crate) fn request_for_clicked(tx: &Transaction, by: &str, now: Millis) -> Result<Vec<String>> {
    let mut stmt =
        tx.prepare("SELECT op_id, epoch FROM sends_in_flight WHERE state <> 'claimed'")?;
    let clicked: Vec<(String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut out = Vec::new();
    for (op_id, epoch) in clicked {
        let n = tx.execute(
            "INSERT OR IGNORE INTO remote_stops(op_id, epoch, phase, requested_at, requested_by, updated_at) \
             VALUES (?1, ?2, 'pending', ?3, ?4, ?3)",
            params![op_id, epoch, now, by],
        )?;
        if n == 1 {
            let send = sends::load(tx, &op_id)?;
            sends::note(tx, &send, by, (PENDING_NOTE, None), now)?;
            out.push(op_id);
        }
    }
    Ok(out)
}

/// The remote stops a lease may be handed and report on, as SQL over `remote_stops rs`,
/// `sends s`, `receipts r` and the taking lease `t` (`LEFT JOIN`s), the lease being `?1`,
/// which must not have ended (its tab has not leased again since, no Resume, no restart):
/// those of sends it took, and those of sends its tab took before it leased again (a
/// restart, a Resume, a reloaded page) while it shows the same conversation the send went
/// to — the tab whose stop button stops that answer. Never another tab's, nor this tab's
/// once it shows another conversation (its stop button would stop some other answer).
const LEASE_MAY_REPORT: &str = "EXISTS (SELECT 1 FROM leases l \
     WHERE l.lease_id = ?1 AND l.ended_at IS NULL AND (l.lease_id = s.lease_id \
     OR (l.tab_id = t.tab_id \
     AND l.conversation_id = coalesce(r.conversation_id, s.conversation_id, t.conversation_id))))";

/// The tables [`LEASE_MAY_REPORT`] reads, joined to `remote_stops rs`.
const STOP_JOINS: &str = "FROM remote_stops rs JOIN sends s ON s.op_id = rs.op_id \
     LEFT JOIN receipts r ON r.op_id = rs.op_id LEFT JOIN leases t ON t.lease_id = s.lease_id";

/// Open remote stops (pending or dispatched), oldest first; with `lease_id`, only those
/// that lease may click for ([`LEASE_MAY_REPORT`]).
pub(crate) fn list_open(
    conn: &rusqlite::Connection,
    lease_id: Option<&str>,
) -> Result<Vec<RemoteStop>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {STOP_COLUMNS} {STOP_JOINS} WHERE rs.phase IN ('pending', 'dispatched') AND (?1 IS NULL OR {LEASE_MAY_REPORT}) \
         ORDER BY rs.requested_at, rs.op_id"
    ))?;
    let rows = stmt.query_map([lease_id], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The columns [`from_row`] reads, over [`STOP_JOINS`].
const STOP_COLUMNS: &str = "rs.op_id, coalesce(r.conversation_id, s.conversation_id), rs.epoch, \
     rs.phase, rs.requested_at, rs.requested_by, rs.updated_at, rs.evidence";

fn from_row(r: &rusqlite::Row) -> rusqlite::Result<RemoteStop> {
    Ok(RemoteStop {
        op_id: r.get(0)?,
        conversation_id: r.get(1)?,
        epoch: r.get(2)?,
        phase: RemotePhase::parse(&r.get::<_, String>(3)?)?,
        requested_at: r.get(4)?,
        requested_by: r.get(5)?,
        updated_at: r.get(6)?,
        evidence: r.get(7)?,
    })
}

/// The remote stop of one send, in whatever phase, if a Stop asked for one.
pub(crate) fn of_send(
    conn: &rusqlite::Connection,
    op_id: &str,
) -> rusqlite::Result<Option<RemoteStop>> {
    conn.prepare_cached(&format!(
        "SELECT {STOP_COLUMNS} {STOP_JOINS} WHERE rs.op_id = ?1"
    ))?
    .query_row([op_id], from_row)
    .optional()
}

/// The remote stops of those of the sends `ids` ([`super::rows::ids_param`]) a Stop asked
/// one for: what [`of_send`] reads for each, in one query.
pub(crate) fn of_sends(
    conn: &rusqlite::Connection,
    ids: &str,
) -> rusqlite::Result<std::collections::HashMap<String, RemoteStop>> {
    super::rows::keyed(conn, &of_sends_sql(), ids, |r| {
        Ok((r.get(0)?, from_row(r)?))
    })
}

/// The SQL of [`of_sends`].
pub(crate) fn of_sends_sql() -> String {
    let ids = super::rows::IN_IDS;
    format!("SELECT {STOP_COLUMNS} {STOP_JOINS} WHERE rs.op_id IN {ids}")
}

/// Moves a remote stop to `phase`, as reported by `lease_id` (legal: pending → dispatched
/// → confirmed | uncertain; pending → uncertain; pending → confirmed with readable
/// evidence: not only white space, controls or invisible characters, the set in migration
/// 0009; each phase once).
///
/// Errors: [`LedgerError::UnknownRemoteStop`] when the send has none;
/// [`LedgerError::RemoteStopNotYours`] when `lease_id` may not ([`LEASE_MAY_REPORT`]:
/// only the tab that clicked the send, showing its conversation, reports on its stop);
/// [`LedgerError::RemoteStopSettled`] for any report on a settled stop (trigger
/// `remote_stops_settled_once`);
/// [`LedgerError::IllegalRemotePhase`] for any other edge (trigger
/// `remote_stops_legal_phases`, which stays the rule: this only words its refusal).
pub(crate) fn set_phase(
    tx: &Transaction,
    lease_id: &str,
    op_id: &str,
    phase: RemotePhase,
    evidence: Option<&str>,
    now: Millis,
) -> Result<()> {
    let found: Option<(bool, String)> = tx
        .prepare_cached(&format!(
            "SELECT {LEASE_MAY_REPORT}, rs.phase {STOP_JOINS} WHERE rs.op_id = ?2"
        ))?
        .query_row([lease_id, op_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    bounded(evidence)?;
    let Some((may_report, from)) = found else {
        return Err(LedgerError::UnknownRemoteStop(op_id.into()));
    };
    if !may_report {
        return Err(LedgerError::RemoteStopNotYours {
            op_id: op_id.into(),
            lease_id: lease_id.into(),
        });
    }
    let written = tx.execute(
        "UPDATE remote_stops SET phase = ?1, updated_at = ?2, evidence = ?3 WHERE op_id = ?4",
        params![phase.as_str(), now, evidence, op_id],
    );
    let refused_by_trigger = matches!(
        written.as_ref().err().and_then(trigger::refusal),
        Some((
            TriggerRefusal::RemoteStopSettled | TriggerRefusal::IllegalRemoteStopPhase,
            _
        ))
    );
    match written {
        Ok(_) => {
            let send = sends::load(tx, op_id)?;
            let note = phase_note(&from, phase, evidence);
            sends::note(tx, &send, "extension", (&note, None), now)
        }
        // The triggers are the rule; the words come from the phase read above (either
        // trigger may fire first for a settled stop).
        Err(_) if refused_by_trigger && matches!(from.as_str(), "confirmed" | "uncertain") => {
            Err(LedgerError::RemoteStopSettled {
                op_id: op_id.into(),
                phase: from,
            })
        }
        Err(_) if refused_by_trigger => {
            let why = if from == "pending" && phase == RemotePhase::Confirmed {
                "a confirmation without a click needs the tab's evidence of what it saw, and the evidence given is empty or has no readable character"
            } else if from == phase.as_str() {
                "each phase is reported once"
            } else {
                "legal are pending → dispatched → confirmed or uncertain, and from pending uncertain, or confirmed with the tab's evidence"
            };
            Err(LedgerError::IllegalRemotePhase {
                op_id: op_id.into(),
                from,
                to: phase.as_str(),
                why,
            })
        }
        Err(e) => Err(e.into()),
    }
}

/// Settles an open remote stop as uncertain, by the owner (an expiry): nobody reported on
/// it in time. The trigger allows it from pending and from dispatched.
pub(crate) fn set_uncertain(tx: &Transaction, op_id: &str, why: &str, now: Millis) -> Result<()> {
    tx.execute(
        "UPDATE remote_stops SET phase = 'uncertain', updated_at = ?1, evidence = ?2 WHERE op_id = ?3",
        params![now, why, op_id],
    )?;
    Ok(())
}

/// The tab's evidence is a note on the send's trail: at most [`sends::MAX_NOTE_BYTES`].
fn bounded(evidence: Option<&str>) -> Result<()> {
    match evidence {
        Some(e) if e.len() > sends::MAX_NOTE_BYTES => Err(LedgerError::Invalid(format!(
            "the remote stop's evidence is {} bytes, over the limit of {} bytes: shorten it",
            e.len(),
            sends::MAX_NOTE_BYTES
        ))),
        _ => Ok(()),
    }
}
