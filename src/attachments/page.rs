//! What the tab says it attached, and what the page's own conversation request carried:
//! the two comparisons with a send's files. Pure.
//!
//! - At the grant, the tab reports the files the page showed as uploaded
//!   ([`ConfirmedFile`]: the page's file id, the name, the size), or as waiting for the
//!   click that starts their upload (no file id yet: a page whose first Send click uploads
//!   and then sends by itself, docs/extension.md). They must be the send's
//!   attachments one for one, by name and size (same count); otherwise the grant is
//!   refused and nothing is clicked ([`grant_refusal`]).
//! - After the click, the page's request lists its files ([`PageFile`]: the file id, and
//!   the name and size when it gives them). Each must be one of the send's files (by the
//!   page's id recorded at the grant, else by name and size), and every file of the send
//!   must be there; otherwise an `attachment_mismatch` note ([`request_mismatch`]).

use serde::{Deserialize, Serialize};

/// The prefix of the timeline note written when the page's request does not carry the
/// send's files (and of the sentence every door reports it with).
pub const MISMATCH_NOTE: &str = "attachment_mismatch";

/// Longest page file id, in bytes.
pub const MAX_FILE_ID_BYTES: usize = 128;

/// A file the page showed as uploaded, as the tab reports it with the grant ask.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfirmedFile {
    /// The page's id for the uploaded file (`file-…`); `null` for a file the page shows
    /// waiting for the Send click to start its upload (then the page's request is checked
    /// by name and size, after the click). The key is required: a tab must say which.
    #[serde(deserialize_with = "present")]
    pub file_id: Option<String>,
    /// The name the page shows.
    pub name: String,
    /// Its size in bytes, as the page uploaded it.
    pub size: u64,
}

/// An `Option` whose key must be there (`null` allowed): serde takes a missing `Option`
/// field as `None` unless the field has its own deserializer.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<String>::deserialize(d)
}

/// A file the page's conversation request carried (its `metadata.attachments` entry,
/// or an asset pointer part).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageFile {
    /// The page's file id (`file-…`; from `file-service://file-…`).
    pub file_id: String,
    /// The name, when the request gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The size in bytes, when the request gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// One of a send's files as the comparisons see it: name, size, and the page's file id
/// once recorded at the grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendFile<'a> {
    /// The name.
    pub name: &'a str,
    /// The size in bytes.
    pub size: u64,
    /// The page's id, recorded at the grant.
    pub file_id: Option<&'a str>,
}

fn words(name: &str, size: u64) -> String {
    format!("{name:?} ({size} bytes)")
}

/// Checks the tab's report: at most 10 files, a file id (when given) of 1–128 printable
/// characters each.
pub fn check_confirmed(files: &[ConfirmedFile]) -> Result<(), String> {
    let bad = files.iter().any(|f| {
        f.file_id.as_deref().is_some_and(|id| {
            id.is_empty() || id.len() > MAX_FILE_ID_BYTES || id.chars().any(char::is_control)
        })
    });
    if bad || files.len() > super::MAX_PER_SEND {
        return Err("the tab's list of uploaded files is malformed (at most 10, each with the page's file id of 1 to 128 characters, or null for a file waiting for the click)".into());
    }
    Ok(())
}

/// Matches `confirmed` with `send`'s files one for one by name and size: for each of the
/// send's files, in its order, the index of the confirmed file taken for it; or the
/// sentence naming the difference (nothing was clicked).
pub fn grant_refusal(send: &[SendFile], confirmed: &[ConfirmedFile]) -> Result<Vec<usize>, String> {
    let mut taken = vec![false; confirmed.len()];
    let mut order = Vec::with_capacity(send.len());
    let mut missing = Vec::new();
    for f in send {
        let hit = (0..confirmed.len())
            .find(|&i| !taken[i] && confirmed[i].name == f.name && confirmed[i].size == f.size);
        match hit {
            Some(i) => {
                taken[i] = true;
                order.push(i);
            }
            None => missing.push(words(f.name, f.size)),
        }
    }
    let extra: Vec<String> = (0..confirmed.len())
        .filter(|&i| !taken[i])
        .map(|i| words(&confirmed[i].name, confirmed[i].size))
        .collect();
    if missing.is_empty() && extra.is_empty() {
        return Ok(order);
    }
    Err(format!(
        "the page's uploaded files are not the send's attachments ({}{}{}): nothing was clicked (queue it again; if the page renamed or changed a file, send one it keeps as it is)",
        list("not uploaded", &missing),
        if !missing.is_empty() && !extra.is_empty() { "; " } else { "" },
        list("uploaded but not the send's", &extra),
    ))
}

fn list(what: &str, items: &[String]) -> String {
    if items.is_empty() {
        String::new()
    } else {
        format!("{what}: {}", items.join(", "))
    }
}

fn same(f: &SendFile, p: &PageFile) -> bool {
    match f.file_id {
        Some(id) => id == p.file_id,
        None => p.name.as_deref() == Some(f.name) && p.size.is_none_or(|s| s == f.size),
    }
}

/// Why the page's request's files `page` are not `send`'s; `None` when each of the send's
/// files is there once and nothing else is.
pub fn request_mismatch(send: &[SendFile], page: &[PageFile]) -> Option<String> {
    let mut taken = vec![false; page.len()];
    let mut missing = Vec::new();
    for f in send {
        match (0..page.len()).find(|&i| !taken[i] && same(f, &page[i])) {
            Some(i) => taken[i] = true,
            None => missing.push(words(f.name, f.size)),
        }
    }
    let extra: Vec<String> = (0..page.len())
        .filter(|&i| !taken[i])
        .map(|i| match &page[i].name {
            Some(n) => format!("{n:?} ({})", page[i].file_id),
            None => page[i].file_id.clone(),
        })
        .collect();
    if missing.is_empty() && extra.is_empty() {
        return None;
    }
    Some(format!(
        "{MISMATCH_NOTE}: the page's request {}{}{} (sent once; never resent: check the conversation)",
        if missing.is_empty() { String::new() } else { format!("did not carry {}", missing.join(", ")) },
        if !missing.is_empty() && !extra.is_empty() { " and " } else { "" },
        if extra.is_empty() { String::new() } else { format!("carried files the send did not: {}", extra.join(", ")) },
    ))
}
