//! The async way to the running owner (the MCP server's): its loopback bridge, found
//! through `bridge.json` and authenticated with `client.token` (both read again for every
//! call, so an owner that restarted on another port or with a new token is found), or the
//! owner named by URL with its key ([`super::remote`]). With no owner answering, every call
//! answers [`ClientError::NoOwner`].

use super::ClientError as LinkError;
use crate::profile::discovery::{self, CLIENT_TOKEN_FILE};
use crate::profile::Profile;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::time::Duration;

/// Bound on an ordinary call to the owner, in ms (a wait adds its own `timeout_ms`);
/// `SENDLEDGER_CLIENT_TIMEOUT_MS` overrides it, as for the CLI.
pub const CALL_TIMEOUT_MS: u64 = 30_000;

/// `id` as one URL path segment (`a/b` stays one id), encoded as the bridge's route table
/// encodes it.
pub use super::routes::segment;

/// A client of the profile's running owner.
#[derive(Debug, Clone)]
pub struct OwnerLink {
    /// `None`: the owner named by URL ([`super::remote`]).
    profile: Option<Profile>,
    timeout_ms: u64,
}

struct Target {
    base: String,
    token: String,
}

impl OwnerLink {
    /// A link to whatever owner runs for `profile` at the time of each call.
    pub fn new(profile: Profile) -> Self {
        Self::with(Some(profile))
    }

    /// A link to the owner named by URL with its key ([`super::remote::name_the_owner`]);
    /// every call answers `NoOwner` when none was named.
    pub fn to_named_owner() -> Self {
        Self::with(None)
    }

    fn with(profile: Option<Profile>) -> Self {
        let timeout_ms = std::env::var("SENDLEDGER_CLIENT_TIMEOUT_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(CALL_TIMEOUT_MS);
        Self {
            profile,
            timeout_ms,
        }
    }

    fn target(&self) -> Result<Target, LinkError> {
        if let Some(r) = super::remote::named() {
            return Ok(Target {
                base: r.base.clone(),
                token: r.key.clone(),
            });
        }
        let profile = self.profile.as_ref().ok_or(LinkError::NoOwner)?;
        let info = discovery::live_bridge(profile).ok_or(LinkError::NoOwner)?;
        let path = profile
            .file(CLIENT_TOKEN_FILE)
            .map_err(|_| LinkError::NoOwner)?;
        let token = std::fs::read_to_string(path).map_err(|e| LinkError::Refused {
            status: 0,
            code: "token_unreadable".into(),
            message: format!(
                "sendledger runs, but its client token could not be read ({}): check the profile's permissions",
                e.kind()
            ),
        })?;
        Ok(Target {
            base: format!("http://{}", info.address),
            token: token.trim().to_string(),
        })
    }

    /// `GET path` (path and query, already encoded), bounded by the call timeout; the
    /// answer read as `T`.
    pub async fn get<T: DeserializeOwned>(&self, path: String) -> Result<T, LinkError> {
        typed(self.call("GET", path, None, self.timeout_ms).await?)
    }

    /// `GET path` for a request the owner holds up to `held_ms` (a wait): bounded by
    /// that plus the call timeout; the answer read as `T`.
    pub async fn get_held<T: DeserializeOwned>(
        &self,
        path: String,
        held_ms: u64,
    ) -> Result<T, LinkError> {
        typed(
            self.call("GET", path, None, held_ms + self.timeout_ms)
                .await?,
        )
    }

    /// `POST path` with `body` as JSON, bounded by the call timeout; the answer read as `T`.
    pub async fn post<T: DeserializeOwned>(
        &self,
        path: String,
        body: &impl Serialize,
    ) -> Result<T, LinkError> {
        let body = serde_json::to_value(body).map_err(|e| {
            LinkError::Lost(format!("the request could not be written as JSON ({e})"))
        })?;
        typed(self.call("POST", path, Some(body), self.timeout_ms).await?)
    }

    /// `POST /v1/attachments?name=NAME` with `file`'s bytes, bounded by the call timeout;
    /// the stored file. The same bytes again are the same file, so a retry is harmless.
    pub async fn upload(
        &self,
        file: super::FileToSend,
    ) -> Result<crate::attachments::Attachment, LinkError> {
        let target = self.target()?;
        let timeout_ms = self.timeout_ms;
        let v = tokio::task::spawn_blocking(move || {
            let agent = ureq::AgentBuilder::new()
                .timeout_connect(Duration::from_millis(2_000))
                .timeout(Duration::from_millis(timeout_ms))
                .build();
            let r = agent
                .request("POST", &format!("{}{}", target.base, file.path()))
                .set("Authorization", &format!("Bearer {}", target.token))
                .set("Content-Type", &file.mime)
                .send_bytes(&file.bytes);
            answered(r)
        })
        .await
        .map_err(|e| LinkError::Lost(format!("the request's thread ended: {e}")))??;
        super::upload::stored(v)
    }

    /// `GET path` for bytes that are not JSON (a generated file), bounded by the call
    /// timeout and 32 MiB: (its content-type, its bytes).
    pub async fn get_bytes(&self, path: String) -> Result<(String, Vec<u8>), LinkError> {
        let target = self.target()?;
        let timeout_ms = self.timeout_ms;
        tokio::task::spawn_blocking(move || {
            let agent = ureq::AgentBuilder::new()
                .timeout_connect(Duration::from_millis(2_000))
                .timeout(Duration::from_millis(timeout_ms))
                .build();
            let r = agent
                .request("GET", &format!("{}{path}", target.base))
                .set("Authorization", &format!("Bearer {}", target.token))
                .call();
            let resp = match r {
                Ok(resp) => resp,
                Err(e) => return Err(answered(Err(e)).err().unwrap_or(LinkError::NoOwner)),
            };
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
                LinkError::Lost(format!(
                    "the file's bytes did not all arrive ({})",
                    e.kind()
                ))
            })?;
            Ok((mime, bytes))
        })
        .await
        .map_err(|e| LinkError::Lost(format!("the request's thread ended: {e}")))?
    }

    /// One request on a blocking thread: a caller that stops waiting (a cancelled MCP
    /// call) does not cancel the request, so nothing is ever half-sent by a cancel.
    async fn call(
        &self,
        method: &'static str,
        path: String,
        body: Option<Value>,
        timeout_ms: u64,
    ) -> Result<Value, LinkError> {
        let target = self.target()?;
        tokio::task::spawn_blocking(move || blocking_call(&target, method, &path, body, timeout_ms))
            .await
            .map_err(|e| LinkError::Lost(format!("the request's thread ended: {e}")))?
    }
}

/// An answer read as `T`; a shape this build does not know is a lost answer, said as such
/// (whatever was asked may or may not have been applied).
fn typed<T: DeserializeOwned>(v: Value) -> Result<T, LinkError> {
    serde_json::from_value(v).map_err(|e| {
        LinkError::Lost(format!(
            "the owner answered a shape this sendledger does not know ({e}): are the app and this program the same version?"
        ))
    })
}

fn blocking_call(
    target: &Target,
    method: &str,
    path: &str,
    body: Option<Value>,
    timeout_ms: u64,
) -> Result<Value, LinkError> {
    let agent = ureq::AgentBuilder::new()
        .timeout_connect(Duration::from_millis(2_000))
        .timeout(Duration::from_millis(timeout_ms))
        .build();
    let req = agent
        .request(method, &format!("{}{path}", target.base))
        .set("Authorization", &format!("Bearer {}", target.token));
    let answer = match body {
        Some(b) => req.send_json(b),
        None => req.call(),
    };
    answered(answer)
}

/// One answer as JSON, or the refusal, the absent owner or the lost answer.
fn answered(answer: Result<ureq::Response, ureq::Error>) -> Result<Value, LinkError> {
    match answer {
        Ok(resp) => resp
            .into_json()
            .map_err(|e| LinkError::Lost(format!("its answer was unreadable ({})", e.kind()))),
        Err(ureq::Error::Status(status, resp)) => Err(LinkError::refused(status, resp)),
        Err(ureq::Error::Transport(t)) if t.kind() == ureq::ErrorKind::ConnectionFailed => {
            Err(LinkError::NoOwner)
        }
        Err(ureq::Error::Transport(t)) => Err(LinkError::Lost(format!("{}", t.kind()))),
    }
}
