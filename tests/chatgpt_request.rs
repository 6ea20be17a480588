//! The conversation request rules (fixtures `tests/fixtures/chatgpt/request_*.json`).

#[path = "fixtures/chatgpt/support.rs"]
mod support;

use sendledger::provider::chatgpt::{request::parse_request, request::Action, ParseError};
use support::fixture;

/// (fixture, action, user message id, text, conversation id, parent id, model)
type Row = (
    &'static str,
    Action,
    &'static str,
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
);

#[test]
fn request_fields_are_read_from_every_body_shape() {
    let rows: Vec<Row> = vec![
        (
            "request_new_chat_f.json",
            Action::Next,
            "5d1c0b7e-2f4a-4c61-9a0e-6b2d8e1f3a47",
            "Draft a haiku about ledgers.\nKeep it short.",
            None,
            Some("client-created-root"),
            Some("auto"),
        ),
        (
            "request_follow_up_legacy.json",
            Action::Next,
            "aaa2c0de-1111-4a2b-9c3d-5e6f7a8b9c0d",
            "And one about receipts?",
            Some("6a1b2d00-0000-8b02-8c11-0123456789ab"),
            Some("9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"),
            Some("text-davinci-002-render-sha"),
        ),
        (
            "request_variant.json",
            Action::Variant,
            "aaa2c0de-1111-4a2b-9c3d-5e6f7a8b9c0d",
            "And one about receipts?",
            Some("6a1b2d00-0000-8b02-8c11-0123456789ab"),
            Some("9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"),
            Some("gpt-4-1-mini"),
        ),
        (
            "request_old_top_level_role.json",
            Action::Next,
            "3b2a1908-7f6e-4d5c-8b4a-39281706f5e4",
            "Is a ledger a book?",
            None,
            Some("e4f5a6b7-c8d9-4e0f-a1b2-c3d4e5f6a7b8"),
            Some("text-davinci-002-render"),
        ),
        (
            "request_multimodal.json",
            Action::Next,
            "bbb2d00d-2222-4b3c-8d4e-5f6a7b8c9d0e",
            "What does this receipt say?\nLine two of the question.",
            Some("6a1b2d00-0000-8b02-8c11-0123456789ab"),
            Some("9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"),
            Some("auto"),
        ),
    ];
    for (name, action, id, text, conv, parent, model) in rows {
        let r = parse_request(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.action, action, "{name}");
        assert_eq!(r.user_message_id, id, "{name}");
        assert_eq!(r.text, text, "{name}");
        assert_eq!(r.conversation_id.as_deref(), conv, "{name}");
        assert_eq!(r.parent_message_id.as_deref(), parent, "{name}");
        assert_eq!(r.model.as_deref(), model, "{name}");
    }
}

#[test]
fn request_new_chat_has_no_conversation_id_and_a_client_created_root() {
    let r = parse_request(&fixture("request_new_chat_f.json")).unwrap();
    assert_eq!(
        (r.conversation_id, r.parent_message_id.as_deref()),
        (None, Some("client-created-root"))
    );
}

#[test]
fn request_parts_are_joined_with_newline_skipping_non_text_parts() {
    let r = parse_request(&fixture("request_multimodal.json")).unwrap();
    assert_eq!(
        r.text, "What does this receipt say?\nLine two of the question.",
        "the image pointer is skipped"
    );
}

#[test]
fn request_ignores_unknown_fields() {
    let body = String::from_utf8(fixture("request_new_chat_f.json")).unwrap();
    assert!(
        body.contains("a_field_from_the_future"),
        "the fixture carries an unknown field"
    );
    assert!(parse_request(body.as_bytes()).is_ok());
}

#[test]
fn request_ids_are_opaque_never_checked_by_uuid_version() {
    // Time-ordered conversation id (version digit 8) and prefixed message ids are accepted.
    let r = parse_request(&fixture("request_follow_up_legacy.json")).unwrap();
    assert!(r
        .conversation_id
        .unwrap()
        .split('-')
        .nth(2)
        .unwrap()
        .starts_with('8'));
    assert!(r.user_message_id.starts_with("aaa2"));
    let body = r#"{"action":"next","messages":[{"id":"has space","author":{"role":"user"},"content":{"parts":["x"]}}]}"#;
    assert_eq!(
        parse_request(body.as_bytes()),
        Err(ParseError::BadId {
            field: "messages[].id"
        })
    );
}

#[test]
fn request_without_a_user_message_is_refused_not_guessed() {
    let e = parse_request(&fixture("request_continue.json")).unwrap_err();
    assert_eq!(
        e,
        ParseError::NoUserMessage {
            action: "continue".into()
        }
    );
    assert!(e.to_string().contains("not the request of a send"), "{e}");
    let no_user = r#"{"action":"next","messages":[{"id":"s-1","author":{"role":"system"},"content":{"parts":["x"]}}]}"#;
    let e = parse_request(no_user.as_bytes()).unwrap_err();
    assert_eq!(
        e,
        ParseError::NoUserMessage {
            action: "next".into()
        },
        "another role is never taken for the user's"
    );
}

#[test]
fn request_with_two_user_messages_is_refused() {
    let m = r#"{"id":"u-1","author":{"role":"user"},"content":{"parts":["a"]}}"#;
    let n = r#"{"id":"u-2","author":{"role":"user"},"content":{"parts":["b"]}}"#;
    let body = format!(r#"{{"action":"next","messages":[{m},{n}]}}"#);
    assert_eq!(
        parse_request(body.as_bytes()),
        Err(ParseError::SeveralUserMessages { count: 2 })
    );
}

#[test]
fn request_unknown_action_is_kept_as_sent() {
    let body = r#"{"action":"rewind","messages":[{"id":"u-1","author":{"role":"user"},"content":{"parts":["a"]}}]}"#;
    assert_eq!(
        parse_request(body.as_bytes()).unwrap().action,
        Action::Other("rewind".into())
    );
}

#[test]
fn request_errors_say_what_happened_and_what_to_do_without_content() {
    let e = parse_request(b"{\"action\": \"next\", \"messages\": [secret words").unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("not JSON") && msg.contains("forward the whole body"),
        "{msg}"
    );
    assert!(!msg.contains("secret"), "no content in errors");
    let e = parse_request(b"{\"messages\": []}").unwrap_err();
    assert!(e.to_string().contains("sendledger inspect"), "{e}");
}

#[test]
fn request_debug_never_shows_the_text() {
    let r = parse_request(&fixture("request_new_chat_f.json")).unwrap();
    assert!(!format!("{r:?}").contains("haiku"));
}
