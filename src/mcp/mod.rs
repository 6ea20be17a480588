//! `sendledger mcp`: the Model Context Protocol door, a stdio MCP server on the official
//! Rust SDK (`rmcp`), speaking every protocol revision that SDK knows (the current one
//! and the earlier `initialize` handshakes).
//!
//! It is a *client of the running owner*: every tool call goes to the owner's loopback
//! bridge ([`crate::client::OwnerLink`]), found afresh through `bridge.json` and `client.token`.
//!
//! **Architecture Invariant**: the MCP server never opens the ledger, and no tool
//! resumes sending or decides an uncertain send (a person does both).
//!
//! **Architecture Invariant**: an uncertain send is a *successful* tool result (status
//! `uncertain`, `retry_safe: false`); `isError: true` is kept for calls that did nothing
//! ([`refusal`]), because MCP clients hand tool errors back to the model, which retries.
//!
//! A client that disconnects or cancels mid-call stops only its own wait: the request to
//! the owner runs on its own thread and is never undone.

pub mod args;
pub mod artifacts;
pub mod attachments;
pub mod outcome;
pub mod progress;
pub mod refusal;
pub mod reports;
pub mod seen;
pub mod tools;
pub mod wait;

use rmcp::ServiceExt;
use serde_json::{json, Value};
use std::path::Path;

/// The `mcpServers` entry that launches this server (Claude Desktop/Code, Cursor and
/// others): `{"mcpServers": {"sendledger": {"command": EXE, "args": [...]}}}`, with
/// `--profile DIR` when one was named.
pub fn client_config(exe: &Path, profile: Option<&Path>) -> Value {
    let mut args: Vec<String> = Vec::new();
    if let Some(p) = profile {
        args.push("--profile".into());
        args.push(p.display().to_string());
    }
    args.push("mcp".into());
    json!({ "mcpServers": { "sendledger": { "command": exe.display().to_string(), "args": args } } })
}

/// Serves the tools on standard input and output until the client closes them.
/// Errors: the transport failed to start or broke (a sentence, for standard error).
pub async fn serve_stdio(link: crate::client::OwnerLink) -> Result<(), String> {
    let tools = tools::Tools::new(link);
    let running = tools
        .serve(rmcp::transport::io::stdio_pipes())
        .await
        .map_err(|e| format!("the MCP client did not start a session: {e}"))?;
    running
        .waiting()
        .await
        .map_err(|e| format!("the MCP session ended with an error: {e}"))?;
    Ok(())
}
