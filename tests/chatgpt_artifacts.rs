//! An answer's generated files as the page shows them (issue 29, "files out"): every
//! asset-pointer part of the send's turn after its user message, in order, each file id
//! once — from the delta stream, the legacy stream and the page's conversation read
//! (the project's own fixtures: `stream_delta_image.sse`, `stream_legacy_image.sse`,
//! `listing_image_answered.json`, `stream_delta_eleven_images.sse`).

#[path = "fixtures/chatgpt/support.rs"]
mod support;

use sendledger::attachments::AnswerArtifact;
use sendledger::provider::chatgpt::artifacts::{artifacts_of, MAX_READ};
use sendledger::provider::chatgpt::conversation::parse_listing;
use sendledger::provider::chatgpt::{answer_outcome, TurnOutcome};
use support::*;

const USER: &str = "b0a1c2d3-0000-4e5f-8a9b-000000000101";
const ANSWER_ID: &str = "b0a1c2d3-0000-4e5f-8a9b-000000000104";

fn expected() -> Vec<AnswerArtifact> {
    vec![
        AnswerArtifact {
            file_id: "file_00000000c0ffee00a1b2c3d4e5f60718".into(),
            pointer: "sediment://file_00000000c0ffee00a1b2c3d4e5f60718".into(),
            size_bytes: Some(48213),
            width: Some(1024),
            height: Some(1024),
        },
        AnswerArtifact {
            file_id: "file-7Hq2LedgerQuill0001".into(),
            pointer: "file-service://file-7Hq2LedgerQuill0001".into(),
            size_bytes: Some(20480),
            width: Some(512),
            height: Some(768),
        },
    ]
}

fn answered(outcome: TurnOutcome) {
    match outcome {
        TurnOutcome::Answered { message_id, text } => {
            assert_eq!(message_id, ANSWER_ID);
            assert_eq!(text, "Here is your ledger book, quill and all.");
        }
        other => panic!("the image answer completes its turn: {other:?}"),
    }
}

#[test]
fn the_delta_streams_generated_images_are_the_answers_artifacts_in_order() {
    let obs = decode(&fixture("stream_delta_image.sse"));
    answered(answer_outcome(&obs, USER));
    assert_eq!(artifacts_of(&obs, USER), expected());
}

#[test]
fn every_byte_split_of_the_image_stream_gives_the_same_artifacts() {
    let bytes = fixture("stream_delta_image.sse");
    for cut in (0..=bytes.len()).step_by(7) {
        let obs = decode_split(&bytes, &[cut]);
        assert_eq!(artifacts_of(&obs, USER), expected(), "cut at {cut}");
    }
}

#[test]
fn the_legacy_streams_generated_images_are_the_same_artifacts() {
    let obs = decode(&fixture("stream_legacy_image.sse"));
    answered(answer_outcome(&obs, USER));
    assert_eq!(artifacts_of(&obs, USER), expected());
}

#[test]
fn the_conversation_read_shows_the_same_artifacts() {
    let listing = parse_listing(&fixture("listing_image_answered.json")).unwrap();
    let obs = listing.observation();
    answered(answer_outcome(&obs, USER));
    assert_eq!(artifacts_of(&obs, USER), expected());
}

#[test]
fn an_answer_without_generated_files_has_no_artifacts() {
    let obs = decode(&fixture("stream_delta_new_chat.sse"));
    assert!(artifacts_of(&obs, "5d1c0b7e-2f4a-4c61-9a0e-6b2d8e1f3a47").is_empty());
}

#[test]
fn the_user_messages_own_files_are_never_the_answers_artifacts() {
    // The user message of the fixture, given an uploaded picture: still only the turn's.
    let text = String::from_utf8(fixture("stream_delta_image.sse")).unwrap();
    let with_upload = text.replacen(
        "\"parts\": [\"Draw a ledger book with a quill beside it.\"]",
        "\"parts\": [{\"content_type\": \"image_asset_pointer\", \"asset_pointer\": \"file-service://file-UserUpload01\", \"size_bytes\": 9}, \"Draw a ledger book with a quill beside it.\"]",
        1,
    );
    assert_ne!(with_upload, text, "the fixture's user message was found");
    let obs = decode(with_upload.as_bytes());
    assert_eq!(artifacts_of(&obs, USER), expected());
}

#[test]
fn eleven_images_are_all_read_in_order_for_the_ledger_to_bound() {
    let obs = decode(&fixture("stream_delta_eleven_images.sse"));
    answered(answer_outcome(&obs, USER));
    let found = artifacts_of(&obs, USER);
    assert_eq!(found.len(), 11);
    assert_eq!(found[0].file_id, format!("file_{:032x}", 0xe1e0));
    assert_eq!(found[10].file_id, format!("file_{:032x}", 0xe1e0 + 10));
    assert!(found.len() <= MAX_READ);
}

#[test]
fn pointers_of_another_scheme_or_past_their_bounds_are_not_artifacts() {
    let text = String::from_utf8(fixture("stream_delta_image.sse")).unwrap();
    let long = format!("sediment://file_{}", "a".repeat(200));
    let changed = text
        .replace(
            "sediment://file_00000000c0ffee00a1b2c3d4e5f60718",
            "https://elsewhere.example/x.png",
        )
        .replace("file-service://file-7Hq2LedgerQuill0001", &long);
    let obs = decode(changed.as_bytes());
    assert!(artifacts_of(&obs, USER).is_empty());
}
