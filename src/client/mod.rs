//! The one way to the owner for every front end that is not the owner (the CLI, the MCP
//! server, the window): its loopback bridge, found through the profile's `bridge.json`
//! and authenticated with `client.token` ([`crate::profile::discovery`]).
//!
//! - [`http`]: `BridgeClient`, the one transport: the blocking client of the client routes,
//!   the one place a request is sent and its answer or refusal decoded;
//! - [`link`]: `OwnerLink`, the MCP server's async handle: finds the owner afresh at every
//!   call and runs `BridgeClient` on a blocking thread (no transport of its own);
//! - [`routes`]: the route table, `Request` → method, path and body (the bridge's router is
//!   pinned against it by `tests/client_routes.rs`);
//! - [`feed`]: the live queue feed's reading end;
//! - [`brake`]: the Stop every front end shares (`sendledger stop`, the window's Stop);
//! - [`remote`]: an owner named by URL and a key (a client on another machine, through an
//!   SSH tunnel): the one place `--owner`, `SENDLEDGER_OWNER_URL`, `--key-file` and
//!   `SENDLEDGER_API_KEY` are read.
//!
//! Every call fails in one shape, [`ClientError`]. **API Boundary**: nothing here opens the
//! ledger, and nothing imports the bridge, the owner, the CLI or the MCP server
//! (`tests/architecture.rs`). Picture: `cli, mcp, window → client → (HTTP) → bridge → api
//! → ledger`.

pub mod artifact;
pub mod brake;
pub mod feed;
pub mod http;
pub mod link;
pub mod remote;
pub mod routes;
pub mod upload;

pub use artifact::ArtifactFile;
pub use brake::{brake, BrakeError, Braked, STOP_BRIDGE_MS};
pub use http::BridgeClient;
pub use link::OwnerLink;
pub use remote::RemoteOwner;
pub use upload::FileToSend;

/// Bound on an ordinary call to the owner, in ms; `SENDLEDGER_CLIENT_TIMEOUT_MS` overrides
/// it. The one timeout of the transport ([`http`]; [`link`] runs it).
pub const CALL_TIMEOUT_MS: u64 = 30_000;

/// [`CALL_TIMEOUT_MS`], or `SENDLEDGER_CLIENT_TIMEOUT_MS` when set to a number.
pub fn call_timeout_ms() -> u64 {
    std::env::var("SENDLEDGER_CLIENT_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CALL_TIMEOUT_MS)
}

/// Where the owner is and what this client presents: (`http://HOST:PORT`, token). The
/// owner named by URL with its key ([`remote`]), else the profile's live owner
/// (`bridge.json`) with `client.token`; `Ok(None)` when none runs. The one token read of
/// the transport. Errors: the token unreadable (`profile`, with the sentence).
pub(crate) fn find_owner(
    profile: Option<&crate::profile::Profile>,
) -> Result<Option<(String, String)>, ClientError> {
    use crate::profile::discovery::{self, CLIENT_TOKEN_FILE};
    if let Some(r) = remote::named() {
        return Ok(Some((r.base.clone(), r.key.clone())));
    }
    let Some(profile) = profile else {
        return Ok(None);
    };
    let Some(info) = discovery::live_bridge(profile) else {
        return Ok(None);
    };
    let unreadable = |why: String| {
        ClientError::Refused {
        status: 0,
        code: crate::api::ErrorCode::Profile.as_str().into(),
        message: format!("sendledger runs at {}, but its client token could not be read ({why}): check the profile's permissions", info.address),
    }
    };
    let path = profile
        .file(CLIENT_TOKEN_FILE)
        .map_err(|e| unreadable(e.to_string()))?;
    let token = std::fs::read_to_string(path).map_err(|e| unreadable(e.to_string()))?;
    Ok(Some((
        format!("http://{}", info.address),
        token.trim().to_string(),
    )))
}

/// Why a call to the owner gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// No owner runs for the profile (no live `bridge.json`, or its port refused the
    /// connection): the request never left this process.
    #[error("sendledger is not running for this profile: start the app or `sendledger serve`")]
    NoOwner,
    /// The owner answered with a refusal; a refused request changes nothing.
    #[error("{message}")]
    Refused {
        /// The HTTP status (0: refused before any request, e.g. an unreadable token).
        status: u16,
        /// The stable code (`epoch_stopped`, `payload_changed`, `unknown_send`, ... — one
        /// of [`crate::api::ErrorCode`] for an owner of this build).
        code: String,
        /// The owner's sentence.
        message: String,
    },
    /// The request may have reached the owner, but no readable answer came back; the
    /// sentence says what to check.
    #[error("{0}")]
    Lost(String),
}

impl ClientError {
    /// The stable code: the owner's for a refusal, `no_owner` or `owner_unreachable`.
    pub fn code(&self) -> &str {
        match self {
            Self::NoOwner => crate::api::ErrorCode::NoOwner.as_str(),
            Self::Refused { code, .. } => code,
            Self::Lost(_) => crate::api::ErrorCode::OwnerUnreachable.as_str(),
        }
    }
}
