//! Files in an OpenAI request's last user message (issue 29): the chat door's
//! `image_url` part (`{"image_url": {"url": "data:image/png;base64,…"}}`) and `file` part
//! (`{"file": {"file_data": "data:application/pdf;base64,…" or bare base64, "filename"}}`),
//! the Responses door's `input_image` (`"image_url": "data:…"`) and `input_file`
//! (`"file_data"`, `"filename"`). Each is stored in the owner's attachment store and
//! becomes one of the send's attachments, in the order of the parts. Refused with a
//! sentence: an http(s) image URL (nothing is downloaded), an uploaded-file id (the tab
//! has only what the request carries), a file over 32 MiB, more than 10 files.

use super::error::bad;
use super::error::OpenAiError;
use crate::attachments::{self as files, Attachment, Store};
use crate::bridge::BridgeState;
use base64::Engine;
use serde_json::Value;

/// A file carried in the request.
#[derive(Clone)]
pub(crate) struct InlineFile {
    /// Its name (`filename`, else `image-N.<ext>` / `file-N.<ext>`).
    pub name: String,
    /// Its MIME type (from the data URL; `application/octet-stream` for bare base64).
    pub mime: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

impl std::fmt::Debug for InlineFile {
    /// Never the bytes or the name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "InlineFile({}, {} bytes)", self.mime, self.bytes.len())
    }
}

/// Whether `kind` is a file part's type.
pub(crate) fn is_file_part(kind: &str) -> bool {
    matches!(kind, "image_url" | "file" | "input_image" | "input_file")
}

fn decode(b64: &str, param: &'static str) -> Result<Vec<u8>, OpenAiError> {
    let max = (files::MAX_FILE_BYTES as usize).div_ceil(3) * 4;
    if b64.len() > max {
        return Err(too_large(param));
    }
    base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .map_err(|_| bad("invalid_file_data", param, "the file's data is not valid base64: send it as a data: URL (data:<type>;base64,<data>)"))
}

fn too_large(param: &'static str) -> OpenAiError {
    bad(
        "attachment_too_large",
        param,
        format!(
            "a file is at most {} bytes (32 MiB): send a smaller file",
            files::MAX_FILE_BYTES
        ),
    )
}

/// `data:<mime>;base64,<data>` → (mime, bytes); bare base64 when `bare_ok`. An http(s)
/// URL is refused: nothing is downloaded.
fn data_url(
    url: &str,
    bare_ok: bool,
    param: &'static str,
) -> Result<(String, Vec<u8>), OpenAiError> {
    if url.starts_with("http://") || url.starts_with("https://") {
        return Err(bad("remote_url_unsupported", param, "a file is sent from the request itself, never downloaded: send the image as a data: URL (data:image/png;base64,…) instead of an http(s) address"));
    }
    let Some(rest) = url.strip_prefix("data:") else {
        if bare_ok {
            return Ok((files::bounds::DEFAULT_MIME.into(), decode(url, param)?));
        }
        return Err(bad(
            "invalid_file_data",
            param,
            "an image is sent as a data: URL (data:image/png;base64,…)",
        ));
    };
    let (head, data) = rest.split_once(',').ok_or_else(|| {
        bad(
            "invalid_file_data",
            param,
            "a data: URL needs a comma before its data",
        )
    })?;
    let mime = head.strip_suffix(";base64").ok_or_else(|| {
        bad(
            "invalid_file_data",
            param,
            "a data: URL must be base64 (data:<type>;base64,<data>)",
        )
    })?;
    let mime = if mime.is_empty() {
        files::bounds::DEFAULT_MIME
    } else {
        mime
    };
    files::check_mime(mime).map_err(|e| bad("invalid_file_data", param, e))?;
    Ok((mime.to_string(), decode(data, param)?))
}

fn default_name(image: bool, n: usize, mime: &str) -> String {
    let ext = mime_guess::get_mime_extensions_str(mime)
        .and_then(|e| e.first())
        .map(|e| format!(".{e}"))
        .unwrap_or_default();
    format!("{}-{n}{ext}", if image { "image" } else { "file" })
}

/// The file of part `p` (of type `kind`, a file part), the `n`th of its message (from 1).
pub(crate) fn file_of(
    p: &Value,
    kind: &str,
    n: usize,
    param: &'static str,
) -> Result<InlineFile, OpenAiError> {
    let image = matches!(kind, "image_url" | "input_image");
    let obj = if kind == "file" {
        p.get("file").unwrap_or(&Value::Null)
    } else {
        p
    };
    if obj.get("file_id").is_some_and(|v| !v.is_null()) {
        return Err(bad("file_id_unsupported", param, "the tab has only the files the request carries: send the file's data (file_data, base64) instead of a file_id"));
    }
    let url = match kind {
        "image_url" => p
            .get("image_url")
            .and_then(|u| u.get("url").or(Some(u)))
            .and_then(Value::as_str),
        "input_image" => p.get("image_url").and_then(Value::as_str),
        _ => obj.get("file_data").and_then(Value::as_str),
    }
    .ok_or_else(|| {
        bad(
            "invalid_file_data",
            param,
            format!("the {kind} part carries no data: give its data as a data: URL"),
        )
    })?;
    let (mime, bytes) = data_url(url, !image, param)?;
    if bytes.is_empty() {
        return Err(bad("invalid_file_data", param, "a file part is empty"));
    }
    if bytes.len() as u64 > files::MAX_FILE_BYTES {
        return Err(too_large(param));
    }
    let name = match obj.get("filename").and_then(Value::as_str) {
        Some(n) => n.to_string(),
        None => default_name(image, n, &mime),
    };
    files::check_name(&name).map_err(|e| bad("invalid_file_data", param, e))?;
    Ok(InlineFile { name, mime, bytes })
}

/// Stores `list` in the owner's store and records them; their addresses, in order.
/// Storing the same bytes again is harmless: a retry carries the same files.
pub(crate) async fn store_all(
    st: &BridgeState,
    list: &[InlineFile],
) -> Result<Vec<String>, OpenAiError> {
    let mut shas = Vec::with_capacity(list.len());
    for f in list {
        let store = Store::new(st.profile().dir());
        let bytes = f.bytes.clone();
        let put = tokio::task::spawn_blocking(move || store.put(&bytes))
            .await
            .map_err(|_| {
                bad(
                    "invalid_file_data",
                    "messages",
                    "a file could not be stored: send the request again",
                )
            })?;
        let (sha256, _) =
            put.map_err(|e| OpenAiError::from(crate::bridge::attachment_routes::store_refusal(e)))?;
        let a = Attachment {
            sha256: sha256.clone(),
            name: f.name.clone(),
            mime: f.mime.clone(),
            size: f.bytes.len() as u64,
        };
        st.ledger()
            .call(move |l| l.record_upload(&a))
            .await
            .map_err(|e| OpenAiError::from(crate::bridge::error::ApiError::from(e)))?;
        shas.push(sha256);
    }
    Ok(shas)
}
