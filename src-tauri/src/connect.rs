//! The window's Connect panel: how a companion or an agent reaches this owner — the
//! OpenAI base URL on the live bridge, named API keys (made, listed and revoked through
//! `sendledger::api`, the same requests the CLI and the bridge's `/v1/keys` routes apply)
//! and the MCP client entry (docs/mcp.md). A key's secret is handed to the window once,
//! in the answer to its making, and kept nowhere else.

use crate::desk::Desk;
use crate::json::{self, Refusal};
use std::path::{Path, PathBuf};

/// Name of the CLI binary, which serves MCP (`sendledger mcp`).
const CLI_NAME: &str = "sendledger";

impl Desk {
    /// What the panel shows: the base URL, the MCP entry and every key (never a secret).
    pub async fn connect(&self) -> Result<json::Connect, Refusal> {
        let address = self.address().await.ok_or_else(|| Refusal {
            message: "the app is shutting down: its bridge no longer listens".into(),
        })?;
        Ok(json::Connect {
            base_url: format!("http://{address}/v1"),
            mcp_config: mcp_config(self.profile()),
            keys: self.api().keys().await?,
        })
    }

    /// Makes key `name` (surrounding white space ignored) for `by`, else the OS user. The
    /// answer carries the secret, the only time it is handed out. Refusals are the core's
    /// sentences (malformed or taken name, too many keys); nothing is written then.
    pub async fn create_key(
        &self,
        name: String,
        by: Option<String>,
    ) -> Result<json::MadeKey, Refusal> {
        let by = self.by(by);
        let (key, secret) = self.api().create_key(name.trim().to_string(), by).await?;
        Ok(json::MadeKey {
            key,
            secret: secret.expose().to_string(),
        })
    }

    /// Revokes the live key `name` for `by`, else the OS user: a person's decision, final.
    pub async fn revoke_key(
        &self,
        name: String,
        by: Option<String>,
    ) -> Result<json::ApiKey, Refusal> {
        let by = self.by(by);
        Ok(self.api().revoke_key(name, by).await?)
    }
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
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join(CLI_NAME)))
        .filter(|p| is_executable(p))
        .unwrap_or_else(|| PathBuf::from(CLI_NAME))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
