//! The files a completed send's answer generated, as MCP content (issue 29, "files out"):
//! a stored image is `{"type": "image", "data": <base64>, "mimeType"}`, another stored file
//! an embedded resource (`sendledger://sends/{op}/artifacts/{n}`, its blob in base64); one
//! that could not be fetched is named in a text block with its words. The server waits
//! for them to settle (the owner's `GET /v1/sends/{op}/artifacts?wait_ms=`, woken by its
//! commits) no longer than the call allows, at most 60 s.

use crate::client::routes::{paths, segment};
use crate::client::OwnerLink;
use base64::Engine;
use rmcp::model::{ContentBlock, ResourceContents};
use serde::Deserialize;
use std::time::Duration;

/// One artifact as the owner lists it (lenient: a field left out reads as empty).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct ArtifactSeen {
    n: u32,
    state: String,
    file_id: String,
    name: Option<String>,
    mime: Option<String>,
    words: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct Listed {
    artifacts: Vec<ArtifactSeen>,
}

/// The content blocks of `op_id`'s generated files, waiting at most `wait` (≤ 60 s) for
/// them to settle; none when it has none or the owner does not say.
pub async fn contents(link: &OwnerLink, op_id: &str, wait: Duration) -> Vec<ContentBlock> {
    let wait_ms = wait.as_millis().min(60_000) as u64;
    let path = paths::artifacts(op_id, wait_ms);
    let Ok(listed) = link.get_held::<Listed>(path, wait_ms).await else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for a in listed.artifacts {
        out.push(block(link, op_id, &a).await);
    }
    out
}

async fn block(link: &OwnerLink, op_id: &str, a: &ArtifactSeen) -> ContentBlock {
    let name = a.name.clone().unwrap_or_else(|| a.file_id.clone());
    match a.state.as_str() {
        "stored" => {}
        "unavailable" => {
            return ContentBlock::text(format!(
                "The answer's generated file #{} ({}) could not be fetched: {}",
                a.n,
                a.file_id,
                a.words.as_deref().unwrap_or("")
            ))
        }
        _ => {
            return ContentBlock::text(format!(
                "The answer's generated file #{} ({}) is not fetched yet: a ChatGPT tab showing the conversation fetches it; call get_send again later, or the user runs `sendledger artifact {op_id} {}`",
                a.n, a.file_id, a.n
            ))
        }
    }
    let path = paths::artifact(op_id, a.n);
    let (mime, bytes) = match link.get_bytes(path).await {
        Ok(got) => got,
        Err(e) => {
            return ContentBlock::text(format!(
                "The answer's generated file #{} ({name}) could not be read from sendledger: {e}",
                a.n
            ))
        }
    };
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    let mime = a.mime.clone().unwrap_or(mime);
    if mime.starts_with("image/") {
        return ContentBlock::image(data, mime);
    }
    ContentBlock::resource(ResourceContents::BlobResourceContents {
        uri: format!("sendledger://sends/{}/artifacts/{}", segment(op_id), a.n),
        mime_type: Some(mime),
        blob: data,
        meta: None,
    })
}
