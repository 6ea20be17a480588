//! The one transport to the owner: a blocking client of the bridge's client routes, found
//! through `bridge.json` and authenticated with `client.token`. The CLI and the window call
//! it directly; the MCP server's [`super::OwnerLink`] runs it on a blocking thread. Every
//! answer and every refusal is decoded here and nowhere else ([`BridgeClient::sent`]).

use super::routes;
use super::ClientError;
use crate::api::answers::PairingCode;
use crate::api::queue::{HistoryPage, QueueView, Row};
use crate::api::{Outcome, Request};
use crate::ledger::ApiKey;
use crate::profile::Profile;
use serde_json::Value;
use std::collections::BTreeSet;
use std::time::Duration;

/// Per-request timeout, in ms (`SENDLEDGER_CLIENT_TIMEOUT_MS` overrides it).
pub const TIMEOUT_MS: u64 = super::CALL_TIMEOUT_MS;

/// A client of a live owner's bridge.
#[derive(Clone)]
pub struct BridgeClient {
    base: String,
    token: String,
    agent: ureq::Agent,
}

impl BridgeClient {
    /// The live owner's bridge, or `None` when no owner runs (or `bridge.json` is stale);
    /// the owner named by URL, with its key, when one was ([`super::remote`]).
    pub fn discover(profile: &Profile) -> Result<Option<Self>, ClientError> {
        Self::found(Some(profile))
    }

    /// The owner of `profile` (`None`: only the owner named by URL), as
    /// [`super::find_owner`] finds it; `None` when none runs.
    pub(crate) fn found(profile: Option<&Profile>) -> Result<Option<Self>, ClientError> {
        Ok(super::find_owner(profile)?
            .map(|(base, token)| Self::new(base.trim_start_matches("http://"), &token)))
    }

    /// The owner named by URL, with its key ([`super::remote`]); `None` when none was.
    pub fn discover_named() -> Option<Self> {
        super::remote::named().map(|r| Self::new(r.base.trim_start_matches("http://"), &r.key))
    }

    /// A client of `address` (`127.0.0.1:PORT`) with `token`.
    pub fn new(address: &str, token: &str) -> Self {
        Self {
            base: format!("http://{address}"),
            token: token.to_string(),
            agent: agent(super::call_timeout_ms()),
        }
    }

    /// The same client with a per-request timeout of `ms` milliseconds (connect, send and
    /// answer together).
    pub fn with_timeout_ms(mut self, ms: u64) -> Self {
        self.agent = agent(ms);
        self
    }

    /// The owner's address, `127.0.0.1:PORT`.
    pub fn address(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    /// `GET /v1/queue`: every section of the queue as a person sees it.
    pub fn queue_view(&self) -> Result<QueueView, ClientError> {
        typed(self.call("GET", "/v1/queue", &Value::Null)?)
    }

    /// `GET /v1/queue/history`: settled sends queued before `before` (an operation id;
    /// `None`: from the newest), newest first, at most `limit`.
    pub fn history(&self, before: Option<&str>, limit: u32) -> Result<HistoryPage, ClientError> {
        self.page("history", before, limit)
    }

    /// `GET /v1/queue/stopped`: stopped or rejected sends queued before `before` (an
    /// operation id; `None`: from the newest), newest first, at most `limit`.
    pub fn stopped(&self, before: Option<&str>, limit: u32) -> Result<HistoryPage, ClientError> {
        self.page("stopped", before, limit)
    }

    /// `GET /v1/queue/{section}?limit=&before=`: one page of a paged section.
    fn page(
        &self,
        section: &str,
        before: Option<&str>,
        limit: u32,
    ) -> Result<HistoryPage, ClientError> {
        let mut path = format!("/v1/queue/{section}?limit={limit}");
        if let Some(b) = before {
            let b = percent_encoding::utf8_percent_encode(b, percent_encoding::NON_ALPHANUMERIC);
            path.push_str(&format!("&before={b}"));
        }
        typed(self.call("GET", &path, &Value::Null)?)
    }

    /// `POST /v1/queue/rows`: the rows of `op_ids` (and of the sends they queue again).
    pub fn rows(&self, op_ids: &BTreeSet<String>) -> Result<Vec<Row>, ClientError> {
        #[derive(serde::Deserialize)]
        struct Rows {
            rows: Vec<Row>,
        }
        let body = serde_json::json!({ "op_ids": op_ids });
        Ok(typed::<Rows>(self.call("POST", "/v1/queue/rows", &body)?)?.rows)
    }

    /// `POST /v1/pairing-code`: a new one-time code for the extension.
    pub fn pairing_code(&self) -> Result<PairingCode, ClientError> {
        typed(self.call("POST", "/v1/pairing-code", &serde_json::json!({}))?)
    }

    /// `GET /v1/sends/{op_id}`: one send with its timeline.
    pub fn show(&self, op_id: &str) -> Result<crate::api::SendView, ClientError> {
        typed(self.call(
            "GET",
            &format!("/v1/sends/{}", routes::segment(op_id)),
            &Value::Null,
        )?)
    }

    /// `GET /v1/keys`: every named key, newest first (never a secret).
    pub fn keys(&self) -> Result<Vec<ApiKey>, ClientError> {
        #[derive(serde::Deserialize)]
        struct Keys {
            keys: Vec<ApiKey>,
        }
        Ok(typed::<Keys>(self.call("GET", "/v1/keys", &Value::Null)?)?.keys)
    }

    /// `GET /v1/queue/feed`: the queue's live updates, read as they come
    /// ([`super::feed::QueueFeed`]). A silence longer than `idle_ms` (the owner sends a
    /// keep-alive every 15 s) ends it with an error.
    pub fn queue_feed(&self, idle_ms: u64) -> Result<super::feed::QueueFeed, ClientError> {
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(Duration::from_secs(5))
            .timeout_read(Duration::from_millis(idle_ms))
            .build();
        let r = agent
            .get(&format!("{}/v1/queue/feed", self.base))
            .set("Authorization", &format!("Bearer {}", self.token))
            .set("Accept", "text/event-stream")
            .call();
        let resp = self.sent("GET", r)?;
        Ok(super::feed::QueueFeed::new(resp.into_reader()))
    }

    /// Sends `req` to its route; the answer read back as the typed outcome.
    pub fn apply(&self, req: &Request) -> Result<Outcome, ClientError> {
        let (method, path, body) = routes::route(req);
        let v = self.call(method, &path, &body)?;
        decode(req, v).map_err(|e| {
            ClientError::Lost(format!(
                "the owner answered a shape this sendledger does not know ({e}): are the app and the CLI the same version?"
            ))
        })
    }

    /// `POST /v1/attachments?name=NAME`: uploads `file` to the owner's store; the stored
    /// file (its `sha256` is what a send names). Uploading the same bytes again is
    /// harmless (content-addressed), so a lost answer is retried by uploading again.
    pub fn upload(
        &self,
        file: &super::FileToSend,
    ) -> Result<crate::attachments::Attachment, ClientError> {
        let r = self
            .agent
            .request("POST", &format!("{}{}", self.base, file.path()))
            .set("Authorization", &format!("Bearer {}", self.token))
            .set("Content-Type", &file.mime)
            .send_bytes(&file.bytes);
        super::upload::stored(self.answered("POST", r)?)
    }

    /// `GET path` with the token, the raw answer (for bytes that are not JSON); a refusal
    /// or a lost answer as for [`Self::call`].
    pub(crate) fn get_raw(&self, path: &str) -> Result<ureq::Response, ClientError> {
        let r = self
            .agent
            .request("GET", &format!("{}{path}", self.base))
            .set("Authorization", &format!("Bearer {}", self.token))
            .call();
        self.sent("GET", r)
    }

    /// *Check this page* (issue 35): the owner asks a leased tab (`tab`, else the one leased
    /// last) to run the page contract's checks, and answers `{tab_id, summary, check,
    /// report}` (`report` null unless asked for). Waits up to the owner's bound (10 s) plus
    /// 5 s; a silent tab is refused `tab_silent`, no leased tab `no_tab`.
    pub fn page_check(
        &self,
        tab: Option<&str>,
        open_picker: bool,
        report: bool,
    ) -> Result<Value, ClientError> {
        let body =
            serde_json::json!({ "tab_id": tab, "open_picker": open_picker, "report": report });
        self.clone()
            .with_timeout_ms(crate::api::PAGE_CHECK_WAIT_MS + 5_000)
            .call("POST", "/v1/page-check", &body)
    }

    /// One request; a refusal comes back as [`ClientError::Refused`] with its status, code and message.
    pub fn call(&self, method: &str, path: &str, body: &Value) -> Result<Value, ClientError> {
        let r = self
            .agent
            .request(method, &format!("{}{path}", self.base))
            .set("Authorization", &format!("Bearer {}", self.token));
        let r = if method == "GET" {
            r.call()
        } else {
            r.send_json(body)
        };
        self.answered(method, r)
    }

    /// The answer of one request as JSON, or the refusal or the lost answer in words.
    fn answered(
        &self,
        method: &str,
        r: Result<ureq::Response, ureq::Error>,
    ) -> Result<Value, ClientError> {
        self.sent(method, r)?
            .into_json()
            .map_err(|e| ClientError::Lost(format!("the owner answered something unreadable: {e}")))
    }

    /// The one decode of every transport's failure: a refusal (any non-2xx status) is its
    /// `{code, message}` body ([`refused`]); a connection refused is
    /// [`ClientError::NoOwner`] (the request never left this process); anything else is a
    /// lost answer, said for a read (`GET`) or for an act that may have been applied.
    fn sent(
        &self,
        method: &str,
        r: Result<ureq::Response, ureq::Error>,
    ) -> Result<ureq::Response, ClientError> {
        match r {
            Ok(resp) => Ok(resp),
            Err(ureq::Error::Status(status, resp)) => Err(refused(status, resp)),
            Err(ureq::Error::Transport(t)) if t.kind() == ureq::ErrorKind::ConnectionFailed => {
                Err(ClientError::NoOwner)
            }
            Err(e) if method == "GET" => Err(ClientError::Lost(format!(
                "the owner at {} could not be reached or did not answer ({e}); is `sendledger serve` (or the tray app) still running and not stuck?",
                self.base
            ))),
            Err(e) => Err(ClientError::Lost(format!(
                "the owner at {} could not be reached or did not answer ({e}); the request may or may not have been applied (check with `sendledger status` and `sendledger list`); is `sendledger serve` (or the tray app) still running and not stuck?",
                self.base
            ))),
        }
    }
}

/// The agent of every call: connect within 2 s, the whole call within `ms` ms.
fn agent(ms: u64) -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout_connect(Duration::from_millis(ms.min(CONNECT_MS)))
        .timeout(Duration::from_millis(ms))
        .build()
}

/// Bound on connecting to the owner, in ms (a loopback port answers at once or refuses).
const CONNECT_MS: u64 = 2_000;

/// The error shape of the owner's answers, `{code, message}` (docs/bridge-api.md).
#[derive(serde::Deserialize)]
struct ErrorBody {
    code: String,
    message: String,
}

/// The owner's refusal with `status`, read from its `{code, message}` body; a body that is
/// not one is `internal`, said as such.
fn refused(status: u16, answer: ureq::Response) -> ClientError {
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

/// An answer read as `T`; a shape this build does not know is said as such.
pub(crate) fn typed<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, ClientError> {
    serde_json::from_value(v).map_err(|e| {
        ClientError::Lost(format!(
            "the owner answered a shape this sendledger does not know ({e}): are the app and the CLI the same version?"
        ))
    })
}

/// Decodes the bridge's JSON answer to `req` into its typed outcome (the JSON stays at
/// this boundary: the API itself answers typed values).
fn decode(req: &Request, v: Value) -> Result<Outcome, serde_json::Error> {
    use serde::de::Error;
    #[derive(serde::Deserialize)]
    struct S {
        send: crate::ledger::Send,
    }
    #[derive(serde::Deserialize)]
    struct K {
        key: crate::ledger::ApiKey,
    }
    Ok(match req {
        Request::Queue { .. } | Request::Resolve { .. } | Request::Stop { .. } => {
            serde_json::from_value(v)?
        }
        Request::Resume { .. } => match serde_json::from_value(v)? {
            o @ Outcome::Resumed { .. } => o,
            _ => return Err(serde_json::Error::custom("expected {\"resumed\": bool}")),
        },
        Request::Requeue { .. } => Outcome::Requeued {
            send: serde_json::from_value::<S>(v)?.send,
        },
        Request::Withdraw { .. } => Outcome::Withdrawn {
            send: serde_json::from_value::<S>(v)?.send,
        },
        Request::ToolAdmit { .. } => Outcome::Admitted(serde_json::from_value(v)?),
        Request::SetMaxInFlight { .. } => match serde_json::from_value(v)? {
            o @ Outcome::MaxInFlightSet { .. } => o,
            _ => return Err(serde_json::Error::custom("expected {\"max_in_flight\": n}")),
        },
        Request::SetDefaultDestination { .. } => match serde_json::from_value(v)? {
            o @ Outcome::DefaultDestinationSet { .. } => o,
            _ => {
                return Err(serde_json::Error::custom(
                    "expected {\"default_destination\", \"words\"}",
                ))
            }
        },
        Request::MarkNotified { .. } => match serde_json::from_value(v)? {
            o @ Outcome::Notified { .. } => o,
            _ => return Err(serde_json::Error::custom("expected {\"notified\": bool}")),
        },
        Request::KeyCreate { .. } => match serde_json::from_value(v)? {
            o @ Outcome::KeyCreated { .. } => o,
            _ => return Err(serde_json::Error::custom("expected {\"key\", \"secret\"}")),
        },
        Request::SetRetention { .. } => match serde_json::from_value(v)? {
            o @ Outcome::RetentionSet { .. } => o,
            _ => return Err(serde_json::Error::custom("expected {\"retention\": ...}")),
        },
        Request::KeyRevoke { .. } => Outcome::KeyRevoked {
            key: serde_json::from_value::<K>(v)?.key,
        },
        Request::ToolStart { .. } | Request::ToolSettle { .. } | Request::ToolArchive { .. } => {
            match serde_json::from_value(v)? {
                o @ Outcome::Tool { .. } => o,
                _ => return Err(serde_json::Error::custom("expected {\"tool_call\": ...}")),
            }
        }
    })
}
