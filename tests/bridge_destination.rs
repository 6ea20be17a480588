//! Destination custody through the real owner (issue 27): `POST /v1/sends` and the CLI
//! record where a send goes (the profile's default for one that names none), `show`
//! prints it, a second ask with another destination is `payload_changed`, and the grant
//! refuses a tab that confirms another place — the send rejected, nothing clicked.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::json;

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
        json!({"kind": "conversation", "conversation_id": CONV_A, "project_id": null,
               "model": "gpt-5-2-thinking", "effort": null, "chosen_by": "send"})
    );
    let other = json!({ "op_id": "op-1", "text": "to A", "conversation_id": CONV_B, "model": "gpt-5-2-thinking" });
    let r = client.post("/v1/sends", &other);
    assert_eq!((r.status, r.code()), (409, "payload_changed"), "{}", r.body);
    let r = client.post("/v1/sends", &body);
    assert_eq!(r.status, 200, "the same destination is the same send: {}", r.body);
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
    assert_eq!((r.status, r.code()), (409, "destination_not_confirmed"), "{}", r.body);
    let msg = r.body["message"].as_str().unwrap_or_default();
    assert!(msg.contains(CONV_A) && msg.contains(CONV_B), "{msg}");
    let shown = client.show("op-1");
    assert_eq!(shown["send"]["state"], "rejected", "{shown}");
    assert_eq!(shown["send"]["dispatched_at"], json!(null), "never dispatched");
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
    let out = cli(&profile, &["send", "--id", "op-c", "--conversation", CONV_A, "--model", "gpt-5-2-thinking", "to A"]);
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
        shown.contains(&format!("goes to    conversation {CONV_A}, model gpt-5-2-thinking\n")),
        "{shown}"
    );
    let out = cli(&profile, &["send", "--id", "op-c", "--conversation", CONV_B, "to A"]);
    assert_eq!(out.status.code(), Some(1), "payload changed: {out:?}");
    let text = String::from_utf8_lossy(&cli(&profile, &["status"]).stdout).to_string();
    assert!(text.contains("default destination  a new chat"), "{text}");
}
