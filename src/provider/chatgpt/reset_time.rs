//! When a usage limit says sending may resume: the reset time read from the page's words.
//! Pure: the current time comes in, in the time zone the page shows times in.
//!
//! The shapes the page uses (seen in its cap and downgrade notices):
//! - a delay: "in 2 hours", "in 45 minutes", "in 1 hour and 30 minutes";
//! - a time of day, local: "at 3:40 PM", "after 15:40" — the next time the clock shows it;
//! - a date with or without a time: "after December 4, 2026 at 9:12 AM", "on 4 Dec at 09:12",
//!   "after Dec 4", "2026-12-04 09:12", "tomorrow at 9:12 AM" — that day (a date without a
//!   year is its next coming; a date without a time is that day's start).
//!
//! The page is localised: the same shapes are read in English, German and French ("nach
//! dem 4. Dezember 2026 um 9:12 Uhr", "in 2 Stunden", "morgen um 9:12"; "après le 4
//! décembre 2026 à 09:12", "dans 1 heure et 30 minutes", "à 15 h 40", "demain à 9 h 12").
//!
//! A message that names a month this reader cannot place (another language's date, a
//! shape not listed) gives no time at all: the queue then holds until a person resumes,
//! never until a guessed time (a date read as today once sent into a capped account two
//! days early). A year (2000–2200) with no day this reader can place counts as such a
//! date: "4 de diciembre de 2026 a las 9:12" names no time, never "the next 9:12".

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveTime, TimeZone};

/// Month names and their common abbreviations in English, German and French, January
/// first (lower case; French with and without accents).
const MONTHS: [&[&str]; 12] = [
    &["january", "jan", "januar", "jän", "janvier", "janv"],
    &[
        "february", "feb", "februar", "février", "fevrier", "févr", "fevr",
    ],
    &["march", "mar", "märz", "maerz", "mär", "mars"],
    &["april", "apr", "avril", "avr"],
    &["may", "mai"],
    &["june", "jun", "juni", "juin"],
    &["july", "jul", "juli", "juillet", "juil"],
    &["august", "aug", "août", "aout"],
    &["september", "sep", "sept", "septembre"],
    &["october", "oct", "oktober", "okt", "octobre"],
    &["november", "nov", "novembre"],
    &[
        "december",
        "dec",
        "dezember",
        "dez",
        "décembre",
        "decembre",
        "déc",
    ],
];

/// Words that say "tomorrow" / "today", and that start a delay ("in 2 hours").
const TOMORROW: &[&str] = &["tomorrow", "morgen", "demain"];
const TODAY: &[&str] = &["today", "heute", "aujourd"];
const DELAY_WORDS: &[&str] = &["in", "dans"];
const AND_WORDS: &[&str] = &["and", "und", "et"];

/// What the words say of the day.
#[derive(Debug, PartialEq, Eq)]
enum Day {
    /// No day is named: a time of day means its next coming.
    Unnamed,
    /// This day.
    Named(NaiveDate),
    /// A day seems named but cannot be read: no time may be taken from the message.
    Unreadable,
}

/// The reset time in `lower` (the page's message, lower-cased), read at `now`; `None` when
/// it names none this reader can be sure of.
pub fn reset_time<Tz: TimeZone>(lower: &str, now: &DateTime<Tz>) -> Option<DateTime<Tz>> {
    if let Some(d) = delay(lower) {
        return Some(now.clone() + d);
    }
    let today = now.date_naive();
    match named_day(lower, today) {
        Day::Unreadable => None,
        Day::Unnamed => {
            let wall = time_of_day(lower)?;
            let candidate = local(now, today.and_time(wall))?;
            if candidate > *now {
                return Some(candidate);
            }
            local(now, (today + Duration::days(1)).and_time(wall))
        }
        Day::Named(day) => {
            let wall = time_of_day(lower).unwrap_or(NaiveTime::MIN);
            local(now, day.and_time(wall))
        }
    }
}

fn local<Tz: TimeZone>(now: &DateTime<Tz>, wall: chrono::NaiveDateTime) -> Option<DateTime<Tz>> {
    now.timezone().from_local_datetime(&wall).earliest()
}

/// The words of `lower`, split at anything that is neither a letter nor a digit, keeping
/// `-` inside a number run so an ISO date stays one word.
fn words(lower: &str) -> Vec<&str> {
    lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map(|w| w.trim_matches('-'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// "in 2 hours", "in 45 minutes", "in 1 hour and 30 minutes" (the first run after "in").
fn delay(lower: &str) -> Option<Duration> {
    let words = words(lower);
    let at = words.iter().position(|w| DELAY_WORDS.contains(w))?;
    let mut total = Duration::zero();
    let mut rest = &words[at + 1..];
    while let [n, unit, tail @ ..] = rest {
        let Ok(n) = n.parse::<i64>() else { break };
        let Some(one) = unit_of(unit) else { break };
        if !(0..=100_000).contains(&n) {
            return None;
        }
        total += one * n as i32;
        rest = match tail {
            [and, more @ ..] if AND_WORDS.contains(and) => more,
            more => more,
        };
    }
    (total > Duration::zero()).then_some(total)
}

/// The length of one unit a word names ("hours", "Stunden", "heures"…).
fn unit_of(word: &str) -> Option<Duration> {
    Some(match word {
        "second" | "seconds" | "sec" | "secs" | "sekunde" | "sekunden" | "seconde" | "secondes" => {
            Duration::seconds(1)
        }
        "minute" | "minutes" | "min" | "mins" | "minuten" => Duration::minutes(1),
        "hour" | "hours" | "hr" | "hrs" | "stunde" | "stunden" | "std" | "heure" | "heures" => {
            Duration::hours(1)
        }
        "day" | "days" | "tag" | "tage" | "tagen" | "jour" | "jours" => Duration::days(1),
        _ => return None,
    })
}

/// The month a word names (1–12), if any.
fn month(word: &str) -> Option<u32> {
    let word = word.trim_end_matches('.');
    MONTHS
        .iter()
        .position(|names| names.contains(&word))
        .map(|i| i as u32 + 1)
}

/// A day of the month: "4", "04", "4th", "1st", "22nd", "3rd".
fn day_of_month(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") {
        return None;
    }
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

fn year(word: Option<&&str>) -> Option<i32> {
    word.and_then(|w| (w.len() == 4).then(|| w.parse().ok()).flatten())
        .filter(|y| (2000..=2200).contains(y))
}

/// The day `lower` names, read against `today`.
fn named_day(lower: &str, today: NaiveDate) -> Day {
    let words = words(lower);
    if words.iter().any(|w| TOMORROW.contains(w)) {
        return Day::Named(today + Duration::days(1));
    }
    if words.iter().any(|w| TODAY.contains(w)) && !words.iter().any(|w| month(w).is_some()) {
        return Day::Named(today);
    }
    if let Some(day) = words.iter().find_map(|w| iso_date(w)) {
        return Day::Named(day);
    }
    for (i, w) in words.iter().enumerate() {
        let Some(m) = month(w) else { continue };
        let after = words.get(i + 1).and_then(|d| day_of_month(d));
        let before = i.checked_sub(1).and_then(|j| day_of_month(words[j]));
        let (day, year_at) = match (after, before) {
            (Some(d), _) => (d, words.get(i + 2)),
            (None, Some(d)) => (d, words.get(i + 1)),
            // "may" is also a verb: alone it names nothing.
            (None, None) if *w == "may" => continue,
            (None, None) => return Day::Unreadable,
        };
        return dated(today, year(year_at), m, day).map_or(Day::Unreadable, Day::Named);
    }
    // A year and no day this reader can place: a date in words it does not know.
    if words.iter().any(|w| year(Some(w)).is_some()) {
        return Day::Unreadable;
    }
    Day::Unnamed
}

/// "2026-12-04".
fn iso_date(word: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(word, "%Y-%m-%d").ok()
}

/// The date with `year`, or without one the next coming of that month and day.
fn dated(today: NaiveDate, year: Option<i32>, month: u32, day: u32) -> Option<NaiveDate> {
    if let Some(y) = year {
        return NaiveDate::from_ymd_opt(y, month, day);
    }
    let this_year = NaiveDate::from_ymd_opt(today.year(), month, day);
    match this_year {
        Some(d) if d >= today => Some(d),
        _ => NaiveDate::from_ymd_opt(today.year() + 1, month, day),
    }
}

/// The first `H:MM` or `HH:MM`, with an optional `am`/`pm` after it; else a French
/// `15 h 40` / `15h40`.
fn time_of_day(lower: &str) -> Option<NaiveTime> {
    colon_time(lower).or_else(|| hour_h_minute(lower))
}

/// "15 h 40", "15h40", "9 h 05" (the French way of writing a time of day).
fn hour_h_minute(lower: &str) -> Option<NaiveTime> {
    let words = words(lower);
    let two = |w: &str| (w.len() == 2).then(|| w.parse::<u32>().ok()).flatten();
    let hour = |w: &str| (w.len() <= 2).then(|| w.parse::<u32>().ok()).flatten();
    words.iter().enumerate().find_map(|(i, w)| {
        let (h, m) = match w.split_once('h') {
            Some((h, m)) if !h.is_empty() && !m.is_empty() => (hour(h)?, two(m)?),
            _ => match (words.get(i + 1), words.get(i + 2)) {
                (Some(&"h"), Some(m)) => (hour(w)?, two(m)?),
                _ => return None,
            },
        };
        NaiveTime::from_hms_opt(h, m, 0)
    })
}

fn colon_time(lower: &str) -> Option<NaiveTime> {
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
    NaiveTime::from_hms_opt(hour, minute, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::FixedOffset;

    /// 2026-12-01 at h:m, UTC+1.
    fn at(h: u32, m: u32) -> DateTime<FixedOffset> {
        on(2026, 12, 1, h, m)
    }

    fn on(y: i32, mo: u32, d: u32, h: u32, m: u32) -> DateTime<FixedOffset> {
        FixedOffset::east_opt(3600)
            .unwrap()
            .with_ymd_and_hms(y, mo, d, h, m, 0)
            .unwrap()
    }

    fn read(message: &str) -> Option<DateTime<FixedOffset>> {
        reset_time(&message.to_lowercase(), &at(12, 0))
    }

    #[test]
    fn a_time_of_day_later_today_is_today_and_earlier_is_tomorrow() {
        assert_eq!(read("It resets at 3:40 PM."), Some(at(15, 40)));
        assert_eq!(read("try again after 09:05"), Some(on(2026, 12, 2, 9, 5)));
    }

    #[test]
    fn a_delay_is_added_to_now() {
        assert_eq!(
            read("Try again in 1 hour and 30 minutes."),
            Some(at(13, 30))
        );
    }

    #[test]
    fn a_named_date_is_that_day_never_today() {
        let want = Some(on(2026, 12, 4, 9, 12));
        assert_eq!(
            read("limit resets after December 4, 2026 at 9:12 AM."),
            want
        );
        assert_eq!(read("You can send again on 4 Dec at 09:12"), want);
        assert_eq!(read("after Dec 4th at 9:12 am"), want);
        assert_eq!(read("resets 2026-12-04 09:12"), want);
        assert_eq!(
            read("available again after Dec 4"),
            Some(on(2026, 12, 4, 0, 0))
        );
        assert_eq!(
            read("try again tomorrow at 9:12 AM"),
            Some(on(2026, 12, 2, 9, 12))
        );
    }

    #[test]
    fn a_date_without_a_year_is_its_next_coming() {
        assert_eq!(read("after January 2 at 8:00"), Some(on(2027, 1, 2, 8, 0)));
        assert_eq!(read("after December 1 at 13:00"), Some(at(13, 0)));
    }

    #[test]
    fn a_date_that_cannot_be_read_names_no_time() {
        assert_eq!(read("resets after December at 9:12 AM"), None);
        assert_eq!(read("resets after February 30 at 9:12 AM"), None);
    }

    #[test]
    fn the_reset_time_is_read_in_the_forms_the_page_uses_in_german_and_french() {
        let date = Some(on(2026, 12, 4, 9, 12));
        assert_eq!(
            read("Limit erreicht. Wieder verfügbar nach dem 4. Dezember 2026 um 9:12 Uhr."),
            date
        );
        assert_eq!(read("Du kannst am 4. Dez. um 09:12 wieder senden"), date);
        assert_eq!(
            read("Limite atteinte. Réessayez après le 4 décembre 2026 à 09:12."),
            date
        );
        assert_eq!(read("Réessayez après le 4 décembre 2026 à 9 h 12."), date);
        assert_eq!(read("Versuche es nach 15:45 Uhr erneut."), Some(at(15, 45)));
        assert_eq!(read("Réessayez à 15 h 40."), Some(at(15, 40)));
        assert_eq!(read("Réessayez à 15h40."), Some(at(15, 40)));
        assert_eq!(read("Versuche es in 2 Stunden erneut"), Some(at(14, 0)));
        assert_eq!(
            read("Réessayez dans 1 heure et 30 minutes"),
            Some(at(13, 30))
        );
        assert_eq!(read("morgen um 9:12 Uhr"), Some(on(2026, 12, 2, 9, 12)));
        assert_eq!(read("demain à 9 h 12"), Some(on(2026, 12, 2, 9, 12)));
    }

    #[test]
    fn the_english_forms_the_page_uses_are_all_read() {
        assert_eq!(read("Your limit resets after 3:45 PM."), Some(at(15, 45)));
        assert_eq!(read("You can send again at 15:40"), Some(at(15, 40)));
        assert_eq!(
            read("Responses will use another model until your limit resets after December 4, 2026 at 9:12 AM."),
            Some(on(2026, 12, 4, 9, 12))
        );
    }

    #[test]
    fn a_date_in_a_language_it_cannot_read_names_no_time_never_the_next_such_time() {
        assert_eq!(
            read("vuelve a intentarlo después del 4 de diciembre de 2026 a las 9:12"),
            None
        );
        assert_eq!(read("riprova dopo il 4 dicembre 2026 alle 9:12"), None);
    }

    #[test]
    fn may_as_a_verb_names_no_date() {
        assert_eq!(read("You may try again at 3:40 PM"), Some(at(15, 40)));
        assert_eq!(read("after May 3 at 10:00"), Some(on(2027, 5, 3, 10, 0)));
    }
}
