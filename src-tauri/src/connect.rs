//! The window's Connect panel: how a companion or an agent reaches this owner — the
//! OpenAI base URL on the live bridge, named API keys (made and revoked as the typed
//! requests `KeyCreate`/`KeyRevoke`, listed by `GET /v1/keys`: the same path the CLI takes)
//! and the MCP client entry (docs/mcp.md). A key's secret is handed to the window once,
//! in the answer to its making, and kept nowhere else.

use crate::desk::Desk;
use crate::json::{self, Refusal};
use sendledger::api::{Outcome, Request};
use std::path::PathBuf;

/// Name of the CLI binary, which serves MCP (`sendledger mcp`).
const CLI_NAME: &str = "sendledger";

impl Desk {
    /// What the panel shows: the base URL, the MCP entry and every key (never a secret).
    pub async fn connect(&self) -> Result<json::Connect, Refusal> {
        let c = self.client();
        let keys = tauri::async_runtime::spawn_blocking(move || c.keys())
            .await
            .map_err(|e| Refusal::said(format!("the request to the owner was lost: {e}")))?
            .map_err(json::from_client)?;
        Ok(json::Connect {
            base_url: format!("http://{}/v1", self.client().address()),
            mcp_config: mcp_config(self.profile()),
            keys,
            ssh_target: format!(
                "{}@{}",
                sendledger::person::os_user(),
                sendledger::person::host_name()
            ),
        })
    }

    /// Makes key `name` (surrounding white space ignored) of `scope` for `by`, else the OS user. The
    /// answer carries the secret, the only time it is handed out. Refusals are the core's
    /// sentences (malformed or taken name, too many keys); nothing is written then.
    pub async fn create_key(
        &self,
        name: String,
        scope: sendledger::ledger::KeyScope,
        by: Option<String>,
    ) -> Result<json::MadeKey, Refusal> {
        let req = Request::KeyCreate {
            name: name.trim().to_string(),
            scope,
            by: self.by(by),
        };
        match self.apply(req).await? {
            Outcome::KeyCreated { key, secret } => Ok(json::MadeKey {
                key,
                secret: secret.expose().to_string(),
            }),
            _ => Err(unexpected()),
        }
    }

    /// Revokes the live key `name` for `by`, else the OS user: a person's decision, final.
    pub async fn revoke_key(
        &self,
        name: String,
        by: Option<String>,
    ) -> Result<json::ApiKey, Refusal> {
        let req = Request::KeyRevoke {
            name,
            by: self.by(by),
            key_sha256: None,
        };
        match self.apply(req).await? {
            Outcome::KeyRevoked { key } => Ok(key),
            _ => Err(unexpected()),
        }
    }
}

fn unexpected() -> Refusal {
    Refusal::said(
        "the owner answered another outcome than a key: are the app and the owner the same version?",
    )
}

/// The `mcpServers` entry for this profile, as `sendledger mcp --config` prints it: the
/// CLI beside this app when there is one (full path: a client's `PATH` may be short),
/// else `sendledger` from the `PATH`; `--profile` only when the profile is not the default.
pub fn mcp_config(profile: &sendledger::profile::Profile) -> String {
    let named = (!profile.is_default()).then(|| profile.dir());
    let config = sendledger::mcp::client_config(&cli_path(), named);
    serde_json::to_string_pretty(&config).unwrap_or_default()
}

/// The CLI installed beside this app's binary (`/usr/bin/sendledger` from the package,
/// `target/<profile>/sendledger` in a checkout), else its bare name.
fn cli_path() -> PathBuf {
    sendledger::install::beside_this_binary(CLI_NAME, None)
}
