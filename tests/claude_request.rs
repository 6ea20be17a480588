//! The claude.ai request rules: routes, the completion request, the create call
//! (fixtures `tests/fixtures/claude/request_*.json`, `create_call*.json`, `created.json`).

#[path = "fixtures/claude/support.rs"]
mod support;

use sendledger::provider::claude::create::parse_new_conversation;
use sendledger::provider::claude::request::parse_completion;
use sendledger::provider::claude::route::{route_of, Route, MAX_URL_BYTES};
use sendledger::provider::claude::ParseError;
use support::{fixture, request, CONVERSATION, ORG};

fn url(tail: &str) -> String {
    format!("https://claude.ai/api/organizations/{ORG}/chat_conversations{tail}")
}

#[test]
fn the_completion_route_names_its_organization_and_conversation() {
    let got = route_of("POST", &url(&format!("/{CONVERSATION}/completion")));
    assert_eq!(got, Some(support::completion_route()));
    let path = format!("/api/organizations/{ORG}/chat_conversations/{CONVERSATION}/completion");
    assert_eq!(route_of("post", &path), Some(support::completion_route()));
    assert_eq!(route_of("GET", &path), None, "a completion is a POST");
}

#[test]
fn the_retry_route_is_recognised_whatever_its_method_and_is_never_a_completion() {
    for method in ["POST", "GET", "PUT"] {
        let r = route_of(method, &url(&format!("/{CONVERSATION}/retry_completion")))
            .expect("the retry route is recognised");
        assert!(r.is_retry(), "{method}: {r:?}");
        assert!(!matches!(r, Route::Completion { .. }));
    }
    assert!(!support::completion_route().is_retry());
}

#[test]
fn the_create_call_and_the_conversation_read_are_told_apart_by_method_and_path() {
    assert_eq!(
        route_of("POST", &url("")),
        Some(Route::CreateConversation { org: ORG.into() })
    );
    let read = url(&format!(
        "/{CONVERSATION}?tree=True&rendering_mode=messages&render_all_tools=true"
    ));
    assert_eq!(
        route_of("GET", &read),
        Some(Route::ConversationRead {
            org: ORG.into(),
            conversation: CONVERSATION.into()
        })
    );
    assert_eq!(
        route_of("POST", &url(&format!("/{CONVERSATION}/stop_response"))),
        Some(Route::StopResponse {
            org: ORG.into(),
            conversation: CONVERSATION.into()
        })
    );
    assert_eq!(route_of("GET", &url("")), None, "the chat list is not read");
    for other in [
        "https://claude.ai/api/organizations".to_string(),
        url(&format!("/{CONVERSATION}/title")),
        format!("https://claude.ai/api/organizations/{ORG}/projects"),
        "https://chatgpt.com/backend-api/conversation".to_string(),
        url("/has space/completion"),
    ] {
        assert_eq!(route_of("POST", &other), None, "{other}");
    }
    let long = url(&format!("/{}/completion", "a".repeat(MAX_URL_BYTES)));
    assert_eq!(
        route_of("POST", &long),
        None,
        "a URL past the bound is not read"
    );
}

#[test]
fn a_follow_ups_request_carries_the_page_chosen_message_uuids_its_parent_and_model() {
    let r = request("request_follow_up.json");
    assert_eq!(r.human_message_uuid, "0c4e9a71-3d2b-4f85-b6a0-7e1f2c3d4a51");
    assert_eq!(
        r.assistant_message_uuid,
        "0c4e9a72-8e1c-4a96-a3b7-2f6d5c4b3a92"
    );
    assert_eq!(
        r.parent_message_uuid.as_deref(),
        Some("5a1d0c3e-2b4f-4e61-9a7c-11f0d2e3b4a5")
    );
    assert_eq!(r.prompt, "Name three rivers that freeze over in winter.");
    assert_eq!(r.model.as_deref(), Some("claude-sonnet-4-6"));
    assert_eq!(r.new_chat, None, "a follow-up creates nothing");
    assert!(r.files.is_empty());
    let debug = format!("{r:?}");
    assert!(
        !debug.contains("rivers"),
        "Debug never shows the prompt: {debug}"
    );
}

#[test]
fn a_new_chats_request_carries_create_conversation_params_and_its_files() {
    let r = request("request_new_chat.json");
    let new = r.new_chat.expect("a new chat's request says so");
    assert_eq!(new.model.as_deref(), Some("claude-opus-4-7"));
    assert_eq!(new.project_uuid, None);
    assert!(!new.is_temporary);
    assert_eq!(
        r.prompt, "Plan a two-day walk along the Rhine.\r\nKeep it short.",
        "the prompt is kept as sent; comparisons normalise"
    );
    let ids: Vec<_> = r.files.iter().map(|f| f.file_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "f11e0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b",
            "f11e0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2c"
        ]
    );
    assert_eq!(r.files[1].name.as_deref(), Some("map.png"));
    assert_eq!(r.files[1].size, Some(20480));
    assert_eq!(r.pasted_attachments, 1);
}

#[test]
fn a_projects_new_chat_names_its_project() {
    let r = request("request_project.json");
    let new = r.new_chat.expect("a Project's first message starts a chat");
    assert_eq!(
        new.project_uuid.as_deref(),
        Some("a7c3e9f1-2b4d-4a68-9e0c-5f1b3d7a9c25")
    );
}

#[test]
fn a_receipt_needs_the_page_chosen_message_uuids() {
    assert_eq!(
        parse_completion(&fixture("request_retry.json")),
        Err(ParseError::Shape {
            expected: "completion request",
            missing: "no `prompt` string"
        }),
        "the retry's body carries no prompt"
    );
    let strip = |key: &str| {
        let mut v: serde_json::Value =
            serde_json::from_slice(&fixture("request_follow_up.json")).unwrap();
        match key {
            "all" => v.as_object_mut().unwrap().remove("turn_message_uuids"),
            k => v["turn_message_uuids"].as_object_mut().unwrap().remove(k),
        };
        serde_json::to_vec(&v).unwrap()
    };
    for key in ["all", "human_message_uuid", "assistant_message_uuid"] {
        assert_eq!(
            parse_completion(&strip(key)),
            Err(ParseError::NoTurnUuids),
            "without {key}"
        );
    }
    let bad = String::from_utf8(fixture("request_follow_up.json"))
        .unwrap()
        .replace("0c4e9a71-3d2b-4f85-b6a0-7e1f2c3d4a51", "not an id");
    assert_eq!(
        parse_completion(bad.as_bytes()),
        Err(ParseError::BadId {
            field: "turn_message_uuids.human_message_uuid"
        })
    );
}

#[test]
fn malformed_requests_are_errors_that_name_what_happened_never_panics() {
    assert!(matches!(
        parse_completion(b"{\"prompt\": "),
        Err(ParseError::NotJson { .. })
    ));
    assert!(matches!(
        parse_completion(b"[1,2]"),
        Err(ParseError::Shape { .. })
    ));
    let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
    assert_eq!(parse_completion(deep.as_bytes()), Err(ParseError::TooDeep));
    let big = vec![b' '; sendledger::provider::claude::request::MAX_BODY_BYTES + 1];
    assert!(matches!(
        parse_completion(&big),
        Err(ParseError::TooLarge { .. })
    ));
    let e = parse_completion(b"{}").unwrap_err().to_string();
    assert!(
        e.contains("claude.ai") && e.contains("docs/claude-provider.md"),
        "{e}"
    );
}

#[test]
fn the_create_call_and_its_answer_name_the_new_conversation() {
    let call = parse_new_conversation(&fixture("create_call.json")).unwrap();
    let answer = parse_new_conversation(&fixture("created.json")).unwrap();
    assert_eq!(call.uuid, "e5a9c1d3-7f2b-4e84-b0a6-9d3c5e7f1a28");
    assert_eq!(answer.uuid, call.uuid, "the answer echoes the page's uuid");
    assert_eq!(answer.project_uuid, None, "null is no Project");
    let project = parse_new_conversation(&fixture("create_call_project.json")).unwrap();
    assert_eq!(
        project.project_uuid.as_deref(),
        Some("a7c3e9f1-2b4d-4a68-9e0c-5f1b3d7a9c25")
    );
    assert_eq!(
        parse_new_conversation(&fixture("error_answer.json")),
        Err(ParseError::ErrorBody {
            summary: "Conversation not found".into()
        })
    );
}

mod refused {
    use super::fixture;
    use sendledger::provider::chatgpt::refused_request::Hold;
    use sendledger::provider::claude::refused::{read_refused_completion, MAX_RESET_AHEAD_S};

    const NOW: i64 = 1_796_030_000_000;
    const RESET: i64 = 1_796_040_000_000;

    fn body(name: &str) -> String {
        String::from_utf8(fixture(name)).unwrap()
    }

    #[test]
    fn a_429_to_the_completion_holds_until_the_reset_its_body_names() {
        let r =
            read_refused_completion(429, Some("30"), None, &body("refused_429_limit.json"), NOW)
                .expect("a 429 is a refusal");
        assert_eq!(
            r.hold,
            Hold::Until(RESET),
            "the body's resetsAt, not Retry-After"
        );
        assert_eq!(
            r.message,
            "claude.ai refused the message: the account's usage limit is reached"
        );
        let header = read_refused_completion(429, None, Some("1796040000"), "{}", NOW).unwrap();
        assert_eq!(header.hold, Hold::Until(RESET), "else the reset header");
        let neither = read_refused_completion(429, Some("120"), None, "{}", NOW).unwrap();
        assert_eq!(neither.hold, Hold::Until(NOW + 120_000), "else Retry-After");
    }

    #[test]
    fn a_reset_past_or_too_far_ahead_holds_until_a_person_resumes_never_a_guess() {
        let far = (NOW / 1000 + MAX_RESET_AHEAD_S + 60).to_string();
        let r = read_refused_completion(429, None, Some(&far), "{}", NOW).unwrap();
        assert_eq!(r.hold, Hold::UntilResumed);
        let past = (NOW / 1000 - 60).to_string();
        let r = read_refused_completion(429, None, Some(&past), "{}", NOW).unwrap();
        assert_eq!(r.hold, Hold::UntilResumed);
    }

    #[test]
    fn other_refusals_carry_the_pages_words_and_a_5xx_proves_nothing() {
        let r = read_refused_completion(403, None, None, &body("refused_403.json"), NOW).unwrap();
        assert_eq!(
            r.message,
            "This organization does not have access to this model."
        );
        assert_eq!(r.hold, Hold::UntilResumed);
        assert_eq!(
            read_refused_completion(503, None, Some("1796040000"), "{}", NOW),
            None,
            "a server error is not a refusal this reader can be sure of"
        );
    }
}
