//! Waiting for a send to settle, woken by the owner's committed audit events (no polling
//! loop), with the live feed's answer text on the way. Bounded by [`MAX_WAIT`], and ended
//! by the owner's shutdown — each with a no-retry error naming the send.
//!
//! Not `Writer::wait_for_change`: that wakes on a change of *state*, and the door must also
//! wake on notes within one (an accepted send whose answer is no longer awaited stays
//! `accepted`) and on the live feed; the audit-event broadcast carries both kinds.

use super::error::OpenAiError;
use super::live::Live;
use super::outcome::{self, Outcome};
use crate::bridge::BridgeState;
use crate::ledger::{Event, LedgerError, Send};
use axum::http::StatusCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::time::Instant;

/// Longest a request waits for its send to settle (30 min).
pub(crate) const MAX_WAIT: Duration = Duration::from_secs(30 * 60);

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
    checked: bool,
}

impl Waiter {
    /// Subscribes before the first read, so no commit falls between.
    pub(crate) fn new(st: &BridgeState, op_id: &str) -> Self {
        Self {
            st: st.clone(),
            op_id: op_id.to_string(),
            events: st.ledger().subscribe(),
            live: st.live().subscribe(),
            deadline: Instant::now() + MAX_WAIT,
            checked: false,
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

    async fn check(&self) -> Option<Step> {
        let id = self.op_id.clone();
        let read = self
            .st
            .ledger()
            .call(move |l| l.get(&id)?.ok_or(LedgerError::UnknownSend(id)))
            .await;
        match read {
            Ok(send) => match outcome::of(&send) {
                Outcome::Pending => None,
                o => Some(Step::Settled(o, Some(Box::new(send)))),
            },
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
                    Ok(Live::Ended { refused, outcome, .. }) => {
                        if refused {
                            return self.fail("page_error", format!(
                                "the page answered send {} with an error ({outcome}): it was sent once; do not retry, read the tab", self.op_id));
                        }
                    }
                    Err(_) => {}
                },
                _ = tokio::time::sleep_until(self.deadline) => {
                    return self.fail("still_pending", format!(
                        "send {} has not settled within {} min: do not retry; follow it in sendledger (`sendledger show {}`)",
                        self.op_id, MAX_WAIT.as_secs() / 60, self.op_id));
                }
                _ = &mut closing => return self.fail("owner_stopping", self.stopping()),
            }
        }
    }

    fn stopping(&self) -> String {
        format!("the sendledger owner is shutting down while send {} is in flight: do not retry; look at it in sendledger once it runs again", self.op_id)
    }
}
