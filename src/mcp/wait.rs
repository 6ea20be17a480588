//! Waiting for a send to settle, for as long as the caller allows: the owner's
//! `GET /v1/sends/{op_id}/wait?from=&timeout_ms=` in slices of at most
//! [`SLICE_MS`], each woken by the owner's own commits (no polling on a timer).

use super::outcome::{self, SendOutcome};
use super::progress::Progress;
use super::seen::{EventSeen, Looked, SendSeen};
use crate::client::routes::paths;
use crate::client::{ClientError, OwnerLink};
use std::time::{Duration, Instant};

/// The longest single wait asked of the owner, in ms (the route's own bound).
pub const SLICE_MS: u64 = 60_000;

/// The longest a tool call may wait for a send, in seconds.
pub const MAX_WAIT_SECONDS: u64 = 600;

/// `GET /v1/sends/{op_id}`: the send and its timeline as they are now.
pub async fn look_up(link: &OwnerLink, op_id: &str) -> Result<Looked, ClientError> {
    link.get(paths::send(op_id)).await
}

/// A send as the last answer showed it, and why the wait ended early, if it did.
#[derive(Debug, Clone)]
pub struct Settled {
    /// The owner's `Send`.
    pub send: SendSeen,
    /// The owner's `[Event]`.
    pub timeline: Vec<EventSeen>,
    /// Set when the owner stopped answering (or refused) before the send settled.
    pub interrupted: Option<ClientError>,
    /// The owner's `retry_after` for it (the page refused it with the account's limit).
    pub retry_after: Option<super::seen::RetryAfterSeen>,
}

impl Settled {
    /// The outcome, with the timeline when `with_timeline`. An interrupted wait keeps
    /// the last known status and says that the owner stopped answering.
    pub fn outcome(&self, with_timeline: bool) -> SendOutcome {
        let mut o = outcome::with_mismatch(
            outcome::of_send(&self.send, with_timeline.then_some(&self.timeline[..])),
            &self.timeline,
        );
        if let Some(hold) = self.retry_after {
            o = outcome::with_hold(o, hold);
        }
        if self.interrupted.is_some() && o.is_pending() {
            o.message = format!(
                "sendledger stopped answering while this send was {}. Do not send it again: call get_send with send_id once sendledger runs again (if it restarted after the click, the send is uncertain and the user decides).",
                o.state
            );
        }
        o
    }
}

/// Waits up to `wait` for `send` (the owner's `Send`) to leave the pending states,
/// telling `progress` after each slice. The wait ends early, with the last known send,
/// when the owner stops answering.
pub async fn settle(
    link: &OwnerLink,
    send: SendSeen,
    timeline: Vec<EventSeen>,
    wait: Duration,
    progress: &Progress,
) -> Settled {
    let deadline = Instant::now() + wait;
    let mut last = Settled {
        send,
        timeline,
        interrupted: None,
        retry_after: None,
    };
    loop {
        let now = Instant::now();
        if now >= deadline || !outcome::of_send(&last.send, None).is_pending() {
            return last;
        }
        let slice = progress.slice_ms((deadline - now).as_millis().min(SLICE_MS as u128) as u64);
        let path = paths::wait(&last.send.op_id, &last.send.state, slice);
        match link.get_held::<Looked>(path, slice).await {
            Ok(v) => {
                last.send = v.send;
                last.timeline = v.timeline;
                last.retry_after = v.retry_after;
                progress.still(&last.send.state).await;
            }
            Err(e) => {
                last.interrupted = Some(e);
                return last;
            }
        }
    }
}
