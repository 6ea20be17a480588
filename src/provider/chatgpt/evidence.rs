//! Evidence for a person deciding an uncertain send: the user messages of a
//! conversation listing whose text is the send's, sent after its dispatch. Shown,
//! never applied (fixture: `tests/fixtures/chatgpt/listing_mapping.json`).

use super::conversation::{ConversationListing, ListedUserMessage};
use crate::send_text::normalise;
use serde::{Deserialize, Serialize};

/// What a listing says about one uncertain send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// User messages (any branch) whose text equals the send's under
    /// [`normalise`] and whose `create_time_ms` is at or after the dispatch.
    pub matches: Vec<ListedUserMessage>,
    /// `matches` holds exactly one message: a suggestion that the send went out once.
    pub exactly_one: bool,
    /// Messages with the same text but no `create_time`: they cannot be placed
    /// before or after the dispatch, so they are shown apart and never counted.
    pub undated_matches: Vec<ListedUserMessage>,
}

/// Evidence for the send with text `send_text` dispatched at `dispatched_at_ms` (ms
/// since the Unix epoch, the ledger's clock; the page stamps a user message with the
/// same machine's clock at the click, which comes after the dispatch is committed).
pub fn for_uncertain_send(
    listing: &ConversationListing,
    send_text: &str,
    dispatched_at_ms: i64,
) -> Evidence {
    let want = normalise(send_text);
    let same_text = listing
        .user_messages
        .iter()
        .filter(|m| normalise(&m.text) == want);
    let (dated, undated): (Vec<&ListedUserMessage>, Vec<&ListedUserMessage>) =
        same_text.partition(|m| m.create_time_ms.is_some());
    let matches: Vec<ListedUserMessage> = dated
        .into_iter()
        .filter(|m| m.create_time_ms.is_some_and(|t| t >= dispatched_at_ms))
        .cloned()
        .collect();
    Evidence {
        exactly_one: matches.len() == 1,
        matches,
        undated_matches: undated.into_iter().cloned().collect(),
    }
}
