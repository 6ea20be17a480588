//! When the page says no: whether an error the page gave a turn is the account's usage
//! limit, and when the page says sending may resume. Pure: the current time comes in.
//!
//! Fixtures: `tests/fixtures/chatgpt/stream_delta_usage_limit.sse` (limit, reset time),
//! `stream_delta_something_went_wrong.sse` (an error that is not a limit).
//!
//! The page's wording is not a contract, so recognition is by words any wording of a
//! limit carries ("usage limit", "usage cap", "limit of messages", "rate limit", "too many
//! requests", the codes `usage_limit_reached`, `rate_limit_exceeded`, `model_cap_exceeded`)
//! and the reset time by the shapes [`super::reset_time`] reads (a delay, a time of day, a
//! date). A limit with no readable time holds the queue until a person resumes: never a
//! guessed time.

use chrono::{DateTime, TimeZone};

use super::reset_time::reset_time;

/// Longest message read, in characters (the stream decoder keeps 300).
pub const MAX_MESSAGE_CHARS: usize = 300;

const LIMIT_WORDS: &[&str] = &[
    "usage limit",
    "usage cap",
    "limit of messages",
    "message limit",
    "message allowance",
    "message cap",
    "reached our limit",
    "reached the limit",
    "reached your limit",
    "hit your limit",
    "hit the limit",
    "rate limit",
    "too many requests",
    "usage_limit",
    "rate_limit",
    "model_cap",
];

/// What an error the page gave means for the queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The page's message, cut to [`MAX_MESSAGE_CHARS`].
    pub message: String,
    /// Whether it is the account's usage limit.
    pub usage_limit: bool,
    /// When the page says sending may resume, for a usage limit whose message names it.
    pub resets_at_ms: Option<i64>,
}

/// Reads the page's error `message` at `now` (in the time zone the page shows times in).
pub fn read_refusal<Tz: TimeZone>(message: &str, now: &DateTime<Tz>) -> Refusal {
    read_coded_refusal(message, None, now)
}

/// [`read_refusal`], with the error's `code` when the page gave one (the stream's
/// `error.code`): a limit's code (`usage_limit_reached`, `rate_limit_exceeded`,
/// `model_cap_exceeded`) makes it a usage limit in any language of the page — the
/// structure, not the English words. Codes longer than 64 characters are ignored.
pub fn read_coded_refusal<Tz: TimeZone>(
    message: &str,
    code: Option<&str>,
    now: &DateTime<Tz>,
) -> Refusal {
    let message: String = message.trim().chars().take(MAX_MESSAGE_CHARS).collect();
    let lower = message.to_lowercase();
    let code = code.filter(|c| c.len() <= 64).map(str::to_lowercase);
    let coded = code.is_some_and(|c| LIMIT_WORDS.iter().any(|w| w.contains('_') && c.contains(w)));
    let usage_limit = coded || LIMIT_WORDS.iter().any(|w| lower.contains(w));
    let resets_at_ms = usage_limit
        .then(|| reset_time(&lower, now))
        .flatten()
        .map(|t| t.timestamp_millis());
    Refusal {
        message,
        usage_limit,
        resets_at_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, FixedOffset, TimeZone};

    fn at(h: u32, m: u32) -> DateTime<FixedOffset> {
        FixedOffset::east_opt(3600)
            .unwrap()
            .with_ymd_and_hms(2026, 12, 1, h, m, 0)
            .unwrap()
    }

    #[test]
    fn a_time_of_day_later_today_is_today_and_earlier_is_tomorrow() {
        let r = read_refusal(
            "You've hit your usage limit. It resets at 3:40 PM.",
            &at(12, 0),
        );
        assert!(r.usage_limit);
        assert_eq!(r.resets_at_ms, Some(at(15, 40).timestamp_millis()));
        let r = read_refusal("usage limit reached; try again after 09:05", &at(12, 0));
        assert_eq!(
            r.resets_at_ms,
            Some((at(9, 5) + Duration::days(1)).timestamp_millis())
        );
    }

    #[test]
    fn a_delay_is_added_to_now() {
        let r = read_refusal(
            "Too many requests. Try again in 1 hour and 30 minutes.",
            &at(12, 0),
        );
        assert_eq!(r.resets_at_ms, Some(at(13, 30).timestamp_millis()));
    }

    #[test]
    fn an_error_that_is_not_a_limit_names_no_reset() {
        let r = read_refusal("Something went wrong at 3:40 PM.", &at(12, 0));
        assert!(!r.usage_limit);
        assert_eq!(r.resets_at_ms, None);
    }

    #[test]
    fn a_limit_in_another_language_is_known_by_its_code() {
        let words = "Du hast das Nutzungskontingent dieses Tarifs aufgebraucht. Wieder möglich um 15:40 Uhr.";
        assert!(!read_refusal(words, &at(12, 0)).usage_limit);
        let r = read_coded_refusal(words, Some("usage_limit_reached"), &at(12, 0));
        assert!(r.usage_limit);
        assert_eq!(r.resets_at_ms, Some(at(15, 40).timestamp_millis()));
        let r = read_coded_refusal(words, Some("server_hiccup"), &at(12, 0));
        assert!(!r.usage_limit, "another code is not a limit");
    }

    #[test]
    fn a_limit_without_a_readable_time_names_none() {
        let r = read_refusal(
            "You have reached the usage cap. Please try again later.",
            &at(12, 0),
        );
        assert!(r.usage_limit);
        assert_eq!(r.resets_at_ms, None);
    }
}
