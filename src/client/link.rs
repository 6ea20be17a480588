//! The async way to the running owner (the MCP server's): its loopback bridge, found
//! through `bridge.json` and authenticated with `client.token` (both read again for every
//! call, so an owner that restarted on another port or with a new token is found), or the
//! owner named by URL with its key ([`super::remote`]). With no owner answering, every call
//! answers [`ClientError::NoOwner`].
//!
//! No transport of its own: every call is [`BridgeClient`]'s, run on a blocking thread, so an
//! answer or a refusal reads the same here as in the CLI and the window.

use super::{BridgeClient, ClientError};
use crate::profile::Profile;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Bound on an ordinary call to the owner, in ms (a wait adds its own `timeout_ms`).
pub use super::CALL_TIMEOUT_MS;

/// `id` as one URL path segment (`a/b` stays one id), encoded as the bridge's route table
/// encodes it.
pub use super::routes::segment;

/// A client of the profile's running owner.
#[derive(Clone)]
pub struct OwnerLink {
    to: To,
    timeout_ms: u64,
}

/// Which owner a link reaches.
#[derive(Clone)]
enum To {
    /// Whatever owner runs for the profile at each call (`None`: the owner named by URL).
    Found(Option<Profile>),
    /// One address with one token, fixed.
    At(BridgeClient),
}

impl std::fmt::Debug for OwnerLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.to {
            To::Found(p) => write!(f, "OwnerLink(found, {p:?})"),
            To::At(c) => write!(f, "OwnerLink(at {})", c.address()),
        }
    }
}

impl OwnerLink {
    /// A link to whatever owner runs for `profile` at the time of each call.
    pub fn new(profile: Profile) -> Self {
        Self::with(To::Found(Some(profile)))
    }

    /// A link to the owner named by URL with its key ([`super::remote::name_the_owner`]);
    /// every call answers `NoOwner` when none was named.
    pub fn to_named_owner() -> Self {
        Self::with(To::Found(None))
    }

    /// A link to `address` (`127.0.0.1:PORT`) with `token`, found once (a test's owner).
    pub fn at(address: &str, token: &str) -> Self {
        Self::with(To::At(BridgeClient::new(address, token)))
    }

    fn with(to: To) -> Self {
        Self {
            to,
            timeout_ms: super::call_timeout_ms(),
        }
    }

    /// The transport for one call bounded by `timeout_ms`: the owner found now.
    fn client(&self, timeout_ms: u64) -> Result<BridgeClient, ClientError> {
        let client = match &self.to {
            To::Found(profile) => BridgeClient::found(profile.as_ref())?,
            To::At(c) => Some(c.clone()),
        };
        Ok(client
            .ok_or(ClientError::NoOwner)?
            .with_timeout_ms(timeout_ms))
    }

    /// `GET path` (path and query, already encoded), bounded by the call timeout; the
    /// answer read as `T`.
    pub async fn get<T: DeserializeOwned>(&self, path: String) -> Result<T, ClientError> {
        self.get_held(path, 0).await
    }

    /// `GET path` for a request the owner holds up to `held_ms` (a wait): bounded by
    /// that plus the call timeout; the answer read as `T`.
    pub async fn get_held<T: DeserializeOwned>(
        &self,
        path: String,
        held_ms: u64,
    ) -> Result<T, ClientError> {
        let v = self
            .run(held_ms + self.timeout_ms, move |c| {
                c.call("GET", &path, &Value::Null)
            })
            .await?;
        super::http::typed(v)
    }

    /// An act's `route` ([`super::routes`]), bounded by the call timeout; the answer read
    /// as `T`.
    pub async fn send_route<T: DeserializeOwned>(
        &self,
        route: super::routes::Route,
    ) -> Result<T, ClientError> {
        let (method, path, body) = route;
        let v = self
            .run(self.timeout_ms, move |c| c.call(method, &path, &body))
            .await?;
        super::http::typed(v)
    }

    /// `POST /v1/attachments?name=NAME` with `file`'s bytes, bounded by the call timeout;
    /// the stored file. The same bytes again are the same file, so a retry is harmless.
    pub async fn upload(
        &self,
        file: super::FileToSend,
    ) -> Result<crate::attachments::Attachment, ClientError> {
        self.run(self.timeout_ms, move |c| c.upload(&file)).await
    }

    /// `GET path` for bytes that are not JSON (a generated file), bounded by the call
    /// timeout and 32 MiB: (its content-type, its bytes).
    pub async fn get_bytes(&self, path: String) -> Result<(String, Vec<u8>), ClientError> {
        self.run(self.timeout_ms, move |c| {
            let resp = c.get_raw(&path)?;
            let mime = resp.content_type().to_string();
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(
                &mut std::io::Read::take(
                    resp.into_reader(),
                    crate::attachments::MAX_FILE_BYTES + 1,
                ),
                &mut bytes,
            )
            .map_err(|e| {
                ClientError::Lost(format!(
                    "the file's bytes did not all arrive ({})",
                    e.kind()
                ))
            })?;
            Ok((mime, bytes))
        })
        .await
    }

    /// `call` with the owner found now, on a blocking thread: a caller that stops waiting
    /// (a cancelled MCP call) does not cancel the request, so nothing is ever half-sent by a
    /// cancel.
    async fn run<T: Send + 'static>(
        &self,
        timeout_ms: u64,
        call: impl FnOnce(BridgeClient) -> Result<T, ClientError> + Send + 'static,
    ) -> Result<T, ClientError> {
        let client = self.client(timeout_ms)?;
        tokio::task::spawn_blocking(move || call(client))
            .await
            .map_err(|e| ClientError::Lost(format!("the request's thread ended: {e}")))?
    }
}
