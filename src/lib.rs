//! sendledger: custody of messages sent into a chat tab, at most once per profile.
//!
//! Arrows point one way (ARCHITECTURE.md, "Arrows"): the CLI, the MCP server and the
//! window reach the owner through `client` (HTTP to the bridge); the bridge and the tray
//! change the ledger only through `api`; the ledger imports neither the bridge nor the
//! provider.

pub mod api;
pub mod attachments;
pub mod body_schema;
pub mod bridge;
pub mod cli;
pub mod client;
pub mod clock;
pub mod destination;
pub mod error_code;
pub mod install;
pub mod json_depth;
pub mod ledger;
pub mod mcp;
pub mod note_kind;
pub mod owner;
pub mod person;
pub mod platform;
pub mod profile;
pub mod provider;
pub mod send_text;
pub mod site;
pub mod verdict;
