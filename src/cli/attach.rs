//! `sendledger send --attach FILE`: each file is read (bounded before it is read) and
//! uploaded to the live owner's store first; the send then names them by the `sha256`
//! each upload answered. Uploading is content-addressed, so a retry with the same
//! `--id` and the same files uploads the same bytes again harmlessly and is the same
//! send; other files under that id are `payload_changed`.

use super::backend;
use super::output::CliError;
use crate::client::FileToSend;
use crate::ledger::LedgerError;
use std::path::{Path, PathBuf};

/// Uploads `files` (in order) to the owner of `profile`; their addresses. Errors: a file
/// refused (too large, unreadable, not a file, a bad name), no owner running (nothing
/// would serve the send: nothing is uploaded), the owner's refusal.
pub(crate) fn upload_all(
    profile: Option<&Path>,
    files: &[PathBuf],
) -> Result<Vec<String>, CliError> {
    if files.is_empty() {
        return Ok(Vec::new());
    }
    if files.len() > crate::attachments::MAX_PER_SEND {
        return Err(CliError::Usage(format!(
            "a send carries at most {} attachments ({} given): send the rest in another send",
            crate::attachments::MAX_PER_SEND,
            files.len()
        )));
    }
    let read: Vec<FileToSend> = files
        .iter()
        .map(|p| FileToSend::from_path(p))
        .collect::<Result<_, _>>()?;
    let Some(client) = backend::owner(profile)? else {
        return Err(LedgerError::NoOwner.into());
    };
    let mut shas = Vec::with_capacity(read.len());
    for f in &read {
        shas.push(client.upload(f)?.sha256);
    }
    Ok(shas)
}
