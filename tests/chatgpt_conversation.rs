//! Conversation listings and the evidence they give a person about an uncertain send
//! (fixtures `tests/fixtures/chatgpt/listing_*.json`).

#[path = "fixtures/chatgpt/support.rs"]
mod support;

use sendledger::provider::chatgpt::{
    self, conversation::parse_listing, evidence::for_uncertain_send, ParseError,
};
use support::fixture;

const LU1: &str = "aaa10000-0000-4000-8000-000000000001";
const LU2: &str = "aaa10000-0000-4000-8000-000000000003";
const LU2B: &str = "aaa10000-0000-4000-8000-000000000004";

#[test]
fn listing_user_messages_are_in_tree_order_never_time_order() {
    let l = parse_listing(&fixture("listing_mapping.json")).unwrap();
    let ids: Vec<&str> = l.user_messages.iter().map(|u| u.id.as_str()).collect();
    // LU2B was stamped earlier than LU2, and the mapping's keys are shuffled: the
    // order is the tree's (children as listed).
    assert_eq!(ids, [LU1, LU2, LU2B]);
    assert_eq!(l.user_messages[0].create_time_ms, Some(1_790_001_000_500));
    assert_eq!(
        l.conversation_id.as_deref(),
        Some("6a1b2d00-0000-8b02-8c11-0123456789ab")
    );
}

#[test]
fn listing_skips_hidden_messages_and_custom_instructions() {
    let l = parse_listing(&fixture("listing_mapping.json")).unwrap();
    assert!(l
        .user_messages
        .iter()
        .all(|u| u.id != "aaa10000-0000-4000-8000-0000000000c1"));
    assert_eq!(
        l.messages.len(),
        8,
        "every node with a message is kept in `messages`"
    );
}

#[test]
fn listing_marks_abandoned_branches() {
    let l = parse_listing(&fixture("listing_mapping.json")).unwrap();
    let on: Vec<(&str, bool)> = l
        .user_messages
        .iter()
        .map(|u| (u.id.as_str(), u.on_current_branch))
        .collect();
    assert_eq!(on, [(LU1, true), (LU2, false), (LU2B, true)]);
}

#[test]
fn listing_answers_are_read_by_tree_links() {
    let l = parse_listing(&fixture("listing_mapping.json")).unwrap();
    let obs = l.observation();
    let o = chatgpt::answer_outcome(&obs, LU2B);
    assert_eq!(
        o,
        chatgpt::TurnOutcome::Answered {
            message_id: "aaa10000-0000-4000-8000-000000000006".into(),
            text: "Added both.".into()
        }
    );
}

#[test]
fn listing_reads_the_paginated_form() {
    let l = parse_listing(&fixture("listing_paginated.json")).unwrap();
    let ids: Vec<&str> = l.user_messages.iter().map(|u| u.id.as_str()).collect();
    assert_eq!(
        ids,
        [LU1, "aaa10000-0000-4000-8000-0000000000d1"],
        "node items and bare message items alike"
    );
    assert_eq!(l.user_messages[1].create_time_ms, None);
    assert_eq!(
        l.current_node.as_deref(),
        Some("aaa10000-0000-4000-8000-000000000002")
    );
}

#[test]
fn listing_error_body_is_refused_with_what_to_do() {
    let e = parse_listing(&fixture("listing_error_404.json")).unwrap_err();
    assert_eq!(
        e,
        ParseError::ErrorBody {
            summary: "Conversation not found".into()
        }
    );
    assert!(e.to_string().contains("fetch it again"));
    assert!(matches!(
        parse_listing(b"[1,2]"),
        Err(ParseError::Shape { .. })
    ));
    assert!(matches!(
        parse_listing(b"{\"title\":\"x\"}"),
        Err(ParseError::Shape { .. })
    ));
}

#[test]
fn evidence_counts_only_messages_sent_at_or_after_the_dispatch() {
    let l = parse_listing(&fixture("listing_mapping.json")).unwrap();
    let text = "Add flour: 12 kg\nand sugar.";
    let before_both = for_uncertain_send(&l, text, 1_790_001_000_000);
    assert_eq!(
        before_both.matches.len(),
        2,
        "the edited and the original message share the text"
    );
    let between = for_uncertain_send(&l, text, 1_790_001_095_000);
    let ids: Vec<&str> = between.matches.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, [LU2], "the earlier one was sent before this dispatch");
    let after = for_uncertain_send(&l, text, 1_790_001_100_001);
    assert!(after.matches.is_empty());
}

#[test]
fn evidence_flags_exactly_one() {
    let l = parse_listing(&fixture("listing_mapping.json")).unwrap();
    let text = "Add flour: 12 kg\nand sugar.";
    assert!(
        !for_uncertain_send(&l, text, 0).exactly_one,
        "two matches are not exactly one"
    );
    assert!(for_uncertain_send(&l, text, 1_790_001_095_000).exactly_one);
    assert!(
        !for_uncertain_send(&l, "never sent", 0).exactly_one,
        "none is not exactly one"
    );
}

#[test]
fn evidence_compares_text_under_line_break_normalisation_only() {
    let l = parse_listing(&fixture("listing_mapping.json")).unwrap();
    // LU2's stored text has a CRLF; the send's has LF: the same text.
    let e = for_uncertain_send(&l, "Add flour: 12 kg\r\nand sugar.", 1_790_001_095_000);
    assert!(e.exactly_one);
    assert!(
        for_uncertain_send(&l, "add flour: 12 kg\nand sugar.", 0)
            .matches
            .is_empty(),
        "case matters"
    );
    assert!(
        for_uncertain_send(&l, "Add flour: 12 kg\nand sugar. ", 0)
            .matches
            .is_empty(),
        "spaces matter"
    );
}

#[test]
fn evidence_never_counts_undated_messages() {
    let l = parse_listing(&fixture("listing_paginated.json")).unwrap();
    let e = for_uncertain_send(&l, "An undated note.", 0);
    assert!(e.matches.is_empty() && !e.exactly_one);
    assert_eq!(e.undated_matches.len(), 1, "shown apart");
}
