//! The files an answer generated (issue 29, "files out"): every asset-pointer part
//! (`{content_type: "image_asset_pointer", asset_pointer: "sediment://file_<hex>" |
//! "file-service://file-<id>", size_bytes, width, height, …}`) of the messages of the
//! send's turn after its user message — the `image_gen` tool's, the assistant's — in
//! order of appearance (the turn's parent-link order), each file id once. The same in the
//! delta stream (a whole message in an `add` op), the legacy stream and the page's
//! conversation read. Fixtures: `stream_delta_image.sse`, `stream_legacy_image.sse`,
//! `listing_image_answered.json`, `stream_delta_eleven_images.sse`. Pure.

pub use super::asset_parts::MAX_READ;
use super::stream::TurnObservation;
use super::turn::turn_messages;
use crate::attachments::AnswerArtifact;

/// The artifacts of the turn started by the user message `user_message_id`: the asset
/// parts of its messages after the user message, in the turn's order, each file id once,
/// at most [`MAX_READ`].
pub fn artifacts_of(obs: &TurnObservation, user_message_id: &str) -> Vec<AnswerArtifact> {
    let mut out: Vec<AnswerArtifact> = Vec::new();
    for m in turn_messages(obs, user_message_id) {
        for a in &m.assets {
            if out.len() >= MAX_READ {
                return out;
            }
            if !out.iter().any(|o| o.file_id == a.file_id) {
                out.push(a.clone());
            }
        }
    }
    out
}
