//! The owner's acts on an answer's artifacts ([`Ledger`] methods over `artifacts`): the
//! answer recorded with them, their bytes recorded once stored, their end.

use super::artifacts::{self, Artifact, WantedArtifact};
use super::error::Result;
use super::handle::Ledger;
use super::record::Send;
use super::sends;
use crate::attachments::{AnswerArtifact, Attachment};

impl Ledger {
    /// Records the final answer (accepted → completed) and, in the same transaction, the
    /// artifacts it carried (`wanted`; at most 10, the rest named in a note). Completing
    /// again with the same answer changes nothing.
    pub fn complete_with_artifacts(
        &mut self,
        op_id: &str,
        (message_id, text): (&str, &str),
        found: &[AnswerArtifact],
        actor: &str,
    ) -> Result<Send> {
        self.write(|tx, now| {
            let send = sends::complete(tx, op_id, message_id, text, actor, now)?;
            artifacts::record_for_answer(tx, op_id, found, now)?;
            Ok(send)
        })
    }

    /// Whether `lease_id` was ever taken (ended is fine: an artifact outlives its send's
    /// lease), read without a write. Errors: `UnknownLease`.
    pub fn lease_known(&self, lease_id: &str) -> Result<()> {
        let known = self
            .conn
            .prepare_cached("SELECT 1 FROM leases WHERE lease_id = ?1")?
            .exists([lease_id])?;
        if known {
            Ok(())
        } else {
            Err(super::LedgerError::UnknownLease(lease_id.into()))
        }
    }

    /// Artifact `n` of `op_id`. Errors: `UnknownArtifact`.
    pub fn artifact(&self, op_id: &str, n: u32) -> Result<Artifact> {
        artifacts::get(&self.conn, op_id, n)
    }

    /// The artifacts still wanted, oldest first, at most `limit`; only those of
    /// `conversation` when one is named.
    pub fn wanted_artifacts(
        &self,
        limit: u32,
        conversation: Option<&str>,
    ) -> Result<Vec<WantedArtifact>> {
        artifacts::wanted(&self.conn, limit, conversation)
    }

    /// Whether bytes at `sha` may be stored for artifact `n` of `op_id` (`Ok(None)`: it is
    /// wanted; `Ok(Some)`: stored with these bytes already). Errors: `UnknownArtifact`,
    /// `ArtifactSettled`.
    pub fn artifact_admits(&self, op_id: &str, n: u32, sha: &str) -> Result<Option<Artifact>> {
        artifacts::admits(&self.conn, op_id, n, sha)
    }

    /// Records the stored bytes of artifact `n` of `op_id`: (the artifact, stored now).
    pub fn store_artifact(
        &mut self,
        op_id: &str,
        n: u32,
        file: &Attachment,
    ) -> Result<(Artifact, bool)> {
        self.write(|tx, now| artifacts::store(tx, op_id, n, file, now))
    }

    /// Artifact `n` of `op_id` could not be fetched (`words`: 1 to 500 characters);
    /// `false` when it was unavailable already.
    pub fn artifact_unavailable(&mut self, op_id: &str, n: u32, words: &str) -> Result<bool> {
        self.write(|tx, now| artifacts::give_up(tx, op_id, n, words, now))
    }
}
