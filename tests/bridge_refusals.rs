//! Every refusal class of the bridge (issue 5, docs/bridge-api.md "Checks on every
//! request"): each answers JSON `{code, message}` and leaves the ledger byte-identical —
//! a dump of every table is compared before and after each request. Pairing is
//! rate-limited; a malformed body's text is never echoed.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::{json, Value};

/// A request a well-behaved client never sends, and the refusal it must get.
struct Case {
    name: &'static str,
    method: &'static str,
    path: String,
    /// `None`: no Host header at all (HTTP/1.0).
    host: Option<String>,
    token: Option<String>,
    origin: Option<String>,
    body: Vec<u8>,
    status: u16,
    code: &'static str,
}

fn send(port: u16, c: &Case) -> (u16, Value, String) {
    let mut head = match &c.host {
        Some(h) => format!("{} {} HTTP/1.1\r\nHost: {h}", c.method, c.path),
        None => format!("{} {} HTTP/1.0", c.method, c.path),
    };
    head.push_str("\r\nContent-Type: application/json");
    if let Some(t) = &c.token {
        head.push_str(&format!("\r\nAuthorization: Bearer {t}"));
    }
    if let Some(o) = &c.origin {
        head.push_str(&format!("\r\nOrigin: {o}"));
    }
    raw(port, &head, &c.body)
}

/// Words that must never come back in an error message.
const SECRET: &str = "the launch code is 0000-SECRET";

#[test]
fn every_refusal_answers_code_and_message_and_leaves_the_ledger_byte_identical() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    // A ledger with history: one uncertain send, one claimed, one queued behind it.
    client.queue("done", "an uncertain send");
    ext.next(&lease, 5_000).expect("claimed");
    assert_eq!(ext.dispatch(&lease, "done").status, 200);
    assert_eq!(
        ext.fail(&lease, "done", "after_dispatch", "page reloaded")
            .status,
        200
    );
    client.queue("held", "a claimed send");
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "held");
    client.queue("waiting", "a queued send");

    let port = serve.port;
    let host = Some(format!("127.0.0.1:{port}"));
    let ctoken = Some(serve.client_token());
    let etoken = ext.http_token();
    let eorigin = Some(EXTENSION_ORIGIN.to_string());
    let evil = Some("https://evil.example".to_string());
    let queue_body = json!({ "op_id": "new", "text": SECRET })
        .to_string()
        .into_bytes();
    let grant_body = json!({ "lease_id": lease, "op_id": "held" })
        .to_string()
        .into_bytes();
    let stop_body = br#"{"by":"mallory"}"#.to_vec();
    let big = |n: usize| json!({ "by": "x".repeat(n) }).to_string().into_bytes();
    let case = |name, method, path: &str, token: &Option<String>, origin: &Option<String>| Case {
        name,
        method,
        path: path.to_string(),
        host: host.clone(),
        token: token.clone(),
        origin: origin.clone(),
        body: Vec::new(),
        status: 0,
        code: "",
    };
    let with = |mut c: Case, body: &[u8], status: u16, code: &'static str| {
        c.body = body.to_vec();
        c.status = status;
        c.code = code;
        c
    };
    let cases = vec![
        // No token / a wrong token.
        with(
            case("no token: queue", "POST", "/v1/sends", &None, &None),
            &queue_body,
            401,
            "unauthorized",
        ),
        with(
            case("no token: stop", "POST", "/v1/stop", &None, &None),
            &stop_body,
            401,
            "unauthorized",
        ),
        with(
            case(
                "no token: dispatch",
                "POST",
                "/v1/ext/dispatch",
                &None,
                &eorigin,
            ),
            &grant_body,
            401,
            "unauthorized",
        ),
        with(
            case(
                "wrong token: queue",
                "POST",
                "/v1/sends",
                &Some("0".repeat(64)),
                &None,
            ),
            &queue_body,
            401,
            "unauthorized",
        ),
        with(
            case(
                "wrong token: dispatch",
                "POST",
                "/v1/ext/dispatch",
                &Some("0".repeat(64)),
                &eorigin,
            ),
            &grant_body,
            401,
            "unauthorized",
        ),
        // Wrong scope.
        with(
            case(
                "extension token on a client route",
                "POST",
                "/v1/sends",
                &etoken,
                &None,
            ),
            &queue_body,
            403,
            "wrong_scope",
        ),
        with(
            case(
                "extension token on stop",
                "POST",
                "/v1/stop",
                &etoken,
                &None,
            ),
            &stop_body,
            403,
            "wrong_scope",
        ),
        with(
            case(
                "client token on dispatch",
                "POST",
                "/v1/ext/dispatch",
                &ctoken,
                &eorigin,
            ),
            &grant_body,
            403,
            "wrong_scope",
        ),
        with(
            case(
                "client token on lease",
                "POST",
                "/v1/ext/lease",
                &ctoken,
                &eorigin,
            ),
            br#"{"tab_id":"9"}"#,
            403,
            "wrong_scope",
        ),
        // Bad Host (DNS rebinding), or none.
        Case {
            host: Some(format!("evil.example:{port}")),
            ..with(
                case(
                    "bad host: a rebinding name",
                    "POST",
                    "/v1/sends",
                    &ctoken,
                    &None,
                ),
                &queue_body,
                421,
                "bad_host",
            )
        },
        Case {
            host: Some("127.0.0.1:1".into()),
            ..with(
                case("bad host: another port", "POST", "/v1/stop", &ctoken, &None),
                &stop_body,
                421,
                "bad_host",
            )
        },
        Case {
            host: Some(format!("evil.example:{port}")),
            ..with(
                case(
                    "bad host: dispatch",
                    "POST",
                    "/v1/ext/dispatch",
                    &etoken,
                    &eorigin,
                ),
                &grant_body,
                421,
                "bad_host",
            )
        },
        Case {
            host: None,
            ..with(
                case("no host at all", "POST", "/v1/stop", &ctoken, &None),
                &stop_body,
                421,
                "bad_host",
            )
        },
        // Foreign Origin.
        with(
            case(
                "web page on a client route",
                "POST",
                "/v1/sends",
                &ctoken,
                &evil,
            ),
            &queue_body,
            403,
            "bad_origin",
        ),
        with(
            case("web page on stop", "POST", "/v1/stop", &ctoken, &evil),
            &stop_body,
            403,
            "bad_origin",
        ),
        with(
            case(
                "web page on dispatch",
                "POST",
                "/v1/ext/dispatch",
                &etoken,
                &evil,
            ),
            &grant_body,
            403,
            "bad_origin",
        ),
        with(
            case(
                "another extension on dispatch",
                "POST",
                "/v1/ext/dispatch",
                &etoken,
                &Some("chrome-extension://zyxwvutsrqponmlkzyxwvutsrqponmlk".into()),
            ),
            &grant_body,
            403,
            "bad_origin",
        ),
        with(
            case("web page pairing", "POST", "/v1/pair", &None, &evil),
            br#"{"code":"AAAA-AAAA"}"#,
            403,
            "bad_origin",
        ),
        // Oversized bodies.
        with(
            case("oversized queue", "POST", "/v1/sends", &ctoken, &None),
            &json!({ "text": "x".repeat(170 * 1024) })
                .to_string()
                .into_bytes(),
            413,
            "too_large",
        ),
        with(
            case("oversized stop", "POST", "/v1/stop", &ctoken, &None),
            &big(17 * 1024),
            413,
            "too_large",
        ),
        with(
            case(
                "oversized lease",
                "POST",
                "/v1/ext/lease",
                &etoken,
                &eorigin,
            ),
            &json!({ "tab_id": "x".repeat(17 * 1024) })
                .to_string()
                .into_bytes(),
            413,
            "too_large",
        ),
        with(
            case(
                "oversized observation",
                "POST",
                "/v1/ext/observations",
                &etoken,
                &eorigin,
            ),
            &json!({ "lease_id": lease, "kind": "listing", "body": "x".repeat(1100 * 1024) })
                .to_string()
                .into_bytes(),
            413,
            "too_large",
        ),
        // Malformed JSON and wrong schemas (the message must not echo the body).
        with(
            case("malformed queue", "POST", "/v1/sends", &ctoken, &None),
            format!("{{\"op_id\":\"m1\",\"text\":\"{SECRET}").as_bytes(),
            400,
            "malformed",
        ),
        with(
            case(
                "malformed dispatch",
                "POST",
                "/v1/ext/dispatch",
                &etoken,
                &eorigin,
            ),
            format!("{{\"lease_id\":\"{SECRET}").as_bytes(),
            400,
            "malformed",
        ),
        with(
            case("empty body on stop", "POST", "/v1/stop", &ctoken, &None),
            b"",
            400,
            "malformed",
        ),
        with(
            case(
                "schema: a misspelt field",
                "POST",
                "/v1/sends",
                &ctoken,
                &None,
            ),
            json!({ "op_id": "m2", "txt": SECRET })
                .to_string()
                .as_bytes(),
            400,
            "malformed",
        ),
        with(
            case("schema: a wrong type", "POST", "/v1/sends", &ctoken, &None),
            json!({ "op_id": "m3", "text": 5 }).to_string().as_bytes(),
            400,
            "malformed",
        ),
        with(
            case(
                "schema: an unknown decision",
                "POST",
                "/v1/sends/done/resolve",
                &ctoken,
                &None,
            ),
            json!({ "decision": SECRET, "by": "alice", "evidence": "none" })
                .to_string()
                .as_bytes(),
            400,
            "malformed",
        ),
        with(
            case(
                "schema: an extra field on dispatch",
                "POST",
                "/v1/ext/dispatch",
                &etoken,
                &eorigin,
            ),
            json!({ "lease_id": lease, "op_id": "held", "force": true })
                .to_string()
                .as_bytes(),
            400,
            "malformed",
        ),
        with(
            case(
                "schema: a bad fail stage",
                "POST",
                "/v1/ext/fail",
                &etoken,
                &eorigin,
            ),
            json!({ "lease_id": lease, "op_id": "held", "stage": "during", "reason": SECRET })
                .to_string()
                .as_bytes(),
            400,
            "malformed",
        ),
        with(
            case(
                "a bad state filter",
                "GET",
                "/v1/sends?state=sent",
                &ctoken,
                &None,
            ),
            b"",
            400,
            "malformed",
        ),
        with(
            case(
                "a bad event id",
                "GET",
                "/v1/events?after=abc",
                &ctoken,
                &None,
            ),
            b"",
            400,
            "malformed",
        ),
        with(
            case(
                "remote stops without a lease",
                "GET",
                "/v1/ext/remote-stops",
                &etoken,
                &eorigin,
            ),
            b"",
            400,
            "malformed",
        ),
        // Unknown routes and methods.
        with(
            case("unknown client route", "GET", "/v1/nope", &ctoken, &None),
            b"",
            404,
            "unknown_route",
        ),
        with(
            case(
                "unknown extension route",
                "POST",
                "/v1/ext/click",
                &etoken,
                &eorigin,
            ),
            &grant_body,
            404,
            "unknown_route",
        ),
        with(
            case("wrong method", "GET", "/v1/stop", &ctoken, &None),
            b"",
            405,
            "unknown_route",
        ),
        // Refusals of the ledger itself.
        with(
            case("empty text", "POST", "/v1/sends", &ctoken, &None),
            br#"{"op_id":"e1","text":""}"#,
            400,
            "invalid",
        ),
        with(
            case(
                "same operation, other text",
                "POST",
                "/v1/sends",
                &ctoken,
                &None,
            ),
            json!({ "op_id": "waiting", "text": SECRET })
                .to_string()
                .as_bytes(),
            409,
            "payload_changed",
        ),
        with(
            case(
                "dispatch of a queued send",
                "POST",
                "/v1/ext/dispatch",
                &etoken,
                &eorigin,
            ),
            json!({ "lease_id": lease, "op_id": "waiting" })
                .to_string()
                .as_bytes(),
            409,
            "not_granted",
        ),
        with(
            case(
                "dispatch of an uncertain send",
                "POST",
                "/v1/ext/dispatch",
                &etoken,
                &eorigin,
            ),
            json!({ "lease_id": lease, "op_id": "done" })
                .to_string()
                .as_bytes(),
            409,
            "not_granted",
        ),
        with(
            case(
                "dispatch on an unknown lease",
                "POST",
                "/v1/ext/dispatch",
                &etoken,
                &eorigin,
            ),
            json!({ "lease_id": "no-such-lease", "op_id": "held" })
                .to_string()
                .as_bytes(),
            409,
            "not_granted",
        ),
        with(
            case(
                "resolve an unknown send",
                "POST",
                "/v1/sends/nope/resolve",
                &ctoken,
                &None,
            ),
            br#"{"decision":"confirmed","by":"alice","evidence":"none"}"#,
            404,
            "unknown_send",
        ),
        with(
            case(
                "resolve a claimed send",
                "POST",
                "/v1/sends/held/resolve",
                &ctoken,
                &None,
            ),
            br#"{"decision":"confirmed","by":"alice","evidence":"none"}"#,
            409,
            "wrong_state",
        ),
    ];

    let mut failures = Vec::new();
    for c in &cases {
        let before = dump(&profile);
        let (status, body, text) = send(port, c);
        let after = dump(&profile);
        let mut problems = Vec::new();
        if status != c.status || body["code"] != c.code {
            problems.push(format!(
                "expected {} {}, got {status} {text}",
                c.status, c.code
            ));
        }
        let shape_ok = body.as_object().is_some_and(|o| {
            o.len() == 2
                && o["code"].is_string()
                && o["message"].as_str().is_some_and(|m| !m.is_empty())
        });
        if !shape_ok {
            problems.push(format!("the answer is not {{code, message}}: {text:?}"));
        }
        if text.contains(SECRET) || text.contains("0000-SECRET") {
            problems.push(format!("the answer echoes the body's text: {text}"));
        }
        if before != after {
            problems.push("the ledger changed".to_string());
        }
        if !problems.is_empty() {
            failures.push(format!("{}: {}", c.name, problems.join("; ")));
        }
    }
    assert!(
        failures.is_empty(),
        "refusals that broke the contract:\n{}",
        failures.join("\n")
    );
    // The checks refused; they did not break the bridge.
    assert_eq!(client.state("held"), "claimed");
    assert_eq!(
        ext.dispatch(&lease, "held").status,
        200,
        "the real grant still works"
    );
}

#[test]
fn five_wrong_pairing_codes_lock_pairing_even_for_the_right_code() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let code = serve.client().post("/v1/pairing-code", &json!({}));
    assert_eq!(code.status, 200, "{}", code.body);
    let anonymous = Http::new(serve.port, None, Some(EXTENSION_ORIGIN.into()));
    for i in 0..5 {
        let a = anonymous.post("/v1/pair", &json!({ "code": format!("AAAA-AAA{i}") }));
        assert_eq!(
            (a.status, a.code()),
            (401, "wrong_code"),
            "attempt {i}: {}",
            a.body
        );
    }
    let a = anonymous.post("/v1/pair", &json!({ "code": code.body["code"] }));
    assert_eq!(a.status, 429, "locked after five wrong codes: {}", a.body);
    assert_eq!(a.code(), "rate_limited");
    assert!(
        a.body["message"].as_str().unwrap().contains("wait"),
        "{}",
        a.body
    );
    assert!(
        !profile.join("extension.json").exists(),
        "no extension was paired"
    );
    // A fresh code does not lift the lock either.
    let fresh = serve.client().post("/v1/pairing-code", &json!({}));
    let a = anonymous.post("/v1/pair", &json!({ "code": fresh.body["code"] }));
    assert_eq!(a.code(), "rate_limited", "{}", a.body);
}

#[test]
fn a_pairing_code_works_once_and_the_old_token_dies_with_a_new_pairing() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let code = serve.client().post("/v1/pairing-code", &json!({}));
    let anonymous = Http::new(serve.port, None, Some(EXTENSION_ORIGIN.into()));
    let first = anonymous.post("/v1/pair", &json!({ "code": code.body["code"] }));
    assert_eq!(first.status, 200, "{}", first.body);
    let again = anonymous.post("/v1/pair", &json!({ "code": code.body["code"] }));
    assert_eq!(
        again.code(),
        "wrong_code",
        "a code works once: {}",
        again.body
    );
    let old = Http::new(
        serve.port,
        first.body["token"].as_str().map(String::from),
        Some(EXTENSION_ORIGIN.into()),
    );
    assert_eq!(
        old.post("/v1/ext/lease", &json!({ "tab_id": "1" })).status,
        200
    );
    let _second = serve.pair();
    let a = old.post("/v1/ext/lease", &json!({ "tab_id": "1" }));
    assert_eq!(
        (a.status, a.code()),
        (401, "unauthorized"),
        "a new pairing replaces the old token: {}",
        a.body
    );
}

#[test]
fn each_route_takes_bodies_up_to_its_own_limit() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    // 64 KiB of text, every byte JSON-escaped to two: about 128 KiB of body.
    let text = "\n".repeat(63 * 1024) + "end";
    let a = client.post("/v1/sends", &json!({ "op_id": "long", "text": text }));
    assert_eq!(
        a.status, 201,
        "the send route takes its 160 KiB: {}",
        a.body
    );
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let a = ext.observe(&json!({
        "lease_id": lease, "kind": "listing",
        "url": "https://chatgpt.com/backend-api/conversation/c1",
        "body": "x".repeat(900 * 1024),
    }));
    assert_ne!(a.status, 413, "observations take up to 1 MiB: {}", a.body);
    let a = ext.http.post(
        "/v1/ext/lease",
        &json!({ "tab_id": "t", "conversation_id": "c".repeat(15 * 1024) }),
    );
    assert_ne!(a.status, 413, "other routes take up to 16 KiB: {}", a.body);
}

#[test]
fn the_extension_token_without_an_origin_is_accepted_as_a_service_worker_get_sends_none() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let no_origin = Http::new(serve.port, ext.http_token(), None);
    let a = no_origin.get(&format!("/v1/ext/remote-stops?lease_id={lease}"));
    assert_eq!(
        a.status, 200,
        "Chromium's service worker sends no Origin on a GET: {}",
        a.body
    );
    let a =
        Http::new(serve.port, None, None).get(&format!("/v1/ext/remote-stops?lease_id={lease}"));
    assert_eq!(
        a.code(),
        "unauthorized",
        "but never without the token: {}",
        a.body
    );
}
