//! Named keys with scopes (issue 38): a `send` key queues sends and reads them through the
//! native API (and so MCP) but is refused Stop, Resume, decisions, withdrawals, keys and
//! pairing with a sentence naming its scope, writing nothing; an `all` key opens every
//! client route; a key made before scopes keeps opening only the OpenAI doors; a key
//! revoked while one of its calls is open (a wait, an event stream, a streamed door answer)
//! ends that call at once with a refusal, and what it queued stays queued. Against a real
//! `sendledger serve` child over loopback HTTP.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::path::Path;

/// Makes key `name` of `scope` with the CLI (through the running owner); its secret.
fn make_key(profile: &Path, name: &str, scope: &str) -> String {
    let (code, v) = cli_json(
        profile,
        &["keys", "create", name, "--scope", scope, "--by", "tester"],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["key"]["scope"], scope, "{v}");
    v["secret"]
        .as_str()
        .expect("the key, shown once")
        .to_string()
}

fn revoke(profile: &Path, name: &str) {
    let (code, v) = cli_json(profile, &["keys", "revoke", name, "--by", "tester"]);
    assert_eq!(code, 0, "{v}");
}

#[test]
fn a_send_scoped_key_queues_and_reads_sends_and_is_refused_stop_resume_decisions_and_keys_with_a_sentence(
) {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let key = Http::new(
        serve.port,
        Some(make_key(&profile, "build-server", "send")),
        None,
    );
    key.queue("op-k", "from the build server");
    assert_eq!(key.state("op-k"), "queued", "it reads what it queued");
    let shown = key.get("/v1/sends/op-k");
    assert_eq!(
        shown.body["timeline"][0]["actor"], "key:build-server",
        "a send is recorded as the key's that queued it: {}",
        shown.body
    );
    serve.client().queue("op-own", "from this machine");
    let own = serve.client().get("/v1/sends/op-own");
    assert_eq!(own.body["timeline"][0]["actor"], "client", "{}", own.body);
    assert_eq!(key.get("/v1/status").status, 200);
    let by = json!({ "by": "build-server" });
    let refused: [(&str, Value); 7] = [
        ("/v1/stop", by.clone()),
        ("/v1/resume", by.clone()),
        ("/v1/sends/op-k/withdraw", by.clone()),
        (
            "/v1/sends/op-k/resolve",
            json!({"decision": "abandoned", "by": "x", "evidence": "y"}),
        ),
        ("/v1/sends/op-k/requeue", by.clone()),
        (
            "/v1/keys",
            json!({"name": "more", "scope": "all", "by": "x"}),
        ),
        ("/v1/pairing-code", json!({})),
    ];
    let before = dump(&profile);
    for (path, body) in refused {
        let a = key.fresh().post(path, &body);
        a.assert_refused(403, "wrong_scope");
        let words = a.body["message"].as_str().unwrap_or("");
        assert!(
            words.contains("build-server")
                && words.contains("scope send")
                && words.contains("--scope all"),
            "{path}: the sentence names the key, its scope and what to do: {words}"
        );
    }
    assert_eq!(
        key.fresh().get("/v1/keys").status,
        403,
        "nor may it list keys"
    );
    assert_eq!(dump(&profile), before, "no refusal wrote anything");
    assert_eq!(key.fresh().state("op-k"), "queued", "not withdrawn");
    serve.client().queue("op-after", "the gate is still open");
}

#[test]
fn a_key_with_scope_all_opens_every_client_route() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let key = Http::new(serve.port, Some(make_key(&profile, "laptop", "all")), None);
    assert_eq!(key.post("/v1/stop", &json!({"by": "laptop"})).status, 200);
    let a = key.post("/v1/sends", &json!({"op_id": "op-s", "text": "after stop"}));
    a.assert_refused(409, "epoch_stopped");
    assert_eq!(key.post("/v1/resume", &json!({"by": "laptop"})).status, 200);
    key.queue("op-r", "after resume");
    assert_eq!(key.get("/v1/keys").status, 200);
}

#[test]
fn a_key_made_before_scopes_keeps_opening_only_the_openai_doors() {
    use sendledger::ledger::migrations;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite");
    let mut conn = rusqlite::Connection::open(&path).unwrap();
    migrations::migrate(&mut conn, &path, 17).unwrap();
    conn.execute(
        "INSERT INTO api_keys(name, key_sha256, created_at, created_by) VALUES ('old', ?1, 1, 'ann')",
        [sendledger::ledger::key_sha256("sk-sl-old")],
    )
    .unwrap();
    migrations::migrate(&mut conn, &path, migrations::CURRENT_VERSION).unwrap();
    let scope: String = conn
        .query_row("SELECT scope FROM api_keys WHERE name = 'old'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(
        scope, "openai",
        "an existing key keeps the meaning it was made with"
    );
    let changed = conn.execute("UPDATE api_keys SET scope = 'all' WHERE name = 'old'", []);
    assert!(changed.is_err(), "a key's scope never changes");
}

#[test]
fn a_revoked_keys_open_wait_ends_at_once_with_a_refusal_and_its_send_stays_queued() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let key = Http::new(serve.port, Some(make_key(&profile, "agent", "send")), None);
    key.queue("op-w", "waited on");
    let waiting = key.clone();
    let wait =
        std::thread::spawn(move || waiting.get("/v1/sends/op-w/wait?from=queued&timeout_ms=60000"));
    // The wait is open once the owner has taken it; a revocation before that is refused
    // the same way (401), so the assertion holds either way.
    revoke(&profile, "agent");
    let a = wait.join().unwrap();
    a.assert_refused(401, "unauthorized");
    assert!(
        a.body["message"].as_str().unwrap_or("").contains("revoked"),
        "{}",
        a.body
    );
    assert_eq!(
        serve.client().state("op-w"),
        "queued",
        "nothing it queued is lost"
    );
    key.post("/v1/sends", &json!({"op_id": "op-w2", "text": "again"}))
        .assert_refused(401, "unauthorized");
}

#[test]
fn a_revoked_keys_event_stream_ends_with_an_error_event() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let key = Http::new(
        serve.port,
        Some(make_key(&profile, "watcher", "send")),
        None,
    );
    let mut events = key.events(None);
    revoke(&profile, "watcher");
    let mut last = events.next_event();
    while last.event != "error" {
        last = events.next_event();
    }
    assert_eq!(last.data["code"], "unauthorized", "{:?}", last.data);
    assert!(last.data["message"]
        .as_str()
        .unwrap_or("")
        .contains("revoked"));
    assert!(events.ended_cleanly(), "and the stream ends");
}

#[test]
fn a_revoked_keys_streamed_door_answer_ends_with_an_error_event_and_its_send_is_not_lost() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let secret = make_key(&profile, "sdk", "send");
    let body = serde_json::to_vec(&json!({"model": "chatgpt-tab", "stream": true,
        "messages": [{"role": "user", "content": "streamed"}]}))
    .unwrap();
    let mut s = std::net::TcpStream::connect(("127.0.0.1", serve.port)).unwrap();
    s.set_read_timeout(Some(BOUND)).unwrap();
    let head = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\nAuthorization: Bearer {secret}\r\n\r\n",
        serve.port,
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(&body).unwrap();
    // The head and the first chunk come at once (the send is queued by then).
    let mut first = [0u8; 256];
    let n = s.read(&mut first).unwrap();
    assert!(String::from_utf8_lossy(&first[..n]).starts_with("HTTP/1.1 200"));
    revoke(&profile, "sdk");
    // Read until the stream ends or the bound passes (keep-alive comments every 15 s
    // would keep a stream the revocation did not end open forever).
    let deadline = std::time::Instant::now() + BOUND;
    let mut rest = Vec::new();
    let mut buf = [0u8; 4096];
    while std::time::Instant::now() < deadline {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => rest.extend_from_slice(&buf[..n]),
        }
    }
    let rest = String::from_utf8_lossy(&rest);
    assert!(
        rest.contains("event: error") && rest.contains("revoked"),
        "{rest}"
    );
    assert!(!rest.contains("[DONE]"), "{rest}");
    let sends = serve.client().get("/v1/sends");
    let states: Vec<&str> = sends.body["sends"]
        .as_array()
        .map(|a| a.iter().filter_map(|s| s["state"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(states, ["queued"], "one send, still queued: {}", sends.body);
}
