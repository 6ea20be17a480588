//! Ids are opaque strings. Real conversation ids are time-ordered UUID-like strings
//! whose version digit is not 4 (`6974e0a3-b684-8321-…`, fixture
//! `tests/fixtures/chatgpt/stream_delta_new_chat.sse`); older user message ids carry
//! prefixes (`aaa2…`, `bbb2…`); a new chat's parent is the literal
//! `client-created-root`. So the shape check is loose and never looks at a version.

/// Longest accepted id, in characters.
pub const MAX_ID_CHARS: usize = 200;

/// True when `s` can be an id: 1 to [`MAX_ID_CHARS`] characters, none of them
/// whitespace or control characters. Nothing else is checked.
pub fn looks_like_id(s: &str) -> bool {
    !s.is_empty()
        && s.chars().count() <= MAX_ID_CHARS
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

#[cfg(test)]
mod tests {
    use super::looks_like_id;

    #[test]
    fn ids_are_checked_loosely_never_by_uuid_version() {
        for id in [
            "6974e0a3-b684-8321-a73a-bf4e7b6dfafe",
            "aaa2e2a4-671a-48f6-a996-3e5a7aae2528",
            "bbb21e93-0000-0000-0000-000000000000",
            "client-created-root",
            "request-6994430d-2-x",
        ] {
            assert!(looks_like_id(id), "{id} is a plausible id");
        }
        for bad in ["", "a b", "tab\there", "x\n"] {
            assert!(!looks_like_id(bad), "{bad:?} is not an id");
        }
        assert!(!looks_like_id(&"a".repeat(201)), "over 200 characters");
    }
}
