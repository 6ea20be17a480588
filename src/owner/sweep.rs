//! The expiry sweep, scheduled for the next deadline that exists: it sleeps until the
//! earliest bound of what is in flight falls due ([`Ledger::next_expiry_at`]), and is
//! re-armed by every committed write (a commit can put something in flight, or take it
//! out). With nothing in flight it sleeps until the next commit — at most
//! [`MAX_SLEEP_MS`] — and wakes nothing. Deadlines and sleeps are both on the monotonic
//! clock ([`Ledger::custody_now_ms`]), so a wall clock set forward or back moves neither. While the
//! brake's reserve is missing (a full disk used it), it sweeps at least every
//! [`RESERVE_RETRY_MS`], since each sweep tries to make the reserve again.
//!
//! [`Ledger::next_expiry_at`]: crate::ledger::Ledger::next_expiry_at
//! [`Ledger::custody_now_ms`]: crate::ledger::Ledger::custody_now_ms

use crate::clock::Millis;
use crate::ledger::{Bounds, Writer};
use std::time::Duration;
use tokio::sync::watch;

/// The longest the sweep sleeps without a commit, in ms.
pub const MAX_SLEEP_MS: Millis = 60_000;
/// The longest the sweep sleeps while the brake's reserve is missing, in ms.
pub const RESERVE_RETRY_MS: Millis = 1_000;
/// How long the sweep waits before trying again after the ledger could not be read, in ms.
const RETRY_MS: Millis = 1_000;

/// How long to sleep before the next sweep, given the next deadline and now (both ms on
/// the ledger's custody clock): 0 when it is due, [`MAX_SLEEP_MS`] at most, and at most that when
/// nothing is in flight.
pub fn wait_for(next: Option<Millis>, now: Millis) -> Duration {
    let ms = next.map_or(MAX_SLEEP_MS, |at| (at - now).clamp(0, MAX_SLEEP_MS));
    Duration::from_millis(ms as u64)
}

/// Runs until `stop` turns true.
pub(super) async fn run(ledger: Writer, bounds: Bounds, mut stop: watch::Receiver<bool>) {
    let mut writes = ledger.watch_writes();
    loop {
        writes.borrow_and_update();
        let (next, now, reserve) = ledger
            .call(move |l| {
                (
                    l.next_expiry_at(&bounds),
                    l.custody_now_ms(),
                    l.reserve_held(),
                )
            })
            .await;
        let wait = match next {
            Ok(next) if reserve => wait_for(next, now),
            Ok(next) => wait_for(next, now).min(Duration::from_millis(RESERVE_RETRY_MS as u64)),
            Err(e) => {
                tracing::warn!(error = %e, "expiry sweep cannot read the next deadline");
                Duration::from_millis(RETRY_MS as u64)
            }
        };
        if !wait.is_zero() {
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                changed = writes.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    continue;
                }
                _ = stop.changed() => return,
            }
        }
        if !expire(&ledger, bounds).await {
            // Due by the deadline yet nothing expired (a clock between two ms): do not spin.
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(10)) => {}
                _ = stop.changed() => return,
            }
        }
    }
}

/// Applies the bounds once; whether anything expired.
async fn expire(ledger: &Writer, bounds: Bounds) -> bool {
    match ledger.call(move |l| l.expire(&bounds)).await {
        Ok(x) if !x.is_empty() => {
            tracing::warn!(
                rejected = ?x.claims,
                uncertain = ?x.receipts,
                answer_not_observed = ?x.answers,
                remote_stops_uncertain = ?x.remote_stops,
                leases_ended = ?x.leases,
                artifacts_unavailable = ?x.artifacts,
                "expiry: claims failed (nothing clicked), dispatches with no receipt now uncertain (a person decides), remote stops nobody reported on now uncertain, leases of tabs that stopped answering ended, generated files no tab fetched within 15 minutes unavailable"
            );
            // An artifact's end writes no audit event: wake what waits on it.
            ledger.poke();
            true
        }
        Ok(_) => false,
        Err(e) => {
            tracing::warn!(error = %e, "expiry sweep failed");
            false
        }
    }
}
