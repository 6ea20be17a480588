//! Times of day as a person reads them (the waiting sentences, a displaced owner's).

use crate::clock::Millis;

/// A time of day in the machine's local time zone: `15:40`, or `Tue 15:40` when it is
/// not today.
pub fn local_time(ms: Millis, now: Millis) -> String {
    use chrono::{Local, TimeZone};
    let (Some(at), Some(today)) = (
        Local.timestamp_millis_opt(ms).single(),
        Local.timestamp_millis_opt(now).single(),
    ) else {
        return format!("{ms} ms");
    };
    if at.date_naive() == today.date_naive() {
        at.format("%H:%M").to_string()
    } else {
        at.format("%a %H:%M").to_string()
    }
}
