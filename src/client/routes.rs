//! The client routes' table, once: which HTTP method and path each [`Request`] is served
//! on, and its JSON body. The CLI's bridge client sends requests by it; the bridge's
//! router (client_routes.rs) serves the same paths (pinned by the bridge tests driving
//! the CLI through a live owner).

use crate::api::Request;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::{json, Value};

/// Everything but unreserved characters (RFC 3986) is escaped in a path segment.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `id` as one URL path segment: `a/b` stays one id, `%41` stays `%41`.
pub fn segment(id: &str) -> String {
    utf8_percent_encode(id, SEGMENT).to_string()
}

/// A route: (HTTP method, path and query already encoded, JSON body).
pub type Route = (&'static str, String, Value);

/// The body of `POST /v1/sends` as every client writes it: the ledger's own request type,
/// so a field a client can name is one the owner takes (the MCP server, which links no
/// `api` or `ledger`, builds its sends with it).
pub use crate::ledger::QueueRequest as SendBody;

/// `POST /v1/sends` queuing `send` (the route of `Request::Queue`; the owner records the
/// caller's key as the actor).
pub fn queue(send: SendBody) -> Route {
    route(&Request::Queue {
        send,
        actor: String::new(),
    })
}

/// `POST /v1/stop` by `by` (the route of `Request::Stop`).
pub fn stop(by: &str) -> Route {
    route(&Request::Stop { by: by.to_string() })
}

/// The route serving `req`: (method, path, JSON body).
pub fn route(req: &Request) -> Route {
    match req {
        Request::Queue { send, .. } => ("POST", "/v1/sends".into(), json!(send)),
        Request::Resolve { op_id, resolution } => (
            "POST",
            format!("/v1/sends/{}/resolve", segment(op_id.as_str())),
            json!(resolution),
        ),
        Request::Requeue { op_id, by } => (
            "POST",
            format!("/v1/sends/{}/requeue", segment(op_id.as_str())),
            json!({ "by": by }),
        ),
        Request::Withdraw { op_id, by } => (
            "POST",
            format!("/v1/sends/{}/withdraw", segment(op_id.as_str())),
            json!({ "by": by }),
        ),
        Request::Stop { by } => ("POST", "/v1/stop".into(), json!({ "by": by })),
        Request::Resume { by } => ("POST", "/v1/resume".into(), json!({ "by": by })),
        Request::ToolAdmit { .. }
        | Request::ToolStart { .. }
        | Request::ToolSettle { .. }
        | Request::ToolArchive { .. } => tool_route(req),
        Request::MarkNotified { op_id } => (
            "POST",
            format!("/v1/sends/{}/notified", segment(op_id.as_str())),
            json!({}),
        ),
        Request::KeyCreate { name, scope, by } => (
            "POST",
            "/v1/keys".into(),
            json!({ "name": name, "scope": scope, "by": by }),
        ),
        Request::KeyRevoke {
            name,
            by,
            key_sha256,
        } => (
            "POST",
            format!("/v1/keys/{}/revoke", segment(name)),
            match key_sha256 {
                Some(h) => json!({ "by": by, "key_sha256": h }),
                None => json!({ "by": by }),
            },
        ),
        Request::SetMaxInFlight { .. }
        | Request::SetDefaultDestination { .. }
        | Request::SetRetention { .. } => setting_route(req),
    }
}

/// The route of a tool receipt (`POST /v1/tools/{call_id}/…`).
fn tool_route(req: &Request) -> Route {
    match req {
        Request::ToolAdmit { call_id } => (
            "POST",
            format!("/v1/tools/{}/admit", segment(call_id.as_str())),
            json!({}),
        ),
        Request::ToolStart { call_id } => (
            "POST",
            format!("/v1/tools/{}/start", segment(call_id.as_str())),
            json!({}),
        ),
        Request::ToolSettle { call_id, outcome } => (
            "POST",
            format!("/v1/tools/{}/settle", segment(call_id.as_str())),
            json!({ "outcome": outcome }),
        ),
        Request::ToolArchive { call_id, by } => (
            "POST",
            format!("/v1/tools/{}/archive", segment(call_id.as_str())),
            json!({ "by": by }),
        ),
        _ => unreachable!("tool_route is called for a tool receipt only"),
    }
}

/// The route of a setting (`PUT /v1/settings/…`; retention `POST /v1/retention`).
fn setting_route(req: &Request) -> Route {
    match req {
        Request::SetRetention { days, by } => (
            "POST",
            "/v1/retention".into(),
            json!({ "days": days, "by": by }),
        ),
        Request::SetMaxInFlight { max_in_flight } => (
            "PUT",
            "/v1/settings/max-in-flight".into(),
            json!({ "max_in_flight": max_in_flight }),
        ),
        Request::SetDefaultDestination { site, destination } => (
            "PUT",
            "/v1/settings/default-destination".into(),
            json!({ "site": site, "destination": destination }),
        ),
        _ => unreachable!("only settings reach setting_route"),
    }
}

/// The read routes (the acts are [`route`]'s): every path a client of this crate sends is
/// built in this file.
pub mod paths {
    use super::segment;

    /// One send with its timeline.
    pub fn send(op_id: &str) -> String {
        format!("/v1/sends/{}", segment(op_id))
    }

    /// The send once it leaves `from`, held at most `timeout_ms`.
    pub fn wait(op_id: &str, from: &str, timeout_ms: u64) -> String {
        format!(
            "/v1/sends/{}/wait?from={}&timeout_ms={timeout_ms}",
            segment(op_id),
            segment(from)
        )
    }

    /// Sends in `state`, at most `limit`.
    pub fn sends_in(state: &str, limit: u32) -> String {
        format!("/v1/sends?state={}&limit={limit}", segment(state))
    }

    /// A send's answer files, held at most `wait_ms` for them to settle.
    pub fn artifacts(op_id: &str, wait_ms: u64) -> String {
        format!("/v1/sends/{}/artifacts?wait_ms={wait_ms}", segment(op_id))
    }

    /// Answer file `n` of a send (its bytes).
    pub fn artifact(op_id: &str, n: impl std::fmt::Display) -> String {
        format!("/v1/sends/{}/artifacts/{n}", segment(op_id))
    }
}
