//! The reading end of `GET /v1/queue/feed` (the bridge's `queue_feed`): a blocking
//! iterator of [`QueueUpdate`]s over the server-sent-events body. Only the two event names
//! the feed sends are read; comments (keep-alives) and unknown events are skipped. A
//! message over [`MAX_MESSAGE_BYTES`] ends the feed with an error instead of growing.

use super::ClientError;
use crate::api::answers::QueueUpdate;
use std::io::{BufRead, BufReader, Read};

/// Largest `data` of one event read, in bytes (a whole queue view: 16 MiB).
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// Updates as the owner commits them. Ends (`None`) when the owner closes the stream.
pub struct QueueFeed {
    body: BufReader<Box<dyn Read + Send + Sync>>,
}

impl QueueFeed {
    /// Reads server-sent events from `body`.
    pub fn new(body: Box<dyn Read + Send + Sync>) -> QueueFeed {
        QueueFeed {
            body: BufReader::new(body),
        }
    }

    /// The next event as `(name, data)`; `None` at the end of the stream.
    fn next_event(&mut self) -> Result<Option<(String, String)>, String> {
        let (mut name, mut data) = (String::new(), String::new());
        let mut line = String::new();
        loop {
            line.clear();
            let read = (&mut self.body)
                .take(MAX_MESSAGE_BYTES as u64 + 1)
                .read_line(&mut line)
                .map_err(|e| e.to_string())?;
            if read == 0 {
                return Ok(None);
            }
            if data.len() + line.len() > MAX_MESSAGE_BYTES {
                return Err(format!("an update over {MAX_MESSAGE_BYTES} bytes"));
            }
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                if !data.is_empty() {
                    return Ok(Some((std::mem::take(&mut name), std::mem::take(&mut data))));
                }
                continue;
            }
            if let Some(v) = line.strip_prefix("event:") {
                name = v.trim_start().to_string();
            } else if let Some(v) = line.strip_prefix("data:") {
                if !data.is_empty() {
                    data.push('\n');
                }
                data.push_str(v.strip_prefix(' ').unwrap_or(v));
            }
        }
    }
}

impl Iterator for QueueFeed {
    type Item = Result<QueueUpdate, ClientError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (name, data) = match self.next_event() {
                Ok(Some(e)) => e,
                Ok(None) => return None,
                Err(e) => {
                    return Some(Err(ClientError::Lost(format!(
                        "the owner's queue feed broke off: {e}"
                    ))))
                }
            };
            match QueueUpdate::decode(&name, &data) {
                Some(Ok(u)) => return Some(Ok(u)),
                Some(Err(e)) => {
                    return Some(Err(ClientError::Lost(format!(
                        "the owner's queue feed sent a shape this sendledger does not know ({e}): are the app and the owner the same version?"
                    ))))
                }
                None => continue,
            }
        }
    }
}
