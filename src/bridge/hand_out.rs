//! What a tab's long-poll hands out, shared by the one-lease poll (`extension_routes.rs`)
//! and the poll for all an extension's tabs (`ext_poll.rs`): a claim with its destination
//! and files, re-delivered to its lease after a lost answer, and the long-poll itself.

use super::error::ApiError;
use super::BridgeState;
use crate::destination::Destination;
use crate::ledger::{LedgerError, LedgerRead, Send};
use serde_json::{json, Value};
use std::time::Duration;

/// Longest long-poll, in ms.
pub const MAX_WAIT_MS: u64 = 25_000;

/// A send handed to the tab: its text, where it goes, and its files
/// (`{sha256, name, mime, size}` each, in order; `[]` when none).
pub(super) type HandedOut = (
    Send,
    Option<Destination>,
    Vec<crate::attachments::Attachment>,
);

pub(super) fn handed((send, destination, files): &HandedOut) -> Value {
    json!({
        "op_id": send.op_id,
        "text": send.text,
        "conversation_id": send.conversation_id,
        "destination": destination,
        "attachments": files,
    })
}

/// The claim `take` gives, with its destination and files — after checking that each
/// file is in the store with its size: a send whose file is missing or damaged fails
/// before dispatch (nothing typed, nothing clicked) and the next claim is tried.
pub(super) fn take_with_files(
    l: &mut crate::ledger::Ledger,
    lease_id: &str,
    store: &crate::attachments::Store,
) -> Result<Option<HandedOut>, LedgerError> {
    loop {
        let Some(send) = take(l, lease_id)? else {
            return Ok(None);
        };
        let files: Vec<_> = l
            .attachments_of(&send.op_id)?
            .into_iter()
            .map(|a| a.file)
            .collect();
        let missing = files
            .iter()
            .find_map(|f| store.check_present(&f.sha256, f.size).err());
        if let Some(e) = missing {
            let why = format!("failed before dispatch: {e}; nothing was typed or clicked");
            l.fail(&send.op_id, &why, "owner")?;
            continue;
        }
        let destination = l.destination(&send.op_id)?;
        return Ok(Some((send, destination, files)));
    }
}

/// The send this lease already holds as claimed (re-delivered after a lost answer:
/// claimed means no grant was issued, so nothing was clicked), or a new claim.
fn take(l: &mut crate::ledger::Ledger, lease_id: &str) -> Result<Option<Send>, LedgerError> {
    l.hear_lease(lease_id);
    if l.get_lease(lease_id)?.ended_at.is_some() {
        return Err(LedgerError::LeaseEnded(lease_id.into()));
    }
    let held = l.claimed_by(lease_id)?;
    match held {
        Some(s) => Ok(Some(s)),
        None => l.claim_next(lease_id),
    }
}

/// A long-poll: runs `check` now and after every committed change until it says done,
/// the wait runs out or the owner shuts down; answers its last value.
pub(super) async fn long_poll<T, F, Fut>(
    st: &BridgeState,
    wait: Duration,
    mut check: F,
) -> Result<T, ApiError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<(T, bool), ApiError>>,
{
    let deadline = tokio::time::Instant::now() + wait;
    let changed = st.ledger().changed();
    loop {
        // Registered before the check, so a change committed during it is not missed.
        let notified = changed.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let (value, done) = check().await?;
        if done {
            return Ok(value);
        }
        tokio::select! {
            _ = notified => {}
            _ = tokio::time::sleep_until(deadline) => return Ok(value),
            _ = st.closing() => return Ok(value),
        }
    }
}
