//! Progress notifications while a tool call waits: when the client sent a progress token,
//! the wait is cut into [`SLICE_MS`] slices and each ends with a notification (seconds
//! waited, out of the bound; the send's state), so clients that extend their own timeout
//! on progress keep waiting. No message text is ever put in one.

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer};
use std::time::{Duration, Instant};

/// The wait between two notifications, in ms.
pub const SLICE_MS: u64 = 15_000;

/// Where progress goes, if the client asked for it.
pub struct Progress {
    to: Option<(Peer<RoleServer>, ProgressToken)>,
    started: Instant,
    total: Duration,
}

impl Progress {
    /// For the call of `ctx`, which waits up to `total`.
    pub fn of(ctx: &RequestContext<RoleServer>, total: Duration) -> Self {
        Self {
            to: ctx.meta.get_progress_token().map(|t| (ctx.peer.clone(), t)),
            started: Instant::now(),
            total,
        }
    }

    /// The longest slice to wait before the next notification, in ms.
    pub fn slice_ms(&self, max: u64) -> u64 {
        if self.to.is_some() {
            max.min(SLICE_MS)
        } else {
            max
        }
    }

    /// Tells the client the send is still `state` (a lost notification is no failure).
    pub async fn still(&self, state: &str) {
        let Some((peer, token)) = &self.to else {
            return;
        };
        let note =
            ProgressNotificationParam::new(token.clone(), self.started.elapsed().as_secs_f64())
                .with_total(self.total.as_secs_f64())
                .with_message(format!("the send is {state}"));
        let _ = peer.notify_progress(note).await;
    }
}
