//! The files a conversation request carries (issue 29): the user message's
//! `metadata.attachments` (`{id, name, size, mime_type | mimeType, …}`) and its
//! `content.parts` objects pointing at an uploaded file
//! (`{content_type: "image_asset_pointer", asset_pointer: "file-service://file-…",
//! size_bytes, width, height}`). One [`PageFile`] per file id, in the order first seen
//! (metadata first); at most [`MAX_FILES`]. Pure.

use crate::attachments::PageFile;
use serde_json::Value;

/// Most files read from one request (more are not read: a request carrying that many is
/// a mismatch with any send, whose bound is 10).
pub const MAX_FILES: usize = 64;
/// Longest name kept, in characters.
const MAX_NAME_CHARS: usize = 255;

/// The file id an asset pointer names: `file-service://<id>` or `sediment://<id>`.
fn pointer_id(pointer: &str) -> Option<&str> {
    let id = pointer
        .strip_prefix("file-service://")
        .or_else(|| pointer.strip_prefix("sediment://"))?;
    (!id.is_empty() && id.len() <= crate::attachments::page::MAX_FILE_ID_BYTES).then_some(id)
}

fn bounded_id(id: &str) -> Option<String> {
    let ok = !id.is_empty()
        && id.len() <= crate::attachments::page::MAX_FILE_ID_BYTES
        && !id.chars().any(char::is_control);
    ok.then(|| id.to_string())
}

fn push(out: &mut Vec<PageFile>, f: PageFile) {
    let full = out.len() >= MAX_FILES;
    match out.iter_mut().find(|o| o.file_id == f.file_id) {
        Some(o) => {
            o.name = o.name.take().or(f.name);
            o.size = o.size.or(f.size);
        }
        None if !full => out.push(f),
        None => {}
    }
}

/// The files the user message `user` carries (none for a text-only message).
pub fn files_of(user: &Value) -> Vec<PageFile> {
    let mut out = Vec::new();
    let listed = user
        .pointer("/metadata/attachments")
        .and_then(Value::as_array);
    for a in listed.into_iter().flatten() {
        let Some(file_id) = a.get("id").and_then(Value::as_str).and_then(bounded_id) else {
            continue;
        };
        let name = a
            .get("name")
            .and_then(Value::as_str)
            .map(|n| n.chars().take(MAX_NAME_CHARS).collect());
        let size = a.get("size").and_then(Value::as_u64);
        push(
            &mut out,
            PageFile {
                file_id,
                name,
                size,
            },
        );
    }
    let parts = user.pointer("/content/parts").and_then(Value::as_array);
    for p in parts.into_iter().flatten() {
        let Some(id) = p
            .get("asset_pointer")
            .and_then(Value::as_str)
            .and_then(pointer_id)
        else {
            continue;
        };
        let Some(file_id) = bounded_id(id) else {
            continue;
        };
        let size = p.get("size_bytes").and_then(Value::as_u64);
        push(
            &mut out,
            PageFile {
                file_id,
                name: None,
                size,
            },
        );
    }
    out
}
