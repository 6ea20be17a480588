//! Providers: pure parsers that turn what a chat page's traffic shows into facts
//! the ledger can act on. No I/O.

pub mod chatgpt;
pub mod claude;
pub mod ids;
pub mod sse;
