//! Errors and output of the CLI: text for people, JSON with `--json`.

use crate::ledger::LedgerError;
use crate::profile::ProfileError;
use serde::Serialize;

/// A CLI failure, with its exit code (see the module docs of `cli`).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error(transparent)]
    Profile(#[from] ProfileError),
    #[error("{0}")]
    Usage(String),
    /// The owner's bridge refused: its `{code, message}`.
    #[error("{message}")]
    Bridge { code: String, message: String },
    #[error("{0}")]
    Unreachable(String),
    /// `doctor` found problems with the profile's storage.
    #[error("{0}")]
    Unhealthy(String),
    /// The profile's storage refused a write outside the ledger (the owner's tokens,
    /// `bridge.json`): exit 4, as the README's table says of storage.
    #[error("{0}")]
    Storage(String),
}

/// The owner's refusal keeps its code and sentence; a lost answer is `owner_unreachable`
/// with its sentence.
impl From<crate::client::ClientError> for CliError {
    fn from(e: crate::client::ClientError) -> Self {
        use crate::client::ClientError as E;
        match e {
            E::Refused { code, message, .. } => CliError::Bridge { code, message },
            e @ E::NoOwner => CliError::Unreachable(e.to_string()),
            E::Lost(sentence) => CliError::Unreachable(sentence),
        }
    }
}

/// The brake's failure: the owner's, or the ledger's.
impl From<crate::client::brake::BrakeError> for CliError {
    fn from(e: crate::client::brake::BrakeError) -> Self {
        use crate::client::brake::BrakeError as E;
        match e {
            E::Owner(e) => e.into(),
            E::Ledger(e) => CliError::Ledger(e),
        }
    }
}

impl CliError {
    /// An answer of another kind than the request's (the owner and this CLI differ):
    /// `owner_unreachable`, saying what to check.
    pub(crate) fn unexpected(what: &str) -> Self {
        CliError::Unreachable(format!(
            "the owner answered something other than {what}: are the app and the CLI the same version? (`sendledger show` tells whether anything was written)"
        ))
    }

    /// The stable code printed with `--json`.
    pub fn code(&self) -> String {
        match self {
            Self::Ledger(e) => e.code().as_str().into(),
            Self::Profile(ProfileError::Owned { .. }) => "profile_owned".into(),
            Self::Profile(_) => "profile".into(),
            Self::Usage(_) => "usage".into(),
            Self::Bridge { code, .. } => code.clone(),
            Self::Unreachable(_) => "owner_unreachable".into(),
            Self::Unhealthy(_) | Self::Storage(_) => "storage".into(),
        }
    }

    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        crate::api::ErrorClass::of_wire(&self.code()).exit_code()
    }
}

pub(crate) fn print_error(e: &CliError, json: bool) {
    if json {
        let v = serde_json::json!({ "error": { "code": e.code(), "message": e.to_string() } });
        // Not `print_line`: the refusal's exit code stands whether or not anyone reads it.
        // When stdout cannot take it or goes nowhere, a person may still read stderr.
        if write_line(&v.to_string()).is_err() || stdout_goes_nowhere() {
            say_on_stderr(&format!("sendledger: {}", printable(&e.to_string())));
        }
    } else {
        say_on_stderr(&format!("sendledger: {}", printable(&e.to_string())));
    }
}

/// `s` safe for a terminal: control characters (escape sequences, bell…) are shown as
/// `\u{..}` escapes instead of acting on the terminal; line breaks and tabs are kept.
pub(crate) fn printable(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Prints the typed `value` as JSON (only with `--json`), or `text` for people.
pub(crate) fn emit<T: Serialize + ?Sized>(json: bool, value: &T, text: impl FnOnce() -> String) {
    print_line(&rendered(json, value, text));
}

/// What [`emit`] prints: `value` as JSON, or `text` for people, made safe for a terminal.
pub(crate) fn rendered<T: Serialize + ?Sized>(
    json: bool,
    value: &T,
    text: impl FnOnce() -> String,
) -> String {
    if json {
        serde_json::to_string(value).unwrap_or_else(|e| {
            serde_json::json!({ "code": "internal", "message": format!("the answer could not be written as JSON: {e}") })
                .to_string()
        })
    } else {
        printable(&text())
    }
}

/// A moment for people: the machine's local date and time to the millisecond,
/// `2026-12-01 19:20:21.963` (the JSON output keeps the ms since the epoch).
pub(crate) fn when(ms: i64) -> String {
    use chrono::{Local, TimeZone};
    match Local.timestamp_millis_opt(ms).single() {
        Some(t) => t.format("%Y-%m-%d %H:%M:%S%.3f").to_string(),
        None => format!("{ms} ms"),
    }
}

/// Writes `text` and a line break to stderr; a stderr that cannot be written (closed, full)
/// loses it, where `eprintln!` would panic and turn a refusal into exit code 101.
pub(crate) fn say_on_stderr(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Whether standard output goes where nobody reads it (`/dev/null`, `NUL`, an fd open
/// only for reading): see [`crate::platform::stdout_goes_nowhere`].
pub(crate) fn stdout_goes_nowhere() -> bool {
    crate::platform::stdout_goes_nowhere()
}

/// Writes `text` and a line break to stdout and flushes it; the caller decides what a
/// failure means (see [`print_line`]).
pub(crate) fn write_line(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}").and_then(|()| out.flush())
}

/// Writes `text` and a line break to stdout, for a command that prints once and ends. A
/// reader that went away first (`sendledger status | head -c1`: EPIPE) ends the process
/// quietly with status 0 instead of a panic; whatever the command committed stays
/// committed. Any other write failure is said on stderr and ends it with status 74
/// (EX_IOERR).
pub(crate) fn print_line(text: &str) {
    if let Err(e) = write_line(text) {
        write_failed(&e)
    }
}

/// Ends the process after stdout failed: quietly with 0 for a reader that went away
/// (EPIPE), else with 74 (EX_IOERR) and a sentence on stderr.
pub(crate) fn write_failed(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0)
    }
    say_on_stderr(&format!(
        "sendledger: could not write the answer to standard output: {e}"
    ));
    std::process::exit(74)
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn terminal_control_characters_are_shown_not_obeyed() {
        assert_eq!(printable("\u{1b}[2Jred\u{7}"), "\\u{1b}[2Jred\\u{7}");
        assert_eq!(
            printable("a\nb\tc é 🙂"),
            "a\nb\tc é 🙂",
            "text itself is kept"
        );
    }
}
