//! The asset-pointer parts of one message's `content.parts` (`{content_type:
//! "image_asset_pointer", asset_pointer: "sediment://file_<hex>" | "file-service://file-<id>",
//! size_bytes, width, height, …}`): what a message carries of the files an answer made
//! (issue 29, "files out"; the turn's files are gathered in [`super::artifacts`]). Fixtures:
//! `stream_delta_image.sse`, `listing_image_answered.json`. Pure.

use crate::attachments::artifact::{file_id_of, AnswerArtifact, MAX_POINTER_BYTES};
use serde_json::Value;

/// Most asset parts read from one message, and artifacts read from one turn (the ledger
/// records at most 10 and names the rest in a note).
pub const MAX_READ: usize = 64;

/// The asset-pointer parts of a message's `content` (none for text), in order.
pub(crate) fn assets_of(content: &Value) -> Vec<AnswerArtifact> {
    let Some(parts) = content.get("parts").and_then(Value::as_array) else {
        return Vec::new();
    };
    parts.iter().filter_map(asset).take(MAX_READ).collect()
}

fn asset(part: &Value) -> Option<AnswerArtifact> {
    let pointer = part.get("asset_pointer")?.as_str()?;
    if pointer.len() > MAX_POINTER_BYTES {
        return None;
    }
    let file_id = file_id_of(pointer)?.to_string();
    let num = |k: &str| part.get(k).and_then(Value::as_u64);
    Some(AnswerArtifact {
        file_id,
        pointer: pointer.to_string(),
        size_bytes: num("size_bytes"),
        width: num("width"),
        height: num("height"),
    })
}
