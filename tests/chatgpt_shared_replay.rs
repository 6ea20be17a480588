//! Replays every file under `../shared/fixtures/chatgpt/` (real captured chatgpt.com
//! traffic) when that folder exists, and checks the outcome written down for each.
//! A file without a written-down expectation fails the test: a new capture needs one.
//! Skips, with a note, when the folder is absent.

#[path = "fixtures/chatgpt/support.rs"]
mod support;

use sendledger::provider::chatgpt::{
    self, conversation, request, request::Action, stream::Encoding, stream::StreamEnd, ParseError,
    TurnOutcome,
};
use std::path::{Path, PathBuf};
use support::{decode, decode_split, legacy_array_to_sse};

fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("SENDLEDGER_SHARED_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/chatgpt")
        });
    dir.is_dir().then_some(dir)
}

fn answered(outcome: &TurnOutcome) -> (String, String) {
    match outcome {
        TurnOutcome::Answered { message_id, text } => (message_id.clone(), text.clone()),
        other => panic!("expected an answer, got {other}"),
    }
}

fn req(
    action: Action,
    id: &str,
    text: &str,
    conversation_id: Option<&str>,
) -> request::ConversationRequest {
    request::ConversationRequest {
        action,
        user_message_id: id.into(),
        text: text.into(),
        conversation_id: conversation_id.map(str::to_string),
        parent_message_id: None,
        model: None,
        attachments: Vec::new(),
    }
}

/// Cut points from a small deterministic generator (no extra dependency).
fn cuts(len: usize, seed: u64) -> Vec<usize> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..12)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as usize % (len + 1)
        })
        .collect()
}

/// Decodes a shared stream whole and at several random splits; all must agree.
fn stream(name: &str, bytes: &[u8]) -> sendledger::provider::chatgpt::stream::TurnObservation {
    let whole = decode(bytes);
    for seed in 0..8 {
        assert_eq!(
            decode_split(bytes, &cuts(bytes.len(), seed)),
            whole,
            "{name}: a split changed the result"
        );
    }
    whole
}

/// The expectation for one file; `None` when the file has none written down.
fn check(name: &str, bytes: &[u8]) -> Option<()> {
    match name {
        "FORMAT.md" | "SOURCES.md" | "dom_01_chatgpt_thread_turns_2026.html" => {
            // Documentation and a saved page: neither a request, a stream nor a listing.
            assert!(request::parse_request(bytes).is_err(), "{name} is not a request");
            assert!(conversation::parse_listing(bytes).is_err(), "{name} is not a listing");
            assert!(decode(bytes).messages.is_empty(), "{name} holds no stream messages");
        }
        "01_legacy_full_message_2024-10_truncated.sse" => {
            // Truncated legacy capture: last snapshot in_progress, then [DONE].
            let o = stream(name, bytes);
            assert_eq!(o.encoding, Encoding::Legacy);
            assert_eq!(o.conversation_id.as_deref(), Some("670e921b-cbb0-8002-9abc-a1ba20e84d4a"));
            assert_eq!(o.end, StreamEnd::Done);
            let user = "aaa237c7-ab5c-45ef-b995-3777358006f6";
            assert!(o.message(user).is_some_and(|m| m.role == "user"), "the user echo is seen");
            assert_eq!(chatgpt::answer_outcome(&o, user), TurnOutcome::NoAnswerYet, "interrupted: no guess");
            let text = o.message(user).map(|m| m.text.clone()).unwrap_or_default();
            let r = req(Action::Next, user, &text, None);
            assert_eq!(chatgpt::receipt_for(&r, &o, &text), None, "legacy streams carry no turn_exchange_id");
        }
        "02_delta_v1_early_2024-10_gpt-4o.sse" => {
            let o = stream(name, bytes);
            assert_eq!(o.encoding, Encoding::DeltaV1);
            assert_eq!(o.conversation_id.as_deref(), Some("670fce41-4328-800b-8b72-f52b274345f0"));
            assert_eq!(o.end, StreamEnd::Done, "no message_stream_complete in 2024");
            let (id, text) = answered(&chatgpt::answer_outcome(&o, "aaa2fd24-fda4-4885-9442-8134d5ff2396"));
            assert_eq!(id, "2fbb6a89-5387-4146-9471-10f792d0e284");
            assert!(text.starts_with("\u{597d}\u{7684}") && text.ends_with("\u{5efa}\u{8bae}\u{3002}"), "all appends applied");
            assert!(o.warnings.is_empty(), "nothing passed over: {:?}", o.warnings);
        }
        "03_delta_v1_new_chat_2026-01_gpt-5-2.sse" => {
            let o = stream(name, bytes);
            assert_eq!(o.end, StreamEnd::TurnComplete);
            assert!(o.warnings.is_empty(), "nothing passed over: {:?}", o.warnings);
            let user = "b274ffa4-16a9-45d5-be0f-1374c0abb419";
            let send = "give me a list of 10 famous people";
            let receipt = chatgpt::receipt_for(&req(Action::Next, user, send, None), &o, send);
            assert_eq!(
                receipt,
                Some(chatgpt::NativeReceipt {
                    conversation_id: "6974e0a3-b684-8321-a73a-bf4e7b6dfafe".into(),
                    user_message_id: user.into(),
                    turn_id: "6e1d4596-bead-43b8-a172-f54617f7b885".into(),
                })
            );
            let (id, text) = answered(&chatgpt::answer_outcome(&o, user));
            assert_eq!(id, "0fe98393-5d68-4e41-9fb6-75b50f27c79e");
            assert!(text.starts_with("Here\u{2019}s a list of 10 famous people"));
            assert!(text.ends_with("interested in learning more about?"), "the final patch's append applied");
        }
        "04_delta_v1_first_turn_hidden_system_developer_custom_instructions_2026-03_gpt-5-3.sse" => {
            let o = stream(name, bytes);
            assert_eq!(o.end, StreamEnd::TurnComplete);
            assert!(o.warnings.is_empty(), "nothing passed over: {:?}", o.warnings);
            let user = "f7c8f879-646f-4eec-a26e-f03e920940b7";
            let r = chatgpt::receipt_for(&req(Action::Next, user, "hi", None), &o, "hi").expect("a receipt");
            assert_eq!(r.conversation_id, "69bff40c-1c94-8324-9056-51af4100b84a");
            assert_eq!(r.turn_id, "fc8e1624-9afc-4ec0-9787-37eadcfb990b");
            let hidden_user = "c3f811fa-fef0-4641-a126-8c75ac30b94a";
            assert!(o.message(hidden_user).is_some_and(|m| m.hidden), "custom instructions are hidden");
            // The answer's create_time is earlier than its parent's: parent links decide.
            let (id, text) = answered(&chatgpt::answer_outcome(&o, user));
            assert_eq!((id.as_str(), text.as_str()), ("5e7e31cd-620d-4fa0-a1fd-f4bb7687ee41", "Hi. What do you need help with?"));
        }
        "05_legacy_events_with_moderation_2023-12.json" => {
            let sse = legacy_array_to_sse(bytes);
            let o = stream(name, &sse);
            assert_eq!(o.encoding, Encoding::Legacy);
            assert_eq!(o.blocked, None, "moderation_response.blocked is false");
            let (id, _) = answered(&chatgpt::answer_outcome(&o, "aaa2921d-d8c9-4516-80bd-ed1ea6895b84"));
            assert_eq!(id, "a1cebf1a-ea39-4a32-ba73-f6d615c5fcad", "the finished snapshot, not the in_progress one");
        }
        "09_conversation_get_2023-12_legacy_root_uuid.json" => {
            let l = conversation::parse_listing(bytes).expect("a listing");
            assert_eq!(l.conversation_id.as_deref(), Some("f283136e-f417-46d4-9cde-34f4360af94b"));
            let ids: Vec<&str> = l.user_messages.iter().map(|u| u.id.as_str()).collect();
            assert_eq!(ids, ["aaa2e2a4-671a-48f6-a996-3e5a7aae2528"]);
            assert_eq!(l.user_messages[0].create_time_ms, Some(1_701_830_474_617));
            let (id, _) = answered(&chatgpt::answer_outcome(&l.observation(), ids[0]));
            assert_eq!(id, "91be2e50-7a5c-495a-9ca3-4eff32d746d0");
        }
        "10_conversation_get_2026-03_client_created_root_hidden_system_websearch.json" => {
            let l = conversation::parse_listing(bytes).expect("a listing");
            let ids: Vec<&str> = l.user_messages.iter().map(|u| u.id.as_str()).collect();
            assert_eq!(
                ids,
                [
                    "f05e88a8-2543-4535-9a33-0d91f27f4728",
                    "025755d4-5519-4e03-8392-85e1f897bcc4",
                    "20c2b720-ed75-433f-a68b-d4398a721f97"
                ],
                "tree order; the hidden user_editable_context node is not a user message"
            );
            assert!(l.user_messages.iter().all(|u| u.on_current_branch));
            let obs = l.observation();
            for (user, answer) in [
                (ids[0], "7ac237ce-0312-4c6c-b4af-3c099929de05"),
                (ids[1], "036f169f-0797-4178-af8a-1eb0cfb726ed"),
                (ids[2], "e7776373-adca-4a6d-81a4-9370ea3f59b8"),
            ] {
                assert_eq!(answered(&chatgpt::answer_outcome(&obs, user)).0, answer, "answer of {user}");
            }
        }
        "12_conversation_get_excerpt_thinking_tools_2026-01_gpt-5-2-thinking.json" => {
            let l = conversation::parse_listing(bytes).expect("a listing");
            assert!(l.user_messages.is_empty(), "the excerpt holds thoughts, tools and system nodes only");
            assert_eq!(l.messages.len(), 4);
            assert!(l.messages.iter().all(|m| !m.is_finished_answer()), "thoughts and tool output never answer");
        }
        "13_error_422_missing_model_2023-12.json" => {
            assert!(matches!(conversation::parse_listing(bytes), Err(ParseError::ErrorBody { .. })));
            assert!(matches!(request::parse_request(bytes), Err(ParseError::Shape { .. })));
        }
        "req_01_2023-04_backend-api_conversation_next_bodies.json" => {
            // Five labelled bodies in one file.
            let all: serde_json::Value = serde_json::from_slice(bytes).expect("JSON");
            for (label, conv) in [
                ("foo", None),
                ("baz", Some("36f36ea5-c311-4b91-a30b-6e9a5c8b336d")),
                ("test1", Some("36f36ea5-c311-4b91-a30b-6e9a5c8b336d")),
                ("new1", None),
                ("new2", Some("57df801b-c586-44a5-9b0c-a9b3737bf3b9")),
            ] {
                let r = request::parse_request(all[label].to_string().as_bytes()).expect("a request");
                assert_eq!((r.action, r.conversation_id.as_deref()), (Action::Next, conv), "{label}");
                assert_eq!(r.model.as_deref(), Some("text-davinci-002-browse"));
            }
            assert!(request::parse_request(bytes).is_err(), "the wrapper itself is not a request");
        }
        "req_02_2023-12_backend-api_conversation_new_chat.json" => {
            let r = request::parse_request(bytes).expect("a request");
            assert_eq!(r.user_message_id, "aaa262a0-d409-449b-8e03-1a80db1383c9");
            assert_eq!(r.parent_message_id.as_deref(), Some("aaa1847b-9122-4f0c-9cf9-1f0a529b3cb0"));
            assert_eq!(r.conversation_id, None, "a new chat");
            assert!(r.text.starts_with("Write a script to automate sending daily email reports"));
        }
        "req_02b_2023-12_backend-api_conversation_follow_up.json" => {
            let r = request::parse_request(bytes).expect("a request");
            assert_eq!(r.user_message_id, "aaa2e2a4-671a-48f6-a996-3e5a7aae2528");
            assert_eq!(r.conversation_id.as_deref(), Some("f283136e-f417-46d4-9cde-34f4360af94b"));
        }
        "req_03_2025-07_backend-api_conversation_variant_regenerate.json" => {
            let r = request::parse_request(bytes).expect("a request");
            assert_eq!(r.action, Action::Variant);
            assert_eq!(r.user_message_id, "aaa22765-9e30-4f3b-baba-585d7bfaeba1");
            assert_eq!(r.model.as_deref(), Some("gpt-4-1-mini"));
        }
        "req_04_2026-06_backend-api_f_conversation_new_chat_thinking.json" => {
            let r = request::parse_request(bytes).expect("a request");
            assert_eq!(r.action, Action::Next);
            assert_eq!(r.user_message_id, "a22491d1-7d0c-452a-96e3-916f2457b083");
            assert_eq!(r.parent_message_id.as_deref(), Some("client-created-root"));
            assert_eq!((r.text.as_str(), r.model.as_deref()), ("\u{4f60}\u{597d}", Some("gpt-5-5-thinking")));
            assert_eq!(r.conversation_id, None);
        }
        _ => return None,
    }
    Some(())
}

#[test]
fn every_shared_capture_gives_its_written_down_outcome() {
    let Some(dir) = shared_dir() else {
        eprintln!(
            "note: ../shared/fixtures/chatgpt does not exist here; the shared replay is skipped"
        );
        return;
    };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("the shared fixture folder is readable")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut missing = Vec::new();
    for name in &names {
        let bytes = std::fs::read(dir.join(name)).expect("a shared fixture is readable");
        if check(name, &bytes).is_none() {
            missing.push(name.clone());
        }
    }
    assert!(
        missing.is_empty(),
        "no expectation written down for {missing:?}: add one to check()"
    );
}
