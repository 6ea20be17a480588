//! How the attachment store stays small for months: the bytes of a file no send needs any
//! more are deleted, its record (name, MIME type, size, SHA-256) kept in the ledger. A file
//! is no longer needed once it was uploaded more than [`KEEP_MS`] ago and every send
//! carrying it ended (completed, rejected, stopped, page error, confirmed, abandoned) more
//! than [`KEEP_MS`] ago; a send still queued, in flight or uncertain keeps its files (a
//! person may queue an uncertain send again). The ledger marks the bytes deleted first,
//! then the file goes: a send naming that file afterwards is refused (`unknown_attachment`,
//! "upload the file again"). Run at the owner's start and every [`EVERY_MS`].

use crate::attachments::Store;
use crate::clock::Millis;
use crate::ledger::{Ledger, LedgerError, Writer};
use std::time::Duration;
use tokio::sync::watch;

/// How long a finished send's files are kept, in ms (30 days).
pub const KEEP_MS: Millis = 30 * 24 * 3600 * 1000;
/// How often the upkeep runs, in ms (6 hours).
pub const EVERY_MS: u64 = 6 * 3600 * 1000;

/// Deletes the bytes no send needs any more (older than `keep_ms`); returns their
/// addresses. Errors: the ledger's; a file the store cannot delete stays marked deleted
/// and is counted in the store's bound until it goes.
pub fn sweep_once(
    ledger: &mut Ledger,
    store: &Store,
    keep_ms: Millis,
) -> Result<Vec<String>, LedgerError> {
    let unneeded = ledger.attachments_unneeded(keep_ms)?;
    for sha in &unneeded {
        ledger.mark_attachment_deleted(sha)?;
        if let Err(e) = store.remove(sha) {
            tracing::warn!(sha256 = %sha, error = %e, "an attachment's bytes could not be deleted");
        }
    }
    Ok(unneeded)
}

/// The owner's upkeep loop: a sweep now, then every [`EVERY_MS`], until `stop` turns true.
pub async fn run(ledger: Writer, store: Store, mut stop: watch::Receiver<bool>) {
    loop {
        let s = store.clone();
        match ledger.call(move |l| sweep_once(l, &s, KEEP_MS)).await {
            Ok(gone) if !gone.is_empty() => {
                tracing::info!(
                    files = gone.len(),
                    "attachment bytes no send needs were deleted"
                )
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "the attachment upkeep could not run"),
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(EVERY_MS)) => {}
            _ = stop.changed() => return,
        }
    }
}
