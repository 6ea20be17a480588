//! The window says where a send goes in words a person knows: the conversation's title as
//! the page gave it (its conversation read), bounded; and a send left to the tab that
//! shows its conversation says it waits for that tab.

mod support;

use sendledger::api::queue::rows;
use sendledger::ledger::{LedgerRead, QueueRequest, Waiting, MAX_TITLES, MAX_TITLE_CHARS};
use std::collections::BTreeSet;
use support::*;

fn for_conversation(op: &str, conversation: &str) -> QueueRequest {
    QueueRequest {
        conversation_id: Some(conversation.into()),
        ..request(op, &format!("text of {op}"))
    }
}

fn destination_words(ledger: &sendledger::ledger::Ledger, op: &str) -> String {
    rows(ledger, BTreeSet::from([op.to_string()])).unwrap()[0]
        .destination
        .clone()
        .unwrap()
}

#[test]
fn a_send_for_a_conversation_is_named_by_the_title_the_page_gave_it() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    ledger
        .queue(&for_conversation("op-1", "conv-b"), "test")
        .unwrap();
    assert_eq!(destination_words(&ledger, "op-1"), "conversation conv-b");
    assert!(ledger
        .note_conversation_title("conv-b", "Bakery\nledger ")
        .unwrap());
    assert_eq!(
        destination_words(&ledger, "op-1"),
        "conversation “Bakery ledger”"
    );
    assert!(
        !ledger
            .note_conversation_title("WEB:1234", "Transient")
            .unwrap(),
        "the transient route names no conversation"
    );
}

#[test]
fn titles_are_bounded_in_length_and_in_number() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let long = "x".repeat(MAX_TITLE_CHARS + 50);
    ledger.note_conversation_title("conv-long", &long).unwrap();
    let kept = ledger.conversation_title("conv-long").unwrap().unwrap();
    assert_eq!(kept.chars().count(), MAX_TITLE_CHARS);
    assert!(kept.ends_with('…'));
    for i in 0..MAX_TITLES {
        ledger
            .note_conversation_title(&format!("conv-{i}"), "A chat")
            .unwrap();
        fx.clock.advance(1);
    }
    assert_eq!(
        ledger.conversation_title("conv-long").unwrap(),
        None,
        "the least recently seen goes first"
    );
    assert!(ledger.conversation_title("conv-0").unwrap().is_some());
}

#[test]
fn a_send_left_to_the_tab_showing_its_conversation_says_it_waits_for_that_tab() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let mut showing = tab("tab-7");
    showing.conversation_id = Some("conv-b".into());
    ledger.lease(&showing).unwrap();
    ledger
        .queue(&for_conversation("op-1", "conv-b"), "test")
        .unwrap();
    let send = ledger.get("op-1").unwrap().unwrap();
    assert_eq!(
        ledger.waiting(&send).unwrap(),
        Some(Waiting::TabToTake {
            site: Default::default(),
            tab_id: "tab-7".into()
        })
    );
}
