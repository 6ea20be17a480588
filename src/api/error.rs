//! Every refusal's class, in one table: each stable error code (the `code` of the JSON
//! error shape, [`crate::ledger::LedgerError::code`], the bridge's own codes) maps here to
//! its class once, and each class to its HTTP status and CLI exit code once. Nothing
//! matches on message text.

/// What kind of refusal or failure a code is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// The input is wrong: fix it and ask again (HTTP 400, exit 2).
    Invalid,
    /// The body is over its size bound (HTTP 413, exit 2).
    TooLarge,
    /// The command line is wrong (exit 2).
    Usage,
    /// No such send, tool call or route (HTTP 404, exit 1).
    NotFound,
    /// The lease is gone: lease the tab again (HTTP 410, exit 1).
    Gone,
    /// The ledger's rules refuse it in the current state (HTTP 409, exit 1).
    Conflict,
    /// The profile is owned by another process, or busy (HTTP 503, exit 3).
    Owned,
    /// Storage trouble: full, damaged, newer, unreadable (HTTP 503, exit 4).
    Storage,
    /// The owner could not be reached, or refused the caller (exit 5).
    Unreachable,
    /// No owner runs, so a send would never reach a browser: refused, nothing written
    /// (HTTP 503, exit 6).
    NoOwner,
    /// Authentication or the request's origin (HTTP 401/403/421, exit 5).
    Unauthorized,
    /// Anything else (HTTP 500, exit 5).
    Internal,
}

/// code → class, the one table. Codes not listed are [`ErrorClass::Conflict`] (the
/// ledger's refusals: `payload_changed`, `epoch_stopped`, `wrong_state`, ...).
const CLASSES: &[(&str, ErrorClass)] = &[
    ("invalid", ErrorClass::Invalid),
    ("malformed", ErrorClass::Invalid),
    ("too_large", ErrorClass::TooLarge),
    ("usage", ErrorClass::Usage),
    ("unknown_send", ErrorClass::NotFound),
    ("unknown_tool_call", ErrorClass::NotFound),
    ("unknown_remote_stop", ErrorClass::NotFound),
    ("unknown_lease", ErrorClass::Gone),
    ("lease_ended", ErrorClass::Gone),
    ("profile_owned", ErrorClass::Owned),
    ("busy", ErrorClass::Owned),
    ("corrupt", ErrorClass::Storage),
    ("disk_full", ErrorClass::Storage),
    ("newer_schema", ErrorClass::Storage),
    ("migration_edited", ErrorClass::Storage),
    ("profile", ErrorClass::Storage),
    ("sqlite", ErrorClass::Storage),
    ("no_ledger", ErrorClass::Storage),
    ("ledger_displaced", ErrorClass::Storage),
    ("ledger_missing", ErrorClass::Storage),
    ("unsalvageable", ErrorClass::Storage),
    ("storage", ErrorClass::Storage),
    ("owner_unreachable", ErrorClass::Unreachable),
    ("no_owner", ErrorClass::NoOwner),
    ("unknown_route", ErrorClass::Unreachable),
    ("unauthorized", ErrorClass::Unauthorized),
    ("wrong_scope", ErrorClass::Unauthorized),
    ("bad_host", ErrorClass::Unauthorized),
    ("bad_origin", ErrorClass::Unauthorized),
    ("internal", ErrorClass::Internal),
];

impl ErrorClass {
    /// The class of a stable error code.
    pub fn of(code: &str) -> ErrorClass {
        CLASSES
            .iter()
            .find(|(c, _)| *c == code)
            .map(|(_, class)| *class)
            .unwrap_or(ErrorClass::Conflict)
    }

    /// The CLI's exit code for this class (see `sendledger --help`).
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Invalid | Self::TooLarge | Self::Usage => 2,
            Self::Owned => 3,
            Self::Storage => 4,
            Self::Unreachable | Self::Unauthorized | Self::Internal => 5,
            Self::NoOwner => 6,
            Self::NotFound | Self::Gone | Self::Conflict => 1,
        }
    }

    /// The HTTP status the bridge answers for this class (refusals the bridge makes
    /// itself, such as 401 vs 403 or 421, keep their own statuses).
    pub fn http_status(self) -> u16 {
        match self {
            Self::Invalid | Self::Usage => 400,
            Self::TooLarge => 413,
            Self::NotFound | Self::Unreachable => 404,
            Self::Gone => 410,
            Self::Conflict => 409,
            Self::Owned | Self::Storage | Self::NoOwner => 503,
            Self::Unauthorized => 401,
            Self::Internal => 500,
        }
    }
}
