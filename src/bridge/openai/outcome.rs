//! What a send's committed state means to an OpenAI client, worded from the one table
//! (`crate::verdict`): still pending, answered, or an error that says whether to
//! retry. Every failure here is of a send that was (or may have been) typed, or that a
//! person stopped: all say `x-should-retry: false` with a status outside 408/409/429/5xx,
//! and name the send.
//!
//! | standing | answer |
//! | --- | --- |
//! | pending | keep waiting |
//! | answered | the page's final answer |
//! | uncertain | 424 `send_uncertain` |
//! | went out (answer not seen, or confirmed by a person) | 424 `answer_not_observed` |
//! | page said no | 424 `page_error` |
//! | stopped | 423 `stopped` |
//! | never left | 422 `send_rejected` |
//! | abandoned | 422 `send_abandoned` |

use super::error::OpenAiError;
use crate::ledger::Send;
use crate::verdict::{Standing, Verdict};
use axum::http::StatusCode;

/// Where a send stands for the door.
#[derive(Debug, Clone)]
pub(crate) enum Outcome {
    /// Not settled yet: keep waiting.
    Pending,
    /// The page's final answer.
    Answered { text: String },
    /// A no-retry error.
    Failed(OpenAiError),
}

/// The outcome of `send` as committed.
pub(crate) fn of(send: &Send) -> Outcome {
    let op = send.op_id.as_str();
    let verdict = verdict_of(send);
    let why = reason(send, verdict);
    let (status, message) = match verdict.standing {
        Standing::Pending => return Outcome::Pending,
        Standing::Answered => match &send.answer {
            Some(a) => return Outcome::Answered { text: a.text.clone() },
            None => (StatusCode::FAILED_DEPENDENCY, not_observed(op)),
        },
        Standing::WentOut => (StatusCode::FAILED_DEPENDENCY, not_observed(op)),
        Standing::Uncertain => (StatusCode::FAILED_DEPENDENCY, uncertain(op, why)),
        Standing::Stopped => (
            StatusCode::LOCKED,
            format!("a person stopped send {op} in sendledger before it was clicked (they pressed Stop, or withdrew it): nothing was clicked; do not retry, and do not send it as a new request — if they want it sent, they queue it again in sendledger (`sendledger requeue {op}`), and this same request, asked again, follows that copy"),
        ),
        Standing::NeverLeft => (
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "send {op} never left this computer ({}): nothing was clicked; do not retry at once — fix the tab, then send again (the same request is then a new send)",
                why.unwrap_or("rejected")
            ),
        ),
        Standing::PageSaidNo => (
            StatusCode::FAILED_DEPENDENCY,
            format!(
                "the chat page answered send {op} with an error ({}): it was received, the page said no; do not retry this request — a person may queue it again in sendledger",
                why.unwrap_or("page error")
            ),
        ),
        Standing::Abandoned => (
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("a person abandoned send {op} in sendledger: do not retry this request"),
        ),
    };
    Outcome::Failed(OpenAiError::custody(status, verdict.code, op, message))
}

/// [`of`], with the wait a client is told when the page refused `send` with the account's
/// usage limit or *too many requests* and the limit gate still holds (`Retry-After`, and
/// the message says until when).
pub(crate) fn of_held(send: &Send, hold: Option<crate::ledger::RetryAfter>) -> Outcome {
    match (of(send), hold) {
        (Outcome::Failed(mut e), Some(h)) => {
            e.retry_after = Some(h.seconds);
            e.message = format!(
                "{} Do not send again for {} s: the account's limit holds until then{}.",
                e.message,
                h.seconds,
                if h.until_ms.is_none() {
                    " at least (the page named no reset time; a person resumes in sendledger)"
                } else {
                    ""
                }
            );
            Outcome::Failed(e)
        }
        (o, _) => o,
    }
}

/// The table's verdict for `send` as committed.
pub(crate) fn verdict_of(send: &Send) -> Verdict {
    Verdict::of_state(
        send.state.as_str(),
        send.answer.is_some(),
        send.answer_not_observed_at.is_some(),
    )
}

/// Why, in the page's or the owner's words (the latest transition's evidence), for the
/// standings a person's reading turns on: uncertain, page said no, never left.
pub(crate) fn reason(send: &Send, verdict: Verdict) -> Option<&str> {
    match verdict.standing {
        Standing::Uncertain | Standing::PageSaidNo | Standing::NeverLeft => {
            send.evidence.as_deref().filter(|e| !e.trim().is_empty())
        }
        _ => None,
    }
}

/// "do not retry; confirm or abandon send X in sendledger", with why it is uncertain.
pub(crate) fn uncertain(op: &str, why: Option<&str>) -> String {
    let why = why.map(|w| format!(" ({w})")).unwrap_or_default();
    format!("send {op} may or may not have reached the chat{why}: do not retry; a person confirms or abandons send {op} in sendledger (`sendledger resolve {op}` or the window)")
}

fn not_observed(op: &str) -> String {
    format!("send {op} went out once, but its answer was not observed: read it in the chat tab; do not retry (a retry would ask again)")
}
