//! `max_in_flight` in the profile's `config.json`: how many sends may be in flight at once
//! across the profile (each in its own conversation and tab; issue 27). 1 when the file or
//! the key is absent — one send at a time, the behaviour before the setting existed. The
//! owner reads it at start and refuses to start on a bad value, before it opens the
//! ledger; `sendledger max-in-flight set N` and the queue window write it (other keys
//! kept), and it takes effect at the owner's next start.

use super::discovery::CONFIG_FILE;
use super::Profile;

/// The key in `config.json`.
pub const KEY: &str = "max_in_flight";
/// The largest value: each send in flight takes a chatgpt.com tab of its own, and a person
/// watches them all.
pub const MAX_IN_FLIGHT: u32 = 8;
/// The value when none is set.
pub const DEFAULT_MAX_IN_FLIGHT: u32 = 1;

/// The sentence refusing `value` (as written) for `max_in_flight`.
fn bad(path: &str, value: &str) -> String {
    format!(
        "max_in_flight in {path} is {value}, which is not a whole number from 1 to {MAX_IN_FLIGHT}: set it with `sendledger max-in-flight N` (or in the queue window's settings), or remove the key for 1"
    )
}

/// Checks a value a person asked for. Errors: the sentence saying the bound.
pub fn check(n: i64) -> Result<u32, String> {
    u32::try_from(n)
        .ok()
        .filter(|n| (1..=MAX_IN_FLIGHT).contains(n))
        .ok_or_else(|| {
            format!("max_in_flight must be a whole number from 1 to {MAX_IN_FLIGHT}, not {n}")
        })
}

/// The profile's `max_in_flight`: [`DEFAULT_MAX_IN_FLIGHT`] when `config.json` or the key
/// is absent. Errors: a sentence naming the file, the value and what to do.
pub fn read(profile: &Profile) -> Result<u32, String> {
    let path = profile.file(CONFIG_FILE).map_err(|e| e.to_string())?;
    let shown = path.display().to_string();
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(DEFAULT_MAX_IN_FLIGHT),
        Err(e) => return Err(format!("cannot read {shown}: {e}")),
    };
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{shown} is not valid JSON ({e}): fix or remove it"))?;
    match v.get(KEY) {
        None | Some(serde_json::Value::Null) => Ok(DEFAULT_MAX_IN_FLIGHT),
        Some(n) => n
            .as_i64()
            .and_then(|n| check(n).ok())
            .ok_or_else(|| bad(&shown, &n.to_string())),
    }
}

/// Writes `max_in_flight` = `n` into the profile's `config.json` (other keys kept; 0600,
/// atomically). Errors: `n` out of bounds, or the file unreadable or not a JSON object.
pub fn write(profile: &Profile, n: i64) -> Result<u32, String> {
    let n = check(n)?;
    let path = profile.file(CONFIG_FILE).map_err(|e| e.to_string())?;
    let mut v: serde_json::Map<String, serde_json::Value> = match std::fs::read_to_string(&path) {
        Ok(t) if !t.trim().is_empty() => serde_json::from_str(&t).map_err(|e| {
            format!(
                "{} is not a JSON object ({e}): fix or remove it",
                path.display()
            )
        })?,
        Ok(_) => serde_json::Map::new(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => serde_json::Map::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    v.insert(KEY.into(), n.into());
    let text = serde_json::to_string_pretty(&v).expect("serialises");
    profile
        .write_private(CONFIG_FILE, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(n)
}
