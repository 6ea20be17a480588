//! The ChatGPT provider: pure parsers (no I/O) that turn what the extension observes
//! in the chatgpt.com page into facts the ledger can act on.
//!
//! - [`request`]: the conversation request the page POSTs (the send's user message id);
//! - [`stream`]: its response stream (legacy, delta v1, WebSocket hand-off) →
//!   [`stream::TurnObservation`];
//! - [`receipt_for`]: the native receipt (conversation, user message, turn);
//! - [`answer_outcome`]: the answer that completes a send, or why there is none;
//! - [`refusal`]: whether the page's error is the usage limit, and [`reset_time`] when it
//!   resets (a delay, a time of day, a date);
//! - [`refused_request`]: the server's refusal of the page's conversation request itself
//!   (429 with `Retry-After`, 403, 431, …): the message was not taken;
//! - [`artifacts`]: the files an answer generated (asset pointers in its turn);
//! - [`models`]: which answering model is the one asked (its listed resolutions);
//! - [`traffic`]: the page-traffic facts (a stream in a format not recognised at all, the
//!   chat conversation routes and route templates);
//! - [`conversation`] and [`evidence`]: a listing, and what it suggests about an
//!   uncertain send (for a person, never applied).
//!
//! **API Boundary**: bytes and JSON text in, plain values out. Strict about what
//! settles a send, tolerant of everything else. The facts relied on, and the fixture
//! pinning each, are in `docs/chatgpt-provider.md`.

pub mod artifacts;
mod asset_parts;
pub mod attachments;
pub mod conversation;
pub mod delta;
pub mod error;
pub mod evidence;
pub mod message;
pub mod models;
pub mod refusal;
pub mod refused_request;
pub mod request;
pub mod reset_time;
pub mod stream;
pub mod traffic;
pub mod turn;

pub use error::ParseError;
pub use message::ObservedMessage;
pub use turn::{
    answer_outcome, answer_so_far, receipt_for, turn_messages, NativeReceipt, TurnOutcome,
};
