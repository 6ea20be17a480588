//! Uploading a file to the owner's attachment store (`POST /v1/attachments?name=NAME`),
//! for the CLI's `send --attach` and the MCP door: read a file on this machine (bounded
//! before it is read) or take bytes given inline, then upload; the answer is the stored
//! file (`sha256`, `name`, `mime`, `size`), whose `sha256` a send names.

use super::ClientError;
use crate::attachments::{self as files, Attachment};
use std::path::Path;

/// A file about to be uploaded.
#[derive(Clone)]
pub struct FileToSend {
    /// Its name (checked: 1–255 characters, no folder).
    pub name: String,
    /// Its MIME type.
    pub mime: String,
    /// Its bytes (1 to [`files::MAX_FILE_BYTES`]).
    pub bytes: Vec<u8>,
}

impl std::fmt::Debug for FileToSend {
    /// Never the bytes or the name: only the size and the type.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileToSend")
            .field("mime", &self.mime)
            .field("size", &self.bytes.len())
            .finish()
    }
}

fn refused(message: String) -> ClientError {
    ClientError::Refused {
        status: 0,
        code: crate::api::ErrorCode::Invalid.as_str().into(),
        message,
    }
}

fn too_large(size: u64) -> ClientError {
    ClientError::Refused {
        status: 413,
        code: crate::api::ErrorCode::AttachmentTooLarge.as_str().into(),
        message: format!(
            "the file is {size} bytes; an attachment is at most {} bytes (32 MiB): send a smaller file",
            files::MAX_FILE_BYTES
        ),
    }
}

impl FileToSend {
    /// The file at `path` on this machine: its name, its MIME type from its extension
    /// (`application/octet-stream` when unknown), its bytes — refused before reading when
    /// it is over the bound, not a file, or unreadable.
    pub fn from_path(path: &Path) -> Result<Self, ClientError> {
        let shown = path.display();
        let meta = std::fs::metadata(path).map_err(|e| {
            refused(format!(
                "the file {shown} could not be read ({}): check the path",
                e.kind()
            ))
        })?;
        if !meta.is_file() {
            return Err(refused(format!("{shown} is not a file: attach a file")));
        }
        if meta.len() > files::MAX_FILE_BYTES {
            return Err(too_large(meta.len()));
        }
        let bytes = std::fs::read(path).map_err(|e| {
            refused(format!(
                "the file {shown} could not be read ({}): check its permissions",
                e.kind()
            ))
        })?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let mime = mime_guess::from_path(path)
            .first_raw()
            .unwrap_or(files::bounds::DEFAULT_MIME)
            .to_string();
        Self::new(name, mime, bytes)
    }

    /// A file given inline; checked as the owner will check it.
    pub fn new(name: String, mime: String, bytes: Vec<u8>) -> Result<Self, ClientError> {
        files::check_name(&name).map_err(refused)?;
        files::check_mime(&mime).map_err(refused)?;
        if bytes.is_empty() {
            return Err(refused(
                "the file is empty: an attachment holds at least one byte".into(),
            ));
        }
        if bytes.len() as u64 > files::MAX_FILE_BYTES {
            return Err(too_large(bytes.len() as u64));
        }
        Ok(Self { name, mime, bytes })
    }

    /// The request's path, the name percent-encoded.
    pub fn path(&self) -> String {
        let name =
            percent_encoding::utf8_percent_encode(&self.name, percent_encoding::NON_ALPHANUMERIC);
        format!("/v1/attachments?name={name}")
    }
}

/// The stored file read from the owner's answer `{"attachment": {…}}`.
pub fn stored(v: serde_json::Value) -> Result<Attachment, ClientError> {
    #[derive(serde::Deserialize)]
    struct A {
        attachment: Attachment,
    }
    serde_json::from_value::<A>(v).map(|a| a.attachment).map_err(|e| {
        ClientError::Lost(format!(
            "the owner answered a shape this sendledger does not know ({e}): are the app and this program the same version?"
        ))
    })
}
