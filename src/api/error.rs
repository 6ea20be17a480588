//! Every refusal's class, in one table: each stable error code (the `code` of the JSON
//! error shape, [`crate::ledger::LedgerError::code`], the bridge's own codes) maps here to
//! its class once, and each class to its HTTP status and CLI exit code once. Nothing
//! matches on message text.

pub use crate::error_code::ErrorCode;

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

impl ErrorClass {
    /// The class of a stable error code: one arm a code, no default.
    pub fn of(code: ErrorCode) -> ErrorClass {
        use ErrorCode as C;
        match code {
            C::Invalid | C::Malformed | C::UnknownAttachment => ErrorClass::Invalid,
            C::TooLarge | C::AttachmentTooLarge | C::ArtifactTooLarge => ErrorClass::TooLarge,
            C::TooMany
            | C::TooSlow
            | C::MethodNotAllowed
            | C::WrongCode
            | C::RateLimited
            | C::PayloadChanged
            | C::EpochStopped
            | C::WrongState
            | C::NotGranted
            | C::DestinationNotConfirmed
            | C::AttachmentMismatch
            | C::ArtifactPending
            | C::ArtifactSettled
            | C::ReceiptBeforeDispatch
            | C::ReceiptOwnerChanged
            | C::ReceiptTaken
            | C::ToolUncertain
            | C::ToolReceiptsFull
            | C::IdempotencyKeyReused
            | C::NotYourRemoteStop
            | C::RemoteStopSettled
            | C::IllegalRemoteStopPhase
            | C::Refused
            | C::TabSilent => ErrorClass::Conflict,
            C::Usage => ErrorClass::Usage,
            C::UnknownSend
            | C::UnknownToolCall
            | C::UnknownRemoteStop
            | C::UnknownArtifact
            | C::NoTab => ErrorClass::NotFound,
            C::UnknownLease | C::LeaseEnded | C::ArtifactUnavailable => ErrorClass::Gone,
            C::ProfileOwned | C::Busy => ErrorClass::Owned,
            C::Corrupt
            | C::DiskFull
            | C::NewerSchema
            | C::MigrationEdited
            | C::Profile
            | C::Sqlite
            | C::NoLedger
            | C::LedgerDisplaced
            | C::LedgerMissing
            | C::LedgerDamaged
            | C::LedgerChecking
            | C::Unsalvageable
            | C::Storage
            | C::AttachmentStoreFull => ErrorClass::Storage,
            C::OwnerUnreachable | C::UnknownRoute => ErrorClass::Unreachable,
            C::NoOwner => ErrorClass::NoOwner,
            C::Unauthorized | C::WrongScope | C::BadHost | C::BadOrigin => ErrorClass::Unauthorized,
            C::Internal => ErrorClass::Internal,
        }
    }

    /// The class of a code read from the wire; a code this build does not know is
    /// [`ErrorClass::Internal`] (never guessed to be a conflict).
    pub fn of_wire(code: &str) -> ErrorClass {
        ErrorCode::parse(code).map_or(ErrorClass::Internal, ErrorClass::of)
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
