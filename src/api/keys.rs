//! Named API keys (docs/openai.md; scopes: docs/bridge-api.md), as every door handles them: the
//! CLI (`sendledger keys`), the bridge's `/v1/keys` routes and the tray app's Connect panel.
//! Making and revoking a key are [`super::Request`]s (`KeyCreate`, `KeyRevoke`) committed
//! by [`super::apply`]; listing is [`keys`]. A key's secret exists only in the answer to
//! its making ([`KeySecret`]): the profile keeps its SHA-256.

use crate::ledger::{ApiKey, KeyScope, Ledger, LedgerError};
use serde::{Deserialize, Serialize};

/// A key's secret (`sk-sl-` and 64 hex digits), handed out once when the key is made.
/// Serialised as the plain string (the one answer that carries it); its `Debug` never
/// shows it, so a logged outcome cannot leak it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct KeySecret(String);

impl KeySecret {
    /// Wraps a secret the ledger just made.
    pub fn new(secret: String) -> Self {
        Self(secret)
    }

    /// The secret itself, for the one place that shows it to the person who made it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for KeySecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeySecret(<hidden>)")
    }
}

/// Every key ever made, newest first (revoked ones included; never a secret).
pub fn keys(ledger: &Ledger) -> Result<Vec<ApiKey>, LedgerError> {
    ledger.keys()
}

/// Makes key `name` of `scope` for `by`: the key's view and its secret (shown once).
/// Errors: the ledger's `Invalid` sentence for a malformed or taken name, the `openai`
/// scope, or too many live keys.
pub(super) fn create(
    ledger: &mut Ledger,
    name: &str,
    scope: KeyScope,
    by: &str,
) -> Result<(ApiKey, KeySecret), LedgerError> {
    let (key, secret) = ledger.key_create(name, scope, by)?;
    Ok((key, KeySecret::new(secret)))
}

/// Revokes the live key `name` for `by` (final); with `key_sha256`, only if that live key
/// is the one with that hash. Errors: `Invalid` when none (or not that one) is live.
pub(super) fn revoke(
    ledger: &mut Ledger,
    name: &str,
    by: &str,
    key_sha256: Option<&str>,
) -> Result<ApiKey, LedgerError> {
    match key_sha256 {
        None => ledger.key_revoke(name, by),
        Some(h) => ledger.key_revoke_exact(name, h, by),
    }
}
