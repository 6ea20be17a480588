//! The stable error codes of the JSON error shape `{code, message}`, below every room
//! that refuses (the ledger, the bridge, the CLI) and every client that reads a refusal;
//! `api::ErrorClass::of` gives each its class.

/// Every stable error code of the JSON error shape `{code, message}` (the ledger's,
/// the bridge's, the CLI's): one enum, so [`ErrorClass::of`] is exhaustive and a new
/// code cannot silently take a class. On the wire a code is its snake_case name
/// ([`ErrorCode::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The input is wrong.
    Invalid,
    /// The request body or query could not be read.
    Malformed,
    /// A body over its size bound.
    TooLarge,
    /// More ids asked at once than the bound.
    TooMany,
    /// A body that did not arrive within its time bound.
    TooSlow,
    /// The command line is wrong.
    Usage,
    /// No send with that operation id.
    UnknownSend,
    /// No tool call with that id.
    UnknownToolCall,
    /// No remote stop for that send.
    UnknownRemoteStop,
    /// The lease is not known: lease the tab again.
    UnknownLease,
    /// The lease has ended (owner restarted, a person resumed, the tab leased again): lease the tab again.
    LeaseEnded,
    /// Another process owns the profile.
    ProfileOwned,
    /// The ledger is busy.
    Busy,
    /// The ledger file is damaged.
    Corrupt,
    /// The disk is full.
    DiskFull,
    /// A newer sendledger wrote the ledger.
    NewerSchema,
    /// A shipped migration differs from the applied one.
    MigrationEdited,
    /// The profile's folder or files could not be used.
    Profile,
    /// Another SQLite failure.
    Sqlite,
    /// No ledger exists yet.
    NoLedger,
    /// The ledger file was moved or replaced under the owner.
    LedgerDisplaced,
    /// The ledger file is gone.
    LedgerMissing,
    /// Salvage could not bring the ledger back.
    Unsalvageable,
    /// SQLite found the ledger file damaged while the owner ran: the gate is closed and
    /// nothing more is written to it until `sendledger salvage`.
    LedgerDamaged,
    /// The owner is checking the whole ledger file after its start: writes wait for it.
    LedgerChecking,
    /// The profile's storage refused a write outside the ledger.
    Storage,
    /// The owner could not be reached or answered nothing readable.
    OwnerUnreachable,
    /// No such route on the bridge.
    UnknownRoute,
    /// No owner runs, so a send would never reach a browser.
    NoOwner,
    /// No or a wrong token.
    Unauthorized,
    /// A token used on routes not its own.
    WrongScope,
    /// The request's Host is not the loopback bridge.
    BadHost,
    /// The request's Origin is not allowed.
    BadOrigin,
    /// A pairing code that is wrong or used.
    WrongCode,
    /// Too many pairing attempts.
    RateLimited,
    /// The OpenAI door asked with another method.
    MethodNotAllowed,
    /// Anything else.
    Internal,
    /// An operation id first queued with another text or binding.
    PayloadChanged,
    /// A person stopped sends: resume first.
    EpochStopped,
    /// The send's state does not allow the act.
    WrongState,
    /// The dispatch grant is refused: do not click.
    NotGranted,
    /// The tab did not confirm the send's destination: the send is rejected.
    DestinationNotConfirmed,
    /// A receipt for a send never dispatched.
    ReceiptBeforeDispatch,
    /// The send already has another receipt.
    ReceiptOwnerChanged,
    /// The receipt belongs to another send.
    ReceiptTaken,
    /// A tool call's outcome is uncertain after a restart.
    ToolUncertain,
    /// The tool receipts bound is reached.
    ToolReceiptsFull,
    /// An Idempotency-Key reused for another body or client.
    IdempotencyKeyReused,
    /// A lease reporting on a remote stop not its own.
    NotYourRemoteStop,
    /// The remote stop is already settled.
    RemoteStopSettled,
    /// A remote stop phase edge the ledger does not allow.
    IllegalRemoteStopPhase,
    /// Another refusal by the ledger's rules.
    Refused,
    /// No leased chatgpt.com tab (or not the one named) to ask.
    NoTab,
    /// The tab asked did not answer within its bound.
    TabSilent,
    /// A file over the attachment bound (32 MiB).
    AttachmentTooLarge,
    /// The attachment store is full (2 GiB).
    AttachmentStoreFull,
    /// A send names an attachment that is not stored.
    UnknownAttachment,
    /// The tab's uploaded files are not the send's attachments: the send is rejected.
    AttachmentMismatch,
    /// An answer's generated file over the bound (32 MiB).
    ArtifactTooLarge,
    /// No such artifact: the send or its artifact number is unknown.
    UnknownArtifact,
    /// The artifact is still wanted: no tab has fetched it yet.
    ArtifactPending,
    /// The artifact could not be fetched (its words say why), or its bytes were deleted.
    ArtifactUnavailable,
    /// The artifact is settled already (unavailable, or stored with other bytes).
    ArtifactSettled,
}

impl ErrorCode {
    /// Every code, in the order of the enum.
    pub const ALL: &'static [ErrorCode] = &[
        Self::Invalid,
        Self::Malformed,
        Self::TooLarge,
        Self::TooMany,
        Self::TooSlow,
        Self::Usage,
        Self::UnknownSend,
        Self::UnknownToolCall,
        Self::UnknownRemoteStop,
        Self::UnknownLease,
        Self::LeaseEnded,
        Self::ProfileOwned,
        Self::Busy,
        Self::Corrupt,
        Self::DiskFull,
        Self::NewerSchema,
        Self::MigrationEdited,
        Self::Profile,
        Self::Sqlite,
        Self::NoLedger,
        Self::LedgerDisplaced,
        Self::LedgerMissing,
        Self::Unsalvageable,
        Self::LedgerDamaged,
        Self::LedgerChecking,
        Self::Storage,
        Self::OwnerUnreachable,
        Self::UnknownRoute,
        Self::NoOwner,
        Self::Unauthorized,
        Self::WrongScope,
        Self::BadHost,
        Self::BadOrigin,
        Self::WrongCode,
        Self::RateLimited,
        Self::MethodNotAllowed,
        Self::Internal,
        Self::PayloadChanged,
        Self::EpochStopped,
        Self::WrongState,
        Self::NotGranted,
        Self::DestinationNotConfirmed,
        Self::ReceiptBeforeDispatch,
        Self::ReceiptOwnerChanged,
        Self::ReceiptTaken,
        Self::ToolUncertain,
        Self::ToolReceiptsFull,
        Self::IdempotencyKeyReused,
        Self::NotYourRemoteStop,
        Self::RemoteStopSettled,
        Self::IllegalRemoteStopPhase,
        Self::Refused,
        Self::AttachmentTooLarge,
        Self::AttachmentStoreFull,
        Self::UnknownAttachment,
        Self::AttachmentMismatch,
        Self::ArtifactTooLarge,
        Self::UnknownArtifact,
        Self::ArtifactPending,
        Self::ArtifactUnavailable,
        Self::ArtifactSettled,
        Self::NoTab,
        Self::TabSilent,
    ];

    /// The code as the wire carries it (`epoch_stopped`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Invalid => "invalid",
            Self::Malformed => "malformed",
            Self::TooLarge => "too_large",
            Self::TooMany => "too_many",
            Self::TooSlow => "too_slow",
            Self::Usage => "usage",
            Self::UnknownSend => "unknown_send",
            Self::UnknownToolCall => "unknown_tool_call",
            Self::UnknownRemoteStop => "unknown_remote_stop",
            Self::UnknownLease => "unknown_lease",
            Self::LeaseEnded => "lease_ended",
            Self::ProfileOwned => "profile_owned",
            Self::Busy => "busy",
            Self::Corrupt => "corrupt",
            Self::DiskFull => "disk_full",
            Self::NewerSchema => "newer_schema",
            Self::MigrationEdited => "migration_edited",
            Self::Profile => "profile",
            Self::Sqlite => "sqlite",
            Self::NoLedger => "no_ledger",
            Self::LedgerDisplaced => "ledger_displaced",
            Self::LedgerMissing => "ledger_missing",
            Self::LedgerDamaged => "ledger_damaged",
            Self::LedgerChecking => "ledger_checking",
            Self::Unsalvageable => "unsalvageable",
            Self::Storage => "storage",
            Self::OwnerUnreachable => "owner_unreachable",
            Self::UnknownRoute => "unknown_route",
            Self::NoOwner => "no_owner",
            Self::Unauthorized => "unauthorized",
            Self::WrongScope => "wrong_scope",
            Self::BadHost => "bad_host",
            Self::BadOrigin => "bad_origin",
            Self::WrongCode => "wrong_code",
            Self::RateLimited => "rate_limited",
            Self::MethodNotAllowed => "method_not_allowed",
            Self::Internal => "internal",
            Self::PayloadChanged => "payload_changed",
            Self::EpochStopped => "epoch_stopped",
            Self::WrongState => "wrong_state",
            Self::NotGranted => "not_granted",
            Self::DestinationNotConfirmed => "destination_not_confirmed",
            Self::AttachmentTooLarge => "attachment_too_large",
            Self::AttachmentStoreFull => "attachment_store_full",
            Self::UnknownAttachment => "unknown_attachment",
            Self::AttachmentMismatch => "attachment_mismatch",
            Self::ArtifactTooLarge => "artifact_too_large",
            Self::UnknownArtifact => "unknown_artifact",
            Self::ArtifactPending => "artifact_pending",
            Self::ArtifactUnavailable => "artifact_unavailable",
            Self::ArtifactSettled => "artifact_settled",
            Self::ReceiptBeforeDispatch => "receipt_before_dispatch",
            Self::ReceiptOwnerChanged => "receipt_owner_changed",
            Self::ReceiptTaken => "receipt_taken",
            Self::ToolUncertain => "tool_uncertain",
            Self::ToolReceiptsFull => "tool_receipts_full",
            Self::IdempotencyKeyReused => "idempotency_key_reused",
            Self::NotYourRemoteStop => "not_your_remote_stop",
            Self::RemoteStopSettled => "remote_stop_settled",
            Self::IllegalRemoteStopPhase => "illegal_remote_stop_phase",
            Self::Refused => "refused",
            Self::NoTab => "no_tab",
            Self::TabSilent => "tab_silent",
        }
    }

    /// The code a wire string names; `None` for a code this build does not know (an
    /// owner newer than this client).
    pub fn parse(code: &str) -> Option<ErrorCode> {
        Self::ALL.iter().copied().find(|c| c.as_str() == code)
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A code equals its wire name (`err.code() == "epoch_stopped"`).
impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<str> for ErrorCode {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}
