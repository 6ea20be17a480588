//! Waiting for a send to settle, woken by the owner's committed audit events (no polling
//! loop), with the live feed's answer text on the way. Bounded by [`MAX_WAIT`], and ended
//! by the owner's shutdown — each with a no-retry error naming the send.
//!
//! Not `Writer::wait_for_change`: that wakes on a change of *state*, and the door must also
//! wake on notes within one (an accepted send whose answer is no longer awaited stays
//! `accepted`) and on the live feed; the audit-event broadcast carries both kinds.

use super::answer_feed::Live;
use super::error::OpenAiError;
use super::outcome::{self, Outcome};
use crate::bridge::BridgeState;
use crate::ledger::LedgerRead;
use crate::ledger::{Event, LedgerError, Send};
use axum::http::StatusCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::time::Instant;

/// Longest a streamed request waits for its send to settle (30 min).
pub(crate) const MAX_WAIT: Duration = Duration::from_secs(30 * 60);
/// Longest a non-streamed request is held before it is answered `still_pending`, by
/// default (240 s: below the 300 s that Node's fetch waits for response headers, the
/// shortest header timeout of the clients companions use — past it, undici gives up
/// and the Vercel AI SDK retries).
pub(crate) const DEFAULT_HOLD: Duration = Duration::from_secs(240);
/// Environment variable that sets the hold, in ms (read once, at the first request;
/// 1 ms to 30 min). For tests that scale time, and for a companion whose client waits
/// longer for headers.
pub(crate) const HOLD_ENV: &str = "SENDLEDGER_OPENAI_HOLD_MS";

/// The hold of a non-streamed request: [`HOLD_ENV`] when set and valid, else
/// [`DEFAULT_HOLD`].
pub(crate) fn hold() -> Duration {
    static HOLD: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *HOLD.get_or_init(|| {
        let Ok(v) = std::env::var(HOLD_ENV) else {
            return DEFAULT_HOLD;
        };
        let set = v
            .trim()
            .parse::<u64>()
            .ok()
            .map(Duration::from_millis)
            .filter(|d| !d.is_zero() && *d <= MAX_WAIT);
        if set.is_none() {
            tracing::warn!(
                "{HOLD_ENV} must be a whole number of ms from 1 to {}: using the default hold of {} s",
                MAX_WAIT.as_millis(),
                DEFAULT_HOLD.as_secs()
            );
        }
        set.unwrap_or(DEFAULT_HOLD)
    })
}

/// One thing a waiter saw.
pub(crate) enum Step {
    /// The answer so far (cumulative) and the page's model slug.
    Text(Arc<str>, Option<Arc<str>>),
    /// Settled: answered or failed (never [`Outcome::Pending`]).
    Settled(Outcome, Option<Box<Send>>),
}

/// A wait on one send.
pub(crate) struct Waiter {
    st: BridgeState,
    op_id: String,
    events: broadcast::Receiver<Event>,
    live: broadcast::Receiver<Live>,
    deadline: Instant,
    /// Whether the deadline is a non-streamed request's hold (else [`MAX_WAIT`]).
    held: bool,
    checked: bool,
}

impl Waiter {
    /// A streamed request's wait, bounded by [`MAX_WAIT`]. Subscribes before the first
    /// read, so no commit falls between.
    pub(crate) fn new(st: &BridgeState, op_id: &str) -> Self {
        Self {
            st: st.clone(),
            op_id: op_id.to_string(),
            events: st.ledger().subscribe(),
            live: st.live().subscribe(),
            deadline: Instant::now() + MAX_WAIT,
            held: false,
            checked: false,
        }
    }

    /// A non-streamed request's wait, bounded by [`hold`]: past it the request is
    /// answered `still_pending`, naming the send and how to follow it.
    pub(crate) fn held(st: &BridgeState, op_id: &str) -> Self {
        Self {
            deadline: Instant::now() + hold(),
            held: true,
            ..Self::new(st, op_id)
        }
    }

    fn fail(&self, code: &'static str, msg: String) -> Step {
        Step::Settled(
            Outcome::Failed(OpenAiError::custody(
                StatusCode::FAILED_DEPENDENCY,
                code,
                &self.op_id,
                msg,
            )),
            None,
        )
    }

    /// The send as committed, followed to the newest copy a person queued again (a
    /// resend or a requeue answers for the send it replaced); `None` while pending.
    async fn check(&mut self) -> Option<Step> {
        let id = self.op_id.clone();
        let read = self
            .st
            .ledger()
            .call(move |l| {
                let newest = l.newest_copy(&id)?;
                let hold = l.retry_after(&newest)?;
                let send = l.get(&newest)?.ok_or(LedgerError::UnknownSend(newest))?;
                Ok::<_, LedgerError>((send, hold))
            })
            .await;
        match read {
            Ok((send, hold)) => {
                self.op_id.clone_from(&send.op_id);
                match outcome::of_held(&send, hold) {
                    Outcome::Pending => None,
                    o => Some(Step::Settled(o, Some(Box::new(send)))),
                }
            }
            Err(e) => Some(self.fail(
                "ledger_unreadable",
                format!("the ledger could not be read ({}): do not retry; look at send {} in sendledger", e.code(), self.op_id),
            )),
        }
    }

    /// The next step: text as the page streams it, or the settled outcome.
    pub(crate) async fn next(&mut self) -> Step {
        if !self.checked {
            self.checked = true;
            if let Some(s) = self.check().await {
                return s;
            }
        }
        let closing = self.st.closing();
        tokio::pin!(closing);
        loop {
            tokio::select! {
                e = self.events.recv() => match e {
                    Ok(e) if e.op_id != self.op_id => {}
                    Ok(_) | Err(RecvError::Lagged(_)) => {
                        if let Some(s) = self.check().await {
                            return s;
                        }
                    }
                    Err(RecvError::Closed) => return self.fail("owner_stopping", self.stopping()),
                },
                l = self.live.recv() => match l {
                    Ok(l) if l.op_id() != self.op_id => {}
                    Ok(Live::Text { text, model, .. }) => return Step::Text(text, model),
                    Err(_) => {}
                },
                _ = tokio::time::sleep_until(self.deadline) => {
                    return self.fail("still_pending", self.still_pending());
                }
                _ = &mut closing => return self.fail("owner_stopping", self.stopping()),
            }
        }
    }

    fn still_pending(&self) -> String {
        let op = &self.op_id;
        if self.held {
            let s = format!("{:.1}", hold().as_secs_f64());
            return format!(
                "send {op} has not been answered after {s} s (it is on its way in the chat tab: one send, never two); do not send it as a new request. To wait for its answer, send this same request again (it attaches to send {op}), or read GET /v1/responses/resp_{op}, or follow it in sendledger (`sendledger show {op}`)"
            );
        }
        format!(
            "send {op} has not settled within {} min: do not retry; follow it in sendledger (`sendledger show {op}`)",
            MAX_WAIT.as_secs() / 60
        )
    }

    fn stopping(&self) -> String {
        format!("the sendledger owner is shutting down while send {} is in flight: do not retry; look at it in sendledger once it runs again", self.op_id)
    }
}
