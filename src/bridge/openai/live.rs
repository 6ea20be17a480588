//! The live feed of answers as the page streams them: what the observations showed of a
//! granted send's answer so far, and how the page's stream ended. In memory only (a
//! broadcast, lost at a restart): it is not custody — the ledger's completion is what a
//! client's answer rests on; the feed only lets a streamed answer arrive as it is typed.

use crate::provider::chatgpt::TurnOutcome;
use std::sync::Arc;
use tokio::sync::broadcast;

/// Events kept for a slow subscriber; one that lags skips ahead (texts are cumulative).
const CAPACITY: usize = 1024;

/// One event of the live feed.
#[derive(Debug, Clone)]
pub(crate) enum Live {
    /// The answer of `op_id` so far (cumulative text) and the page's model slug.
    Text {
        op_id: Arc<str>,
        text: Arc<str>,
        model: Option<Arc<str>>,
    },
    /// The page's stream for `op_id` ended: whether the page refused the turn (its error,
    /// or moderation), and the outcome in words (`answered`, `no answer yet`,
    /// `blocked`, `error: …`; never message text).
    Ended {
        op_id: Arc<str>,
        refused: bool,
        outcome: Arc<str>,
    },
}

impl Live {
    /// The send it is about.
    pub(crate) fn op_id(&self) -> &str {
        match self {
            Live::Text { op_id, .. } | Live::Ended { op_id, .. } => op_id,
        }
    }
}

/// The feed's sender, shared by the bridge.
pub(crate) struct LiveFeed(broadcast::Sender<Live>);

impl Default for LiveFeed {
    fn default() -> Self {
        Self(broadcast::channel(CAPACITY).0)
    }
}

impl LiveFeed {
    /// Publishes the answer of `op_id` so far (nobody listening is fine).
    pub(crate) fn publish_text(&self, op_id: &str, text: String, model: Option<String>) {
        let _ = self.0.send(Live::Text {
            op_id: op_id.into(),
            text: text.into(),
            model: model.map(Into::into),
        });
    }

    /// Publishes how the page's stream of `op_id` ended.
    pub(crate) fn publish_end(&self, op_id: &str, outcome: &TurnOutcome) {
        let refused = matches!(
            outcome,
            TurnOutcome::Error { .. } | TurnOutcome::Blocked { .. }
        );
        let _ = self.0.send(Live::Ended {
            op_id: op_id.into(),
            refused,
            outcome: outcome.to_string().into(),
        });
    }

    /// Every event from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Live> {
        self.0.subscribe()
    }
}
