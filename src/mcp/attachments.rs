//! The send tool's `attachments` (issue 29): each a file on this machine (`{path}`) or
//! given inline (`{name, mime, base64}`), at most 10, each at most 32 MiB. They are read
//! and checked first (nothing is uploaded if one is refused), then uploaded to the owner's
//! store; the send names them by the `sha256` each upload answered, so a call again with
//! the same idempotency_key and the same files is the same send.

use crate::client::{ClientError, FileToSend, OwnerLink};
use base64::Engine;
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::Path;

/// One file to send with the message.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum AttachmentArg {
    /// A file on the machine sendledger runs on.
    Path {
        /// Its absolute path.
        #[schemars(length(min = 1, max = 4096))]
        path: String,
    },
    /// A file given inline.
    Inline {
        /// Its name (e.g. `chart.png`; no folder).
        #[schemars(length(min = 1, max = 255))]
        name: String,
        /// Its MIME type (e.g. `image/png`, `application/pdf`).
        #[schemars(length(min = 3, max = 255))]
        mime: String,
        /// Its bytes, base64 (standard alphabet), at most 32 MiB decoded.
        base64: String,
    },
}

/// Longest base64 text accepted: what 32 MiB encode to, with padding.
const MAX_BASE64_CHARS: usize = (crate::attachments::MAX_FILE_BYTES as usize).div_ceil(3) * 4;

fn read(a: &AttachmentArg) -> Result<FileToSend, String> {
    let refused = |e: ClientError| match e {
        ClientError::Refused { message, .. } => message,
        other => other.to_string(),
    };
    match a {
        AttachmentArg::Path { path } => FileToSend::from_path(Path::new(path)).map_err(refused),
        AttachmentArg::Inline { name, mime, base64 } => {
            if base64.len() > MAX_BASE64_CHARS {
                return Err(format!(
                    "attachment {name:?} is over 32 MiB ({} bytes is the bound): send a smaller file",
                    crate::attachments::MAX_FILE_BYTES
                ));
            }
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(base64.trim())
                .map_err(|_| {
                    format!("attachment {name:?}: base64 is not valid base64 (standard alphabet)")
                })?;
            FileToSend::new(name.clone(), mime.clone(), bytes).map_err(refused)
        }
    }
}

/// Reads every attachment (a refusal names which and why: nothing was uploaded).
pub fn read_all(list: &[AttachmentArg]) -> Result<Vec<FileToSend>, String> {
    if list.len() > crate::attachments::MAX_PER_SEND {
        return Err(format!(
            "a message carries at most {} attachments ({} given): send the rest with another message",
            crate::attachments::MAX_PER_SEND,
            list.len()
        ));
    }
    list.iter().map(read).collect()
}

/// Uploads `files` in order; their addresses.
pub async fn upload_all(
    link: &OwnerLink,
    files: Vec<FileToSend>,
) -> Result<Vec<String>, ClientError> {
    let mut shas = Vec::with_capacity(files.len());
    for f in files {
        shas.push(link.upload(f).await?.sha256);
    }
    Ok(shas)
}
