//! Every refusal class of the bridge (issue 5, docs/bridge-api.md "Checks on every
//! request"): each answers JSON `{code, message}` and leaves the ledger byte-identical —
//! a dump of every table is compared before and after each request. Pairing is
//! rate-limited; a malformed body's text is never echoed.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::{json, Value};

/// Words that must never come back in an error message.
const SECRET: &str = "the launch code is 0000-SECRET";

/// A request a well-behaved client never sends, and the refusal it must get:
/// (name, request line, header lines, body, status, code). Header lines are joined with
/// CRLF after `{…}` is filled in: `{host}` the bridge's `127.0.0.1:PORT`, `{port}`, `{client}`
/// / `{ext}` the client / extension token, `{origin}` the paired extension's origin.
/// Bodies: a JSON template (`{lease}`, `{secret}` filled in) or a named large body.
type Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    u16,
    &'static str,
);

const QUEUE: &str = r#"{"op_id":"new","text":"{secret}"}"#;
const GRANT: &str = r#"{"lease_id":"{lease}","op_id":"held"}"#;
const STOP: &str = r#"{"by":"mallory"}"#;
const RESOLVE: &str = r#"{"decision":"confirmed","by":"alice","evidence":"none"}"#;
const EXT: &str = "Host: {host}\nAuthorization: Bearer {ext}\nOrigin: {origin}";
const CLIENT: &str = "Host: {host}\nAuthorization: Bearer {client}";

#[rustfmt::skip]
const ROWS: &[Row] = &[
    // No token / a wrong token.
    ("no token: queue", "POST /v1/sends", "Host: {host}", QUEUE, 401, "unauthorized"),
    ("no token: stop", "POST /v1/stop", "Host: {host}", STOP, 401, "unauthorized"),
    ("no token: dispatch", "POST /v1/ext/dispatch", "Host: {host}\nOrigin: {origin}", GRANT, 401, "unauthorized"),
    ("wrong token: queue", "POST /v1/sends", "Host: {host}\nAuthorization: Bearer {zeros}", QUEUE, 401, "unauthorized"),
    ("wrong token: dispatch", "POST /v1/ext/dispatch", "Host: {host}\nAuthorization: Bearer {zeros}\nOrigin: {origin}", GRANT, 401, "unauthorized"),
    // Wrong scope.
    ("extension token on a client route", "POST /v1/sends", "Host: {host}\nAuthorization: Bearer {ext}", QUEUE, 403, "wrong_scope"),
    ("extension token on stop", "POST /v1/stop", "Host: {host}\nAuthorization: Bearer {ext}", STOP, 403, "wrong_scope"),
    ("client token on dispatch", "POST /v1/ext/dispatch", "Host: {host}\nAuthorization: Bearer {client}\nOrigin: {origin}", GRANT, 403, "wrong_scope"),
    ("client token on lease", "POST /v1/ext/lease", "Host: {host}\nAuthorization: Bearer {client}\nOrigin: {origin}", r#"{"tab_id":"9"}"#, 403, "wrong_scope"),
    // Bad Host (DNS rebinding), none, twice, unreadable; a request target naming another host.
    ("bad host: a rebinding name", "POST /v1/sends", "Host: evil.example:{port}\nAuthorization: Bearer {client}", QUEUE, 421, "bad_host"),
    ("bad host: a loopback address inside another name", "POST /v1/stop", "Host: 127.0.0.1.evil.example:{port}\nAuthorization: Bearer {client}", STOP, 421, "bad_host"),
    ("bad host: dispatch", "POST /v1/ext/dispatch", "Host: evil.example:{port}\nAuthorization: Bearer {ext}\nOrigin: {origin}", GRANT, 421, "bad_host"),
    ("no host at all", "POST /v1/stop HTTP/1.0", "Authorization: Bearer {client}", STOP, 421, "bad_host"),
    ("two hosts: the right one first", "POST /v1/stop", "Host: {host}\nHost: evil.example:{port}\nAuthorization: Bearer {client}", STOP, 421, "bad_host"),
    ("two hosts: the same one twice", "POST /v1/sends", "Host: {host}\nHost: {host}\nAuthorization: Bearer {client}", QUEUE, 421, "bad_host"),
    ("a host that is not ASCII", "POST /v1/stop", "Host: 127.0.0.1:{port}\u{e9}\nAuthorization: Bearer {client}", STOP, 421, "bad_host"),
    ("absolute target naming another host", "POST http://evil.example/v1/stop", CLIENT, STOP, 421, "bad_host"),
    ("absolute target naming a loopback look-alike", "POST http://localhost.evil.example:{port}/v1/ext/dispatch", EXT, GRANT, 421, "bad_host"),
    // Foreign, repeated or unreadable Origin.
    ("web page on a client route", "POST /v1/sends", "Host: {host}\nAuthorization: Bearer {client}\nOrigin: https://evil.example", QUEUE, 403, "bad_origin"),
    ("web page on stop", "POST /v1/stop", "Host: {host}\nAuthorization: Bearer {client}\nOrigin: https://evil.example", STOP, 403, "bad_origin"),
    ("web page on dispatch", "POST /v1/ext/dispatch", "Host: {host}\nAuthorization: Bearer {ext}\nOrigin: https://evil.example", GRANT, 403, "bad_origin"),
    ("another extension on dispatch", "POST /v1/ext/dispatch", "Host: {host}\nAuthorization: Bearer {ext}\nOrigin: chrome-extension://zyxwvutsrqponmlkzyxwvutsrqponmlk", GRANT, 403, "bad_origin"),
    ("web page pairing", "POST /v1/pair", "Host: {host}\nOrigin: https://evil.example", r#"{"code":"AAAA-AAAA"}"#, 403, "bad_origin"),
    ("a non-ASCII origin on a client route", "POST /v1/stop", "Host: {host}\nAuthorization: Bearer {client}\nOrigin: https://\u{e9}vil.example", STOP, 403, "bad_origin"),
    ("a non-ASCII origin on dispatch", "POST /v1/ext/dispatch", "Host: {host}\nAuthorization: Bearer {ext}\nOrigin: {origin}\u{e9}", GRANT, 403, "bad_origin"),
    ("two origins: the paired one first", "POST /v1/ext/dispatch", "Host: {host}\nAuthorization: Bearer {ext}\nOrigin: {origin}\nOrigin: https://evil.example", GRANT, 403, "bad_origin"),
    ("two origins: the paired one twice", "POST /v1/ext/dispatch", "Host: {host}\nAuthorization: Bearer {ext}\nOrigin: {origin}\nOrigin: {origin}", GRANT, 403, "bad_origin"),
    // Repeated or unreadable Authorization.
    ("two tokens: the right one first", "POST /v1/stop", "Host: {host}\nAuthorization: Bearer {client}\nAuthorization: Bearer {zeros}", STOP, 401, "unauthorized"),
    ("two tokens: the right one twice", "POST /v1/ext/dispatch", "Host: {host}\nAuthorization: Bearer {ext}\nAuthorization: Bearer {ext}\nOrigin: {origin}", GRANT, 401, "unauthorized"),
    ("a token that is not ASCII", "POST /v1/stop", "Host: {host}\nAuthorization: Bearer {client}\u{e9}", STOP, 401, "unauthorized"),
    // Oversized bodies; a text over its own limit (whatever the body's size).
    ("oversized queue body", "POST /v1/sends", CLIENT, "{big_send}", 413, "too_large"),
    ("oversized stop", "POST /v1/stop", CLIENT, "{big_stop}", 413, "too_large"),
    ("oversized lease", "POST /v1/ext/lease", EXT, "{big_lease}", 413, "too_large"),
    ("oversized observation", "POST /v1/ext/observations", EXT, "{big_observation}", 413, "too_large"),
    ("a text one byte over 64 KiB", "POST /v1/sends", CLIENT, "{long_text}", 400, "invalid"),
    // Malformed JSON, too deep, wrong schemas (the message must not echo the body).
    ("malformed queue", "POST /v1/sends", CLIENT, r#"{"op_id":"m1","text":"{secret}"#, 400, "malformed"),
    ("malformed dispatch", "POST /v1/ext/dispatch", EXT, r#"{"lease_id":"{secret}"#, 400, "malformed"),
    ("empty body on stop", "POST /v1/stop", CLIENT, "", 400, "malformed"),
    ("a body nesting 65 levels", "POST /v1/stop", CLIENT, "{deep_stop}", 400, "malformed"),
    ("schema: a misspelt field", "POST /v1/sends", CLIENT, r#"{"op_id":"m2","txt":"{secret}"}"#, 400, "malformed"),
    ("schema: a wrong type", "POST /v1/sends", CLIENT, r#"{"op_id":"m3","text":5}"#, 400, "malformed"),
    ("schema: an unknown decision", "POST /v1/sends/done/resolve", CLIENT, r#"{"decision":"{secret}","by":"alice","evidence":"none"}"#, 400, "malformed"),
    ("schema: an extra field on dispatch", "POST /v1/ext/dispatch", EXT, r#"{"lease_id":"{lease}","op_id":"held","force":true}"#, 400, "malformed"),
    ("schema: a bad fail stage", "POST /v1/ext/fail", EXT, r#"{"lease_id":"{lease}","op_id":"held","stage":"during","reason":"{secret}"}"#, 400, "malformed"),
    ("a page fact of no contract shape", "POST /v1/ext/fail", EXT, r#"{"lease_id":"{lease}","op_id":"held","stage":"before_dispatch","reason":"r","page_fact":{"id":"Composer Present","needs":"every"}}"#, 400, "invalid"),
    ("a page fact needed by no known sends", "POST /v1/ext/fail", EXT, r#"{"lease_id":"{lease}","op_id":"held","stage":"before_dispatch","reason":"r","page_fact":{"id":"composer.present","needs":"some"}}"#, 400, "malformed"),
    ("a bad state filter", "GET /v1/sends?state=sent", CLIENT, "", 400, "malformed"),
    ("a bad event id", "GET /v1/events?after=abc", CLIENT, "", 400, "malformed"),
    ("remote stops without a lease", "GET /v1/ext/remote-stops", EXT, "", 400, "malformed"),
    // Unknown routes and methods.
    ("unknown client route", "GET /v1/nope", CLIENT, "", 404, "unknown_route"),
    ("unknown extension route", "POST /v1/ext/click", EXT, GRANT, 404, "unknown_route"),
    ("wrong method", "GET /v1/stop", CLIENT, "", 405, "unknown_route"),
    // Refusals of the ledger itself.
    ("empty text", "POST /v1/sends", CLIENT, r#"{"op_id":"e1","text":""}"#, 400, "invalid"),
    ("same operation, other text", "POST /v1/sends", CLIENT, r#"{"op_id":"waiting","text":"{secret}"}"#, 409, "payload_changed"),
    ("dispatch of a queued send", "POST /v1/ext/dispatch", EXT, r#"{"lease_id":"{lease}","op_id":"waiting"}"#, 409, "not_granted"),
    ("dispatch of an uncertain send", "POST /v1/ext/dispatch", EXT, r#"{"lease_id":"{lease}","op_id":"done"}"#, 409, "not_granted"),
    ("dispatch on an unknown lease", "POST /v1/ext/dispatch", EXT, r#"{"lease_id":"no-such-lease","op_id":"held"}"#, 409, "not_granted"),
    ("an observation on an unknown lease", "POST /v1/ext/observations", EXT, r#"{"lease_id":"no-such-lease","kind":"stream_end","stream_id":"s1"}"#, 410, "unknown_lease"),
    ("resolve an unknown send", "POST /v1/sends/nope/resolve", CLIENT, RESOLVE, 404, "unknown_send"),
    ("resolve a claimed send", "POST /v1/sends/held/resolve", CLIENT, RESOLVE, 409, "wrong_state"),
];

/// What the placeholders of a row stand for.
struct Fill {
    port: u16,
    client: String,
    ext: String,
    lease: String,
}

impl Fill {
    fn text(&self, template: &str) -> String {
        template
            .replace("{host}", &format!("127.0.0.1:{}", self.port))
            .replace("{port}", &self.port.to_string())
            .replace("{client}", &self.client)
            .replace("{ext}", &self.ext)
            .replace("{zeros}", &"0".repeat(64))
            .replace("{origin}", EXTENSION_ORIGIN)
            .replace("{lease}", &self.lease)
            .replace("{secret}", SECRET)
    }

    fn body(&self, template: &str) -> Vec<u8> {
        let json = match template {
            "{big_send}" => json!({ "text": "x".repeat(410 * 1024) }),
            "{big_stop}" => json!({ "by": "x".repeat(17 * 1024) }),
            "{big_lease}" => json!({ "tab_id": "x".repeat(17 * 1024) }),
            "{big_observation}" => {
                json!({ "lease_id": self.lease, "kind": "listing", "body": "x".repeat(8 * 1024 * 1024 + 1024) })
            }
            "{long_text}" => json!({ "op_id": "long", "text": "y".repeat(64 * 1024 + 1) }),
            "{deep_stop}" => {
                let deep = "[".repeat(65) + &"]".repeat(65);
                return format!(r#"{{"by":{deep}}}"#).into_bytes();
            }
            _ => return self.text(template).into_bytes(),
        };
        json.to_string().into_bytes()
    }

    /// The raw request of `row`: (head without its final blank line, body).
    fn request(&self, (_, line, headers, body, _, _): &Row) -> (String, Vec<u8>) {
        let line = if line.ends_with("HTTP/1.0") {
            line.to_string()
        } else {
            format!("{line} HTTP/1.1")
        };
        let mut head = vec![
            self.text(&line),
            "Content-Type: application/json".to_string(),
        ];
        head.extend(headers.split('\n').map(|h| self.text(h)));
        (head.join("\r\n"), self.body(body))
    }
}

/// What is wrong with the answer to `row` (empty when it kept the contract).
fn problems(row: &Row, status: u16, body: &Value, text: &str, changed: bool) -> Vec<String> {
    let (_, _, _, _, want_status, want_code) = row;
    let mut problems = Vec::new();
    if status != *want_status || body["code"] != *want_code {
        problems.push(format!(
            "expected {want_status} {want_code}, got {status} {text}"
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
    if changed {
        problems.push("the ledger changed".to_string());
    }
    problems
}

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
    let fill = Fill {
        port: serve.port,
        client: serve.client_token(),
        ext: ext.http_token().expect("the extension's token"),
        lease: lease.clone(),
    };

    let mut failures = Vec::new();
    for row in ROWS {
        let (head, body) = fill.request(row);
        let before = dump(&profile);
        let (status, answer, text) = raw(serve.port, &head, &body);
        let changed = dump(&profile) != before;
        let found = problems(row, status, &answer, &text, changed);
        if !found.is_empty() {
            failures.push(format!("{}: {}", row.0, found.join("; ")));
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
fn the_table_rows_are_well_formed_requests_when_their_fault_is_removed() {
    // Guard against a row refused for a typo rather than its fault: the same request
    // lines and templates, with the bridge's host and right tokens, are answered.
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let fill = Fill {
        port: serve.port,
        client: serve.client_token(),
        ext: ext.http_token().expect("the extension's token"),
        lease,
    };
    let ok: Row = ("status", "GET /v1/status", CLIENT, "", 200, "");
    let (head, body) = fill.request(&ok);
    let (status, answer, _) = raw(serve.port, &head, &body);
    assert_eq!(status, 200, "{answer}");
    let absolute: Row = (
        "absolute",
        "GET http://127.0.0.1:{port}/v1/status",
        CLIENT,
        "",
        200,
        "",
    );
    let (head, body) = fill.request(&absolute);
    let (status, answer, _) = raw(serve.port, &head, &body);
    assert_eq!(
        status, 200,
        "an absolute target naming the bridge is fine: {answer}"
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
        "the send route takes 64 KiB of text escaped to 128 KiB: {}",
        a.body
    );
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let a = ext.observe(&json!({
        "lease_id": lease, "kind": "listing",
        "url": "https://chatgpt.com/backend-api/conversation/c1",
        "body": "x".repeat(7 * 1024 * 1024),
    }));
    assert_ne!(
        a.status, 413,
        "observations take up to 8 MiB (a long conversation's read): {}",
        a.body
    );
    let a = ext.http.post(
        "/v1/ext/lease",
        &json!({ "tab_id": "t", "conversation_id": "c".repeat(15 * 1024) }),
    );
    assert_ne!(a.status, 413, "other routes take up to 16 KiB: {}", a.body);
}

/// A `POST /v1/sends` body whose text is `emoji` grinning faces plus `tail`, every
/// emoji written as two `\u` escapes (Python's default `json.dumps`): 12 bytes of body
/// for 4 bytes of text.
fn escaped_emoji_body(op: &str, emoji: usize, tail: &str) -> Vec<u8> {
    let text = "\\ud83d\\ude00".repeat(emoji) + tail;
    format!(r#"{{"op_id":"{op}","text":"{text}"}}"#).into_bytes()
}

#[test]
fn the_text_limit_is_on_the_decoded_text_whatever_its_json_escaping() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let head = format!(
        "POST /v1/sends HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}",
        serve.port,
        serve.client_token()
    );
    // 16,384 emoji: exactly 64 KiB of text in a 192 KiB body.
    let body = escaped_emoji_body("emoji", 16 * 1024, "");
    assert!(body.len() > 192 * 1024, "{} bytes", body.len());
    let (status, answer, _) = raw(serve.port, &head, &body);
    assert_eq!(
        status, 201,
        "64 KiB of text, escaped, is accepted: {answer}"
    );
    let stored = serve.client().show("emoji")["send"]["text"].clone();
    assert_eq!(stored, Value::String("\u{1F600}".repeat(16 * 1024)));
    // One byte more of text: refused, with a sentence naming the limit.
    let (status, answer, _) = raw(
        serve.port,
        &head,
        &escaped_emoji_body("over", 16 * 1024, "x"),
    );
    assert_eq!(
        (status, answer["code"].as_str()),
        (400, Some("invalid")),
        "{answer}"
    );
    let message = answer["message"].as_str().unwrap_or("");
    assert!(
        message.contains("65536 bytes"),
        "names the limit: {message}"
    );
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

/// An unknown id is named in its refusal, but never echoed whole when it is longer than
/// any id can be: it comes back as its first characters and its length.
#[test]
fn a_refusal_names_an_overlong_id_by_its_start_and_length_not_whole() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let long = "x".repeat(60_000);
    let long_lease = "y".repeat(10_000);
    for (what, a, n) in [
        ("a send", client.get(&format!("/v1/sends/{long}")), 60_000),
        (
            "a remote stop",
            ext.http.post(
                &format!("/v1/ext/remote-stops/{long}"),
                &json!({ "lease_id": lease, "phase": "dispatched" }),
            ),
            60_000,
        ),
        (
            "a lease",
            ext.http
                .get(&format!("/v1/ext/remote-stops?lease_id={long_lease}")),
            10_000,
        ),
        (
            "a new send's operation id",
            client.post(
                "/v1/sends",
                &json!({ "op_id": "!".repeat(300_000), "text": "hi" }),
            ),
            300_000,
        ),
        (
            "a key's name",
            client.post(
                &format!("/v1/keys/{long}/revoke"),
                &json!({ "by": "alice" }),
            ),
            60_000,
        ),
    ] {
        let message = a.body["message"].as_str().unwrap_or_default();
        assert!(
            (400..500).contains(&a.status) && message.contains(&format!("{n} characters long")),
            "{what}: {} {message:.200}",
            a.status
        );
        assert!(message.len() < 400, "{what}: {} bytes", message.len());
    }
}

/// A body is a JSON object, and its refusal says which way it is wrong: an array of the
/// fields in order is refused (serde would take it), valid JSON of the wrong shape names the
/// field and what it takes, broken JSON "is not valid JSON". The ledger does not move.
#[test]
fn a_body_is_an_object_and_its_refusal_says_how_it_is_wrong() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let head = |route: &str| {
        format!(
            "POST {route} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}",
            serve.port,
            serve.client_token()
        )
    };
    let before = dump(&profile);
    for (route, body, says) in [
        ("/v1/stop", r#"["alice"]"#, "must be a JSON object"),
        ("/v1/stop", " \n[]", "must be a JSON object"),
        ("/v1/stop", r#""alice""#, "must be a JSON object"),
        (
            "/v1/stop",
            "\u{feff}{\"by\": \"alice\"}",
            "starts with a byte-order mark",
        ),
        (
            "/v1/stop",
            r#"{"by": null}"#,
            "field `by`: expected a string, got null",
        ),
        ("/v1/stop", r#"{"by": "#, "is not valid JSON"),
        (
            "/v1/sends/op-1/resolve",
            r#"{"decision": null, "by": "alice", "evidence": "seen"}"#,
            "field `decision`: not a value it takes",
        ),
    ] {
        let (status, answer, _) = raw(serve.port, &head(route), body.as_bytes());
        let message = answer["message"].as_str().unwrap_or_default();
        assert_eq!(
            (status, answer["code"].as_str()),
            (400, Some("malformed")),
            "{body}: {answer}"
        );
        assert!(message.contains(says), "{body}: {message}");
    }
    assert_eq!(before, dump(&profile), "nothing was stopped");
}

/// A query string that does not parse is refused with its reason when the reason is short
/// (the field it lacks, the number it could not read), and never with a long echo.
#[test]
fn a_query_refusal_names_what_is_wrong_with_it() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let long = format!("{}-is-not-a-number", "9".repeat(5_000));
    for (query, says) in [
        (String::new(), "missing field `lease_id`"),
        (format!("lease_id={lease}&wait_ms=-1"), "invalid digit"),
        (
            format!("lease_id={lease}&wait_ms={long}"),
            "could not be read",
        ),
    ] {
        let a = ext.http.get(&format!("/v1/ext/remote-stops?{query}"));
        let message = a.body["message"].as_str().unwrap_or_default();
        assert_eq!(
            (a.status, a.code()),
            (400, "malformed"),
            "{query:.80}: {}",
            a.body
        );
        assert!(message.contains(says), "{query:.80}: {message}");
        assert!(message.len() < 300, "{query:.80}: {} bytes", message.len());
    }
}
