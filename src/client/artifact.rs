//! Getting an answer's generated file from the owner (`GET /v1/sends/{op}/artifacts/{n}`,
//! issue 29): its bytes (at most 32 MiB), MIME type and name.

use super::http::BridgeClient;
use super::routes::segment;
use super::ClientError;
use std::io::Read;

/// One generated file as the owner served it.
#[derive(Clone, PartialEq, Eq)]
pub struct ArtifactFile {
    /// The name it was stored under (from `content-disposition`).
    pub name: String,
    /// Its MIME type.
    pub mime: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

impl std::fmt::Debug for ArtifactFile {
    /// Name, MIME type and size; never the bytes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArtifactFile")
            .field("name", &self.name)
            .field("mime", &self.mime)
            .field("size", &self.bytes.len())
            .finish()
    }
}

/// The name in a `content-disposition` (`filename*=UTF-8''…` first, else `filename="…"`).
pub fn disposition_name(header: &str) -> Option<String> {
    if let Some(enc) = header.split("filename*=UTF-8''").nth(1) {
        let enc = enc.split(';').next().unwrap_or_default().trim();
        if let Ok(name) = percent_encoding::percent_decode_str(enc).decode_utf8() {
            return Some(name.into_owned());
        }
    }
    let plain = header.split("filename=\"").nth(1)?;
    Some(plain.split('"').next()?.to_string())
}

impl BridgeClient {
    /// `GET /v1/sends/{op_id}/artifacts/{n}`. Errors: the owner's refusal
    /// (`artifact_pending` 409, `artifact_unavailable` 410, `unknown_artifact` 404), or
    /// the answer lost.
    pub fn artifact(&self, op_id: &str, n: u32) -> Result<ArtifactFile, ClientError> {
        let path = format!("/v1/sends/{}/artifacts/{n}", segment(op_id));
        let resp = self.get_raw(&path)?;
        let mime = resp.content_type().to_string();
        let name = resp
            .header("content-disposition")
            .and_then(disposition_name)
            .unwrap_or_else(|| format!("artifact-{n}"));
        let mut bytes = Vec::new();
        let limit = crate::attachments::MAX_FILE_BYTES + 1;
        resp.into_reader()
            .take(limit)
            .read_to_end(&mut bytes)
            .map_err(|e| {
                ClientError::Lost(format!(
                    "the file's bytes did not all arrive ({e}): ask again"
                ))
            })?;
        Ok(ArtifactFile { name, mime, bytes })
    }
}
