//! How the attachment store stays small for months: the bytes of a file no send needs any
//! more are deleted, its record (name, MIME type, size, SHA-256) kept in the ledger. A file
//! is no longer needed once it was uploaded more than [`KEEP_MS`] ago and every send
//! carrying it ended (completed, rejected, stopped, page error, confirmed, abandoned) more
//! than [`KEEP_MS`] ago; a send still queued, in flight or uncertain keeps its files (a
//! person may queue an uncertain send again). The ledger marks the bytes deleted first,
//! then the file goes: a send naming that file afterwards is refused (`unknown_attachment`,
//! "upload the file again"). Run at the owner's start and every [`EVERY_MS`], after
//! retention's bounded passes (issue 39: settled sends older than the chosen number of
//! days, with the files only they used; off by default).

use crate::attachments::Store;
use crate::clock::Millis;
use crate::ledger::{Ledger, LedgerError, Pruned, Writer, PRUNE_BATCH};
use std::time::Duration;
use tokio::sync::watch;

/// How long a finished send's files are kept, in ms (30 days).
pub const KEEP_MS: Millis = 30 * 24 * 3600 * 1000;
/// How often the upkeep runs, in ms (6 hours).
pub const EVERY_MS: u64 = 6 * 3600 * 1000;

/// How many files one upkeep pass deletes at most (marked in one commit, then removed): a
/// pass holds the owner's writer, so it stays short (issue 39: 4,700 files in one pass, a
/// commit each, held it 33 s).
pub const SWEEP_BATCH: usize = 100;

/// Deletes the bytes no send needs any more (older than `keep_ms`), at most
/// [`SWEEP_BATCH`] files; returns their addresses (fewer than the batch: nothing is
/// left). Errors: the ledger's; a file the store cannot delete stays marked deleted and
/// is counted in the store's bound until it goes.
pub fn sweep_once(
    ledger: &mut Ledger,
    store: &Store,
    keep_ms: Millis,
) -> Result<Vec<String>, LedgerError> {
    let mut unneeded = ledger.attachments_unneeded(keep_ms)?;
    unneeded.truncate(SWEEP_BATCH);
    ledger.mark_attachments_deleted(&unneeded)?;
    for sha in &unneeded {
        if let Err(e) = store.remove(sha) {
            tracing::warn!(sha256 = %sha, error = %e, "an attachment's bytes could not be deleted");
        }
    }
    Ok(unneeded)
}

/// One bounded retention pass (issue 39; nothing while retention is off): at most
/// [`PRUNE_BATCH`] settled sends pruned in one committed transaction, then the bytes of
/// the files whose records went. A file the store cannot delete is said in the log.
pub fn prune_once(ledger: &mut Ledger, store: &Store) -> Result<Pruned, LedgerError> {
    let pruned = ledger.prune_retention(PRUNE_BATCH)?;
    for sha in &pruned.files {
        if let Err(e) = store.remove(sha) {
            tracing::warn!(sha256 = %sha, error = %e, "a pruned file's bytes could not be deleted");
        }
    }
    Ok(pruned)
}

/// Retention's passes, one ledger call each (the writer is free between them), until a
/// pass finds less than a full batch or `stop` turns true.
async fn prune_all(ledger: &Writer, store: &Store, stop: &watch::Receiver<bool>) {
    let mut sends = 0;
    loop {
        let s = store.clone();
        match ledger.call(move |l| prune_once(l, &s)).await {
            Ok(p) => {
                sends += p.sends;
                if !p.more || *stop.borrow() {
                    break;
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "the retention upkeep could not run");
                break;
            }
        }
        tokio::task::yield_now().await;
    }
    if sends > 0 {
        tracing::info!(sends, "settled sends older than the retention were pruned");
    }
}

/// The attachment sweep's passes, one ledger call each, until one is not full or `stop`
/// turns true.
async fn sweep_all(ledger: &Writer, store: &Store, stop: &watch::Receiver<bool>) {
    let mut files = 0;
    loop {
        let s = store.clone();
        match ledger.call(move |l| sweep_once(l, &s, KEEP_MS)).await {
            Ok(gone) => {
                files += gone.len();
                if gone.len() < SWEEP_BATCH || *stop.borrow() {
                    break;
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "the attachment upkeep could not run");
                break;
            }
        }
        tokio::task::yield_now().await;
    }
    if files > 0 {
        tracing::info!(files, "attachment bytes no send needs were deleted");
    }
}

/// The owner's upkeep loop: a sweep now, then every [`EVERY_MS`], until `stop` turns true.
pub async fn run(ledger: Writer, store: Store, mut stop: watch::Receiver<bool>) {
    loop {
        prune_all(&ledger, &store, &stop).await;
        sweep_all(&ledger, &store, &stop).await;
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(EVERY_MS)) => {}
            _ = stop.changed() => return,
        }
    }
}
