//! The claude.ai conversation read and the harvest of a cut answer from it (fixture
//! `tests/fixtures/claude/conversation_read.json`).

#[path = "fixtures/claude/support.rs"]
mod support;

use sendledger::provider::claude::conversation::{parse_conversation, Sender};
use sendledger::provider::claude::harvest::{answer_in, Harvest};
use sendledger::provider::claude::ParseError;
use support::{fixture, CONVERSATION};

const HUMAN: &str = "0c4e9a71-3d2b-4f85-b6a0-7e1f2c3d4a51";
const ASSISTANT: &str = "0c4e9a72-8e1c-4a96-a3b7-2f6d5c4b3a92";
const RETRIED: &str = "0c4e9a73-5b2d-4c17-9e48-8a3f6d1c2b70";

fn read() -> sendledger::provider::claude::conversation::ConversationRead {
    parse_conversation(&fixture("conversation_read.json")).expect("the read parses")
}

#[test]
fn a_conversation_read_lists_every_branch_with_uuid_sender_parent_and_text() {
    let r = read();
    assert_eq!(r.uuid, CONVERSATION);
    assert_eq!(r.project_uuid, None);
    assert_eq!(
        r.current_leaf_message_uuid.as_deref(),
        Some("0c4e9aa1-6e2f-4b18-a9c3-5d7e1f3a5c72")
    );
    assert_eq!(r.messages.len(), 11);
    assert_eq!(r.unreadable, 1, "the entry without a uuid");
    let h = r.message(HUMAN).unwrap();
    assert_eq!(h.sender, Sender::Human);
    assert_eq!(h.text, "Name three rivers that freeze over in winter.");
    let a = r.message(ASSISTANT).unwrap();
    assert_eq!(a.parent_message_uuid.as_deref(), Some(HUMAN));
    assert_eq!(a.index, Some(3));
    assert_eq!(
        a.text, "The Ob, the Lena and the Yenisei freeze over every winter.",
        "text blocks only: thinking and tool blocks are not the answer"
    );
    let legacy = r.message("5a1d0c3e-2b4f-4e61-9a7c-11f0d2e3b4a5").unwrap();
    assert_eq!(legacy.text, "Hello! What would you like to know?");
    assert!(
        !format!("{r:?}").contains("Yenisei"),
        "Debug never shows text"
    );
}

#[test]
fn a_cut_answer_is_harvested_by_the_uuids_the_request_chose() {
    let r = read();
    assert_eq!(
        answer_in(&r, CONVERSATION, HUMAN, Some(ASSISTANT)),
        Harvest::Answered {
            message_uuid: ASSISTANT.into(),
            text: "The Ob, the Lena and the Yenisei freeze over every winter.".into()
        }
    );
    assert_eq!(
        answer_in(&r, CONVERSATION, HUMAN, Some(RETRIED)),
        Harvest::Answered {
            message_uuid: RETRIED.into(),
            text: "Rivers such as the Amur freeze too.".into()
        }
    );
}

#[test]
fn a_conversation_read_completes_a_send_only_by_its_own_human_message_uuid_never_by_text() {
    let r = read();
    assert_eq!(
        answer_in(&r, CONVERSATION, HUMAN, None),
        Harvest::Ambiguous { answers: 2 },
        "two finished answers (a retry) and none named: none is chosen"
    );
    let same_words = "0c4e9a80-1a2b-4c3d-8e4f-5a6b7c8d9e01";
    match answer_in(&r, CONVERSATION, same_words, None) {
        Harvest::Answered { message_uuid, .. } => {
            assert_eq!(message_uuid, "0c4e9a81-2b3c-4d4e-9f5a-6b7c8d9e0f12")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        answer_in(
            &r,
            CONVERSATION,
            "0c4e9aff-0000-4000-8000-000000000000",
            None
        ),
        Harvest::HumanNotFound,
        "a human message the read does not hold, even if its words are there"
    );
    assert_eq!(
        answer_in(&r, CONVERSATION, ASSISTANT, None),
        Harvest::HumanNotFound,
        "an assistant uuid is not a human message"
    );
    assert_eq!(
        answer_in(&r, "another-conversation", HUMAN, Some(ASSISTANT)),
        Harvest::OtherConversation
    );
    assert_eq!(
        answer_in(
            &r,
            CONVERSATION,
            HUMAN,
            Some("0c4e9a79-0000-4000-8000-000000000000")
        ),
        Harvest::NotYet,
        "the chosen answer is not in the read yet"
    );
}

#[test]
fn an_unfinished_or_streaming_answer_in_the_read_completes_nothing() {
    let r = read();
    assert_eq!(
        answer_in(
            &r,
            CONVERSATION,
            "0c4e9a90-3c4d-4e5f-8a6b-7c8d9e0f1a23",
            None
        ),
        Harvest::Unfinished {
            stop_reason: "max_tokens".into()
        }
    );
    assert_eq!(
        answer_in(
            &r,
            CONVERSATION,
            "0c4e9aa0-5e6f-4a7b-8c9d-0e1f2a3b4c56",
            None
        ),
        Harvest::NotYet,
        "stop_reason null: still streaming"
    );
}

#[test]
fn a_read_that_is_an_error_or_malformed_is_an_error_that_names_it() {
    assert_eq!(
        parse_conversation(&fixture("error_answer.json")),
        Err(ParseError::ErrorBody {
            summary: "Conversation not found".into()
        })
    );
    assert!(matches!(
        parse_conversation(b"{\"uuid\":\"x\"}"),
        Err(ParseError::Shape { .. })
    ));
    assert!(matches!(
        parse_conversation(b"not json"),
        Err(ParseError::NotJson { .. })
    ));
    let deep = format!("{{\"a\":{}{}}}", "[".repeat(70), "]".repeat(70));
    assert_eq!(
        parse_conversation(deep.as_bytes()),
        Err(ParseError::TooDeep)
    );
}
