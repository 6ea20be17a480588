//! Destination custody through the real owner (issue 27): `POST /v1/sends` and the CLI
//! record where a send goes (the profile's default for one that names none), `show`
//! prints it, a second ask with another destination is `payload_changed`, and the grant
//! refuses a tab that confirms another place — the send rejected, nothing clicked.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::{json, Value};

const CONV_A: &str = "6a1f0c2e-0000-4000-8000-00000000000a";
const CONV_B: &str = "6a1f0c2e-0000-4000-8000-00000000000b";

#[test]
fn post_v1_sends_records_the_destination_and_the_same_id_elsewhere_is_payload_changed() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let body = json!({
        "op_id": "op-1", "text": "to A",
        "conversation_id": format!("https://chatgpt.com/c/{CONV_A}"),
        "model": "gpt-5-2-thinking",
    });
    let r = client.post("/v1/sends", &body);
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.body["send"]["conversation_id"], CONV_A);
    let shown = client.show("op-1");
    assert_eq!(
        shown["destination"],
        json!({"site": "chatgpt", "kind": "conversation", "conversation_id": CONV_A, "project_id": null,
               "model": "gpt-5-2-thinking", "effort": null, "chosen_by": "send"})
    );
    let other = json!({ "op_id": "op-1", "text": "to A", "conversation_id": CONV_B, "model": "gpt-5-2-thinking" });
    let r = client.post("/v1/sends", &other);
    assert_eq!((r.status, r.code()), (409, "payload_changed"), "{}", r.body);
    let r = client.post("/v1/sends", &body);
    assert_eq!(
        r.status, 200,
        "the same destination is the same send: {}",
        r.body
    );
    let r = client.post(
        "/v1/sends",
        &json!({ "op_id": "op-2", "text": "x", "new_chat": true, "project_id": "g-p-abc" }),
    );
    assert_eq!((r.status, r.code()), (400, "invalid"), "{}", r.body);
}

fn leased(ext: &Extension, conversation: &str) -> String {
    let r = ext.http.post(
        "/v1/ext/lease",
        &json!({ "tab_id": "tab-1", "conversation_id": conversation }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["lease_id"].as_str().expect("a lease").to_string()
}

#[test]
fn the_grant_refuses_a_tab_showing_another_conversation_and_the_send_is_rejected() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    client.post(
        "/v1/sends",
        &json!({ "op_id": "op-1", "text": "only for B", "conversation_id": CONV_B }),
    );
    // The tab leased showing B; the person then opened A in it (the same lease).
    let lease = leased(&ext, CONV_B);
    let handed = ext.next(&lease, 5_000).expect("handed out");
    assert_eq!(handed["destination"]["conversation_id"], CONV_B, "{handed}");
    let r = ext.http.post(
        "/v1/ext/dispatch",
        &json!({ "lease_id": lease, "op_id": "op-1", "confirmed": { "conversation_id": CONV_A } }),
    );
    assert_eq!(
        (r.status, r.code()),
        (409, "destination_not_confirmed"),
        "{}",
        r.body
    );
    let msg = r.body["message"].as_str().unwrap_or_default();
    assert!(msg.contains(CONV_A) && msg.contains(CONV_B), "{msg}");
    let shown = client.show("op-1");
    assert_eq!(shown["send"]["state"], "rejected", "{shown}");
    assert_eq!(
        shown["send"]["dispatched_at"],
        json!(null),
        "never dispatched"
    );
    // The next send, confirmed where it goes, is granted.
    client.post(
        "/v1/sends",
        &json!({ "op_id": "op-2", "text": "for A", "conversation_id": CONV_A }),
    );
    let lease = leased(&ext, CONV_A);
    ext.next(&lease, 5_000).expect("handed out");
    let r = ext.http.post(
        "/v1/ext/dispatch",
        &json!({ "lease_id": lease, "op_id": "op-2", "confirmed": { "conversation_id": CONV_A } }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
}

#[test]
fn the_cli_sets_the_default_destination_and_a_send_naming_none_records_it() {
    let (_tmp, profile) = profile_dir();
    let _serve = Serve::start(&profile, &[]);
    let (code, v) = cli_json(&profile, &["status"]);
    assert_eq!(code, 0);
    assert_eq!(v["default_destination"]["kind"], "new_chat", "{v}");
    let url = "https://chatgpt.com/g/g-p-0123abcdef-notes/project";
    let (code, v) = cli_json(&profile, &["destination", "set", "project", url]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["default_destination"]["project_id"], "g-p-0123abcdef");
    let out = cli(&profile, &["send", "--id", "op-d", "to the default"]);
    assert!(out.status.success(), "{out:?}");
    let out = cli(
        &profile,
        &[
            "send",
            "--id",
            "op-c",
            "--conversation",
            CONV_A,
            "--model",
            "gpt-5-2-thinking",
            "to A",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let (code, _) = cli_json(&profile, &["destination", "set", "new-chat"]);
    assert_eq!(code, 0);
    let shown = String::from_utf8_lossy(&cli(&profile, &["show", "op-d"]).stdout).to_string();
    assert!(
        shown.contains("goes to    a new chat in Project g-p-0123abcdef (the profile's default when it was queued)"),
        "{shown}"
    );
    let shown = String::from_utf8_lossy(&cli(&profile, &["show", "op-c"]).stdout).to_string();
    assert!(
        shown.contains(&format!(
            "goes to    conversation {CONV_A}, model gpt-5-2-thinking\n"
        )),
        "{shown}"
    );
    let out = cli(
        &profile,
        &["send", "--id", "op-c", "--conversation", CONV_B, "to A"],
    );
    assert_eq!(out.status.code(), Some(1), "payload changed: {out:?}");
    let text = String::from_utf8_lossy(&cli(&profile, &["status"]).stdout).to_string();
    assert!(text.contains("default destination  a new chat"), "{text}");
}

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/chatgpt");
const URL: &str = "https://chatgpt.com/backend-api/f/conversation";
/// What the fixture's user typed (request_new_chat_f.json, stream_delta_new_chat.sse):
/// a new chat, model `auto`, which the stream answers in conversation NEW_CHAT.
const TEXT: &str = "Draft a haiku about ledgers.\nKeep it short.";
const NEW_CHAT: &str = "6a1b2c3d-4e5f-8a01-b234-56789abcdef0";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}"))
        .unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// Queues `body` as `op`, grants it to a tab on a new chat whose picker shows `model`,
/// and forwards the page's request and stream; returns the send's view once completed.
fn sent_in_a_new_chat(serve: &Serve, op: &str, model: &str) -> Value {
    let (client, ext) = (serve.client(), serve.pair());
    let r = client.post(
        "/v1/sends",
        &json!({ "op_id": op, "text": TEXT, "new_chat": true, "model": model }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let lease = ext.lease("tab-1");
    ext.next(&lease, 5_000).expect("handed out");
    let confirmed = json!({ "conversation_id": null, "model": model });
    let r = ext.http.post(
        "/v1/ext/dispatch",
        &json!({ "lease_id": lease, "op_id": op, "confirmed": confirmed }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let obs = |o: Value| {
        let a = ext.observe(&o);
        assert_eq!(a.status, 200, "{}", a.body);
    };
    obs(
        json!({ "lease_id": lease, "op_id": op, "kind": "request", "stream_id": "s1",
                "url": URL, "body": fixture("request_new_chat_f.json") }),
    );
    obs(
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_chunk", "stream_id": "s1",
                "seq": 0, "chunk": fixture("stream_delta_new_chat.sse") }),
    );
    obs(json!({ "lease_id": lease, "op_id": op, "kind": "stream_end", "stream_id": "s1" }));
    let view = client.show(op);
    assert_eq!(
        view["send"]["state"], "completed",
        "it keeps its outcome: {view}"
    );
    view
}

#[test]
fn the_page_answering_with_another_model_is_a_destination_mismatch_shown_and_never_resent() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let view = sent_in_a_new_chat(&serve, "op-m", "gpt-5-2-thinking");
    let page = &view["page_destination"];
    assert_eq!(page["model"], "auto", "{view}");
    assert_eq!(
        page["conversation_id"],
        json!(null),
        "a new chat's request names none"
    );
    let why = page["mismatch"].as_str().expect("a mismatch");
    assert!(
        why.starts_with("destination_mismatch:")
            && why.contains("auto")
            && why.contains("gpt-5-2-thinking"),
        "{why}"
    );
    let notes: Vec<&Value> = view["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            e["evidence"]
                .as_str()
                .is_some_and(|s| s.starts_with("destination_mismatch"))
        })
        .collect();
    assert_eq!(notes.len(), 1, "one note on the timeline: {view}");
    assert_eq!(
        view["send"]["receipt"]["conversation_id"], NEW_CHAT,
        "the new chat's id, learned from the page's traffic, is on the send"
    );
    let dispatches = events_of(&profile, "op-m")
        .into_iter()
        .filter(|(_, to, _)| to == "dispatched")
        .count();
    assert_eq!(dispatches, 1, "never resent");
    let shown = String::from_utf8_lossy(&cli(&profile, &["show", "op-m"]).stdout).to_string();
    assert!(
        shown.contains("MISMATCH   destination_mismatch: the page's request used model auto"),
        "{shown}"
    );
    let queue = serve.client().get("/v1/queue");
    let row = ["pending", "uncertain", "stopped", "history"]
        .iter()
        .flat_map(|s| queue.body[*s].as_array().cloned().unwrap_or_default())
        .find(|r| r["op_id"] == "op-m")
        .unwrap_or_else(|| panic!("op-m listed: {}", queue.body));
    assert_eq!(
        row["mismatch"].as_str(),
        Some(why),
        "the window's row carries the mismatch (shown in red)"
    );
}

#[test]
fn the_page_answering_with_the_model_asked_records_it_and_no_mismatch() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let view = sent_in_a_new_chat(&serve, "op-ok", "auto");
    assert_eq!(
        view["page_destination"]["mismatch"],
        json!(null),
        "{}",
        view["page_destination"]
    );
    assert_eq!(view["page_destination"]["model"], "auto");
    let shown = String::from_utf8_lossy(&cli(&profile, &["show", "op-ok"]).stdout).to_string();
    assert!(
        shown.contains("page sent  to a new chat, model auto"),
        "{shown}"
    );
}

#[test]
fn the_queue_window_names_each_sends_destination_in_words() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let to_a = json!({ "op_id": "op-a", "text": "to A", "conversation_id": CONV_A,
                       "model": "gpt-5-2-thinking" });
    assert_eq!(client.post("/v1/sends", &to_a).status, 201);
    let named_none = json!({ "op_id": "op-n", "text": "to wherever the default leads" });
    assert_eq!(client.post("/v1/sends", &named_none).status, 201);
    let queue = client.get("/v1/queue");
    assert_eq!(queue.status, 200, "{}", queue.body);
    let rows = queue.body["pending"].as_array().expect("pending rows");
    let words = |op: &str| {
        rows.iter()
            .find(|r| r["op_id"] == op)
            .unwrap_or_else(|| panic!("{op} listed: {}", queue.body))["destination"]
            .clone()
    };
    assert_eq!(
        words("op-a"),
        json!(format!("conversation {CONV_A}, model gpt-5-2-thinking"))
    );
    assert_eq!(
        words("op-n"),
        json!("a new chat"),
        "the default until a person sets one"
    );
}

#[test]
fn the_popup_sets_the_default_destination_and_a_refusal_writes_nothing() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    const ROUTE: &str = "/v1/ext/default-destination";
    let r = ext.http.get(ROUTE);
    assert_eq!(
        (r.status, r.body["words"].as_str()),
        (200, Some("a new chat")),
        "until set: {}",
        r.body
    );
    let url = format!("https://chatgpt.com/c/{CONV_A}");
    let r = ext.http.put(ROUTE, &json!({ "conversation_id": url }));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["words"], format!("conversation {CONV_A}"));
    let config = profile.join("config.json");
    let kept = std::fs::read(&config).expect("config.json written");
    for bad in [
        json!({ "project_id": "g-x-123" }),
        json!({ "new_chat": true, "conversation_id": CONV_B }),
        json!({ "conversation_id": "https://chatgpt.com/c/WEB:6a1f0c2e" }),
        json!({ "somewhere": "else" }),
    ] {
        let r = ext.http.put(ROUTE, &bad);
        assert!(
            r.status == 400 || r.status == 422,
            "{bad} refused: {} {}",
            r.status,
            r.body
        );
        assert!(
            r.body["message"].as_str().is_some_and(|m| !m.is_empty()),
            "says why: {}",
            r.body
        );
        assert_eq!(
            std::fs::read(&config).unwrap(),
            kept,
            "{bad}: nothing written"
        );
    }
    let r = serve.client().put(ROUTE, &json!({ "new_chat": true }));
    assert_eq!((r.status, r.code()), (403, "wrong_scope"), "{}", r.body);
    let send = serve.client().queue("op-d", "naming no place");
    assert_eq!(
        send["conversation_id"], CONV_A,
        "the popup's choice: {send}"
    );
    let shown = serve.client().show("op-d");
    assert_eq!(shown["destination"]["chosen_by"], "default");
}
