//! The server refused the page's own conversation request for a granted send (a 429 with
//! `Retry-After`, a 403 "Unusual activity", a 431, …; the table is in
//! `provider::chatgpt::refused_request`): the message was not taken, so the send ends
//! `page_error` with the page's words — never uncertain, never resent — and the limit gate
//! holds where the refusal says (`Retry-After` for a 429; until a person resumes for a 403,
//! 431 or 401). A send already uncertain (the owner restarted in between) only gets a note:
//! only a receipt moves an uncertain send by itself.

use super::applied::Applied;
use super::error::ApiError;
use super::BridgeState;
use crate::ledger::{EvidenceKind, LimitHold, PageError, Send, SendState};
use crate::provider::chatgpt::refused_request::{
    read_refused_request, said_by_status, Hold, RefusedRequest,
};
use serde::Deserialize;

/// Longest `Retry-After` header read, in bytes (an HTTP date is 29).
const MAX_RETRY_AFTER_BYTES: usize = 64;

/// How the server answered the page's conversation request, as the page observer saw it
/// (fields of the `request` observation; all absent from an extension that predates them).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Answered {
    /// The HTTP status.
    #[serde(default)]
    pub status: Option<u16>,
    /// The `Retry-After` header, as sent.
    #[serde(default)]
    pub retry_after: Option<String>,
    /// The answer's body when the status was not 2xx (the observer sends at most 8 KiB).
    #[serde(default)]
    pub error_body: Option<String>,
}

impl Answered {
    /// The refusal this answer is, if its status proves one.
    fn refusal(&self, now_ms: i64) -> Option<RefusedRequest> {
        let retry_after = self
            .retry_after
            .as_deref()
            .filter(|h| h.len() <= MAX_RETRY_AFTER_BYTES);
        let body = self.error_body.as_deref().unwrap_or("");
        read_refused_request(self.status?, retry_after, body, now_ms)
    }
}

/// Whether the page's words quote the send's text (or a line of it, 12 characters or more).
fn echoes_the_text(words: &str, text: &str) -> bool {
    words.contains(text)
        || text
            .lines()
            .map(str::trim)
            .any(|line| line.chars().count() >= 12 && words.contains(line))
}

/// Applies the server's refusal of `send`'s request; `None` when `answered` is no refusal
/// (the stream is then followed as usual).
pub(crate) async fn apply(
    st: &BridgeState,
    send: &Send,
    answered: &Answered,
) -> Result<Option<Vec<Applied>>, ApiError> {
    let refusal = answered.refusal(st.now());
    apply_read(st, send, refusal).await
}

impl Answered {
    /// The refusal this answer is as a site's reader says (`read(status, retry_after,
    /// body)`), if its status proves one.
    pub(crate) fn read_with(
        &self,
        read: impl FnOnce(u16, Option<&str>, &str) -> Option<RefusedRequest>,
    ) -> Option<RefusedRequest> {
        let retry_after = self
            .retry_after
            .as_deref()
            .filter(|h| h.len() <= MAX_RETRY_AFTER_BYTES);
        read(
            self.status?,
            retry_after,
            self.error_body.as_deref().unwrap_or(""),
        )
    }
}

/// Applies a refusal already read by the send's site (`None`: no refusal, the stream is
/// then followed as usual).
pub(crate) async fn apply_read(
    st: &BridgeState,
    send: &Send,
    refusal: Option<RefusedRequest>,
) -> Result<Option<Vec<Applied>>, ApiError> {
    let Some(mut refusal) = refusal else {
        return Ok(None);
    };
    if echoes_the_text(&refusal.message, &send.text) {
        // A validation answer may quote the request: the send's text stays in its row only.
        refusal.message = said_by_status(refusal.status);
    }
    let op_id = send.op_id.clone();
    let applied = match send.state {
        SendState::Dispatched => {
            let until = match refusal.hold {
                Hold::None => None,
                Hold::Until(ms) => Some(LimitHold { until_ms: Some(ms) }),
                Hold::UntilResumed => Some(LimitHold { until_ms: None }),
            };
            let error = PageError {
                message: refusal.message.clone(),
                limit: until,
            };
            let (id, status) = (op_id.clone(), refusal.status);
            st.ledger()
                .call(move |l| l.refused(&id, status, &error, "extension"))
                .await?;
            Applied::PageError {
                op_id,
                usage_limit: until.is_some(),
                resets_at_ms: until.and_then(|h| h.until_ms),
            }
        }
        SendState::Uncertain => {
            let note = format!(
                "the server refused the page's conversation request (HTTP {}): {}; the message was not taken",
                refusal.status, refusal.message
            );
            let (id, n) = (op_id.clone(), note.clone());
            st.ledger()
                .call(move |l| l.note_evidence(&id, EvidenceKind::Observed, &n))
                .await?;
            Applied::Noted { op_id, note }
        }
        state => Applied::NotTracked {
            reason: format!("send {op_id} is {state}: the refused request changes nothing"),
        },
    };
    Ok(Some(vec![applied]))
}
