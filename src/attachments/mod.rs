//! Attachments ("files in", issue 29): the bytes a send carries, stored content-addressed
//! in the profile (`attachments/<sha256-hex>`, files 0600 in a 0700 folder, written
//! atomically through the platform seam's private-file writer), and the bounds every door
//! checks. The ledger records which files a send carries (`ledger::attachments`); this
//! room holds only the bytes. Imports nothing above `profile` and `platform`.
//!
//! An answer's generated files ("files out") are stored here too, by the same address
//! and bounds (`artifact`: what the page pointed at, and its bounds).
//!
//! A file's record (name, MIME type, size, SHA-256) stays in the ledger for good; its
//! bytes are deleted by the owner's upkeep once no unfinished send needs them
//! (docs/custody.md, "Attachments").

pub mod artifact;
pub mod bounds;
pub mod page;
pub mod store;

pub use artifact::AnswerArtifact;
pub use bounds::{
    check_mime, check_name, check_sha256, MAX_FILE_BYTES, MAX_PER_SEND, MAX_STORE_BYTES,
};
pub use page::{ConfirmedFile, PageFile, SendFile, MISMATCH_NOTE};
pub use store::{sha256_hex, Store, StoreError};

use serde::{Deserialize, Serialize};

/// One stored file as the doors and the extension see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    /// SHA-256 of the bytes, 64 lowercase hex digits: the file's address in the store.
    pub sha256: String,
    /// The file's name (1–255 characters, no `/`, `\` or control characters).
    pub name: String,
    /// Its MIME type (`application/octet-stream` when the uploader named none).
    pub mime: String,
    /// Its size in bytes (1 to [`MAX_FILE_BYTES`]).
    pub size: u64,
}
