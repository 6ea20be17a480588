//! The stream rules of the ChatGPT provider, table-driven over the project's own
//! fixtures (`tests/fixtures/chatgpt/`), each also replayed split at random chunk
//! boundaries. Rule tests mutate a fixture with one extra delta op, so each pins the
//! rule it is named after through the real decoder.

#[path = "fixtures/chatgpt/support.rs"]
mod support;

use proptest::prelude::*;
use sendledger::provider::chatgpt::{
    self, request, stream::Encoding, stream::StreamDecoder, stream::StreamEnd,
    stream::TurnObservation, NativeReceipt, TurnOutcome,
};
use support::{decode, decode_split, decode_with_websocket, fixture};

const CONV: &str = "6a1b2c3d-4e5f-8a01-b234-56789abcdef0";
const CONV2: &str = "6a1b2d00-0000-8b02-8c11-0123456789ab";
const USER: &str = "5d1c0b7e-2f4a-4c61-9a0e-6b2d8e1f3a47";
const ASSIST: &str = "7c6b5a49-3827-4165-b0a9-f8e7d6c5b4a3";
const TURN: &str = "a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d";
const SEND_TEXT: &str = "Draft a haiku about ledgers.\nKeep it short.";
const ANSWER_TEXT: &str =
    "Ink dries on the page,\neach line counted once,\nno debt forgotten.\n\nWant another?";
const FOLLOW_USER: &str = "aaa2c0de-1111-4a2b-9c3d-5e6f7a8b9c0d";
const H_USER: &str = "7f6e5d4c-3b2a-4918-a7f6-e5d4c3b2a190";
const L_USER: &str = "aaa2beef-3333-4c4d-8e5f-6a7b8c9d0e1f";

fn answered(id: &str, text: &str) -> TurnOutcome {
    TurnOutcome::Answered {
        message_id: id.into(),
        text: text.into(),
    }
}

/// The stream fixtures, each with the user message it is about and its outcome.
fn table() -> Vec<(&'static str, &'static str, Encoding, StreamEnd, TurnOutcome)> {
    vec![
        (
            "stream_delta_new_chat.sse",
            USER,
            Encoding::DeltaV1,
            StreamEnd::TurnComplete,
            answered(ASSIST, ANSWER_TEXT),
        ),
        (
            "stream_delta_batches.sse",
            FOLLOW_USER,
            Encoding::DeltaV1,
            StreamEnd::TurnComplete,
            answered(
                "1a2b3c4d-5e6f-4071-8293-a4b5c6d7e8f9",
                "Paper proves the trade.",
            ),
        ),
        (
            "stream_delta_ops.sse",
            FOLLOW_USER,
            Encoding::DeltaV1,
            StreamEnd::TurnComplete,
            answered("2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901", "Balance the books."),
        ),
        (
            "stream_delta_tools_follow_up.sse",
            "6e5d4c3b-2a19-4807-b6f5-e4d3c2b1a098",
            Encoding::DeltaV1,
            StreamEnd::TurnComplete,
            answered(
                "10000000-0000-4000-8000-00000000000e",
                "Noted: you keep ledgers.",
            ),
        ),
        (
            "stream_delta_handoff.sse",
            H_USER,
            Encoding::DeltaV1,
            StreamEnd::Done,
            TurnOutcome::HandedOff,
        ),
        (
            "stream_delta_interrupted.sse",
            USER,
            Encoding::DeltaV1,
            StreamEnd::Cut,
            TurnOutcome::NoAnswerYet,
        ),
        (
            "stream_delta_moderated.sse",
            USER,
            Encoding::DeltaV1,
            StreamEnd::Done,
            TurnOutcome::Blocked {
                reason: "moderation: blocked".into(),
            },
        ),
        (
            "stream_delta_error.sse",
            USER,
            Encoding::DeltaV1,
            StreamEnd::Done,
            TurnOutcome::Error {
                message: "hourly message allowance used up".into(),
            },
        ),
        (
            "stream_legacy_answered.sse",
            L_USER,
            Encoding::Legacy,
            StreamEnd::Done,
            answered(
                "4d5e6f70-8192-43a4-b5c6-d7e8f9012345",
                "Date, description, amount.",
            ),
        ),
        (
            "stream_legacy_truncated.sse",
            L_USER,
            Encoding::Legacy,
            StreamEnd::Done,
            TurnOutcome::NoAnswerYet,
        ),
        (
            "stream_legacy_moderation_blocked.sse",
            L_USER,
            Encoding::Legacy,
            StreamEnd::Done,
            TurnOutcome::Blocked {
                reason: "moderation_response: blocked".into(),
            },
        ),
        (
            "stream_unknown_events.sse",
            USER,
            Encoding::DeltaV1,
            StreamEnd::TurnComplete,
            answered(ASSIST, ANSWER_TEXT),
        ),
    ]
}

#[test]
fn every_stream_fixture_gives_its_outcome() {
    for (name, user, encoding, end, outcome) in table() {
        let obs = decode(&fixture(name));
        assert_eq!(obs.encoding, encoding, "{name}: encoding");
        assert_eq!(obs.end, end, "{name}: end");
        assert_eq!(
            chatgpt::answer_outcome(&obs, user),
            outcome,
            "{name}: outcome"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Bytes may arrive split at any boundary: any split gives the same observation.
    #[test]
    fn any_split_gives_the_same_result(which in 0usize..12, cuts in proptest::collection::vec(any::<usize>(), 0..40)) {
        let t = table();
        let (name, ..) = t[which % t.len()];
        let bytes = fixture(name);
        prop_assert_eq!(decode_split(&bytes, &cuts), decode(&bytes), "{}", name);
    }

    /// A snapshot taken after any split shows what a finish would, once all lines are in.
    #[test]
    fn snapshot_after_any_split_agrees_with_finish(which in 0usize..12, cut in any::<usize>()) {
        let t = table();
        let (name, user, ..) = t[which % t.len()];
        let bytes = fixture(name);
        let cut = cut % (bytes.len() + 1);
        let mut d = StreamDecoder::new();
        d.feed(&bytes[..cut]);
        d.feed(&bytes[cut..]);
        let snap = d.snapshot();
        let done = d.finish();
        prop_assert_eq!(&snap.messages, &done.messages, "{}", name);
        prop_assert_eq!(chatgpt::answer_outcome(&snap, user), chatgpt::answer_outcome(&done, user), "{}", name);
    }
}

#[test]
fn every_byte_split_of_the_new_chat_stream_gives_the_same_result() {
    let bytes = fixture("stream_delta_new_chat.sse");
    let whole = decode(&bytes);
    for cut in 0..=bytes.len() {
        assert_eq!(decode_split(&bytes, &[cut]), whole, "cut at byte {cut}");
    }
}

/// `fixture` with `extra` SSE text inserted before the first line starting with `before`.
fn with_inserted(name: &str, before: &str, extra: &str) -> Vec<u8> {
    let text = String::from_utf8(fixture(name)).expect("fixtures are UTF-8");
    let at = text
        .find(before)
        .unwrap_or_else(|| panic!("{name} contains {before:?}"));
    format!("{}{extra}{}", &text[..at], &text[at..]).into_bytes()
}

/// The new-chat stream with one more delta op on the answer (root `c: 2`) after it finished.
fn new_chat_with_op(path: &str, value: serde_json::Value) -> TurnObservation {
    let op = serde_json::json!({"p": path, "o": "replace", "v": value, "c": 2});
    let extra = format!("event: delta\ndata: {op}\n\n");
    decode(&with_inserted(
        "stream_delta_new_chat.sse",
        "data: {\"type\": \"server_ste_metadata\"",
        &extra,
    ))
}

fn outcome_with_op(path: &str, value: serde_json::Value) -> TurnOutcome {
    chatgpt::answer_outcome(&new_chat_with_op(path, value), USER)
}

#[test]
fn answer_requires_recipient_all() {
    assert_eq!(
        outcome_with_op("/message/recipient", "bio".into()),
        TurnOutcome::NoAnswerYet
    );
    assert_eq!(
        outcome_with_op("/message/recipient", "all".into()),
        answered(ASSIST, ANSWER_TEXT)
    );
}

#[test]
fn answer_requires_channel_null_or_final() {
    assert_eq!(
        outcome_with_op("/message/channel", "commentary".into()),
        TurnOutcome::NoAnswerYet
    );
    assert_eq!(
        outcome_with_op("/message/channel", "analysis".into()),
        TurnOutcome::NoAnswerYet
    );
    assert_eq!(
        outcome_with_op("/message/channel", "final".into()),
        answered(ASSIST, ANSWER_TEXT)
    );
    assert_eq!(
        outcome_with_op("/message/channel", serde_json::Value::Null),
        answered(ASSIST, ANSWER_TEXT)
    );
}

#[test]
fn answer_requires_not_hidden() {
    let hidden = outcome_with_op(
        "/message/metadata/is_visually_hidden_from_conversation",
        true.into(),
    );
    assert_eq!(hidden, TurnOutcome::NoAnswerYet);
}

#[test]
fn answer_requires_status_finished_successfully() {
    assert_eq!(
        outcome_with_op("/message/status", "in_progress".into()),
        TurnOutcome::NoAnswerYet
    );
}

#[test]
fn answer_requires_end_turn_true() {
    assert_eq!(
        outcome_with_op("/message/end_turn", false.into()),
        TurnOutcome::NoAnswerYet
    );
    assert_eq!(
        outcome_with_op("/message/end_turn", serde_json::Value::Null),
        TurnOutcome::NoAnswerYet
    );
}

#[test]
fn answer_requires_the_assistant_role_never_a_tool() {
    assert_eq!(
        outcome_with_op("/message/author/role", "tool".into()),
        TurnOutcome::NoAnswerYet
    );
}

#[test]
fn answer_never_comes_from_thoughts_or_reasoning_recaps() {
    for t in ["thoughts", "reasoning_recap", "code", "execution_output"] {
        assert_eq!(
            outcome_with_op("/message/content/content_type", t.into()),
            TurnOutcome::NoAnswerYet,
            "{t}"
        );
    }
}

#[test]
fn failed_answer_status_says_error() {
    let o = outcome_with_op("/message/status", "failed".into());
    assert_eq!(
        o,
        TurnOutcome::Error {
            message: "the answer message has status failed".into()
        }
    );
}

#[test]
fn commentary_analysis_and_tool_messages_of_a_turn_never_settle_it() {
    // The tool turn without its final answer's last patch: only commentary, a tool
    // message, thoughts and a recap are finished with end_turn true.
    let text = String::from_utf8(fixture("stream_delta_tools_follow_up.sse")).unwrap();
    let cut = text
        .find("data: {\"p\": \"\", \"o\": \"patch\"")
        .expect("the final patch");
    let obs = decode(&text.as_bytes()[..cut]);
    assert_eq!(
        chatgpt::answer_outcome(&obs, "6e5d4c3b-2a19-4807-b6f5-e4d3c2b1a098"),
        TurnOutcome::NoAnswerYet
    );
    assert!(
        obs.messages.len() >= 5,
        "all intermediate messages were seen"
    );
}

#[test]
fn answer_is_found_by_parent_links_not_create_time() {
    let obs = decode(&fixture("stream_delta_tools_follow_up.sse"));
    let user = obs
        .message("6e5d4c3b-2a19-4807-b6f5-e4d3c2b1a098")
        .expect("the user message");
    let last = obs
        .message("10000000-0000-4000-8000-00000000000e")
        .expect("the answer");
    assert!(
        last.create_time_ms < user.create_time_ms,
        "the fixture's answer is stamped before its question"
    );
    let order: Vec<&str> = chatgpt::turn_messages(&obs, &user.id)
        .iter()
        .map(|m| &m.id[m.id.len() - 1..])
        .collect();
    assert_eq!(
        order,
        ["a", "b", "c", "d", "e"],
        "thoughts, commentary, tool, recap, answer: by parent links"
    );
    assert_eq!(
        chatgpt::answer_outcome(&obs, &user.id),
        answered(&last.id, "Noted: you keep ledgers.")
    );
}

#[test]
fn answer_of_another_turn_never_settles() {
    // A finished answer whose parent is another user message arrives while this turn's
    // answer is still streaming.
    let other = serde_json::json!({"p": "", "o": "add", "c": 7, "v": {"conversation_id": CONV, "message": {
        "id": "99999999-0000-4000-8000-000000000001", "author": {"role": "assistant"}, "recipient": "all",
        "channel": "final", "status": "finished_successfully", "end_turn": true,
        "content": {"content_type": "text", "parts": ["an older answer"]},
        "metadata": {"parent_id": "99999999-0000-4000-8000-000000000000", "turn_exchange_id": "another-turn"}}}});
    let bytes = with_inserted(
        "stream_delta_interrupted.sse",
        "event: delta\ndata: {\"p\": \"/message/content",
        &format!("event: delta\ndata: {other}\n\n"),
    );
    let obs = decode(&bytes);
    assert_eq!(
        chatgpt::answer_outcome(&obs, USER),
        TurnOutcome::NoAnswerYet
    );
}

#[test]
fn two_finished_answers_on_different_branches_are_an_error_not_a_guess() {
    let sibling = serde_json::json!({"p": "", "o": "add", "c": 7, "v": {"conversation_id": CONV, "message": {
        "id": "99999999-0000-4000-8000-000000000002", "author": {"role": "assistant"}, "recipient": "all",
        "channel": null, "status": "finished_successfully", "end_turn": true,
        "content": {"content_type": "text", "parts": ["a second answer"]},
        "metadata": {"parent_id": USER, "turn_exchange_id": TURN}}}});
    let extra = format!("event: delta\ndata: {sibling}\n\n");
    let obs = decode(&with_inserted(
        "stream_delta_new_chat.sse",
        "data: {\"type\": \"message_stream_complete\"",
        &extra,
    ));
    assert!(matches!(
        chatgpt::answer_outcome(&obs, USER),
        TurnOutcome::Error { .. }
    ));
}

#[test]
fn a_missing_parent_is_bridged_only_by_the_user_messages_own_turn_id() {
    // The answer's parent is a message the stream never showed (pruned search step).
    let op = |turn: &str| {
        let v = serde_json::json!({"p": "/message/metadata", "o": "append", "c": 2,
            "v": {"parent_id": "88888888-0000-4000-8000-000000000000", "turn_exchange_id": turn}});
        format!("event: delta\ndata: {v}\n\n")
    };
    let before = "data: {\"type\": \"server_ste_metadata\"";
    let same = decode(&with_inserted(
        "stream_delta_new_chat.sse",
        before,
        &op(TURN),
    ));
    assert_eq!(
        chatgpt::answer_outcome(&same, USER),
        answered(ASSIST, ANSWER_TEXT)
    );
    let other = decode(&with_inserted(
        "stream_delta_new_chat.sse",
        before,
        &op("a-different-turn"),
    ));
    assert_eq!(
        chatgpt::answer_outcome(&other, USER),
        TurnOutcome::NoAnswerYet
    );
}

#[test]
fn interrupted_stream_says_no_answer_yet() {
    let obs = decode(&fixture("stream_delta_interrupted.sse"));
    assert_eq!(
        obs.end,
        StreamEnd::Cut,
        "no [DONE], no message_stream_complete"
    );
    let m = obs.message(ASSIST).expect("the answer so far");
    assert_eq!(
        m.text, "Ink dries on the",
        "the last event, without its closing blank line, still counts"
    );
    assert_eq!(
        chatgpt::answer_outcome(&obs, USER).to_string(),
        "no answer yet"
    );
    let legacy = decode(&fixture("stream_legacy_truncated.sse"));
    assert_eq!(
        chatgpt::answer_outcome(&legacy, L_USER),
        TurnOutcome::NoAnswerYet,
        "[DONE] after in_progress"
    );
}

#[test]
fn moderated_stream_says_blocked() {
    for (name, user) in [
        ("stream_delta_moderated.sse", USER),
        ("stream_legacy_moderation_blocked.sse", L_USER),
    ] {
        assert_eq!(
            chatgpt::answer_outcome(&decode(&fixture(name)), user).to_string(),
            "blocked",
            "{name}"
        );
    }
    let not_blocked = decode(&fixture("stream_legacy_answered.sse"));
    assert_eq!(
        not_blocked.blocked, None,
        "moderation_response with blocked false blocks nothing"
    );
}

#[test]
fn failed_stream_says_error() {
    let o = chatgpt::answer_outcome(&decode(&fixture("stream_delta_error.sse")), USER);
    assert_eq!(o.to_string(), "error: hourly message allowance used up");
    let envelope =
        r#"data: {"message": null, "conversation_id": "c-1", "error": "Something went wrong"}"#;
    let obs = decode(format!("{envelope}\n\ndata: [DONE]\n\n").as_bytes());
    assert_eq!(
        obs.error.as_deref(),
        Some("Something went wrong"),
        "a non-null envelope error"
    );
}

#[test]
fn handed_off_stream_says_handed_off() {
    let obs = decode(&fixture("stream_delta_handoff.sse"));
    assert_eq!(
        chatgpt::answer_outcome(&obs, H_USER).to_string(),
        "handed off"
    );
    let h = obs.handoff.as_ref().expect("a hand-off");
    assert_eq!(
        h.turn_exchange_id.as_deref(),
        Some("c2d3e4f5-a6b7-4c8d-8e9f-1a2b3c4d5e6f")
    );
    assert_eq!(h.topic_ids.len(), 2);
}

#[test]
fn websocket_items_complete_a_handed_off_turn() {
    let frames = String::from_utf8(fixture("websocket_handoff.jsonl")).unwrap();
    let obs = decode_with_websocket(&fixture("stream_delta_handoff.sse"), &frames);
    assert_eq!(
        obs.end,
        StreamEnd::TurnComplete,
        "message_stream_complete came over the WebSocket"
    );
    assert_eq!(
        chatgpt::answer_outcome(&obs, H_USER),
        answered(
            "3c4d5e6f-7081-4293-a4b5-c6d7e8f90123",
            "Every debit has a matching credit."
        ),
        "slices split mid-line concatenate; the inner [DONE] does not end the turn"
    );
}

#[test]
fn websocket_duplicate_items_are_applied_once() {
    let frames = String::from_utf8(fixture("websocket_handoff.jsonl")).unwrap();
    let lines: Vec<&str> = frames.lines().collect();
    assert_eq!(lines[1], lines[2], "the fixture replays item si-0001");
    let mut d = StreamDecoder::new();
    d.feed(&fixture("stream_delta_handoff.sse"));
    for l in &lines {
        d.feed_websocket_item(l);
        d.feed_websocket_item(l);
    }
    let TurnOutcome::Answered { text, .. } = chatgpt::answer_outcome(&d.finish(), H_USER) else {
        panic!("the handed-off turn is answered");
    };
    assert_eq!(
        text, "Every debit has a matching credit.",
        "no slice applied twice"
    );
}

#[test]
fn unknown_events_and_fields_are_passed_over() {
    let obs = decode(&fixture("stream_unknown_events.sse"));
    assert_eq!(
        chatgpt::answer_outcome(&obs, USER),
        answered(ASSIST, ANSWER_TEXT)
    );
    assert!(
        obs.warnings.len() >= 3,
        "what was passed over is counted: {:?}",
        obs.warnings
    );
    assert!(
        obs.warnings.iter().all(|w| !w.contains("not json at all")),
        "warnings never quote content"
    );
}

#[test]
fn sse_comments_empty_data_lines_and_done_are_framing_only() {
    let obs = decode(&fixture("stream_delta_new_chat.sse"));
    assert!(
        obs.warnings.is_empty(),
        "a comment, an empty data line and [DONE] are not warnings: {:?}",
        obs.warnings
    );
    assert_eq!(obs.end, StreamEnd::TurnComplete);
}

#[test]
fn delta_carry_forward_of_p_o_and_c() {
    // Bare {"v": …} events append to the carried path; bare {"v": [...]} are carried patches.
    let obs = decode(&fixture("stream_delta_batches.sse"));
    let m = obs
        .message("1a2b3c4d-5e6f-4071-8293-a4b5c6d7e8f9")
        .expect("the answer");
    assert_eq!(
        (m.text.as_str(), m.status.as_deref()),
        ("Paper proves the trade.", Some("finished_successfully"))
    );
    assert!(obs.warnings.is_empty(), "{:?}", obs.warnings);
}

#[test]
fn delta_keeps_one_root_object_per_c() {
    let obs = decode(&fixture("stream_delta_new_chat.sse"));
    let roles: Vec<&str> = obs.messages.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant"],
        "c 0, 1, 2 stay separate"
    );
    let user = obs.message(USER).unwrap();
    assert_eq!(user.text, SEND_TEXT, "appends to c 2 never touch c 1");
    assert_eq!(
        obs.message(ASSIST).unwrap().text,
        ANSWER_TEXT,
        "bare appends go to the carried c 2"
    );
    assert_eq!(obs.messages[0].text, "", "nothing lands on c 0");
    assert_eq!(user.turn_exchange_id.as_deref(), Some(TURN));
}

#[test]
fn delta_replace_remove_truncate_and_escaped_paths_apply() {
    let obs = decode(&fixture("stream_delta_ops.sse"));
    assert!(obs.warnings.is_empty(), "{:?}", obs.warnings);
    assert_eq!(
        obs.message("2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901")
            .unwrap()
            .text,
        "Balance the books."
    );
}

#[test]
fn legacy_snapshots_are_cumulative_not_appended() {
    let obs = decode(&fixture("stream_legacy_answered.sse"));
    let m = obs.message("4d5e6f70-8192-43a4-b5c6-d7e8f9012345").unwrap();
    assert_eq!(
        m.text, "Date, description, amount.",
        "the last snapshot replaces the earlier ones"
    );
    assert_eq!(
        obs.conversation_id.as_deref(),
        Some("0f1e2d3c-4b5a-4968-8778-695a4b3c2d1e")
    );
}

#[test]
fn outcome_display_is_exact() {
    assert_eq!(TurnOutcome::HandedOff.to_string(), "handed off");
    assert_eq!(TurnOutcome::NoAnswerYet.to_string(), "no answer yet");
    assert_eq!(
        TurnOutcome::Blocked { reason: "x".into() }.to_string(),
        "blocked"
    );
    assert_eq!(
        TurnOutcome::Error {
            message: "boom".into()
        }
        .to_string(),
        "error: boom"
    );
    let a = answered("m", "private words");
    assert!(
        !a.to_string().contains("private") && !format!("{a:?}").contains("private"),
        "text never shown"
    );
}

// ---- receipts -----------------------------------------------------------------------

fn new_chat_request() -> request::ConversationRequest {
    request::parse_request(&fixture("request_new_chat_f.json")).expect("the fixture request")
}

#[test]
fn receipt_is_the_native_tuple() {
    let obs = decode(&fixture("stream_delta_new_chat.sse"));
    let r = chatgpt::receipt_for(&new_chat_request(), &obs, SEND_TEXT);
    let want = NativeReceipt {
        conversation_id: CONV.into(),
        user_message_id: USER.into(),
        turn_id: TURN.into(),
    };
    assert_eq!(r, Some(want.clone()));
    let json = serde_json::to_string(&want).unwrap();
    assert_eq!(serde_json::from_str::<NativeReceipt>(&json).unwrap(), want);
}

#[test]
fn receipt_only_for_the_requests_user_message_id() {
    let obs = decode(&fixture("stream_delta_new_chat.sse"));
    let mut req = new_chat_request();
    req.user_message_id = "5d1c0b7e-0000-4c61-9a0e-6b2d8e1f3a47".into();
    assert_eq!(
        chatgpt::receipt_for(&req, &obs, SEND_TEXT),
        None,
        "another id, though the text matches"
    );
}

#[test]
fn receipt_text_matches_under_line_break_normalisation_only() {
    let obs = decode(&fixture("stream_delta_new_chat.sse"));
    let req = new_chat_request();
    let crlf = SEND_TEXT.replace('\n', "\r\n");
    assert!(
        chatgpt::receipt_for(&req, &obs, &crlf).is_some(),
        "CRLF in the send is LF in the page"
    );
    for other in [
        format!("{SEND_TEXT} "),
        SEND_TEXT.to_uppercase(),
        SEND_TEXT.replace('\n', " "),
    ] {
        assert_eq!(
            chatgpt::receipt_for(&req, &obs, &other),
            None,
            "{other:?} is another text"
        );
    }
}

#[test]
fn receipt_requires_the_observed_message_text_too() {
    // The page's echo of the message differs from the request (and the send).
    let op = serde_json::json!({"p": "/message/content/parts/0", "o": "append", "v": " (edited)", "c": 1});
    let extra = format!("event: delta\ndata: {op}\n\n");
    let bytes = with_inserted(
        "stream_delta_new_chat.sse",
        "data: {\"type\": \"input_message\"",
        &extra,
    );
    let text = String::from_utf8(bytes).unwrap().replace("Keep it short.\"]}, \"status\": \"finished_successfully\", \"end_turn\": null, \"weight\": 1.0, \"metadata\": {\"turn_exchange_id\": \"a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d\", \"request_id\": \"c0ffee00-1234-4abc-9def-000000000001\", \"parent_id\"", "Keep it short. (edited)\"]}, \"status\": \"finished_successfully\", \"end_turn\": null, \"weight\": 1.0, \"metadata\": {\"turn_exchange_id\": \"a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d\", \"request_id\": \"c0ffee00-1234-4abc-9def-000000000001\", \"parent_id\"");
    let obs = decode(text.as_bytes());
    assert_eq!(
        chatgpt::receipt_for(&new_chat_request(), &obs, SEND_TEXT),
        None
    );
}

#[test]
fn receipt_requires_the_request_text_too() {
    let obs = decode(&fixture("stream_delta_new_chat.sse"));
    let mut req = new_chat_request();
    req.text = "Another text typed by someone else.".into();
    assert_eq!(
        chatgpt::receipt_for(&req, &obs, SEND_TEXT),
        None,
        "the request is not the send's"
    );
}

#[test]
fn receipt_only_for_action_next() {
    let obs = decode(&fixture("stream_delta_new_chat.sse"));
    let mut req = new_chat_request();
    req.action = request::Action::Variant;
    assert_eq!(
        chatgpt::receipt_for(&req, &obs, SEND_TEXT),
        None,
        "a regenerate re-uses an old message"
    );
}

#[test]
fn receipt_refuses_a_conversation_mismatch() {
    let obs = decode(&fixture("stream_delta_new_chat.sse"));
    let mut req = new_chat_request();
    req.conversation_id = Some(CONV2.into());
    assert_eq!(chatgpt::receipt_for(&req, &obs, SEND_TEXT), None);
}

#[test]
fn receipt_needs_the_turn_exchange_id() {
    let obs = decode(&fixture("stream_legacy_answered.sse"));
    let req = request::ConversationRequest {
        action: request::Action::Next,
        user_message_id: L_USER.into(),
        text: "Name three ledger columns.".into(),
        conversation_id: None,
        parent_message_id: None,
        model: None,
        attachments: Vec::new(),
    };
    assert!(
        obs.message(L_USER).is_some(),
        "the legacy stream echoes the user message"
    );
    assert_eq!(
        chatgpt::receipt_for(&req, &obs, "Name three ledger columns."),
        None,
        "but carries no turn id"
    );
}

#[test]
fn receipt_comes_from_a_snapshot_before_the_stream_ends() {
    let bytes = fixture("stream_delta_new_chat.sse");
    let text = String::from_utf8(bytes).unwrap();
    let upto = text
        .find("event: delta\ndata: {\"v\": {\"message\": {\"id\": \"7c6b")
        .expect("the answer's add");
    let mut d = StreamDecoder::new();
    d.feed(&text.as_bytes()[..upto]);
    let snap = d.snapshot();
    assert_eq!(snap.end, StreamEnd::Open);
    assert!(chatgpt::receipt_for(&new_chat_request(), &snap, SEND_TEXT).is_some());
    assert_eq!(
        chatgpt::answer_outcome(&snap, USER),
        TurnOutcome::NoAnswerYet
    );
}
