//! The ledger's typed errors. Each message says what happened and what a person can do;
//! when one is returned, nothing was written.

use super::trigger::TriggerRefusal;
use crate::error_code::ErrorCode;
use crate::profile::ProfileError;
use std::path::PathBuf;

/// Everything the ledger can refuse or fail with.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error(transparent)]
    Profile(#[from] ProfileError),
    #[error("no ledger at {0} yet: start the app or `sendledger serve` on this profile first, or check the --profile path")]
    NoLedger(PathBuf),
    #[error("the ledger at {path} was written by a newer sendledger (schema {found}, this binary knows up to {known}): upgrade sendledger; the file was not touched")]
    NewerSchema {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("migration {version} ({name}) differs from the one applied to this ledger: shipped migrations are never edited; reinstall the matching sendledger")]
    MigrationEdited { version: i64, name: String },
    #[error("the ledger file {path} is damaged ({detail}): keep a copy of it and run `sendledger doctor`; nothing was written")]
    Corrupt { path: PathBuf, detail: String },
    #[error("the ledger file {path} was found damaged while the owner ran ({detail}): nothing more is written to it and nothing new is acknowledged. Stop the app or `sendledger serve`, then run `sendledger salvage` (it copies every readable row into a new ledger and keeps the damaged file beside it); nothing was written")]
    Damaged { path: PathBuf, detail: String },
    #[error("the ledger file {path} ({mb} MB) is being checked whole after the start (PRAGMA quick_check; seconds for a large ledger): nothing is written until it passes; retry in a few seconds; nothing was written")]
    Checking { path: PathBuf, mb: u64 },
    #[error("the disk holding {path} is full: free some space and retry; nothing was written")]
    DiskFull { path: PathBuf },
    #[error("the ledger is busy (another writer held it for too long): retry in a moment; nothing was written")]
    Busy,
    #[error("no owner is running for this profile, so a send would never reach a browser (the next command would reject it as never having left the host): start the app or `sendledger serve`, then send again; nothing was written")]
    NoOwner,
    #[error("no owner is running for this profile, so nothing is being sent: a queued send never leaves this computer without one (the next owner marks it rejected), and there is nothing to withdraw; nothing was written")]
    NoOwnerToWithdraw,
    #[error("invalid input: {0}")]
    Invalid(String),
    #[error("no send with operation id {}: check the id with `sendledger list`", quoted(.0))]
    UnknownSend(String),
    #[error("operation identity payload changed: operation id {0:?} was first queued with another text or binding; use a new operation id for a new send")]
    PayloadChanged(String),
    #[error("epoch stopped: resume first (a person stopped sends; `sendledger resume --by WHO`)")]
    EpochStopped,
    #[error("send {op_id} is {state}, so it cannot be {action}")]
    WrongState {
        op_id: String,
        state: String,
        action: &'static str,
    },
    #[error("not granted: {0}")]
    NotGranted(String),
    #[error("receipt precedes durable dispatch: send {0} was never recorded as dispatched, so a receipt cannot belong to it")]
    ReceiptBeforeDispatch(String),
    #[error("native receipt owner changed: send {0} already has a different receipt; a receipt is written once")]
    ReceiptOwnerChanged(String),
    #[error("native receipt already belongs to send {owner}; one receipt belongs to one send")]
    ReceiptTaken { owner: String },
    #[error("unknown lease {}: lease the tab again (while sends are stopped, after a Resume)", quoted(.0))]
    UnknownLease(String),
    #[error("lease {0} has ended (the owner restarted, a person resumed, or the tab leased again): lease the tab again (while sends are stopped, after a Resume)")]
    LeaseEnded(String),
    #[error("tool outcome is uncertain after restart; do not retry the side effect")]
    ToolUncertain,
    #[error("tool receipts full: 1000 receipts are retained; archive settled ones (`sendledger tool archive ID --by WHO`) before admitting more")]
    ToolReceiptsFull,
    #[error("unknown tool call {}: admit it first", quoted(.0))]
    UnknownToolCall(String),
    #[error("idempotency key reused: operation {0:?} was first asked with another body or by another client; use a new Idempotency-Key for a new send")]
    IdempotencyKeyReused(String),
    #[error("no remote stop for send {}: a Stop asks for one only for a send already clicked", quoted(.0))]
    UnknownRemoteStop(String),
    #[error("lease {lease_id} is not the live lease of the tab that clicked send {op_id} while it shows that send's conversation, so it cannot report on that send's remote stop; the stop stays as it was")]
    RemoteStopNotYours { op_id: String, lease_id: String },
    #[error("the remote stop of send {op_id} is already settled ({phase}): it is written once, and the first report stands")]
    RemoteStopSettled { op_id: String, phase: String },
    #[error("the remote stop of send {op_id} cannot go from {from} to {to}: {why}")]
    IllegalRemotePhase {
        op_id: String,
        from: String,
        to: &'static str,
        why: &'static str,
    },
    #[error("{}", .0.sentence(.0.at))]
    Displaced(Box<super::displacement::Displacement>),
    #[error("{0}")]
    LedgerMissing(String),
    #[error("{0}")]
    Unsalvageable(String),
    #[error("attachment {0} is not stored (never uploaded, or its bytes were deleted after its sends ended): upload the file with POST /v1/attachments, then queue the send again with the sha256 it answers; nothing was written")]
    UnknownAttachment(String),
    #[error(
        "send {0} has no artifact {1}: the send's view lists its artifacts (GET /v1/sends/{0})"
    )]
    UnknownArtifact(String, u32),
    #[error("{0}")]
    ArtifactSettled(String),
    #[error("ledger refused the change: {0}")]
    Refused(String),
    #[error("ledger error: {0}")]
    Sqlite(rusqlite::Error),
}

impl LedgerError {
    /// A stable machine-readable code for the JSON error shape `{code, message}`.
    pub fn code(&self) -> ErrorCode {
        use ErrorCode as C;
        match self {
            Self::Profile(ProfileError::Owned { .. }) => C::ProfileOwned,
            Self::Profile(_) => C::Profile,
            Self::NoLedger(_) => C::NoLedger,
            Self::NewerSchema { .. } => C::NewerSchema,
            Self::MigrationEdited { .. } => C::MigrationEdited,
            Self::Corrupt { .. } => C::Corrupt,
            Self::Damaged { .. } => C::LedgerDamaged,
            Self::Checking { .. } => C::LedgerChecking,
            Self::DiskFull { .. } => C::DiskFull,
            Self::Busy => C::Busy,
            Self::NoOwner | Self::NoOwnerToWithdraw => C::NoOwner,
            Self::Invalid(_) => C::Invalid,
            Self::UnknownSend(_) => C::UnknownSend,
            Self::PayloadChanged(_) => C::PayloadChanged,
            Self::EpochStopped => C::EpochStopped,
            Self::WrongState { .. } => C::WrongState,
            Self::NotGranted(_) => C::NotGranted,
            Self::ReceiptBeforeDispatch(_) => C::ReceiptBeforeDispatch,
            Self::ReceiptOwnerChanged(_) => C::ReceiptOwnerChanged,
            Self::ReceiptTaken { .. } => C::ReceiptTaken,
            Self::UnknownLease(_) => C::UnknownLease,
            Self::LeaseEnded(_) => C::LeaseEnded,
            Self::ToolUncertain => C::ToolUncertain,
            Self::ToolReceiptsFull => C::ToolReceiptsFull,
            Self::UnknownToolCall(_) => C::UnknownToolCall,
            Self::IdempotencyKeyReused(_) => C::IdempotencyKeyReused,
            Self::UnknownRemoteStop(_) => C::UnknownRemoteStop,
            Self::RemoteStopNotYours { .. } => C::NotYourRemoteStop,
            Self::RemoteStopSettled { .. } => C::RemoteStopSettled,
            Self::IllegalRemotePhase { .. } => C::IllegalRemoteStopPhase,
            Self::Displaced(_) => C::LedgerDisplaced,
            Self::LedgerMissing(_) => C::LedgerMissing,
            Self::Unsalvageable(_) => C::Unsalvageable,
            Self::Refused(_) => C::Refused,
            Self::UnknownAttachment(_) => C::UnknownAttachment,
            Self::UnknownArtifact(..) => C::UnknownArtifact,
            Self::ArtifactSettled(_) => C::ArtifactSettled,
            Self::Sqlite(_) => C::Sqlite,
        }
    }
}

/// An id a caller named, quoted for a sentence: whole up to 256 characters (the longest
/// a tool call id can be; operation ids are at most 128), else its first 40 and its
/// length, so a refusal never echoes a megabyte back.
pub(crate) fn quoted(id: &str) -> String {
    const SHOWN_WHOLE: usize = 256;
    const SHOWN_PART: usize = 40;
    let n = id.chars().count();
    if n <= SHOWN_WHOLE {
        format!("{id:?}")
    } else {
        let head: String = id.chars().take(SHOWN_PART).collect();
        format!("{head:?}… ({n} characters long)")
    }
}

/// Maps SQLite failures to what a person can act on. `path` is the ledger file.
pub(crate) fn from_sqlite(e: rusqlite::Error, path: &std::path::Path) -> LedgerError {
    use rusqlite::ErrorCode as C;
    if let rusqlite::Error::SqliteFailure(f, msg) = &e {
        match f.code {
            C::DiskFull => return LedgerError::DiskFull { path: path.into() },
            C::DatabaseCorrupt | C::NotADatabase => {
                return LedgerError::Corrupt {
                    path: path.into(),
                    detail: msg.clone().unwrap_or_else(|| f.to_string()),
                }
            }
            C::DatabaseBusy | C::DatabaseLocked => return LedgerError::Busy,
            C::ConstraintViolation => {
                let m = msg.clone().unwrap_or_default();
                return match super::trigger::parse(&m) {
                    (TriggerRefusal::EpochStopped, _) => LedgerError::EpochStopped,
                    (TriggerRefusal::ToolReceiptsFull, _) => LedgerError::ToolReceiptsFull,
                    (_, sentence) => LedgerError::Refused(sentence.to_string()),
                };
            }
            _ => {}
        }
    }
    LedgerError::Sqlite(e)
}

/// Result alias for ledger calls.
pub type Result<T, E = LedgerError> = std::result::Result<T, E>;

impl From<rusqlite::Error> for LedgerError {
    fn from(e: rusqlite::Error) -> Self {
        LedgerError::Sqlite(e)
    }
}
