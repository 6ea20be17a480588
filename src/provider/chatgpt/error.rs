//! The one error type of the ChatGPT parsers. Messages say what was seen and what to
//! do; none of them quotes message text.

/// Why a request body or a conversation listing could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The bytes are not JSON (serde_json's position, never the content).
    #[error("the body is not JSON ({detail}); forward the whole body, not a preview or a chunk")]
    NotJson {
        /// serde_json's description: line and column, no content.
        detail: String,
    },
    /// JSON, but a field the format needs is missing or of the wrong type.
    #[error(
        "the body is JSON but not a {expected}: {missing}; if chatgpt.com changed its format, \
         run `sendledger inspect` on a capture and update the provider (docs/chatgpt-provider.md)"
    )]
    Shape {
        /// What the body was read as ("conversation request", "conversation listing").
        expected: &'static str,
        /// What is missing, e.g. "no `action` string".
        missing: &'static str,
    },
    /// A conversation request without a user message (e.g. a bare `continue`).
    #[error(
        "the request (action {action}) carries no user message, so it is not the request of a send"
    )]
    NoUserMessage {
        /// The request's action, as sent.
        action: String,
    },
    /// More than one user message: which one is the send's cannot be told.
    #[error("the request carries {count} user messages; a send's request carries exactly one, so none is used")]
    SeveralUserMessages {
        /// How many `messages[]` entries have the role `user`.
        count: usize,
    },
    /// An id field is empty, too long, or holds whitespace or control characters.
    #[error("`{field}` does not look like an id (empty, over 200 characters, or with spaces); the body is not used")]
    BadId {
        /// The JSON field, e.g. "messages[0].id".
        field: &'static str,
    },
    /// The JSON nests deeper than [`crate::json_depth::MAX_DEPTH`] levels: not the page's
    /// traffic (it nests about 11), and not read.
    #[error("the body nests deeper than {} levels of JSON objects and arrays, far deeper than chatgpt.com's traffic; it is not read", crate::json_depth::MAX_DEPTH)]
    TooDeep,
    /// The body is chatgpt.com's error answer (`{"detail": …}`), not a conversation.
    #[error("the body is an error answer from chatgpt.com ({summary}), not a conversation; fetch it again")]
    ErrorBody {
        /// The error's own short description (`detail[0].msg` or `detail`).
        summary: String,
    },
}

impl ParseError {
    /// Parses `body` as JSON within the depth bound.
    pub(crate) fn parse(body: &[u8]) -> Result<serde_json::Value, Self> {
        crate::json_depth::check_text(body).map_err(|_| ParseError::TooDeep)?;
        serde_json::from_slice(body).map_err(|e| ParseError::not_json(&e))
    }

    pub(crate) fn not_json(e: &serde_json::Error) -> Self {
        ParseError::NotJson {
            detail: format!(
                "{:?} error at line {} column {}",
                e.classify(),
                e.line(),
                e.column()
            ),
        }
    }
}
