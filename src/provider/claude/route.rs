//! Which claude.ai call a request is, from its method and URL (docs/claude-provider.md,
//! "Routes"): the completion that sends a message, the retry that re-asks an old one,
//! the call that creates a conversation, and the conversation read.
//!
//! - `POST /api/organizations/{org}/chat_conversations/{conversation}/completion`;
//! - `… /chat_conversations/{conversation}/retry_completion` (any method: it is fenced,
//!   never a send);
//! - `POST /api/organizations/{org}/chat_conversations` (a new chat);
//! - `POST … /chat_conversations/{conversation}/stop_response` (the page's stop button);
//! - `GET /api/organizations/{org}/chat_conversations/{conversation}` with any query
//!   (`tree=True&rendering_mode=messages&render_all_tools=true`).
//!
//! A full URL or a path is accepted; the query and fragment are passed over. Anything
//! else is `None`: not one of the calls the provider reads.

use crate::provider::ids::looks_like_id;
use serde::{Deserialize, Serialize};

/// Longest URL read, in bytes.
pub const MAX_URL_BYTES: usize = 4096;

/// A claude.ai call the provider knows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "route", rename_all = "snake_case")]
pub enum Route {
    /// The completion request: a send's one request.
    Completion {
        /// The organization uuid from the path.
        org: String,
        /// The conversation uuid from the path.
        conversation: String,
    },
    /// The page's retry: re-asks an existing message. Never the request of a send.
    Retry {
        /// The organization uuid from the path.
        org: String,
        /// The conversation uuid from the path.
        conversation: String,
    },
    /// The call that creates a conversation (a new chat, in a Project or not).
    CreateConversation {
        /// The organization uuid from the path.
        org: String,
    },
    /// The page's stop: the person (or Stop) pressed the page's stop button.
    StopResponse {
        /// The organization uuid from the path.
        org: String,
        /// The conversation uuid from the path.
        conversation: String,
    },
    /// The conversation read (harvest, evidence).
    ConversationRead {
        /// The organization uuid from the path.
        org: String,
        /// The conversation uuid from the path.
        conversation: String,
    },
}

impl Route {
    /// Whether this is the retry route, which the extension never calls and the owner
    /// never takes for a send.
    pub fn is_retry(&self) -> bool {
        matches!(self, Route::Retry { .. })
    }
}

/// The path of `url` (a full URL or a path), without query or fragment.
fn path_of(url: &str) -> &str {
    let rest = match url.find("://") {
        Some(i) => {
            let after = &url[i + 3..];
            after.find('/').map_or("", |j| &after[j..])
        }
        None => url,
    };
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    &rest[..end]
}

/// The call `method` + `url` is, or `None`.
pub fn route_of(method: &str, url: &str) -> Option<Route> {
    if url.len() > MAX_URL_BYTES {
        return None;
    }
    let segs: Vec<&str> = path_of(url).trim_end_matches('/').split('/').collect();
    let ["", "api", "organizations", org, "chat_conversations", rest @ ..] = segs.as_slice() else {
        return None;
    };
    if !looks_like_id(org) {
        return None;
    }
    let org = org.to_string();
    let post = method.eq_ignore_ascii_case("POST");
    let get = method.eq_ignore_ascii_case("GET");
    match rest {
        [] if post => Some(Route::CreateConversation { org }),
        [conv, tail @ ..] if looks_like_id(conv) => {
            let conversation = conv.to_string();
            match tail {
                ["retry_completion"] => Some(Route::Retry { org, conversation }),
                ["completion"] if post => Some(Route::Completion { org, conversation }),
                ["stop_response"] if post => Some(Route::StopResponse { org, conversation }),
                [] if get => Some(Route::ConversationRead { org, conversation }),
                _ => None,
            }
        }
        _ => None,
    }
}
