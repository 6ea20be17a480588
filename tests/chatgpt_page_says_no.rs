//! When the page says no (issue 12), in the provider: error turns end with the page's own
//! message and no answer; a usage limit is recognised with the reset time it names;
//! hand-off frames are read whether each is one envelope or a JSON array of envelopes,
//! items deduplicated across frames; frames nobody can read are counted as such.

#[path = "fixtures/chatgpt/support.rs"]
mod support;

use chrono::{FixedOffset, TimeZone};
use sendledger::provider::chatgpt::{
    self, refusal::read_refusal, request, stream::StreamDecoder, TurnOutcome,
};
use support::{decode, decode_with_websocket, fixture};

fn text(name: &str) -> String {
    String::from_utf8(fixture(name)).unwrap()
}

#[test]
fn an_error_turn_carries_the_receipt_and_the_pages_message_and_no_answer() {
    let req = request::parse_request(&fixture("request_new_chat_f.json")).unwrap();
    for (name, words) in [
        (
            "stream_delta_something_went_wrong.sse",
            "Something went wrong while writing the reply. Ask again in a moment.",
        ),
        (
            "stream_delta_usage_limit.sse",
            "You have used up the usage limit of this plan. Sending works again at 15:40.",
        ),
    ] {
        let obs = decode(&fixture(name));
        let receipt = chatgpt::receipt_for(&req, &obs, &req.text);
        assert!(
            receipt.is_some(),
            "{name}: the user message echo is the receipt"
        );
        assert_eq!(obs.error.as_deref(), Some(words), "{name}");
        assert_eq!(
            chatgpt::answer_outcome(&obs, &req.user_message_id),
            TurnOutcome::Error {
                message: words.into()
            },
            "{name}: no answer, the page's error"
        );
    }
}

#[test]
fn a_usage_limit_is_recognised_with_the_reset_time_its_message_names() {
    let obs = decode(&fixture("stream_delta_usage_limit.sse"));
    let tz = FixedOffset::east_opt(2 * 3600).unwrap();
    let noon = tz.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap();
    let r = read_refusal(obs.error.as_deref().unwrap(), &noon);
    assert!(r.usage_limit);
    assert_eq!(
        r.resets_at_ms,
        Some(
            tz.with_ymd_and_hms(2026, 12, 1, 15, 40, 0)
                .unwrap()
                .timestamp_millis()
        ),
        "15:40 local, today"
    );
    let other = decode(&fixture("stream_delta_something_went_wrong.sse"));
    let r = read_refusal(other.error.as_deref().unwrap(), &noon);
    assert!(!r.usage_limit, "a failure is not a limit");
    assert_eq!(r.resets_at_ms, None);
}

#[test]
fn hand_off_frames_that_are_arrays_of_envelopes_decode_like_single_ones_each_item_once() {
    let http = fixture("stream_delta_handoff.sse");
    let single = decode_with_websocket(&http, &text("websocket_handoff.jsonl"));
    let arrays = decode_with_websocket(&http, &text("websocket_handoff_arrays.jsonl"));
    assert_eq!(
        single.messages, arrays.messages,
        "the same turn, whatever the framing"
    );
    let answer = |o| chatgpt::answer_outcome(o, "7f6e5d4c-3b2a-4918-a7f6-e5d4c3b2a190");
    assert_eq!(answer(&arrays), answer(&single));
    assert!(matches!(
        answer(&arrays),
        TurnOutcome::Answered { ref text, .. } if text == "Every debit has a matching credit."
    ));
    let mut d = StreamDecoder::new();
    d.feed(&http);
    let readings: Vec<_> = text("websocket_handoff_arrays.jsonl")
        .lines()
        .map(|f| d.feed_websocket_frame(f))
        .collect();
    assert_eq!(readings[0].items, 2, "two envelopes in one frame");
    assert_eq!(
        readings[1].duplicates, 1,
        "item 1 replayed in a later frame: skipped"
    );
    assert_eq!(readings[1].other, 1, "an update envelope is passed over");
    assert_eq!(readings[2].items, 1, "an array of one");
    assert!(readings.iter().all(|r| r.understood()));
}

#[test]
fn hand_off_frames_nobody_can_read_are_counted_unreadable() {
    let mut d = StreamDecoder::new();
    d.feed(&fixture("stream_delta_handoff.sse"));
    let readings: Vec<_> = text("websocket_handoff_unreadable.jsonl")
        .lines()
        .map(|f| d.feed_websocket_frame(f))
        .collect();
    assert!(readings.iter().all(|r| !r.understood()), "{readings:?}");
    let big = format!("[{}]", vec!["{}"; 300].join(","));
    let r = d.feed_websocket_frame(&big);
    assert_eq!(
        r.unreadable, 300,
        "every envelope over the bound is counted, none read"
    );
}

#[test]
fn each_hand_off_envelope_is_read_by_its_own_topic_and_another_conversations_are_passed_over() {
    let http = fixture("stream_delta_handoff.sse");
    let single = decode_with_websocket(&http, &text("websocket_handoff.jsonl"));
    let mixed = decode_with_websocket(&http, &text("websocket_handoff_mixed.jsonl"));
    let answer = |o| chatgpt::answer_outcome(o, "7f6e5d4c-3b2a-4918-a7f6-e5d4c3b2a190");
    assert_eq!(
        answer(&mixed),
        answer(&single),
        "its own answer, whatever was mixed in"
    );
    assert!(
        mixed
            .messages
            .iter()
            .all(|m| m.text != "Credits sit on the right."),
        "no message of the other conversation enters the turn"
    );
    let mut d = StreamDecoder::new();
    d.feed(&http);
    let readings: Vec<_> = text("websocket_handoff_mixed.jsonl")
        .lines()
        .map(|f| d.feed_websocket_frame(f))
        .collect();
    assert!(readings.iter().all(|r| r.understood()), "{readings:?}");
    assert_eq!(readings[0].items, 1, "this turn's item; {readings:?}");
    assert_eq!(readings[0].elsewhere, 1, "the other topic's, apart");
    assert_eq!(
        readings[1].items, 1,
        "the other topic's si-0001 is not taken for this turn's"
    );
    assert_eq!(readings.iter().map(|r| r.elsewhere).sum::<usize>(), 4);
}
