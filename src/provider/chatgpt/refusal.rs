//! When the page says no: whether an error the page gave a turn is the account's usage
//! limit, and when the page says sending may resume. Pure: the current time comes in.
//!
//! Fixtures: `tests/fixtures/chatgpt/stream_delta_usage_limit.sse` (limit, reset time),
//! `stream_delta_something_went_wrong.sse` (an error that is not a limit).
//!
//! The page's wording is not a contract, so recognition is by words any wording of a
//! limit carries ("usage limit", "usage cap", "limit of messages", "rate limit", "too many
//! requests", the codes `usage_limit_reached`, `rate_limit_exceeded`, `model_cap_exceeded`)
//! and the reset time by the two shapes the page uses: a time of day ("at 3:40 PM",
//! "after 15:40", local time) or a delay ("in 2 hours", "in 45 minutes"). A limit with no
//! readable time holds the queue until a person resumes: never a guessed time.

use chrono::{DateTime, Duration, NaiveTime, TimeZone};

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
    let message: String = message.trim().chars().take(MAX_MESSAGE_CHARS).collect();
    let lower = message.to_lowercase();
    let usage_limit = LIMIT_WORDS.iter().any(|w| lower.contains(w));
    let resets_at_ms = usage_limit
        .then(|| {
            delay(&lower)
                .map(|d| now.clone() + d)
                .or_else(|| time_of_day(&lower, now))
        })
        .flatten()
        .map(|t| t.timestamp_millis());
    Refusal {
        message,
        usage_limit,
        resets_at_ms,
    }
}

/// "in 2 hours", "in 45 minutes", "in 1 hour and 30 minutes" (the first number and unit).
fn delay(lower: &str) -> Option<Duration> {
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let at = words.iter().position(|w| *w == "in")?;
    let mut total = Duration::zero();
    let mut rest = &words[at + 1..];
    while let [n, unit, tail @ ..] = rest {
        let Ok(n) = n.parse::<i64>() else { break };
        let one = match *unit {
            "second" | "seconds" | "sec" | "secs" => Duration::seconds(1),
            "minute" | "minutes" | "min" | "mins" => Duration::minutes(1),
            "hour" | "hours" | "hr" | "hrs" => Duration::hours(1),
            "day" | "days" => Duration::days(1),
            _ => break,
        };
        if !(0..=100_000).contains(&n) {
            return None;
        }
        total += one * n as i32;
        rest = match tail {
            ["and", more @ ..] => more,
            more => more,
        };
    }
    (total > Duration::zero()).then_some(total)
}

/// The first `H:MM` or `HH:MM`, with an optional `am`/`pm` after it: the next time the
/// clock shows it, from `now` on.
fn time_of_day<Tz: TimeZone>(lower: &str, now: &DateTime<Tz>) -> Option<DateTime<Tz>> {
    let bytes = lower.as_bytes();
    let colon = (1..bytes.len().saturating_sub(2)).find(|&i| {
        bytes[i] == b':'
            && bytes[i - 1].is_ascii_digit()
            && bytes[i + 1].is_ascii_digit()
            && bytes[i + 2].is_ascii_digit()
            && bytes.get(i + 3).is_none_or(|b| !b.is_ascii_digit())
    })?;
    let start = if colon >= 2 && bytes[colon - 2].is_ascii_digit() {
        colon - 2
    } else {
        colon - 1
    };
    let mut hour: u32 = lower[start..colon].parse().ok()?;
    let minute: u32 = lower[colon + 1..colon + 3].parse().ok()?;
    let after = lower[colon + 3..].trim_start().replace('.', "");
    if after.starts_with("pm") && hour < 12 {
        hour += 12;
    } else if after.starts_with("am") && hour == 12 {
        hour = 0;
    }
    let wall = NaiveTime::from_hms_opt(hour, minute, 0)?;
    let tz = now.timezone();
    let today = now.date_naive().and_time(wall);
    let candidate = tz.from_local_datetime(&today).earliest()?;
    if candidate > *now {
        return Some(candidate);
    }
    tz.from_local_datetime(&(today + Duration::days(1)))
        .earliest()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{FixedOffset, TimeZone};

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
    fn a_limit_without_a_readable_time_names_none() {
        let r = read_refusal(
            "You have reached the usage cap. Please try again later.",
            &at(12, 0),
        );
        assert!(r.usage_limit);
        assert_eq!(r.resets_at_ms, None);
    }
}
