//! What a send's committed state means to an OpenAI client: still pending, answered, or
//! an error that says whether to retry. Every failure here is of a send that was (or may
//! have been) typed, or that a person stopped: all say `x-should-retry: false` with a
//! status outside 408/409/429/5xx, and name the send.
//!
//! | state | answer |
//! | --- | --- |
//! | queued, claimed, dispatched, accepted (answer awaited) | pending |
//! | completed | the page's final answer |
//! | uncertain | 424 `send_uncertain` |
//! | accepted with its answer no longer awaited, confirmed | 424 `answer_not_observed` |
//! | stopped | 423 `stopped` |
//! | rejected | 422 `send_rejected` |
//! | abandoned | 422 `send_abandoned` |

use super::error::OpenAiError;
use crate::ledger::{Send, SendState};
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
    let fail =
        |status, code, msg: String| Outcome::Failed(OpenAiError::custody(status, code, op, msg));
    match send.state {
        SendState::Queued | SendState::Claimed | SendState::Dispatched => Outcome::Pending,
        SendState::Accepted if send.answer_not_observed_at.is_none() => Outcome::Pending,
        SendState::Completed => match &send.answer {
            Some(a) => Outcome::Answered { text: a.text.clone() },
            None => fail(StatusCode::FAILED_DEPENDENCY, "answer_not_observed", not_observed(op)),
        },
        SendState::Accepted | SendState::Confirmed => {
            fail(StatusCode::FAILED_DEPENDENCY, "answer_not_observed", not_observed(op))
        }
        SendState::Uncertain => fail(StatusCode::FAILED_DEPENDENCY, "send_uncertain", uncertain(op)),
        SendState::Stopped => fail(
            StatusCode::LOCKED,
            "stopped",
            format!("a person stopped send {op} in sendledger before it was clicked (they pressed Stop, or withdrew it): nothing was clicked; do not retry — after a Stop, nothing is sent until they resume it there"),
        ),
        SendState::Rejected => fail(
            StatusCode::UNPROCESSABLE_ENTITY,
            "send_rejected",
            format!(
                "send {op} never left this computer ({}): nothing was clicked; do not retry this request — fix the tab, then send again as a new request",
                send.evidence.as_deref().unwrap_or("rejected")
            ),
        ),
        SendState::PageError => fail(
            StatusCode::FAILED_DEPENDENCY,
            "page_error",
            format!(
                "the chat page answered send {op} with an error ({}): it was received, the page said no; do not retry this request — a person may queue it again in sendledger",
                send.evidence.as_deref().unwrap_or("page error")
            ),
        ),
        SendState::Abandoned => fail(
            StatusCode::UNPROCESSABLE_ENTITY,
            "send_abandoned",
            format!("a person abandoned send {op} in sendledger: do not retry this request"),
        ),
    }
}

/// "do not retry; confirm or abandon send X in sendledger"
pub(crate) fn uncertain(op: &str) -> String {
    format!("send {op} may or may not have reached the chat (the owner lost track of it after the click was allowed): do not retry; confirm or abandon send {op} in sendledger (`sendledger resolve {op}` or the window)")
}

fn not_observed(op: &str) -> String {
    format!("send {op} went out once, but its answer was not observed: read it in the chat tab; do not retry (a retry would ask again)")
}
