//! The client's route table (`sendledger::client::routes`) pinned against the bridge's
//! router: every `Request` is sent, by the table, to a real `sendledger serve`, and the
//! owner answers it on a route it serves — a refusal of the request itself (an unknown
//! send, a wrong state) is fine; `unknown_route` (or a 405) is not. A new `Request`
//! variant does not compile here until it has a sample.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use sendledger::api::Request;
use sendledger::client::routes::route;
use sendledger::ledger::{Decision, QueueRequest, Resolution};

/// Which variant `req` is; no wildcard, so a new variant must be named here.
fn variant(req: &Request) -> usize {
    match req {
        Request::Queue { .. } => 0,
        Request::Resolve { .. } => 1,
        Request::Requeue { .. } => 2,
        Request::Withdraw { .. } => 3,
        Request::Stop { .. } => 4,
        Request::Resume { .. } => 5,
        Request::ToolAdmit { .. } => 6,
        Request::ToolStart { .. } => 7,
        Request::ToolSettle { .. } => 8,
        Request::ToolArchive { .. } => 9,
        Request::MarkNotified { .. } => 10,
        Request::KeyCreate { .. } => 11,
        Request::KeyRevoke { .. } => 12,
    }
}
const VARIANTS: usize = 13;

/// One sample of every variant, ids with a `/` in them (one path segment each).
fn samples() -> Vec<Request> {
    let by = || "tester".to_string();
    vec![
        Request::Queue {
            send: QueueRequest {
                op_id: Some("route-pin".into()),
                text: "hello".into(),
                conversation_id: None,
                project_id: None,
                new_chat: false,
                model: None,
                effort: None,
                attachments: Vec::new(),
            },
            actor: by(),
        },
        Request::Resolve {
            op_id: "no/such".into(),
            resolution: Resolution {
                decision: Decision::Abandoned,
                by: by(),
                evidence: "a note".into(),
            },
        },
        Request::Requeue {
            op_id: "no/such".into(),
            by: by(),
        },
        Request::Withdraw {
            op_id: "no/such".into(),
            by: by(),
        },
        Request::MarkNotified {
            op_id: "no/such".into(),
        },
        Request::ToolAdmit {
            call_id: "call/1".into(),
        },
        Request::ToolStart {
            call_id: "call/1".into(),
        },
        Request::ToolSettle {
            call_id: "call/1".into(),
            outcome: "done".into(),
        },
        Request::ToolArchive {
            call_id: "call/1".into(),
            by: by(),
        },
        Request::KeyCreate {
            name: "route/pin".into(),
            scope: sendledger::ledger::KeyScope::All,
            by: by(),
        },
        Request::KeyRevoke {
            name: "route/pin".into(),
            by: by(),
            key_sha256: None,
        },
        Request::Stop { by: by() },
        Request::Resume { by: by() },
    ]
}

#[test]
fn every_request_is_served_on_the_route_the_client_table_gives_it() {
    let (_dir, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let http = serve.client();
    let samples = samples();
    let mut seen = [false; VARIANTS];
    for req in &samples {
        seen[variant(req)] = true;
        let (method, path, body) = route(req);
        let answer = match method {
            "GET" => http.get(&path),
            "POST" => http.post(&path, &body),
            m => panic!("{path}: a method the client does not send: {m}"),
        };
        assert!(
            answer.code() != "unknown_route" && answer.status != 405,
            "{method} {path} is not served by the bridge: {answer:?}"
        );
        assert!(answer.status < 500, "{method} {path}: {answer:?}");
    }
    assert!(
        seen.iter().all(|s| *s),
        "a Request variant has no sample: {seen:?}"
    );
}
