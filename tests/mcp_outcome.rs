//! The MCP door's reading of every ledger state (src/mcp/outcome.rs), checked against the
//! ledger's own list of states, so a state added later cannot slip through unread. The
//! door itself imports nothing of the ledger (tests/architecture.rs).

use sendledger::ledger::{SendState, MAX_OP_ID_BYTES};
use sendledger::mcp::args::{operation_id, MAX_KEY_CHARS};
use sendledger::mcp::outcome::{classify, of_send, Status};
use sendledger::mcp::seen::SendSeen;
use sendledger::site::Site;

#[test]
fn only_a_send_that_never_left_the_host_is_retry_safe() {
    for state in SendState::ALL {
        let (_, _, safe) = classify(state.as_str(), false, None, Site::Chatgpt);
        assert_eq!(
            safe,
            state == SendState::Rejected,
            "{state}: retry_safe must be true only for a send that never left the host"
        );
    }
}

#[test]
fn every_state_that_can_still_move_on_its_own_is_pending_and_no_other() {
    for state in SendState::ALL {
        let (status, _, _) = classify(state.as_str(), false, None, Site::Chatgpt);
        let moves = matches!(
            state,
            SendState::Queued | SendState::Claimed | SendState::Dispatched | SendState::Accepted
        );
        assert_eq!(
            status == Status::Pending,
            moves,
            "{state}: pending means the owner may still move it without a person"
        );
    }
}

#[test]
fn the_longest_idempotency_key_still_fits_an_operation_id() {
    let id = operation_id(Some(&"k".repeat(MAX_KEY_CHARS))).expect("the longest key");
    assert!(
        id.len() <= MAX_OP_ID_BYTES,
        "mcp-<key> fits the ledger's ids"
    );
}

/// A send to Claude is spoken of as Claude's in every state: the words a model acts on
/// never send it looking for a ChatGPT tab (issue 36).
#[test]
fn a_claude_sends_outcome_names_claude_never_chatgpt() {
    for state in SendState::ALL {
        let seen: SendSeen = serde_json::from_value(serde_json::json!({
            "op_id": "mcp-k", "state": state.as_str(), "site": "claude",
        }))
        .unwrap();
        let o = of_send(&seen, None);
        assert!(
            !o.message.contains("ChatGPT"),
            "{state}: a Claude send's words name ChatGPT: {}",
            o.message
        );
        if o.status == Status::Pending {
            assert!(o.message.contains("Claude"), "{state}: {}", o.message);
        }
    }
    let old_owner: SendSeen =
        serde_json::from_value(serde_json::json!({"op_id": "x", "state": "queued"})).unwrap();
    assert!(of_send(&old_owner, None).message.contains("ChatGPT tab"));
}
