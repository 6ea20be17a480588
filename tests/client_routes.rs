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
        Request::SetRetention { .. } => 13,
        Request::SetMaxInFlight { .. } => 14,
        Request::SetDefaultDestination { .. } => 15,
    }
}
const VARIANTS: usize = 16;

/// One sample of every variant, ids with a `/` in them (one path segment each).
fn samples() -> Vec<Request> {
    let by = || "tester".to_string();
    vec![
        Request::Queue {
            send: QueueRequest {
                op_id: Some("route-pin".into()),
                site: None,
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
        Request::SetRetention {
            days: Some(365),
            by: by(),
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
        Request::SetMaxInFlight { max_in_flight: 2 },
        Request::SetDefaultDestination {
            site: sendledger::site::Site::Chatgpt,
            destination: sendledger::destination::Named {
                new_chat: true,
                ..Default::default()
            },
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
            "PUT" => http.put(&path, &body),
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

/// A fake owner on a loopback port answering every request by its path: `/refused` a 409
/// with `{code, message}`, `/refused-garbage` a 500 whose body is not one, `/garbage` a 200
/// that is not JSON. Runs until the test ends.
fn garbled_owner() -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let address = listener.local_addr().expect("its address").to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("the stream"));
            let mut first = String::new();
            let _ = reader.read_line(&mut first);
            let mut line = String::new();
            while reader.read_line(&mut line).map(|n| n > 2).unwrap_or(false) {
                line.clear();
            }
            let (status, body) = match first.split(' ').nth(1).unwrap_or("") {
                "/refused" => (
                    "409 Conflict",
                    r#"{"code":"payload_changed","message":"this key names another message"}"#,
                ),
                "/refused-garbage" => ("500 Internal Server Error", "<html>oops</html>"),
                _ => ("200 OK", "not json {"),
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    address
}

/// What the async handle (the MCP server's) answers to `GET path`.
fn through_the_link(
    address: &str,
    path: &str,
) -> Result<serde_json::Value, sendledger::client::ClientError> {
    let link = sendledger::client::OwnerLink::at(address, "token");
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(link.get::<serde_json::Value>(path.to_string()))
}

#[test]
fn a_refusal_or_a_garbled_answer_reads_the_same_through_the_cli_window_and_mcp_paths() {
    use sendledger::client::{BridgeClient, ClientError};
    let address = garbled_owner();
    let blocking = BridgeClient::new(&address, "token");
    for path in ["/refused", "/refused-garbage", "/garbage"] {
        let cli = blocking.call("GET", path, &serde_json::Value::Null);
        let mcp = through_the_link(&address, path);
        assert!(cli.is_err(), "{path}: {cli:?}");
        assert_eq!(cli, mcp, "{path}: one decode answers both paths alike");
    }
    let refused = blocking.call("GET", "/refused", &serde_json::Value::Null);
    assert!(
        matches!(&refused, Err(ClientError::Refused { status: 409, code, .. }) if code == "payload_changed"),
        "{refused:?}"
    );
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        l.local_addr().expect("its address").to_string()
    };
    let cli =
        BridgeClient::new(&closed, "token").call("GET", "/v1/queue", &serde_json::Value::Null);
    assert_eq!(
        cli,
        Err(ClientError::NoOwner),
        "a refused connection sent nothing"
    );
    assert_eq!(through_the_link(&closed, "/v1/queue"), cli);
}
