//! Bindings, epochs, leases and the Stop fence (DESIGN.md, "Stop: a fenced epoch").
//!
//! A binding is (generation, lease, tab, conversation, thread, workspace). Its canonical
//! encoding is the compact JSON array
//! `["sendledger.binding.v1", generation, lease, tab, conversation, thread, workspace]`:
//! fields in that order, strings escaped as serde_json writes them (RFC 8259, no
//! whitespace), an absent field written as `null`, generation an integer. The epoch is
//! the lowercase hex SHA-256 of those UTF-8 bytes.
//!
//! A send queued while no leased tab fits it is admitted under the *unbound* epoch of
//! the current generation: the binding with every field but the generation absent.
//! Resume increments the generation, so no epoch a Stop fenced is ever current again.

use super::error::{LedgerError, Result};
use super::rows::cached_row;
use crate::clock::Millis;
use rusqlite::{params, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// How many stopped epochs are kept at least (older ones go once their lease ended).
pub const STOPPED_EPOCHS_KEPT: i64 = 1_000;

/// What the extension says about the tab it wants to bind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabBinding {
    /// The browser's tab id, as a string.
    pub tab_id: String,
    /// Conversation id from the tab's URL; `None` for a new chat.
    #[serde(default)]
    pub conversation_id: Option<String>,
    /// Thread (project or branch) id when the page shows one.
    #[serde(default)]
    pub thread_id: Option<String>,
    /// Workspace id when the page shows one.
    #[serde(default)]
    pub workspace_id: Option<String>,
    /// The chat site the tab shows (absent: chatgpt.com). The lease claims only this
    /// site's sends. Not part of the canonical binding: the lease id already makes each
    /// lease's epoch its own.
    #[serde(default)]
    pub site: crate::site::Site,
}

/// A lease: the extension's binding to one tab, and its epoch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    /// Opaque lease id (UUID v4).
    pub lease_id: String,
    /// The tab binding.
    pub binding: TabBinding,
    /// Generation at lease time.
    pub generation: i64,
    /// Lowercase hex SHA-256 of the canonical binding.
    pub epoch: String,
    /// When it was taken.
    pub created_at: Millis,
    /// When it ended, if it did.
    pub ended_at: Option<Millis>,
}

/// The canonical encoding of a binding (see the module docs).
pub fn canonical_binding(
    generation: i64,
    lease_id: Option<&str>,
    binding: Option<&TabBinding>,
) -> String {
    let b = binding.cloned().unwrap_or_default();
    let tab = binding.map(|b| b.tab_id.as_str());
    serde_json::to_string(&(
        "sendledger.binding.v1",
        generation,
        lease_id,
        tab,
        b.conversation_id,
        b.thread_id,
        b.workspace_id,
    ))
    .expect("a tuple of strings and integers serialises")
}

/// Lowercase hex SHA-256 of `canonical`.
pub fn epoch_of(canonical: &str) -> String {
    format!("{:x}", Sha256::digest(canonical.as_bytes()))
}

/// The epoch of sends queued while no leased tab fits them.
pub fn unbound_epoch(generation: i64) -> String {
    epoch_of(&canonical_binding(generation, None, None))
}

pub(crate) fn gate(tx: &Transaction) -> rusqlite::Result<(bool, i64)> {
    cached_row(
        tx,
        "SELECT closed, generation FROM gate WHERE id = 1",
        [],
        |r| Ok((r.get::<_, i64>(0)? == 1, r.get(1)?)),
    )
}

pub(crate) fn is_stopped(tx: &Transaction, epoch: &str) -> rusqlite::Result<bool> {
    cached_row(
        tx,
        "SELECT EXISTS (SELECT 1 FROM stopped_epochs WHERE epoch = ?1)",
        [epoch],
        |r| r.get(0),
    )
}

/// The epoch a new send for `conversation_id` is admitted under: the newest active lease
/// that fits it (same conversation, or any lease when the send names none), else unbound.
pub(crate) fn admission_epoch(
    tx: &Transaction,
    generation: i64,
    (site, conversation_id): (crate::site::Site, Option<&str>),
) -> rusqlite::Result<String> {
    let leased: Option<String> = cached_row(
        tx,
        "SELECT epoch FROM leases WHERE ended_at IS NULL AND generation = ?1 AND site = ?3 \
             AND (?2 IS NULL OR conversation_id = ?2) ORDER BY created_at DESC, rowid DESC LIMIT 1",
        params![generation, conversation_id, site],
        |r| r.get(0),
    )
    .optional()?;
    Ok(leased.unwrap_or_else(|| unbound_epoch(generation)))
}

pub(crate) fn get_lease(tx: &Transaction, lease_id: &str) -> Result<Lease> {
    cached_row(
        tx,
        "SELECT lease_id, tab_id, conversation_id, thread_id, workspace_id, generation, epoch, created_at, ended_at, site \
         FROM leases WHERE lease_id = ?1",
        [lease_id],
        |r| {
            Ok(Lease {
                lease_id: r.get(0)?,
                binding: TabBinding {
                    tab_id: r.get(1)?,
                    conversation_id: r.get(2)?,
                    thread_id: r.get(3)?,
                    workspace_id: r.get(4)?,
                    site: r.get(9)?,
                },
                generation: r.get(5)?,
                epoch: r.get(6)?,
                created_at: r.get(7)?,
                ended_at: r.get(8)?,
            })
        },
    )
    .optional()?
    .ok_or_else(|| LedgerError::UnknownLease(lease_id.into()))
}

/// Checks that a lease may work: it exists, has not ended, the gate is open and its
/// epoch is not fenced.
pub(crate) fn usable_lease(tx: &Transaction, lease_id: &str) -> Result<Lease> {
    let lease = get_lease(tx, lease_id)?;
    if lease.ended_at.is_some() {
        return Err(LedgerError::LeaseEnded(lease_id.into()));
    }
    let (closed, _) = gate(tx)?;
    if closed || is_stopped(tx, &lease.epoch)? {
        return Err(LedgerError::EpochStopped);
    }
    Ok(lease)
}

/// Records the current epochs as stopped and closes the gate. Returns the epochs fenced.
pub(crate) fn fence(tx: &Transaction, by: &str, now: Millis) -> Result<Vec<String>> {
    let (_, generation) = gate(tx)?;
    let mut fenced = vec![unbound_epoch(generation)];
    tx.execute(
        "INSERT OR IGNORE INTO stopped_epochs(epoch, lease_id, generation, stopped_at, stopped_by) \
         VALUES (?1, NULL, ?2, ?3, ?4)",
        params![fenced[0], generation, now, by],
    )?;
    let mut stmt = tx.prepare(
        "SELECT lease_id, epoch, generation FROM leases WHERE ended_at IS NULL ORDER BY rowid",
    )?;
    let active: Vec<(String, String, i64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (lease_id, epoch, g) in active {
        tx.execute(
            "INSERT OR IGNORE INTO stopped_epochs(epoch, lease_id, generation, stopped_at, stopped_by) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![epoch, lease_id, g, now, by],
        )?;
        fenced.push(epoch);
    }
    tx.execute(
        "UPDATE gate SET closed = 1, changed_at = ?1, changed_by = ?2 WHERE id = 1",
        params![now, by],
    )?;
    tx.execute(
        "INSERT INTO gate_events(action, at, by, generation) VALUES ('stop', ?1, ?2, ?3)",
        params![now, by, generation],
    )?;
    prune(tx)?;
    Ok(fenced)
}

/// Keeps the newest [`STOPPED_EPOCHS_KEPT`] stopped epochs; deletes older ones only when
/// nothing can be admitted under them any more (lease ended, or an unbound epoch of a
/// past generation). The `stopped_epochs_pruned_only_when_dead` trigger enforces it too.
pub(crate) fn prune(tx: &Transaction) -> rusqlite::Result<usize> {
    tx.execute(
        "DELETE FROM stopped_epochs WHERE seq IN ( \
           SELECT s.seq FROM stopped_epochs s LEFT JOIN leases l ON l.lease_id = s.lease_id \
           WHERE s.seq NOT IN (SELECT seq FROM stopped_epochs ORDER BY seq DESC LIMIT ?1) \
             AND ((s.lease_id IS NOT NULL AND l.ended_at IS NOT NULL) \
               OR (s.lease_id IS NULL AND s.generation < (SELECT generation FROM gate WHERE id = 1))))",
        [STOPPED_EPOCHS_KEPT],
    )
}

/// Opens the gate: a new generation, and every lease of the old one ended.
/// Returns `false` when the gate was already open (nothing written).
pub(crate) fn resume(tx: &Transaction, by: &str, now: Millis) -> Result<bool> {
    let (closed, generation) = gate(tx)?;
    if !closed {
        return Ok(false);
    }
    tx.execute(
        "UPDATE leases SET ended_at = ?1, ended_reason = 'resumed: lease the tab again' WHERE ended_at IS NULL",
        [now],
    )?;
    tx.execute(
        "UPDATE gate SET closed = 0, generation = ?1, changed_at = ?2, changed_by = ?3 WHERE id = 1",
        params![generation + 1, now, by],
    )?;
    tx.execute(
        "INSERT INTO gate_events(action, at, by, generation) VALUES ('resume', ?1, ?2, ?3)",
        params![now, by, generation + 1],
    )?;
    prune(tx)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_binding_is_the_documented_json_array() {
        let b = TabBinding {
            tab_id: "7".into(),
            conversation_id: Some("c\"1".into()),
            thread_id: None,
            workspace_id: Some("w".into()),
            site: Default::default(),
        };
        assert_eq!(
            canonical_binding(3, Some("L"), Some(&b)),
            r#"["sendledger.binding.v1",3,"L","7","c\"1",null,"w"]"#,
            "field order, escaping and absent fields are part of the epoch's definition"
        );
        assert_eq!(
            canonical_binding(0, None, None),
            r#"["sendledger.binding.v1",0,null,null,null,null,null]"#
        );
    }

    #[test]
    fn epoch_is_lowercase_hex_sha256_and_changes_with_generation() {
        let e = unbound_epoch(0);
        assert_eq!(e.len(), 64);
        assert!(e
            .bytes()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)));
        assert_eq!(
            epoch_of(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_ne!(
            unbound_epoch(0),
            unbound_epoch(1),
            "resume makes a new unbound epoch"
        );
    }
}
