//! Refusals that name the field (issue 40), against a real owner: a field a route does not
//! know is refused with 400 naming it and the nearest known field — `conversationId` must
//! never queue a send to the default destination — and a body that does not fit is refused
//! naming the field, the shape it takes and its bound, never echoing a value. Nothing is
//! written: the ledger is byte-identical afterwards (docs/bridge-api.md "Refusals").

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::{json, Map, Value};

/// Words that must never come back in a refusal.
const SECRET: &str = "the launch code is 0000-SECRET";

/// `snake_case` as JavaScript spells it (`conversationId`); a one-word name capitalised.
fn camel(field: &str) -> String {
    let mut out = String::new();
    for (i, part) in field.split('_').enumerate() {
        let mut cs = part.chars();
        if i == 0 && field.contains('_') {
            out.push_str(part);
        } else if let Some(c) = cs.next() {
            out.extend(c.to_uppercase());
            out.push_str(cs.as_str());
        }
    }
    out
}

/// A typo: the second-to-last letter left out (`conversation_d`, `txt`).
fn typo(field: &str) -> String {
    let mut cs: Vec<char> = field.chars().collect();
    let at = cs.len().saturating_sub(2);
    cs.remove(at);
    cs.into_iter().collect()
}

/// An extra letter: the last one doubled (`textt`).
fn extra(field: &str) -> String {
    format!("{field}{}", field.chars().last().unwrap())
}

/// The three misspellings of `field` the table tries, each unlike the field itself.
fn misspellings(field: &str) -> Vec<(&'static str, String)> {
    let mut out = vec![("typo", typo(field)), ("extra letter", extra(field))];
    if camel(field) != field {
        out.insert(0, ("camelCase", camel(field)));
    }
    out
}

/// (route, a body the route takes, the fields it knows, a value for each).
type Route = (&'static str, Value, Vec<(&'static str, Value)>);

fn native_routes() -> Vec<Route> {
    let send = json!({ "op_id": "typo", "text": SECRET });
    let send_fields = vec![
        ("op_id", json!("typo-2")),
        ("text", json!(SECRET)),
        (
            "conversation_id",
            json!("6b15e2c4-0000-4000-8000-000000000001"),
        ),
        ("project_id", json!("g-p-0123456789abcdef0123456789abcdef")),
        ("new_chat", json!(true)),
        ("model", json!("gpt-5-2-thinking")),
        ("effort", json!("extended")),
        ("attachments", json!([])),
    ];
    vec![
        ("/v1/sends", send, send_fields),
        (
            "/v1/sends/waiting/resolve",
            json!({ "decision": "confirmed", "by": "alice", "evidence": "seen" }),
            vec![
                ("decision", json!("confirmed")),
                ("by", json!("alice")),
                ("evidence", json!("seen")),
            ],
        ),
        (
            "/v1/stop",
            json!({ "by": "alice" }),
            vec![("by", json!("alice"))],
        ),
        (
            "/v1/keys",
            json!({ "name": "companion", "by": "alice" }),
            vec![("name", json!("companion")), ("by", json!("alice"))],
        ),
    ]
}

/// `body` with `field` spelt `as_written` instead.
fn respelt(body: &Value, field: &str, as_written: &str, value: &Value) -> Value {
    let mut o: Map<String, Value> = body.as_object().unwrap().clone();
    o.remove(field);
    o.insert(as_written.to_string(), value.clone());
    Value::Object(o)
}

fn native_problems(client: &Http) -> Vec<String> {
    let mut problems = Vec::new();
    for (route, body, fields) in native_routes() {
        for (field, value) in &fields {
            for (how, wrong) in misspellings(field) {
                let a = client.post(route, &respelt(&body, field, &wrong, value));
                let m = a.body["message"].as_str().unwrap_or("");
                let named = m.contains(&format!("unknown field `{wrong}`"))
                    && m.contains(&format!("did you mean `{field}`?"));
                if a.status != 400 || a.code() != "malformed" || !named || m.contains(SECRET) {
                    problems.push(format!(
                        "{route} {field} ({how}: {wrong}): {} {}",
                        a.status, a.body
                    ));
                }
            }
        }
    }
    problems
}

/// The OpenAI doors: a `metadata` key they do not read, misspelt from one they do.
fn door_problems(client: &Http) -> Vec<String> {
    let chat =
        json!({ "model": "chatgpt-tab", "messages": [{ "role": "user", "content": SECRET }] });
    let responses = json!({ "model": "chatgpt-tab", "input": SECRET });
    let mut problems = Vec::new();
    for (route, body) in [("/v1/chat/completions", chat), ("/v1/responses", responses)] {
        for field in ["conversation_id", "project_id", "new_chat", "effort"] {
            for (how, wrong) in misspellings(field) {
                let mut b = body.clone();
                b["metadata"] = json!({ wrong.clone(): "true" });
                let a = client.post(route, &b);
                let e = &a.body["error"];
                let m = e["message"].as_str().unwrap_or("");
                let named = m.contains(&format!("`metadata.{wrong}`"))
                    && m.contains(&format!("did you mean `metadata.{field}`?"));
                if a.status != 400 || e["code"] != "unknown_parameter" || !named {
                    problems.push(format!(
                        "{route} metadata.{field} ({how}: {wrong}): {} {}",
                        a.status, a.body
                    ));
                }
            }
        }
    }
    problems
}

#[test]
fn a_misspelt_field_never_sends_elsewhere_every_route_and_door_refuses_it_naming_the_nearest() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    client.queue("waiting", "a queued send");
    let before = dump(&profile);
    let problems = native_problems(&client);
    assert!(
        problems.is_empty(),
        "{} refusals broke the rule:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // Without the rule a door admits the send and waits for a tab: the client times out.
    let problems = door_problems(&client);
    assert!(
        problems.is_empty(),
        "{} door refusals broke the rule:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // The CLI takes flags, not JSON: a misspelt flag is refused naming the one it meant.
    for wrong in [
        "--conversation-id",
        "--conversationId",
        "--projct",
        "--new-chatt",
    ] {
        let out = cli(&profile, &["send", wrong, "x", "hi"]);
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{wrong}: {said}");
        assert!(
            said.contains(wrong) && said.contains("similar argument exists"),
            "{wrong}: {said}"
        );
    }
    assert_eq!(
        dump(&profile),
        before,
        "nothing was queued, nothing written"
    );
    let sends = client.get("/v1/sends").body;
    assert_eq!(sends["sends"].as_array().map(Vec::len), Some(1), "{sends}");
}

/// (route, body, what the refusal must say). Values that are a secret must not come back.
#[rustfmt::skip]
const MALFORMED: &[(&str, &str, &[&str])] = &[
    ("/v1/sends", r#"{"text":"hi","model":5}"#, &["field `model`: expected a string, got a number", "1 to 64"]),
    ("/v1/sends", r#"{"text":5}"#, &["field `text`: expected a string, got a number", "64 KiB"]),
    ("/v1/sends", r#"{"text":"hi","new_chat":"{secret}"}"#, &["field `new_chat`: expected a boolean, got a string", "true or false"]),
    ("/v1/sends", r#"{"text":"hi","op_id":["{secret}"]}"#, &["field `op_id`: expected a string, got an array", "1 to 128"]),
    ("/v1/sends", r#"{"text":"hi","attachments":"{secret}"}"#, &["field `attachments`: expected an array, got a string", "at most 10"]),
    ("/v1/sends", r#"{"text":"hi","attachments":[5]}"#, &["field `attachments[0]`: expected a string, got a number"]),
    ("/v1/sends", r#"{"op_id":"m"}"#, &["field `text` is missing"]),
    ("/v1/sends", r#"{"text":"hi","text":"{secret}"}"#, &["field `text` is given twice"]),
    ("/v1/sends", r#"{"text":"{secret}"} {}"#, &["not valid JSON", "something follows the object"]),
    ("/v1/sends/waiting/resolve", r#"{"decision":"{secret}","by":"a","evidence":"e"}"#, &["field `decision`: not a value it takes; expected one of `confirmed`, `abandoned`, `resend`"]),
    ("/v1/stop", r#"{"by":null}"#, &["field `by`: expected a string, got null"]),
    ("/v1/queue/rows", r#"{"op_ids":{"a":"{secret}"}}"#, &["field `op_ids`: expected an array, got an object"]),
];

#[test]
fn a_malformed_body_is_refused_naming_its_field_what_it_takes_and_its_bound() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    client.queue("waiting", "a queued send");
    let before = dump(&profile);
    let mut problems = Vec::new();
    for (route, body, says) in MALFORMED {
        let body = body.replace("{secret}", SECRET);
        let head = format!(
            "POST {route} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json",
            serve.port,
            serve.client_token()
        );
        let (status, answer, text) = raw(serve.port, &head, body.as_bytes());
        let m = answer["message"].as_str().unwrap_or("");
        let missing: Vec<_> = says.iter().filter(|s| !m.contains(**s)).collect();
        if status != 400
            || answer["code"] != "malformed"
            || !missing.is_empty()
            || text.contains("0000-SECRET")
        {
            problems.push(format!("{route} {body}: {status} {m:?} lacks {missing:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(dump(&profile), before, "a refusal writes nothing");
}
