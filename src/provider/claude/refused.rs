//! When claude.ai refuses the page's completion request itself (an HTTP status instead
//! of the event stream): the same reading as the ChatGPT provider's
//! [`read_refused_request`] (which statuses are a refusal, how long each holds the queue),
//! plus what a claude.ai 429 says of the usage limit (fixture:
//! `tests/fixtures/claude/refused_429_limit.json`).
//!
//! A 429's body is `{"type":"error","error":{"type":"rate_limit_error","message":"<JSON
//! text>"}}` whose message, read as JSON, is the limit: `{"type":"exceeded_limit",
//! "resetsAt": <Unix seconds>, …}`; the header `anthropic-ratelimit-unified-reset` may
//! carry the same time (Unix seconds). Either holds the queue until that time (at most
//! [`MAX_RESET_AHEAD_S`] ahead — claude.ai's weekly window —, else until a person resumes);
//! without either, `Retry-After` decides as on chatgpt.com. The words are the page's, or — when
//! its message is the limit's JSON — a sentence saying the usage limit is reached.

use crate::provider::chatgpt::refused_request::{
    read_refused_request, Hold, RefusedRequest, MAX_BODY_BYTES,
};
use serde_json::Value;

/// The furthest reset a refusal is held until: 8 days (the weekly window and a day).
/// A reset further ahead, or already past, holds until a person resumes.
pub const MAX_RESET_AHEAD_S: i64 = 8 * 24 * 3600;

/// The refusal of a completion request with `status`: `None` when the status is not one
/// (see [`read_refused_request`]). `retry_after` and `reset_header`
/// (`anthropic-ratelimit-unified-reset`) as sent, `body` the answer's body (its first
/// [`MAX_BODY_BYTES`] read), `now_ms` the current time.
pub fn read_refused_completion(
    status: u16,
    retry_after: Option<&str>,
    reset_header: Option<&str>,
    body: &str,
    now_ms: i64,
) -> Option<RefusedRequest> {
    let mut refused = read_refused_request(status, retry_after, body, now_ms)?;
    let limit = limit_in(body);
    if limit.is_some() {
        refused.message =
            "claude.ai refused the message: the account's usage limit is reached".into();
    }
    if status == 429 {
        let reset_s = limit
            .and_then(|l| l.get("resetsAt").and_then(Value::as_i64))
            .or_else(|| reset_header.and_then(|h| h.trim().parse::<i64>().ok()));
        if let Some(at_ms) = reset_s.and_then(|s| s.checked_mul(1000)) {
            let ahead_s = (at_ms - now_ms) / 1000;
            refused.hold = if (0..=MAX_RESET_AHEAD_S).contains(&ahead_s) {
                Hold::Until(at_ms)
            } else {
                Hold::UntilResumed
            };
        }
    }
    Some(refused)
}

/// The limit object an error body's `error.message` holds as JSON text, when it does.
fn limit_in(body: &str) -> Option<Value> {
    let cut = body.get(..MAX_BODY_BYTES.min(body.len()))?;
    let v: Value = serde_json::from_str(cut).ok()?;
    let inner = v.pointer("/error/message")?.as_str()?;
    if inner.len() > MAX_BODY_BYTES {
        return None;
    }
    let limit: Value = serde_json::from_str(inner).ok()?;
    let kind = limit.get("type")?.as_str()?;
    kind.contains("limit").then_some(limit)
}
