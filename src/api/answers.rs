//! Typed answers of the bridge's routes that its clients read back: the live queue
//! feed's messages and a pairing code. The bridge writes them, `client` reads them.

use super::queue::{QueueStatus, QueueView, Row};
use crate::clock::Millis;
use serde::{Deserialize, Serialize};

/// A one-time pairing code, shown to a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairingCode {
    /// `XXXX-XXXX`, unambiguous letters and digits.
    pub code: String,
    /// When it stops working (ms).
    pub expires_at: Millis,
}

/// One message of the feed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum QueueUpdate {
    /// The whole queue (first, and after the reader fell behind).
    Snapshot(QueueView),
    /// What a burst of commits changed.
    Changed {
        /// Counts and gate after the burst.
        status: QueueStatus,
        /// The rows whose audit trail grew (and the sends they queue again).
        rows: Vec<Row>,
    },
}

#[derive(Deserialize)]
struct ChangedData {
    status: QueueStatus,
    rows: Vec<Row>,
}

impl QueueUpdate {
    /// Reads one feed event: `Some` for `snapshot` and `changed`, `None` for any other name.
    pub fn decode(event: &str, data: &str) -> Option<Result<QueueUpdate, serde_json::Error>> {
        Some(match event {
            "snapshot" => serde_json::from_str(data).map(QueueUpdate::Snapshot),
            "changed" => serde_json::from_str::<ChangedData>(data).map(|c| QueueUpdate::Changed {
                status: c.status,
                rows: c.rows,
            }),
            _ => return None,
        })
    }
}

impl QueueUpdate {
    /// The feed's event name of this message.
    pub fn event_name(&self) -> &'static str {
        match self {
            QueueUpdate::Snapshot(_) => "snapshot",
            QueueUpdate::Changed { .. } => "changed",
        }
    }
}
