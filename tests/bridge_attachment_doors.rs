//! Files through the doors (issue 29): `sendledger send --attach`, the OpenAI chat door's
//! `image_url` data URL and `file` part, the Responses door's `input_image` and
//! `input_file` — each stored in the owner's store and made the send's attachments in
//! order; a retry is the same send (the files are part of its identity); an http(s)
//! image URL is refused and nothing is downloaded or written.

#[path = "support/bridge.rs"]
mod harness;
#[path = "support/page_traffic.rs"]
mod page_traffic;

use base64::Engine;
use harness::*;
use page_traffic::{clicked_and_answered, grant_with_files, request_with_files, TEXT};
use serde_json::{json, Value};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n not really a picture";
const PDF: &[u8] = b"%PDF-1.7 not really a document";

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn sends(serve: &Serve) -> Vec<Value> {
    serve.client().get("/v1/sends").body["sends"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn stored_bytes(profile: &std::path::Path, sha: &str) -> Vec<u8> {
    std::fs::read(profile.join("attachments").join(sha)).expect("stored")
}

#[test]
fn send_attach_uploads_the_files_then_sends_and_the_same_id_with_other_files_is_refused() {
    let (tmp, profile) = profile_dir();
    let _serve = Serve::start(&profile, &[]);
    let (a, b) = (tmp.path().join("chart.png"), tmp.path().join("report.pdf"));
    std::fs::write(&a, PNG).unwrap();
    std::fs::write(&b, PDF).unwrap();
    let (pa, pb) = (a.to_str().unwrap(), b.to_str().unwrap());
    let args = [
        "send",
        "--id",
        "op-1",
        "--attach",
        pa,
        "--attach",
        pb,
        "look at these",
    ];
    let (code, v) = cli_json(&profile, &args);
    assert_eq!(code, 0, "{v}");
    let (code, again) = cli_json(&profile, &args);
    assert_eq!(
        code, 0,
        "the same files under the same id are the same send: {again}"
    );
    let (_, shown) = cli_json(&profile, &["show", "op-1"]);
    let files = shown["attachments"]
        .as_array()
        .expect("attachments")
        .clone();
    assert_eq!(files.len(), 2, "{shown}");
    assert_eq!(
        (files[0]["name"].as_str(), files[0]["mime"].as_str()),
        (Some("chart.png"), Some("image/png"))
    );
    assert_eq!(
        (files[1]["name"].as_str(), files[1]["mime"].as_str()),
        (Some("report.pdf"), Some("application/pdf"))
    );
    assert_eq!(
        stored_bytes(&profile, files[1]["sha256"].as_str().unwrap()),
        PDF
    );
    let out = cli(
        &profile,
        &["send", "--id", "op-1", "--attach", pa, "look at these"],
    );
    assert_eq!(out.status.code(), Some(1), "payload changed: {out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("payload changed"),
        "{out:?}"
    );
    let big = tmp.path().join("big.bin");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(32 * 1024 * 1024 + 1)
        .unwrap();
    let out = cli(
        &profile,
        &[
            "send",
            "--id",
            "op-2",
            "--attach",
            big.to_str().unwrap(),
            "too big",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("at most 33554432 bytes"),
        "{out:?}"
    );
    let (_, list) = cli_json(&profile, &["show", "op-2"]);
    assert_eq!(
        list["error"]["code"], "unknown_send",
        "nothing was queued: {list}"
    );
}

#[test]
fn send_attach_with_no_owner_running_is_refused_before_anything_is_written() {
    let (tmp, profile) = profile_dir();
    let a = tmp.path().join("chart.png");
    std::fs::write(&a, PNG).unwrap();
    let out = cli(&profile, &["send", "--attach", a.to_str().unwrap(), "x"]);
    assert_eq!(out.status.code(), Some(6), "{out:?}");
    assert!(!profile.join("attachments").exists());
}

fn door(serve: &Serve, path: &str, body: &Value, headers: &[&str]) -> (u16, Value, String) {
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json",
        serve.port,
        serve.client_token()
    );
    for h in headers {
        head.push_str("\r\n");
        head.push_str(h);
    }
    raw(serve.port, &head, &serde_json::to_vec(body).unwrap())
}

fn chat_with_image(text: &str, png: &[u8]) -> Value {
    json!({"model": "chatgpt-tab", "messages": [{"role": "user", "content": [
        {"type": "text", "text": text},
        {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", b64(png)), "detail": "auto"}},
        {"type": "file", "file": {"filename": "report.pdf", "file_data": format!("data:application/pdf;base64,{}", b64(PDF))}},
    ]}]})
}

#[test]
fn the_chat_doors_image_and_file_parts_become_the_sends_attachments_and_a_retry_is_the_same_send() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start_with_env(&profile, &[("SENDLEDGER_OPENAI_HOLD_MS", "300")]);
    let body = chat_with_image("what is in the picture?", PNG);
    let (status, v, _) = door(&serve, "/v1/chat/completions", &body, &[]);
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (424, Some("still_pending")),
        "{v}"
    );
    let (status, _, _) = door(&serve, "/v1/chat/completions", &body, &[]);
    assert_eq!(status, 424);
    let all = sends(&serve);
    assert_eq!(all.len(), 1, "the retry attached: {all:?}");
    let op = all[0]["op_id"].as_str().unwrap();
    let shown = serve.client().show(op);
    let files = shown["attachments"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{shown}");
    assert_eq!(
        (files[0]["name"].as_str(), files[0]["mime"].as_str()),
        (Some("image-1.png"), Some("image/png"))
    );
    assert_eq!(files[1]["name"], "report.pdf");
    assert_eq!(
        stored_bytes(&profile, files[0]["sha256"].as_str().unwrap()),
        PNG
    );
    // Under an Idempotency-Key, another picture is another body: refused.
    let k = ["Idempotency-Key: k-1"];
    let (status, _, _) = door(&serve, "/v1/chat/completions", &body, &k);
    assert_eq!(status, 424);
    let other = chat_with_image("what is in the picture?", b"\x89PNG another picture");
    let (status, v, _) = door(&serve, "/v1/chat/completions", &other, &k);
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (422, Some("idempotency_key_reused")),
        "{v}"
    );
}

#[test]
fn an_http_image_url_is_refused_and_nothing_is_downloaded_or_written() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let before = dump(&profile);
    let body = json!({"model": "chatgpt-tab", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]}]});
    let (status, v, _) = door(&serve, "/v1/chat/completions", &body, &[]);
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (400, Some("remote_url_unsupported")),
        "{v}"
    );
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("never downloaded") && msg.contains("data: URL"),
        "{msg}"
    );
    assert_eq!(dump(&profile), before);
    assert!(!profile.join("attachments").exists());
}

#[test]
fn the_responses_doors_input_image_and_input_file_become_the_sends_attachments() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start_with_env(&profile, &[("SENDLEDGER_OPENAI_HOLD_MS", "300")]);
    let body = json!({"model": "chatgpt-tab", "input": [{"role": "user", "content": [
        {"type": "input_text", "text": "summarise"},
        {"type": "input_file", "filename": "report.pdf", "file_data": format!("data:application/pdf;base64,{}", b64(PDF))},
        {"type": "input_image", "image_url": format!("data:image/png;base64,{}", b64(PNG))}]}]});
    let (status, v, _) = door(&serve, "/v1/responses", &body, &[]);
    assert!(status == 200 || status == 424, "{status} {v}");
    let all = sends(&serve);
    assert_eq!(all.len(), 1, "{all:?}");
    let shown = serve.client().show(all[0]["op_id"].as_str().unwrap());
    let names: Vec<&str> = shown["attachments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["report.pdf", "image-2.png"], "{shown}");
}

#[test]
fn the_chat_doors_answer_names_a_file_the_pages_request_did_not_carry_in_its_mismatch_header() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    let (port, token) = (serve.port, serve.client_token());
    let body = chat_with_image(TEXT, PNG);
    let call = std::thread::spawn(move || {
        let head = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json"
        );
        raw_with_head(port, &head, &serde_json::to_vec(&body).unwrap())
    });
    let send = ext
        .next(&lease, 10_000)
        .expect("the door's send handed out");
    let op = send["op_id"].as_str().unwrap().to_string();
    let ids = ["file-a", "file-b"];
    let uploaded: Vec<(&str, &str, u64)> = send["attachments"]
        .as_array()
        .unwrap()
        .iter()
        .zip(ids)
        .map(|(f, id)| (id, f["name"].as_str().unwrap(), f["size"].as_u64().unwrap()))
        .collect();
    let r = grant_with_files(&ext, &lease, &op, &uploaded);
    assert_eq!(r.status, 200, "{}", r.body);
    // The page's request carried the picture but not the document.
    clicked_and_answered(&ext, &lease, &op, request_with_files(&uploaded[..1]));
    let (status, head, v, _) = call.join().unwrap();
    assert_eq!(status, 200, "{v}");
    let line = head
        .lines()
        .find_map(|l| l.strip_prefix("x-sendledger-destination-mismatch: "))
        .unwrap_or_else(|| panic!("a header says what the page's request missed: {head}"));
    assert!(
        line.contains("attachment_mismatch") && line.contains("report.pdf"),
        "{line}"
    );
}
