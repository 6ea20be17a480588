//! Attachments through the real owner (issue 29, "files in"): the content-addressed
//! store and its bounds at their edges, attachments as part of a send's identity, the
//! handed send's files and the tab's fetch, the grant's check of the page's uploaded
//! files, crashes around the upload and the click (SIGKILL of a real `serve`), the page's
//! request compared after the click (`attachment_mismatch`), the file modes, and a log
//! that never holds a file's bytes or name.

#[path = "support/bridge.rs"]
mod harness;
#[path = "support/page_traffic.rs"]
mod page_traffic;

use harness::*;
use page_traffic::{clicked_and_answered, grant_with_files as grant, request_with_files, TEXT};
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;

const MIB: usize = 1024 * 1024;
const MAX_FILE: usize = 32 * MIB;
const MAX_STORE: u64 = 2 * 1024 * 1024 * 1024;

/// Uploads `bytes` as `name`; panics unless stored (201 or 200). Returns the sha256.
fn stored(http: &Http, name: &str, bytes: &[u8]) -> String {
    let r = http.upload(name, Some("image/png"), bytes);
    assert!(r.status == 201 || r.status == 200, "{}", r.body);
    r.body["attachment"]["sha256"]
        .as_str()
        .expect("a sha")
        .to_string()
}

fn rows(profile: &std::path::Path, table: &str) -> i64 {
    read_only(profile)
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

#[test]
fn an_attachment_of_exactly_32_mib_is_stored_and_one_byte_more_is_refused() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let mut bytes = vec![7u8; MAX_FILE];
    bytes[0] = 1;
    let r = client.upload("big.bin", None, &bytes);
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.body["attachment"]["size"], MAX_FILE as u64);
    assert_eq!(r.body["attachment"]["mime"], "application/octet-stream");
    let again = client.upload("big.bin", None, &bytes);
    assert_eq!(again.status, 200, "the same bytes again: {}", again.body);
    bytes.push(0);
    // Raw HTTP: the owner answers 413 before it reads a body declared too large.
    let head = format!(
        "POST /v1/attachments?name=bigger.bin HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}",
        serve.port,
        serve.client_token()
    );
    let (status, body, _) = raw(serve.port, &head, &bytes);
    assert_eq!(
        (status, body["code"].as_str()),
        (413, Some("attachment_too_large")),
        "{body}"
    );
    let msg = body["message"].as_str().unwrap_or_default();
    assert!(msg.contains("33554432") && msg.contains("32 MiB"), "{msg}");
    assert_eq!(
        rows(&profile, "attachments"),
        1,
        "the refusal wrote nothing"
    );
    let files = std::fs::read_dir(profile.join("attachments"))
        .unwrap()
        .count();
    assert_eq!(files, 1, "nothing of the refused file is on disk");
}

#[test]
fn stored_files_are_0600_in_a_0700_folder() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let sha = stored(&serve.client(), "a.png", b"\x89PNG small");
    let dir = profile.join("attachments");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join(&sha)), 0o600);
    assert_eq!(std::fs::read(dir.join(&sha)).unwrap(), b"\x89PNG small");
}

#[test]
fn the_store_takes_files_up_to_two_gib_in_all_and_refuses_past_it() {
    let (_tmp, profile) = profile_dir();
    let dir = profile.join("attachments");
    std::fs::create_dir(&dir).unwrap();
    // A sparse file standing for what is stored already: the bound is on the disk.
    let f = std::fs::File::create(dir.join("0".repeat(64))).unwrap();
    f.set_len(MAX_STORE - 10).unwrap();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let r = client.upload("eleven.txt", Some("text/plain"), b"eleven byte");
    assert_eq!(
        (r.status, r.code()),
        (507, "attachment_store_full"),
        "{}",
        r.body
    );
    let msg = r.body["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("2 GiB") && msg.contains("then upload again"),
        "{msg}"
    );
    assert_eq!(
        rows(&profile, "attachments"),
        0,
        "the refusal wrote nothing"
    );
    let r = client.upload("ten.txt", Some("text/plain"), b"ten bytes!");
    assert_eq!(r.status, 201, "exactly 2 GiB in all is taken: {}", r.body);
}

#[test]
fn a_send_carries_ten_attachments_and_eleven_are_refused() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let shas: Vec<String> = (0..11)
        .map(|i| {
            stored(
                &client,
                &format!("f{i}.png"),
                format!("file {i}").as_bytes(),
            )
        })
        .collect();
    let r = client.post(
        "/v1/sends",
        &json!({ "op_id": "op-11", "text": "eleven", "attachments": shas }),
    );
    assert_eq!((r.status, r.code()), (400, "invalid"), "{}", r.body);
    assert!(
        r.body["message"].as_str().unwrap().contains("at most 10"),
        "{}",
        r.body
    );
    assert_eq!(rows(&profile, "sends"), 0, "the refusal wrote nothing");
    let r = client.post(
        "/v1/sends",
        &json!({ "op_id": "op-10", "text": "ten", "attachments": shas[..10] }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(
        client.show("op-10")["attachments"]
            .as_array()
            .unwrap()
            .len(),
        10
    );
    let twice = json!({ "op_id": "op-2", "text": "twice", "attachments": [shas[0], shas[0]] });
    let r = client.post("/v1/sends", &twice);
    assert_eq!((r.status, r.code()), (400, "invalid"), "{}", r.body);
}

#[test]
fn the_same_operation_id_with_other_attachments_or_another_order_is_payload_changed() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let a = stored(&client, "a.png", b"aaaa");
    let b = stored(&client, "b.pdf", b"bbbb");
    let send = |files: Value| {
        client.post(
            "/v1/sends",
            &json!({ "op_id": "op-1", "text": "with files", "attachments": files }),
        )
    };
    assert_eq!(send(json!([a, b])).status, 201);
    assert_eq!(
        send(json!([a, b])).status,
        200,
        "the same files are the same send"
    );
    for other in [json!([b, a]), json!([a]), json!([])] {
        let r = send(other.clone());
        assert_eq!(
            (r.status, r.code()),
            (409, "payload_changed"),
            "{other}: {}",
            r.body
        );
    }
    let r = client.post("/v1/sends", &json!({ "op_id": "op-2", "text": "plain" }));
    assert_eq!(r.status, 201);
    let r = client.post(
        "/v1/sends",
        &json!({ "op_id": "op-2", "text": "plain", "attachments": [a] }),
    );
    assert_eq!((r.status, r.code()), (409, "payload_changed"), "{}", r.body);
}

#[test]
fn an_unknown_attachment_is_refused_and_the_ledger_is_unchanged() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let unknown = "ab".repeat(32);
    let r = client.post(
        "/v1/sends",
        &json!({ "op_id": "op-1", "text": "x", "attachments": [unknown] }),
    );
    assert_eq!(
        (r.status, r.code()),
        (400, "unknown_attachment"),
        "{}",
        r.body
    );
    let msg = r.body["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains(&unknown) && msg.contains("POST /v1/attachments"),
        "{msg}"
    );
    assert_eq!(rows(&profile, "sends"), 0);
    assert_eq!(rows(&profile, "events"), 0);
    assert_eq!(client.get("/v1/sends/op-1").status, 404);
}

/// Queues `op` (a new chat) with `files` stored as (name, bytes); leases a tab and takes
/// the hand-out. Returns (lease, the handed send).
fn handed_out(
    serve: &Serve,
    ext: &Extension,
    op: &str,
    files: &[(&str, &[u8])],
) -> (String, Value) {
    let client = serve.client();
    let shas: Vec<String> = files.iter().map(|(n, b)| stored(&client, n, b)).collect();
    let r = client.post(
        "/v1/sends",
        &json!({ "op_id": op, "text": TEXT, "new_chat": true, "attachments": shas }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let lease = ext.lease("tab-1");
    let send = ext.next(&lease, 5_000).expect("handed out");
    (lease, send)
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n a picture";

/// What the page shows uploaded for a send carrying a.png and b.pdf: its file ids, the
/// names and sizes.
fn page_files() -> [(&'static str, &'static str, u64); 2] {
    [
        ("file-1", "a.png", PNG.len() as u64),
        ("file-2", "b.pdf", PDF.len() as u64),
    ]
}
const PDF: &[u8] = b"%PDF-1.7 a document";

#[test]
fn the_handed_send_lists_its_files_and_the_tab_fetches_them_only_while_it_holds_the_claim() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let (lease, send) = handed_out(&serve, &ext, "op-1", &[("a.png", PNG), ("b.pdf", PDF)]);
    let files = send["attachments"].as_array().expect("attachments");
    assert_eq!(files.len(), 2, "{send}");
    assert_eq!(files[0]["name"], "a.png");
    assert_eq!(files[1]["size"], PDF.len() as u64);
    let sha = files[0]["sha256"].as_str().unwrap();
    let path = format!("/v1/ext/attachments/{sha}?lease_id={lease}");
    let (status, mime, bytes) = ext.http.get_bytes(&path);
    assert_eq!(
        (status, mime.as_str(), bytes.as_slice()),
        (200, "image/png", PNG)
    );
    let (status, _, _) = serve.client().get_bytes(&path);
    assert_eq!(status, 403, "the client's token is not the extension's");
    let other = ext.lease("tab-2");
    let (status, _, _) = ext
        .http
        .get_bytes(&format!("/v1/ext/attachments/{sha}?lease_id={other}"));
    assert_eq!(status, 409, "another lease holds no claim on it");
    let r = grant(&ext, &lease, "op-1", &page_files());
    assert_eq!(r.status, 200, "{}", r.body);
    let (status, _, _) = ext.http.get_bytes(&path);
    assert_eq!(status, 409, "after the grant no file is handed out");
    let plain = serve.client().queue("op-2", "no files");
    assert_eq!(plain["op_id"], "op-2");
}

#[test]
fn the_grant_is_refused_when_the_page_uploaded_other_files_and_the_send_is_rejected_before_dispatch(
) {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let (lease, _) = handed_out(&serve, &ext, "op-1", &[("a.png", PNG), ("b.pdf", PDF)]);
    // The page took the PDF at another size (it re-encoded it) and lost the picture.
    let r = grant(&ext, &lease, "op-1", &[("file-2", "b.pdf", 3)]);
    assert_eq!(
        (r.status, r.code()),
        (409, "attachment_mismatch"),
        "{}",
        r.body
    );
    let msg = r.body["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("\"a.png\"")
            && msg.contains("\"b.pdf\" (3 bytes)")
            && msg.contains("nothing was clicked"),
        "{msg}"
    );
    let shown = serve.client().show("op-1");
    assert_eq!(shown["send"]["state"], "rejected", "{shown}");
    assert_eq!(
        shown["send"]["dispatched_at"],
        json!(null),
        "never dispatched"
    );
    assert!(shown["attachments"]
        .as_array()
        .unwrap()
        .iter()
        .all(|a| a["file_id"].is_null()));
    // Nothing confirmed at all (an extension that predates attachments): refused too.
    let (lease, _) = handed_out(&serve, &ext, "op-2", &[("a.png", PNG)]);
    let r = ext.http.post(
        "/v1/ext/dispatch",
        &json!({ "lease_id": lease, "op_id": "op-2", "confirmed": { "conversation_id": null } }),
    );
    assert_eq!(
        (r.status, r.code()),
        (409, "attachment_mismatch"),
        "{}",
        r.body
    );
}

#[test]
fn a_file_missing_from_the_store_at_hand_out_fails_the_send_before_dispatch() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let sha = stored(&client, "a.png", PNG);
    let r = client.post(
        "/v1/sends",
        &json!({ "op_id": "op-1", "text": "x", "new_chat": true, "attachments": [sha] }),
    );
    assert_eq!(r.status, 201);
    std::fs::remove_file(profile.join("attachments").join(&sha)).unwrap();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    assert!(ext.next(&lease, 500).is_none(), "nothing handed out");
    let shown = client.show("op-1");
    assert_eq!(shown["send"]["state"], "rejected", "{shown}");
    let why = shown["send"]["evidence"].as_str().unwrap_or_default();
    assert!(
        why.contains("not in the store") && why.contains("nothing was typed or clicked"),
        "{why}"
    );
}

#[test]
fn a_file_damaged_in_the_store_is_never_handed_to_the_tab_and_fails_the_send_before_dispatch() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let (lease, send) = handed_out(&serve, &ext, "op-1", &[("a.png", PNG)]);
    let sha = send["attachments"][0]["sha256"]
        .as_str()
        .unwrap()
        .to_string();
    let mut damaged = PNG.to_vec();
    damaged[0] ^= 1;
    std::fs::write(profile.join("attachments").join(&sha), &damaged).unwrap();
    let (status, _, body) = ext
        .http
        .get_bytes(&format!("/v1/ext/attachments/{sha}?lease_id={lease}"));
    assert_eq!(status, 409, "{}", String::from_utf8_lossy(&body));
    assert!(String::from_utf8_lossy(&body).contains("damaged"));
    assert_eq!(serve.client().state("op-1"), "rejected");
}

#[test]
fn the_owner_killed_between_the_hand_out_and_the_grant_never_grants_the_send() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let (lease, send) = handed_out(&serve, &ext, "op-1", &[("a.png", PNG)]);
    let sha = send["attachments"][0]["sha256"]
        .as_str()
        .unwrap()
        .to_string();
    serve.kill();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.extension(&ext);
    // The tab, mid-upload, fetches again or asks for the grant: both refused.
    let (status, _, _) = ext
        .http
        .get_bytes(&format!("/v1/ext/attachments/{sha}?lease_id={lease}"));
    assert_eq!(status, 410, "the lease ended with the owner");
    let r = grant(
        &ext,
        &lease,
        "op-1",
        &[("file-1", "a.png", PNG.len() as u64)],
    );
    assert_ne!(r.status, 200, "never granted: {}", r.body);
    let shown = serve.client().show("op-1");
    assert_eq!(
        shown["send"]["dispatched_at"],
        json!(null),
        "never dispatched: {shown}"
    );
    assert_eq!(
        shown["send"]["state"], "uncertain",
        "recovery bins a claim as a grant (DESIGN.md)"
    );
    assert_eq!(shown["attachments"][0]["file_id"], json!(null));
}

#[test]
fn the_owner_killed_after_the_click_leaves_the_send_uncertain_with_its_files_recorded() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let (lease, _) = handed_out(&serve, &ext, "op-1", &[("a.png", PNG), ("b.pdf", PDF)]);
    let r = grant(
        &ext,
        &lease,
        "op-1",
        &[
            ("file-2", "b.pdf", PDF.len() as u64),
            ("file-1", "a.png", PNG.len() as u64),
        ],
    );
    assert_eq!(r.status, 200, "the page's order may differ: {}", r.body);
    serve.kill();
    let serve = Serve::start(&profile, &[]);
    let shown = serve.client().show("op-1");
    assert_eq!(shown["send"]["state"], "uncertain", "{shown}");
    let files = shown["attachments"].as_array().unwrap();
    assert_eq!(
        (files[0]["name"].as_str(), files[0]["file_id"].as_str()),
        (Some("a.png"), Some("file-1"))
    );
    assert_eq!(
        (files[1]["name"].as_str(), files[1]["file_id"].as_str()),
        (Some("b.pdf"), Some("file-2"))
    );
    let text = String::from_utf8_lossy(&cli(&profile, &["show", "op-1"]).stdout).to_string();
    assert!(
        text.contains("file       \"a.png\"") && text.contains("page file file-1"),
        "{text}"
    );
}

fn clicked_and_observed(serve: &Serve, carried: &[(&str, &str, u64)]) -> Value {
    let ext = serve.pair();
    let (lease, _) = handed_out(serve, &ext, "op-1", &[("a.png", PNG), ("b.pdf", PDF)]);
    let r = grant(&ext, &lease, "op-1", &page_files());
    assert_eq!(r.status, 200, "{}", r.body);
    let op = "op-1";
    clicked_and_answered(&ext, &lease, op, request_with_files(carried));
    serve.client().show(op)
}

#[test]
fn a_page_request_missing_an_attachment_is_an_attachment_mismatch_shown_and_never_resent() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let view = clicked_and_observed(&serve, &[("file-1", "a.png", PNG.len() as u64)]);
    assert_eq!(
        view["send"]["state"], "completed",
        "it keeps its outcome: {view}"
    );
    let why = view["page_attachments"]["mismatch"]
        .as_str()
        .expect("a mismatch");
    assert!(
        why.starts_with("attachment_mismatch:") && why.contains("\"b.pdf\""),
        "{why}"
    );
    assert!(!why.contains("a.png"), "the picture was carried: {why}");
    let queue = serve.client().get("/v1/queue");
    let text = queue.body.to_string();
    assert!(
        text.contains("attachment_mismatch: the page's request did not carry"),
        "{text}"
    );
    let shown = String::from_utf8_lossy(&cli(&profile, &["show", "op-1"]).stdout).to_string();
    assert!(shown.contains("MISMATCH   attachment_mismatch"), "{shown}");
    let dispatches = events_of(&profile, "op-1")
        .into_iter()
        .filter(|(_, to, _)| to == "dispatched")
        .count();
    assert_eq!(dispatches, 1, "never resent");
}

#[test]
fn a_page_request_carrying_the_sends_files_is_recorded_without_a_mismatch() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let view = clicked_and_observed(&serve, &page_files());
    assert_eq!(view["page_attachments"]["mismatch"], json!(null), "{view}");
    assert_eq!(
        view["page_attachments"]["seen"].as_array().unwrap().len(),
        2
    );
}

#[test]
fn the_owners_log_never_holds_a_files_bytes_or_its_name() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start_with_env(&profile, &[("RUST_LOG", "trace")]);
    let secret_name = "secret-holiday-plans.pdf";
    let secret_bytes = b"%PDF the-secret-payload-in-the-file";
    let view = {
        let ext = serve.pair();
        let (lease, send) = handed_out(&serve, &ext, "op-1", &[(secret_name, secret_bytes)]);
        let sha = send["attachments"][0]["sha256"]
            .as_str()
            .unwrap()
            .to_string();
        let (status, _, _) = ext
            .http
            .get_bytes(&format!("/v1/ext/attachments/{sha}?lease_id={lease}"));
        assert_eq!(status, 200);
        grant(&ext, &lease, "op-1", &[("file-9", "another.pdf", 3)]);
        serve.client().show("op-1")
    };
    assert_eq!(view["send"]["state"], "rejected");
    let log = serve.stderr();
    assert!(log.contains("attachment stored"), "the log was read: {log}");
    assert!(
        !log.contains("the-secret-payload"),
        "the bytes are in the log"
    );
    assert!(!log.contains("secret-holiday"), "the name is in the log");
}

#[test]
fn a_chunked_upload_past_32_mib_is_refused_without_a_declared_length_too() {
    use std::io::{Read, Write};
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let mut s = std::net::TcpStream::connect(("127.0.0.1", serve.port)).unwrap();
    s.set_read_timeout(Some(BOUND)).unwrap();
    let head = format!(
        "POST /v1/attachments?name=c.bin HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        serve.port,
        serve.client_token()
    );
    let _ = s.write_all(head.as_bytes());
    let chunk = vec![b'x'; MIB];
    for _ in 0..33 {
        let framed = [format!("{:x}\r\n", chunk.len()).as_bytes(), &chunk, b"\r\n"].concat();
        if s.write_all(&framed).is_err() {
            break; // the owner answered and closed before the rest
        }
    }
    let _ = s.write_all(b"0\r\n\r\n");
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.starts_with("HTTP/1.1 413"),
        "{}",
        &text[..text.len().min(300)]
    );
    assert!(text.contains("attachment_too_large"), "{text}");
    assert_eq!(rows(&profile, "attachments"), 0);
}

/// The grant ask of a tab on a page whose Send click starts the uploads: its files by name
/// and size, each with `file_id: null` (waiting for that click).
fn grant_waiting(ext: &Extension, lease: &str, op: &str, files: &[(&str, u64)]) -> Answer {
    let list: Vec<Value> = files
        .iter()
        .map(|(name, size)| json!({ "file_id": null, "name": name, "size": size }))
        .collect();
    ext.http.post(
        "/v1/ext/dispatch",
        &json!({ "lease_id": lease, "op_id": op, "confirmed": { "conversation_id": null, "attachments": list } }),
    )
}

#[test]
fn files_waiting_for_the_click_are_granted_by_name_and_size_and_the_pages_request_is_checked_by_them(
) {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let (lease, _) = handed_out(&serve, &ext, "op-1", &[("a.png", PNG), ("b.pdf", PDF)]);
    // A file id the key leaves out is malformed (a tab says which files wait): 400.
    let r = ext.http.post(
        "/v1/ext/dispatch",
        &json!({ "lease_id": lease, "op_id": "op-1", "confirmed": { "conversation_id": null,
            "attachments": [{ "name": "a.png", "size": PNG.len() }, { "name": "b.pdf", "size": PDF.len() }] } }),
    );
    assert_eq!(r.status, 400, "no file_id key: {}", r.body);
    assert_eq!(serve.client().state("op-1"), "claimed", "nothing changed");
    // Waiting files that are not the send's: refused, nothing clicked.
    let r = grant_waiting(&ext, &lease, "op-1", &[("a.png", PNG.len() as u64)]);
    assert_eq!(
        (r.status, r.code()),
        (409, "attachment_mismatch"),
        "{}",
        r.body
    );
    let (lease, _) = handed_out(&serve, &ext, "op-2", &[("a.png", PNG), ("b.pdf", PDF)]);
    let sizes = [("a.png", PNG.len() as u64), ("b.pdf", PDF.len() as u64)];
    let r = grant_waiting(&ext, &lease, "op-2", &sizes);
    assert_eq!(r.status, 200, "granted by name and size: {}", r.body);
    // After the one click the page uploads and sends; its request is checked by name and size.
    let carried = [
        ("file-9", "a.png", PNG.len() as u64),
        ("file-8", "b.pdf", PDF.len() as u64),
    ];
    clicked_and_answered(&ext, &lease, "op-2", request_with_files(&carried));
    let view = serve.client().show("op-2");
    assert_eq!(view["send"]["state"], "completed", "{view}");
    assert_eq!(view["page_attachments"]["mismatch"], json!(null), "{view}");
}
