//! The claude.ai stream rules: receipt, answer, thinking, the page's error, the usage
//! limit, a cut stream (fixtures `tests/fixtures/claude/stream_*.sse`).

#[path = "fixtures/claude/support.rs"]
mod support;

use sendledger::provider::chatgpt::TurnOutcome;
use sendledger::provider::claude::limit::LimitState;
use sendledger::provider::claude::route::Route;
use sendledger::provider::claude::stream::{decode, StreamDecoder, StreamEnd};
use sendledger::provider::claude::{answer_outcome, receipt_for, ClaudeOutcome};
use support::{completion_route, fixture, request, stream, CONVERSATION};

const ASKED: &str = "Name three rivers that freeze over in winter.";
const ANSWER: &str = "The Ob, the Lena and the Yenisei freeze over every winter.";

#[test]
fn a_plain_answer_completes_with_its_text_under_the_assistant_uuid_the_request_chose() {
    let req = request("request_follow_up.json");
    let obs = stream("stream_answer.sse");
    assert_eq!(obs.end, StreamEnd::Stopped);
    assert_eq!(obs.model.as_deref(), Some("claude-sonnet-4-6"));
    assert_eq!(
        answer_outcome(&obs, &req),
        ClaudeOutcome::Answered {
            message_uuid: req.assistant_message_uuid.clone(),
            text: ANSWER.into()
        }
    );
    let r = receipt_for(&completion_route(), &req, &obs, ASKED).expect("a receipt");
    assert_eq!(r.conversation_id, CONVERSATION);
    assert_eq!(r.user_message_id, req.human_message_uuid);
    assert_eq!(r.turn_id, req.assistant_message_uuid);
    assert!(
        !format!("{obs:?}{:?}", answer_outcome(&obs, &req)).contains("Yenisei"),
        "Debug never shows the answer"
    );
}

#[test]
fn a_receipt_needs_the_stream_to_name_the_assistant_uuid_the_page_chose() {
    let req = request("request_follow_up.json");
    let obs = stream("stream_answer.sse");
    let other = request("request_new_chat.json");
    assert_eq!(
        receipt_for(&completion_route(), &other, &obs, &other.prompt),
        None,
        "a stream naming another assistant message is not this request's"
    );
    let mut nameless = obs.clone();
    nameless.assistant_message_uuid = None;
    assert_eq!(
        receipt_for(&completion_route(), &req, &nameless, ASKED),
        None,
        "a message_start naming no uuid gives no receipt"
    );
    let mut unstarted = obs.clone();
    unstarted.started = false;
    assert_eq!(
        receipt_for(&completion_route(), &req, &unstarted, ASKED),
        None
    );
    assert_eq!(
        receipt_for(&completion_route(), &req, &obs, "Another text."),
        None,
        "the prompt must be the send's text"
    );
    let retry = Route::Retry {
        org: support::ORG.into(),
        conversation: CONVERSATION.into(),
    };
    assert_eq!(
        receipt_for(&retry, &req, &obs, ASKED),
        None,
        "the retry route is never a send's"
    );
}

#[test]
fn the_prompt_is_compared_with_line_breaks_normalised_only() {
    let req = request("request_new_chat.json");
    let obs = stream("stream_thinking_answer.sse");
    let text = "Plan a two-day walk along the Rhine.\nKeep it short.";
    assert!(receipt_for(&completion_route(), &req, &obs, text).is_some());
    assert!(receipt_for(
        &completion_route(),
        &req,
        &obs,
        "Plan a two-day walk along the Rhine. Keep it short."
    )
    .is_none());
}

#[test]
fn thinking_is_never_taken_for_the_answer() {
    let req = request("request_new_chat.json");
    let obs = stream("stream_thinking_answer.sse");
    let want = "Day one: Koblenz to Boppard.\nDay two: Boppard to Bingen.";
    assert_eq!(obs.text, want);
    assert!(obs.thinking.contains("split it at Boppard"));
    assert!(obs.thinking.contains("Weighing where to stop overnight."));
    assert!(!obs.text.contains("THIS TEXT SITS IN A THINKING BLOCK"));
    assert!(
        !obs.thinking.contains("THIS TEXT"),
        "a text delta is not thinking either"
    );
    assert!(!obs.text.contains("thinking delta aimed"));
    match answer_outcome(&obs, &req) {
        ClaudeOutcome::Answered { text, .. } => assert_eq!(text, want),
        other => panic!("{other:?}"),
    }
    assert!(
        obs.warnings.len() >= 3,
        "the mismatched deltas and the unknown event are counted"
    );
}

#[test]
fn a_stream_cut_before_message_stop_completes_nothing() {
    let req = request("request_follow_up.json");
    let obs = stream("stream_cut.sse");
    assert_eq!(obs.end, StreamEnd::Cut);
    assert_eq!(obs.text, ANSWER, "the text streamed in full");
    assert_eq!(obs.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(answer_outcome(&obs, &req), ClaudeOutcome::Cut);
    assert_eq!(
        answer_outcome(&obs, &req).to_turn_outcome(),
        TurnOutcome::NoAnswerYet
    );
    let mut d = StreamDecoder::new();
    d.feed(&fixture("stream_cut.sse"));
    assert_eq!(
        d.snapshot().end,
        StreamEnd::Open,
        "a snapshot is not an end"
    );
    assert_eq!(
        answer_outcome(&d.snapshot(), &req),
        ClaudeOutcome::NoAnswerYet
    );
    assert!(
        receipt_for(&completion_route(), &req, &obs, ASKED).is_some(),
        "the receipt stands: the page took the message"
    );
}

#[test]
fn a_stop_reason_other_than_end_turn_leaves_the_answer_unfinished() {
    let req = request("request_follow_up.json");
    let obs = stream("stream_max_tokens.sse");
    assert_eq!(obs.end, StreamEnd::Stopped);
    assert_eq!(
        answer_outcome(&obs, &req),
        ClaudeOutcome::Unfinished {
            stop_reason: "max_tokens".into()
        }
    );
}

#[test]
fn the_pages_error_event_is_the_pages_words() {
    let req = request("request_follow_up.json");
    let obs = stream("stream_error.sse");
    let e = obs.error.clone().expect("the error event is read");
    assert_eq!(e.kind.as_deref(), Some("overloaded_error"));
    assert_eq!(
        e.message,
        "Claude is busy right now. Please try again in a little while."
    );
    assert_eq!(
        answer_outcome(&obs, &req),
        ClaudeOutcome::Error {
            message: e.message.clone()
        }
    );
}

#[test]
fn a_message_limit_is_read_as_a_limit_with_its_reset_time() {
    let req = request("request_follow_up.json");
    let obs = stream("stream_limit_exceeded.sse");
    let limit = obs.limit.clone().expect("the limit event is read");
    assert!(limit.exceeded());
    assert_eq!(limit.resume_at_ms(), Some(1_796_040_000_000));
    let w: Vec<_> = limit.windows.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(w, ["5h", "7d"]);
    assert_eq!(limit.windows[0].utilization_permille, Some(1000));
    let refusal = limit.refusal().expect("an exceeded limit refuses sending");
    assert!(refusal.usage_limit);
    assert_eq!(refusal.resets_at_ms, Some(1_796_040_000_000));
    assert!(
        matches!(answer_outcome(&obs, &req), ClaudeOutcome::Error { .. }),
        "the page's error comes with it, in its own words"
    );
    let mut quiet = obs.clone();
    quiet.error = None;
    assert_eq!(answer_outcome(&quiet, &req), ClaudeOutcome::LimitReached);
}

#[test]
fn a_limit_reset_comes_from_its_exceeded_windows_or_is_none_never_a_guess() {
    let both = stream("stream_limit_windows_only.sse").limit.unwrap();
    assert_eq!(
        both.resume_at_ms(),
        Some(1_796_547_600_000),
        "the latest exceeded window"
    );
    let none = stream("stream_limit_no_time.sse").limit.unwrap();
    assert!(none.exceeded());
    assert_eq!(none.resume_at_ms(), None);
    assert_eq!(none.refusal().unwrap().resets_at_ms, None);
}

#[test]
fn a_limit_within_bounds_holds_nothing() {
    let limit = stream("stream_answer.sse")
        .limit
        .expect("sent with every answer");
    assert_eq!(limit.state, LimitState::Within);
    assert!(!limit.exceeded());
    assert_eq!(limit.resume_at_ms(), None);
    assert_eq!(limit.refusal(), None);
}

#[test]
fn every_split_of_a_stream_gives_the_same_observation() {
    for name in [
        "stream_thinking_answer.sse",
        "stream_answer.sse",
        "stream_error.sse",
    ] {
        let bytes = fixture(name);
        let whole = decode(&bytes);
        for split in 0..=bytes.len() {
            let mut d = StreamDecoder::new();
            d.feed(&bytes[..split]);
            d.feed(&bytes[split..]);
            assert_eq!(d.finish(), whole, "{name} split at {split}");
        }
    }
}

#[test]
fn events_after_message_stop_are_passed_over_but_a_limit() {
    let req = request("request_follow_up.json");
    let mut bytes = fixture("stream_answer.sse");
    bytes.extend_from_slice(
        b"event: error\ndata: {\"type\":\"error\",\"error\":{\"message\":\"late\"}}\n\n",
    );
    bytes.extend_from_slice(&fixture("stream_limit_no_time.sse"));
    let obs = decode(&bytes);
    assert_eq!(obs.error, None);
    assert!(
        obs.limit.as_ref().is_some_and(|l| l.exceeded()),
        "a message_limit after message_stop is still read: it gates the next send"
    );
    assert!(matches!(
        answer_outcome(&obs, &req),
        ClaudeOutcome::Answered { .. }
    ));
}

#[test]
fn deep_or_huge_input_is_passed_over_and_the_decoder_lives() {
    let deep = format!(
        "data: {{\"type\":\"ping\",\"x\":{}{}}}\n\n",
        "[".repeat(200),
        "]".repeat(200)
    );
    let mut d = StreamDecoder::new();
    d.feed(deep.as_bytes());
    assert!(d.nests_too_deep());
    d.feed(&fixture("stream_answer.sse"));
    let obs = d.finish();
    assert_eq!(obs.text, ANSWER, "the rest of the stream is still read");
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    /// Every event of a well-formed answer but `message_stop`.
    const EVENTS: &[&str] = &[
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"uuid\":\"0c4e9a72-8e1c-4a96-a3b7-2f6d5c4b3a92\"}}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n",
        "event: message_limit\ndata: {\"type\":\"message_limit\",\"message_limit\":{\"type\":\"within_limit\"}}\n\n",
        "event: ping\ndata: {\"type\":\"ping\"}\n\n",
        "data: [DONE]\n\n",
        "data: {\"type\":\"message_stop_not\"}\n\n",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn the_stream_decoder_never_panics_on_arbitrary_bytes(
            bytes in proptest::collection::vec(any::<u8>(), 0..4096),
            split in 0usize..4096,
        ) {
            let req = request("request_follow_up.json");
            let mut d = StreamDecoder::new();
            let split = split.min(bytes.len());
            d.feed(&bytes[..split]);
            let _ = d.snapshot();
            d.feed(&bytes[split..]);
            let obs = d.finish();
            let outcome = answer_outcome(&obs, &req);
            if matches!(outcome, ClaudeOutcome::Answered { .. }) {
                prop_assert_eq!(obs.end, StreamEnd::Stopped);
            }
        }

        #[test]
        fn no_answer_is_ever_taken_without_message_stop(
            picks in proptest::collection::vec(0usize..EVENTS.len(), 0..40),
            noise in proptest::collection::vec(any::<u8>(), 0..64),
            cut in 0usize..64,
        ) {
            let req = request("request_follow_up.json");
            let mut bytes: Vec<u8> = picks.iter().flat_map(|&i| EVENTS[i].bytes()).collect();
            bytes.extend(noise.iter().filter(|b| !b"_".contains(b)));
            let keep = bytes.len().saturating_sub(cut);
            let obs = decode(&bytes[..keep]);
            prop_assert_ne!(obs.end, StreamEnd::Stopped);
            let answered = matches!(answer_outcome(&obs, &req), ClaudeOutcome::Answered { .. });
            prop_assert!(!answered, "answered without message_stop");
        }
    }
}
