//! One surface for every front end: the CLI (when it owns the ledger itself), the
//! bridge's client routes and the tray app all turn a [`Request`] into a JSON answer
//! here, so the three cannot drift. Answers have the shapes documented in
//! docs/bridge-api.md.

use crate::ledger::{Ledger, LedgerError, QueueRequest, Resolution};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Everything but unreserved characters (RFC 3986) is escaped in a path segment.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `id` as one URL path segment: `a/b` stays one id, `%41` stays `%41`.
fn seg(id: &str) -> String {
    utf8_percent_encode(id, SEGMENT).to_string()
}

/// A change a client asks of the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "request", rename_all = "snake_case")]
pub enum Request {
    /// Queue a send (idempotent per operation id).
    Queue { send: QueueRequest, actor: String },
    /// A person's decision on an uncertain send.
    Resolve {
        op_id: String,
        resolution: Resolution,
    },
    /// Queue again a stopped or rejected send.
    Requeue { op_id: String, by: String },
    /// Stop: fence the epoch, close the gate.
    Stop { by: String },
    /// Resume after a Stop.
    Resume { by: String },
    /// Admit a tool call.
    ToolAdmit { call_id: String },
    /// Start a tool call's side effect.
    ToolStart { call_id: String },
    /// Record a tool call's outcome.
    ToolSettle { call_id: String, outcome: String },
    /// Archive a settled tool receipt.
    ToolArchive { call_id: String, by: String },
    /// Make a named API key for the OpenAI door (its secret is in the answer, once).
    KeyCreate { name: String, by: String },
    /// Revoke a named API key (final).
    KeyRevoke { name: String, by: String },
    /// List the named API keys (never their secrets).
    KeyList,
}

impl Request {
    /// The bridge route for this request: (method, path, JSON body).
    pub fn route(&self) -> (&'static str, String, Value) {
        match self {
            Self::Queue { send, .. } => ("POST", "/v1/sends".into(), json!(send)),
            Self::Resolve { op_id, resolution } => (
                "POST",
                format!("/v1/sends/{}/resolve", seg(op_id)),
                json!(resolution),
            ),
            Self::Requeue { op_id, by } => (
                "POST",
                format!("/v1/sends/{}/requeue", seg(op_id)),
                json!({ "by": by }),
            ),
            Self::Stop { by } => ("POST", "/v1/stop".into(), json!({ "by": by })),
            Self::Resume { by } => ("POST", "/v1/resume".into(), json!({ "by": by })),
            Self::ToolAdmit { call_id } => (
                "POST",
                format!("/v1/tools/{}/admit", seg(call_id)),
                json!({}),
            ),
            Self::ToolStart { call_id } => (
                "POST",
                format!("/v1/tools/{}/start", seg(call_id)),
                json!({}),
            ),
            Self::ToolSettle { call_id, outcome } => (
                "POST",
                format!("/v1/tools/{}/settle", seg(call_id)),
                json!({ "outcome": outcome }),
            ),
            Self::ToolArchive { call_id, by } => (
                "POST",
                format!("/v1/tools/{}/archive", seg(call_id)),
                json!({ "by": by }),
            ),
            Self::KeyCreate { name, by } => {
                ("POST", "/v1/keys".into(), json!({ "name": name, "by": by }))
            }
            Self::KeyRevoke { name, by } => (
                "POST",
                format!("/v1/keys/{}/revoke", seg(name)),
                json!({ "by": by }),
            ),
            Self::KeyList => ("GET", "/v1/keys".into(), Value::Null),
        }
    }
}

/// Applies `req` to the owner's ledger; the answer is committed before it is returned.
pub fn apply(ledger: &mut Ledger, req: &Request) -> Result<Value, LedgerError> {
    Ok(match req {
        Request::Queue { send, actor } => {
            let (send, created) = ledger.queue(send, actor)?;
            json!({ "send": send, "created": created })
        }
        Request::Resolve { op_id, resolution } => {
            json!({ "resolved": ledger.resolve(op_id, resolution)? })
        }
        Request::Requeue { op_id, by } => json!({ "send": ledger.requeue(op_id, by)? }),
        Request::Stop { by } => json!({ "stop": ledger.stop(by)? }),
        Request::Resume { by } => json!({ "resumed": ledger.resume(by)? }),
        Request::ToolAdmit { call_id } => json!(ledger.tool_admit(call_id)?),
        Request::ToolStart { call_id } => json!({ "tool_call": ledger.tool_start(call_id)? }),
        Request::ToolSettle { call_id, outcome } => {
            json!({ "tool_call": ledger.tool_settle(call_id, outcome)? })
        }
        Request::ToolArchive { call_id, by } => {
            json!({ "tool_call": ledger.tool_archive(call_id, by)? })
        }
        Request::KeyCreate { name, by } => {
            let (key, secret) = ledger.key_create(name, by)?;
            json!({ "key": key, "secret": secret })
        }
        Request::KeyRevoke { name, by } => json!({ "key": ledger.key_revoke(name, by)? }),
        Request::KeyList => json!({ "keys": ledger.keys()? }),
    })
}
