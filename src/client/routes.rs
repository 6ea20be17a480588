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

/// The route serving `req`: (method, path, JSON body).
pub fn route(req: &Request) -> (&'static str, String, Value) {
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
    }
}
