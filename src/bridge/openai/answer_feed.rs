//! The live feed of answers as the page streams them: what the observations showed of a
//! granted send's answer so far. In memory only (a broadcast, lost at a restart): it is
//! not custody — the ledger's completion (or its page_error, or uncertain) is what a
//! client's answer rests on; the feed only lets a streamed answer arrive as it is typed.
//! How the page's stream ended is deliberately not on it: an error before the receipt
//! leaves the send uncertain, and a door must not say "sent once" before the ledger does.

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
}

impl Live {
    /// The send it is about.
    pub(crate) fn op_id(&self) -> &str {
        match self {
            Live::Text { op_id, .. } => op_id,
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

    /// Every event from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Live> {
        self.0.subscribe()
    }
}
