//! The Claude.ai provider: pure parsers (no I/O) that turn what the extension observes
//! in the claude.ai page into facts the ledger can act on. The owner reads a claude.ai
//! tab's traffic through it (`bridge::sites::claude`, picked by the lease's site); its
//! formats are pinned by `tests/claude_*.rs`.
//!
//! - [`route`]: which call a request is (the completion, the fenced retry, the create
//!   call, the conversation read);
//! - [`request`]: the completion request (the page-chosen `turn_message_uuids`, the
//!   prompt, the model, the files, a new chat's `create_conversation_params`);
//! - [`create`]: the create call and its answer (a new conversation, a Project's);
//! - [`stream`]: the event stream → [`stream::StreamObservation`] (text and thinking
//!   apart, stop reason, `message_stop`, the page's `error`, `message_limit`);
//! - [`turn`]: the native receipt and the answer's outcome;
//! - [`limit`]: the usage limit and its reset time; [`refused`]: the server refusing the
//!   completion request itself (a 429 naming the limit's reset);
//! - [`conversation`] and [`harvest`]: the conversation read, and a cut answer found in it.
//!
//! **API Boundary**: bytes and JSON text in, plain values out; every input bounded.
//! Strict about what settles a send, tolerant of everything else. The facts relied on,
//! their public sources and the fixture pinning each are in `docs/claude-provider.md`;
//! every one is unverified against the live page.

pub mod conversation;
pub mod create;
pub mod error;
pub mod harvest;
pub mod limit;
pub mod refused;
pub mod request;
pub mod route;
pub mod stream;
pub mod turn;

pub use error::ParseError;
pub use turn::{answer_outcome, receipt_for, ClaudeOutcome};
