//! `keys create NAME`, `keys list`, `keys revoke NAME`: named API keys for the OpenAI
//! door (docs/openai.md). A key is shown once, when made; the profile keeps its SHA-256.

use super::backend;
use super::output::{emit, CliError};
use crate::api::Request;
use std::path::Path;

/// The key commands.
#[derive(Debug, clap::Subcommand)]
pub enum KeysCommand {
    /// Make a key for a companion; prints it once (store it in the companion's settings).
    Create {
        /// A name for it (1–64 letters, digits, . _ -), e.g. the companion's.
        name: String,
        /// Who makes it (default: the OS user).
        #[arg(long)]
        by: Option<String>,
    },
    /// List keys with their last use (never the keys themselves).
    List,
    /// Revoke a key: its next request gets 401.
    Revoke {
        /// The key's name.
        name: String,
        /// Who revokes it (default: the OS user).
        #[arg(long)]
        by: Option<String>,
    },
}

pub(crate) fn run(profile: Option<&Path>, json: bool, c: KeysCommand) -> Result<(), CliError> {
    let req = match c {
        KeysCommand::Create { name, by } => Request::KeyCreate {
            name,
            by: by.unwrap_or_else(backend::os_user),
        },
        KeysCommand::List => Request::KeyList,
        KeysCommand::Revoke { name, by } => Request::KeyRevoke {
            name,
            by: by.unwrap_or_else(backend::os_user),
        },
    };
    let v = backend::apply(profile, &req)?;
    emit(json, &v, || {
        match &req {
        Request::KeyCreate { name, .. } => format!(
            "key {name}: {}\nshown once: put it in the companion's settings as its API key (base URL http://127.0.0.1:<port>/v1)",
            v["secret"].as_str().unwrap_or_default()
        ),
        Request::KeyRevoke { name, .. } => format!("key {name} revoked: its next request gets 401"),
        _ => list_text(&v),
    }
    });
    Ok(())
}

fn list_text(v: &serde_json::Value) -> String {
    let keys = v["keys"].as_array().cloned().unwrap_or_default();
    if keys.is_empty() {
        return "no keys: make one with `sendledger keys create NAME`".into();
    }
    let at = |k: &serde_json::Value, f: &str| {
        k[f].as_i64()
            .map(|ms| format!("{ms}"))
            .unwrap_or_else(|| "never".into())
    };
    keys.iter()
        .map(|k| {
            let state = if k["revoked_at"].is_null() {
                "live"
            } else {
                "revoked"
            };
            format!(
                "{}\t{state}\tmade {} by {}\tlast used {}",
                k["name"].as_str().unwrap_or_default(),
                at(k, "created_at"),
                k["created_by"].as_str().unwrap_or_default(),
                at(k, "last_used_at"),
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
