//! The one way to the owner for every front end that is not the owner (the CLI, the MCP
//! server, the window): its loopback bridge, found through the profile's `bridge.json`
//! and authenticated with `client.token` ([`crate::profile::discovery`]).
//!
//! - [`http`]: `BridgeClient`, the blocking client of the client routes, typed answers;
//! - [`link`]: `OwnerLink`, the async client that finds the owner afresh at every call
//!   (the MCP server's);
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

/// The error shape of the owner's answers, `{code, message}`.
#[derive(serde::Deserialize)]
struct ErrorBody {
    code: String,
    message: String,
}

impl ClientError {
    /// The owner's refusal with `status`, read from its `{code, message}` body; a body
    /// that is not one is `internal`, said as such.
    pub(crate) fn refused(status: u16, answer: ureq::Response) -> ClientError {
        let body = answer.into_json::<ErrorBody>().unwrap_or(ErrorBody {
            code: crate::api::ErrorCode::Internal.as_str().into(),
            message: "the owner refused without saying why".into(),
        });
        ClientError::Refused {
            status,
            code: body.code,
            message: body.message,
        }
    }

    /// The stable code: the owner's for a refusal, `no_owner` or `owner_unreachable`.
    pub fn code(&self) -> &str {
        match self {
            Self::NoOwner => crate::api::ErrorCode::NoOwner.as_str(),
            Self::Refused { code, .. } => code,
            Self::Lost(_) => crate::api::ErrorCode::OwnerUnreachable.as_str(),
        }
    }
}
