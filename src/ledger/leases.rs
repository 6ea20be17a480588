//! Taking and ending a tab's lease: the acts on the `leases` table that touch sends (a
//! new lease ends the tab's old one; an ended lease's claims are rejected at once).
//! Epochs, the gate and the fence are the `epochs` module's.

use super::epochs::{canonical_binding, epoch_of, gate, get_lease, Lease, TabBinding};
use super::error::{LedgerError, Result};
use super::sends;
use crate::clock::Millis;
use rusqlite::{params, Transaction};

pub(crate) fn lease(tx: &Transaction, binding: &TabBinding, now: Millis) -> Result<Lease> {
    let (closed, generation) = gate(tx)?;
    if closed {
        return Err(LedgerError::EpochStopped);
    }
    if binding.tab_id.is_empty() || binding.tab_id.len() > 128 {
        return Err(LedgerError::Invalid(
            "tab_id must be 1 to 128 characters".into(),
        ));
    }
    sends::validate_page_id("conversation id", binding.conversation_id.as_deref())?;
    sends::validate_page_id("thread id", binding.thread_id.as_deref())?;
    sends::validate_page_id("workspace id", binding.workspace_id.as_deref())?;
    // A tab holds one lease: a new one ends the old (and frees what the old one claimed).
    let mut stmt =
        tx.prepare_cached("SELECT lease_id FROM leases WHERE tab_id = ?1 AND ended_at IS NULL")?;
    let old: Vec<String> = stmt
        .query_map([&binding.tab_id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    drop(stmt);
    // A claim that fits the new binding (names no conversation, or the one the tab now
    // shows) is spared: `sends::move_claims_to` hands it to the new lease.
    let fits = Some((binding.site, binding.conversation_id.as_deref()));
    for lease_id in old {
        end_lease_sparing(tx, &lease_id, "the tab leased again", now, fits)?;
    }
    let lease_id = uuid::Uuid::new_v4().to_string();
    let epoch = epoch_of(&canonical_binding(
        generation,
        Some(&lease_id),
        Some(binding),
    ));
    tx.execute(
        "INSERT INTO leases(lease_id, tab_id, conversation_id, thread_id, workspace_id, generation, epoch, created_at, site) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![lease_id, binding.tab_id, binding.conversation_id, binding.thread_id, binding.workspace_id, generation, epoch, now, binding.site],
    )?;
    Ok(Lease {
        lease_id,
        binding: binding.clone(),
        generation,
        epoch,
        created_at: now,
        ended_at: None,
    })
}

/// Longest lease-end reason kept in a released send's evidence, in bytes.
const MAX_REASON_IN_EVIDENCE: usize = 256;

/// Ends a lease, and rejects at once every send it had claimed: once the lease ended no
/// dispatch grant can be asked under it ([`usable_lease`]), so nothing was clicked, and
/// the send must not hold the one-at-a-time slot until its claim expires. Returns the
/// sends rejected.
pub(crate) fn end_lease(
    tx: &Transaction,
    lease_id: &str,
    reason: &str,
    now: Millis,
) -> Result<Vec<String>> {
    end_lease_sparing(tx, lease_id, reason, now, None)
}

/// [`end_lease`], sparing claims that fit `spare` (`Some((site, conversation))`: that
/// site's sends naming no conversation or that one), which the tab's next lease takes over.
fn end_lease_sparing(
    tx: &Transaction,
    lease_id: &str,
    reason: &str,
    now: Millis,
    spare: Option<(crate::site::Site, Option<&str>)>,
) -> Result<Vec<String>> {
    get_lease(tx, lease_id)?;
    tx.execute(
        "UPDATE leases SET ended_at = ?1, ended_reason = ?2 WHERE lease_id = ?3 AND ended_at IS NULL",
        params![now, reason, lease_id],
    )?;
    let mut stmt = tx.prepare_cached(
        "SELECT op_id FROM sends WHERE state = 'claimed' AND lease_id = ?1 \
         AND NOT (?2 AND site = ?4 AND (conversation_id IS NULL OR conversation_id IS ?3)) ORDER BY seq",
    )?;
    let (site, conversation) = spare.unzip();
    let params = params![lease_id, spare.is_some(), conversation.flatten(), site];
    let claimed: Vec<String> = stmt
        .query_map(params, |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    drop(stmt);
    let mut cut = reason.len().min(MAX_REASON_IN_EVIDENCE);
    while !reason.is_char_boundary(cut) {
        cut -= 1;
    }
    let why = format!(
        "{RELEASED_BEFORE_GRANT} ({}); queue it again if it is still wanted",
        &reason[..cut]
    );
    for op_id in &claimed {
        sends::fail(tx, op_id, &why, "owner", now)?;
    }
    Ok(claimed)
}

/// Evidence of a send rejected because the lease that claimed it ended.
pub const RELEASED_BEFORE_GRANT: &str =
    "the lease that claimed it ended before a dispatch grant was asked, so nothing was clicked";
