//! When the page's own conversation request was refused by the server: the HTTP status of
//! the `POST /backend-api/(f/)conversation` the page made for a granted send, and what the
//! answer says. Pure: the current time comes in.
//!
//! A refusal status means the server did not take the message — it answered that very
//! request before writing any turn: no conversation, no message ids, nothing to answer.
//! So the send is not uncertain: it ends as the page's error (`page_error`), never resent
//! (docs/custody.md, "When the page says no").
//!
//! | status | what the page says | the limit gate |
//! | --- | --- | --- |
//! | 429 Too Many Requests | "Too many requests … temporarily limited access" | held for `Retry-After` (seconds or an HTTP date; at most [`MAX_RETRY_AFTER_S`]; missing or unreadable: [`DEFAULT_RETRY_AFTER_S`]; longer than the bound: until a person resumes) |
//! | 403 Forbidden | "Unusual activity has been detected from your device" | until a person resumes |
//! | 431 Request Header Fields Too Large | request headers (cookies) too large | until a person resumes: every request from the browser fails until its cookies are cleared |
//! | 401 Unauthorized | logged out | until a person resumes |
//! | 400, 404, 413, 422 | this request was not acceptable | not held (the next send is another request) |
//!
//! Every other status — a 5xx, a 408, a 409, a redirect — is not a refusal this reader can
//! be sure of: the send keeps waiting for its receipt and becomes uncertain at the bound.

use serde_json::Value;

/// Retry-After's default when the header is missing or unreadable: 10 minutes.
pub const DEFAULT_RETRY_AFTER_S: i64 = 600;
/// The longest Retry-After taken as a time: 24 hours. A longer one holds until a person
/// resumes (never a guessed time).
pub const MAX_RETRY_AFTER_S: i64 = 24 * 3600;
/// The most of the answer's body read for the page's words: 8 KiB.
pub const MAX_BODY_BYTES: usize = 8 * 1024;
/// The longest message kept, in characters.
pub const MAX_WORDS_CHARS: usize = 300;

/// How long a refusal holds the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// Not at all: the refusal was about this request alone.
    None,
    /// Until this time (ms since the Unix epoch).
    Until(i64),
    /// Until a person resumes.
    UntilResumed,
}

/// The server's refusal of the page's conversation request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedRequest {
    /// The HTTP status.
    pub status: u16,
    /// The page's words (the body's `detail` or `error.message`), else a sentence naming
    /// the status; at most [`MAX_WORDS_CHARS`] characters, never the send's text.
    pub message: String,
    /// How long the queue is held.
    pub hold: Hold,
}

/// Reads the answer to the page's conversation request: `None` when `status` is not a
/// refusal (see the module's table). `retry_after` is the header as sent, `body` the
/// answer's body (only its first [`MAX_BODY_BYTES`] are read), `now_ms` the current time.
pub fn read_refused_request(
    status: u16,
    retry_after: Option<&str>,
    body: &str,
    now_ms: i64,
) -> Option<RefusedRequest> {
    let hold = match status {
        429 => retry_hold(retry_after, now_ms),
        401 | 403 | 431 => Hold::UntilResumed,
        400 | 404 | 413 | 422 => Hold::None,
        _ => return None,
    };
    let message = words_of(body).unwrap_or_else(|| said_by_status(status));
    Some(RefusedRequest {
        status,
        message,
        hold,
    })
}

/// The hold a 429's `Retry-After` asks for: delay-seconds or an HTTP date.
fn retry_hold(retry_after: Option<&str>, now_ms: i64) -> Hold {
    let seconds = retry_after.map(str::trim).and_then(|v| {
        if let Ok(s) = v.parse::<i64>() {
            return Some(s.max(0));
        }
        let at = chrono::DateTime::parse_from_rfc2822(v).ok()?;
        Some(((at.timestamp_millis() - now_ms).max(0) + 999) / 1000)
    });
    match seconds.unwrap_or(DEFAULT_RETRY_AFTER_S) {
        s if s > MAX_RETRY_AFTER_S => Hold::UntilResumed,
        s => Hold::Until(now_ms + s * 1000),
    }
}

/// The page's words in a JSON error body: `detail` (a string, or `{message}`),
/// `error.message`, `message`.
fn words_of(body: &str) -> Option<String> {
    let cut = body.get(..MAX_BODY_BYTES.min(body.len())).unwrap_or("");
    let v: Value = serde_json::from_str(cut).ok()?;
    let found = [
        v.get("detail"),
        v.pointer("/detail/message"),
        v.pointer("/error/message"),
        v.get("message"),
    ]
    .into_iter()
    .flatten()
    .find_map(Value::as_str)?;
    let words: String = found
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_WORDS_CHARS)
        .collect();
    let words = words.trim().to_string();
    (!words.is_empty()).then_some(words)
}

/// The sentence naming `status` when the page gives no words of its own.
pub fn said_by_status(status: u16) -> String {
    let what = match status {
        429 => "too many requests",
        403 => "forbidden",
        431 => "request headers too large",
        401 => "not logged in",
        413 => "request too large",
        _ => "not acceptable",
    };
    format!("the server refused the page's conversation request with HTTP {status} ({what})")
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_796_300_000_000;

    #[test]
    fn retry_after_in_seconds_or_an_http_date_holds_that_long() {
        let r = read_refused_request(429, Some("120"), "{}", NOW).unwrap();
        assert_eq!(r.hold, Hold::Until(NOW + 120_000));
        let date = chrono::DateTime::from_timestamp_millis(NOW + 300_000)
            .unwrap()
            .format("%a, %d %b %Y %H:%M:%S GMT")
            .to_string();
        let r = read_refused_request(429, Some(&date), "{}", NOW).unwrap();
        assert_eq!(r.hold, Hold::Until(NOW + 300_000));
    }

    #[test]
    fn a_missing_or_unreadable_retry_after_holds_the_default() {
        for header in [None, Some("soon"), Some(""), Some("12.5")] {
            let r = read_refused_request(429, header, "", NOW).unwrap();
            assert_eq!(
                r.hold,
                Hold::Until(NOW + DEFAULT_RETRY_AFTER_S * 1000),
                "{header:?}"
            );
        }
    }

    #[test]
    fn a_retry_after_past_the_bound_holds_until_a_person_resumes() {
        let r = read_refused_request(429, Some("90000"), "", NOW).unwrap();
        assert_eq!(r.hold, Hold::UntilResumed);
    }

    #[test]
    fn the_pages_words_come_from_the_body_else_the_status_is_named() {
        let body =
            r#"{"detail":"Unusual activity has been detected from your device. Try again later."}"#;
        let r = read_refused_request(403, None, body, NOW).unwrap();
        assert_eq!(
            r.message,
            "Unusual activity has been detected from your device. Try again later."
        );
        assert_eq!(r.hold, Hold::UntilResumed);
        let body = r#"{"detail":{"message":"Zu viele Anfragen.","code":"rate_limit_exceeded"}}"#;
        assert_eq!(
            read_refused_request(429, None, body, NOW).unwrap().message,
            "Zu viele Anfragen."
        );
        let html = "<html><body><h1>431 Request Header Fields Too Large</h1></body></html>";
        let r = read_refused_request(431, None, html, NOW).unwrap();
        assert_eq!(
            r.message,
            "the server refused the page's conversation request with HTTP 431 (request headers too large)"
        );
    }

    #[test]
    fn a_status_that_does_not_prove_a_refusal_is_none() {
        for status in [200, 201, 302, 408, 409, 500, 502, 503, 504] {
            assert_eq!(
                read_refused_request(status, None, "{}", NOW),
                None,
                "{status}"
            );
        }
    }
}
