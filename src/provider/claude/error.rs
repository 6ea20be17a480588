//! The one error type of the Claude.ai parsers. Messages say what was seen and what to
//! do; none of them quotes message text.

/// Why a request body, a create call or a conversation read could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Larger than the parser reads ([`crate::provider::claude::request::MAX_BODY_BYTES`]).
    #[error("the body is {bytes} bytes, more than the {limit} bytes a claude.ai body is read up to; it is not read")]
    TooLarge {
        /// The body's size.
        bytes: usize,
        /// The bound it passed.
        limit: usize,
    },
    /// The bytes are not JSON (serde_json's position, never the content).
    #[error("the body is not JSON ({detail}); forward the whole body, not a preview or a chunk")]
    NotJson {
        /// serde_json's description: line and column, no content.
        detail: String,
    },
    /// JSON nested deeper than [`crate::json_depth::MAX_DEPTH`] levels.
    #[error("the body nests deeper than {} levels of JSON objects and arrays, far deeper than claude.ai's traffic; it is not read", crate::json_depth::MAX_DEPTH)]
    TooDeep,
    /// JSON, but a field the format needs is missing or of the wrong type.
    #[error(
        "the body is JSON but not a {expected}: {missing}; if claude.ai changed its format, \
         capture the page's traffic and update the provider (docs/claude-provider.md)"
    )]
    Shape {
        /// What the body was read as ("completion request", "conversation read", …).
        expected: &'static str,
        /// What is missing, e.g. "no `prompt` string".
        missing: &'static str,
    },
    /// The completion request names no message ids the page chose itself.
    #[error(
        "the completion request carries no `turn_message_uuids` with both a human and an \
         assistant message uuid: the page did not choose its message ids, so no receipt can \
         come of it (a retry, or a format this provider does not recognise)"
    )]
    NoTurnUuids,
    /// An id field is empty, too long, or holds whitespace or control characters.
    #[error("`{field}` does not look like an id (empty, over 200 characters, or with spaces); the body is not used")]
    BadId {
        /// The JSON field, e.g. "turn_message_uuids.human_message_uuid".
        field: &'static str,
    },
    /// The body is claude.ai's error answer (`{"type":"error","error":{…}}`).
    #[error(
        "the body is an error answer from claude.ai ({summary}), not a conversation; read it again"
    )]
    ErrorBody {
        /// The error's own short description (`error.message`, at most 300 characters).
        summary: String,
    },
}

impl ParseError {
    /// Parses `body` as JSON within the size and depth bounds.
    pub(crate) fn parse(body: &[u8], limit: usize) -> Result<serde_json::Value, Self> {
        if body.len() > limit {
            return Err(ParseError::TooLarge {
                bytes: body.len(),
                limit,
            });
        }
        crate::json_depth::check_text(body).map_err(|_| ParseError::TooDeep)?;
        serde_json::from_slice(body).map_err(|e| ParseError::NotJson {
            detail: format!(
                "{:?} error at line {} column {}",
                e.classify(),
                e.line(),
                e.column()
            ),
        })
    }
}
