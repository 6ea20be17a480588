//! The page-traffic facts the provider owns (issue 35; the extension's page contract names
//! them `traffic.*`): whether a conversation response stream is in a format this provider
//! reads at all (`traffic.stream_markers`), and which routes are chat conversation routes
//! (`traffic.conversation_routes`) — a page POST after a granted click to any other route
//! means the message went somewhere that is not a chat conversation (Work mode).

use super::stream::{Encoding, TurnObservation};

/// The fact id of the stream's format: its markers (`delta_encoding`, `delta`, the typed
/// control events) as `super::stream` reads them.
pub const STREAM_MARKERS: &str = "traffic.stream_markers";

/// Whether the page's whole response to a conversation request was passed over: it ended,
/// no encoding marker this provider knows (or an unknown `delta_encoding`), no message, no
/// error, no moderation, no hand-off, yet something arrived and was not read (warnings).
/// Then no receipt can ever be seen in it: the page's stream format changed.
pub fn stream_not_recognised(obs: &TurnObservation) -> bool {
    matches!(obs.encoding, Encoding::Unknown | Encoding::Unsupported)
        && obs.messages.is_empty()
        && obs.error.is_none()
        && obs.blocked.is_none()
        && obs.handoff.is_none()
        && !obs.warnings.is_empty()
}

/// The chat conversation routes, as path templates: the page sends a chat message by a
/// POST to one of these (seen: `/backend-api/conversation` 2023–2025,
/// `/backend-api/f/conversation` from 2025-06; `tests/fixtures/chatgpt/request_*.json`).
pub const CHAT_CONVERSATION_ROUTES: &[&str] =
    &["/backend-api/conversation", "/backend-api/f/conversation"];

/// Most bytes of a route template kept: 256.
pub const MAX_ROUTE_BYTES: usize = 256;

/// Whether `route` (a path, a template or a URL; query and fragment ignored) is a chat
/// conversation route.
pub fn is_chat_conversation_route(route: &str) -> bool {
    let path = path_of(route);
    CHAT_CONVERSATION_ROUTES.contains(&path.trim_end_matches('/'))
}

/// `route` as a template a person may read and a log may keep: the path only (scheme,
/// host, query and fragment dropped), each segment that is not a plain lowercase word
/// (`[a-z_-]`, at most 32 bytes) replaced by `<id>`, at most [`MAX_ROUTE_BYTES`].
/// `/backend-api/work/6f1e…/messages?x=1` → `/backend-api/work/<id>/messages`.
pub fn route_template(route: &str) -> String {
    let mut out = String::new();
    for seg in path_of(route).split('/').filter(|s| !s.is_empty()) {
        let word = seg.len() <= 32
            && seg
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '_' || c == '-');
        let piece = if word { seg } else { "<id>" };
        if out.len() + piece.len() + 1 > MAX_ROUTE_BYTES {
            break;
        }
        out.push('/');
        out.push_str(piece);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

fn path_of(route: &str) -> &str {
    let no_query = route.split(['?', '#']).next().unwrap_or_default();
    match no_query.find("://") {
        Some(i) => {
            let rest = &no_query[i + 3..];
            rest.find('/').map_or("/", |j| &rest[j..])
        }
        None => no_query,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_template_keeps_words_and_masks_ids_and_queries() {
        assert_eq!(
            route_template("https://chatgpt.com/backend-api/work/6f1e2a/messages?x=1#y"),
            "/backend-api/work/<id>/messages"
        );
        assert_eq!(
            route_template("/backend-api/f/conversation"),
            "/backend-api/f/conversation"
        );
        assert_eq!(route_template(""), "/");
        assert!(route_template(&"/abc".repeat(500)).len() <= MAX_ROUTE_BYTES);
    }

    #[test]
    fn only_the_chat_conversation_routes_are_chat_conversation_routes() {
        assert!(is_chat_conversation_route(
            "https://chatgpt.com/backend-api/f/conversation"
        ));
        assert!(is_chat_conversation_route("/backend-api/conversation?x"));
        assert!(!is_chat_conversation_route(
            "/backend-api/work/<id>/messages"
        ));
        assert!(!is_chat_conversation_route(
            "/backend-api/conversation/<id>/textdocs"
        ));
    }
}
