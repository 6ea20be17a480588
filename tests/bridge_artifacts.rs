//! An answer's generated files through the real owner over loopback (issue 29, "files
//! out"): recorded with the answer (the page's stream, or its conversation read), listed
//! for the tab, taken from it once, served byte-identical to clients; the bounds at their
//! edges (32 MiB, 10 per answer, words of 500); refusals that write nothing; and a SIGKILL
//! of the owner between storing the bytes and recording them.

#[path = "support/bridge.rs"]
mod harness;
#[path = "support/page_traffic.rs"]
mod page_traffic;

use harness::*;
use page_traffic::{fixture, observe_ok, URL};
use serde_json::{json, Value};

const TEXT: &str = "Draw a ledger book with a quill beside it.";
const CONV: &str = "6a1b2e00-0000-8c03-9d22-fedcba987654";
const FILE0: &str = "file_00000000c0ffee00a1b2c3d4e5f60718";
const MAX_FILE: usize = 32 * 1024 * 1024;
/// A small real PNG's first bytes and some more: what the blob host answers.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR generated ledger picture";

/// Queues, claims and grants `op` (the image fixture's text) on a new lease; returns it.
fn granted(serve: &Serve, ext: &Extension, op: &str) -> String {
    let lease = ext.lease("tab-1");
    serve.client().queue(op, TEXT);
    ext.next(&lease, 5_000).expect("claimed");
    let r = ext.dispatch(&lease, op);
    assert_eq!(r.status, 200, "{}", r.body);
    lease
}

/// The page's request and `stream` (a fixture's text) for `op`, observed to its end.
fn streamed(ext: &Extension, lease: &str, op: &str, stream: &str) {
    for o in [
        json!({ "lease_id": lease, "op_id": op, "kind": "request", "stream_id": "s1", "url": URL, "body": fixture("request_image.json") }),
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_chunk", "stream_id": "s1", "seq": 0, "chunk": stream }),
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_end", "stream_id": "s1" }),
    ] {
        observe_ok(ext, o);
    }
}

/// A completed send `op` whose answer carried the fixture's two pictures; the lease.
fn answered(serve: &Serve, ext: &Extension, op: &str) -> String {
    let lease = granted(serve, ext, op);
    streamed(ext, &lease, op, &fixture("stream_delta_image.sse"));
    lease
}

fn upload(ext: &Extension, lease: &str, op: &str, n: u32, bytes: &[u8]) -> Answer {
    ext.http.post_bytes(
        &format!("/v1/ext/artifacts/{op}/{n}?lease_id={lease}&name=ledger%20book.png"),
        Some("image/png"),
        bytes,
    )
}

fn wanted(ext: &Extension, lease: &str) -> Vec<Value> {
    let r = ext
        .http
        .get(&format!("/v1/ext/artifacts?lease_id={lease}&wait_ms=0"));
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["artifacts"].as_array().unwrap().clone()
}

fn store_files(profile: &std::path::Path) -> Vec<String> {
    match std::fs::read_dir(profile.join("attachments")) {
        Ok(d) => d
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn an_artifact_comes_back_byte_identical_through_the_client_route() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = answered(&serve, &ext, "op-1");
    let client = serve.client();
    let view = client.show("op-1");
    assert_eq!(view["send"]["state"], "completed", "{view}");
    let arts = view["artifacts"].as_array().unwrap();
    assert_eq!(arts.len(), 2, "{view}");
    assert_eq!(
        (arts[0]["n"].clone(), arts[0]["state"].clone()),
        (json!(0), json!("wanted"))
    );
    assert_eq!(arts[0]["file_id"], FILE0);
    assert_eq!(
        (arts[0]["width"].clone(), arts[0]["height"].clone()),
        (json!(1024), json!(1024))
    );
    let list = wanted(&ext, &lease);
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["conversation_id"], CONV);
    assert_eq!(list[0]["pointer"], format!("sediment://{FILE0}"));
    let pending = client.get("/v1/sends/op-1/artifacts/0");
    pending.assert_refused(409, "artifact_pending");
    assert!(pending.body["message"].as_str().unwrap().contains(CONV));
    let r = upload(&ext, &lease, "op-1", 0, PNG);
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.body["artifact"]["name"], "ledger book.png");
    assert_eq!(r.body["artifact"]["size"], PNG.len());
    let again = upload(&ext, &lease, "op-1", 0, PNG);
    assert_eq!(
        again.status, 200,
        "a retry of the same upload: {}",
        again.body
    );
    assert_eq!(store_files(&profile).len(), 1, "stored once");
    let (status, headers, bytes) = client.get_with_headers(
        "/v1/sends/op-1/artifacts/0",
        &["content-type", "content-disposition"],
    );
    assert_eq!(status, 200);
    assert_eq!(bytes, PNG, "byte-identical");
    assert_eq!(headers[0], "image/png");
    assert!(
        headers[1].starts_with("attachment; filename=\"ledger book.png\""),
        "{}",
        headers[1]
    );
    let list = wanted(&ext, &lease);
    assert_eq!(list.len(), 1, "only the second is still wanted: {list:?}");
    assert_eq!(list[0]["n"], 1);
    let shown = String::from_utf8_lossy(&cli(&profile, &["show", "op-1"]).stdout).to_string();
    assert!(
        shown.contains("generated  #0 \"ledger book.png\""),
        "{shown}"
    );
    assert!(
        shown.contains("generated  #1 page file file-7Hq2LedgerQuill0001: waiting"),
        "{shown}"
    );
    let other = upload(&ext, &lease, "op-1", 0, b"other bytes");
    other.assert_refused(409, "artifact_settled");
}

#[test]
fn the_conversation_read_that_completes_a_cut_answer_records_its_artifacts() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = granted(&serve, &ext, "op-1");
    // The stream cut before the final answer: accepted, not completed.
    let whole = fixture("stream_delta_image.sse");
    let cut = &whole[..whole.find("\"c\": 3").expect("the final message's root")];
    let cut = &cut[..cut.rfind("event: delta").unwrap()];
    streamed(&ext, &lease, "op-1", cut);
    assert_eq!(serve.client().state("op-1"), "accepted");
    observe_ok(
        &ext,
        json!({ "lease_id": lease, "kind": "listing",
                "url": format!("https://chatgpt.com/backend-api/conversation/{CONV}"),
                "body": fixture("listing_image_answered.json") }),
    );
    let view = serve.client().show("op-1");
    assert_eq!(view["send"]["state"], "completed", "{view}");
    let ids: Vec<&str> = view["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["file_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [FILE0, "file-7Hq2LedgerQuill0001"]);
}

#[test]
fn an_artifact_of_exactly_32_mib_is_stored_and_one_byte_more_is_refused_writing_nothing() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = answered(&serve, &ext, "op-1");
    let mut bytes = vec![3u8; MAX_FILE + 1];
    bytes[0] = 9;
    let before = dump(&profile);
    // Raw HTTP: the owner answers 413 before it reads a body declared too large.
    let head = format!(
        "POST /v1/ext/artifacts/op-1/0?lease_id={lease} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\nOrigin: {EXTENSION_ORIGIN}\r\nContent-Type: image/png",
        serve.port,
        ext.http_token().unwrap()
    );
    let (status, body, _) = raw(serve.port, &head, &bytes);
    assert_eq!(
        (status, body["code"].as_str()),
        (413, Some("artifact_too_large")),
        "{body}"
    );
    assert!(
        body["message"].as_str().unwrap().contains("32 MiB"),
        "{body}"
    );
    assert_eq!(dump(&profile), before, "the refusal wrote nothing");
    assert!(store_files(&profile).is_empty(), "no byte of it is on disk");
    bytes.pop();
    let r = upload(&ext, &lease, "op-1", 0, &bytes);
    assert_eq!(r.status, 201, "exactly 32 MiB: {}", r.body);
    let (status, _, back) = serve.client().get_bytes("/v1/sends/op-1/artifacts/0");
    assert_eq!((status, back.len()), (200, MAX_FILE));
    assert!(back == bytes, "byte-identical");
}

#[test]
fn an_answer_records_ten_artifacts_and_names_the_eleventh() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = granted(&serve, &ext, "op-1");
    streamed(
        &ext,
        &lease,
        "op-1",
        &fixture("stream_delta_eleven_images.sse"),
    );
    let view = serve.client().show("op-1");
    assert_eq!(view["send"]["state"], "completed", "{view}");
    assert_eq!(view["artifacts"].as_array().unwrap().len(), 10);
    let eleventh = format!("file_{:032x}", 0xe1e0 + 10);
    let named = view["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["evidence"].as_str())
        .any(|e| e.contains(&eleventh) && e.contains("not fetched"));
    assert!(named, "the eleventh is named: {view}");
    assert_eq!(wanted(&ext, &lease).len(), 10);
    let r = upload(&ext, &lease, "op-1", 10, PNG);
    r.assert_refused(404, "unknown_artifact");
}

#[test]
fn an_upload_for_an_unavailable_artifact_is_refused_and_writes_nothing() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = answered(&serve, &ext, "op-1");
    let path = "/v1/ext/artifacts/op-1/0/unavailable";
    let before = dump(&profile);
    let long = ext.http.post(
        path,
        &json!({ "lease_id": lease, "words": "w".repeat(501) }),
    );
    long.assert_refused(400, "invalid");
    assert_eq!(
        dump(&profile),
        before,
        "501 characters: refused, nothing written"
    );
    let words = format!("File expired. {}", "w".repeat(486));
    assert_eq!(words.chars().count(), 500);
    let r = ext
        .http
        .post(path, &json!({ "lease_id": lease, "words": words }));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["artifact"]["state"], "unavailable");
    let before = dump(&profile);
    let late = upload(&ext, &lease, "op-1", 0, PNG);
    late.assert_refused(409, "artifact_settled");
    assert_eq!(dump(&profile), before, "the refusal wrote nothing");
    assert!(store_files(&profile).is_empty(), "no byte of it is on disk");
    let gone = serve.client().get("/v1/sends/op-1/artifacts/0");
    gone.assert_refused(410, "artifact_unavailable");
    assert!(gone.body["message"]
        .as_str()
        .unwrap()
        .contains("File expired."));
    let unknown = upload(&ext, &lease, "op-none", 0, PNG);
    unknown.assert_refused(404, "unknown_artifact");
    assert_eq!(serve.client().get("/v1/sends/op-1/artifacts/9").status, 404);
    assert_eq!(dump(&profile), before, "nothing written by the refusals");
}

#[test]
fn the_owner_killed_between_storing_the_bytes_and_recording_them_leaves_the_artifact_wanted() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = answered(&serve, &ext, "op-1");
    // The test holds the ledger's write lock: the owner reads what it needs, stores the
    // bytes, then waits for the lock to record them, and is killed there.
    let blocker = rusqlite::Connection::open(ledger_file(&profile)).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    let (e, l) = (ext.fresh(), lease.clone());
    // Its answer never comes (the owner is killed): the thread's panic is ignored.
    let uploading = std::thread::spawn(move || {
        let a = upload(&e, &l, "op-1", 0, PNG);
        (a.status, a.body.to_string())
    });
    let sha = sendledger::attachments::sha256_hex(PNG);
    while !store_files(&profile).contains(&sha) {
        if uploading.is_finished() {
            panic!(
                "the upload ended before its bytes were stored: {:?}",
                uploading.join()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    serve.kill();
    blocker.execute_batch("ROLLBACK").unwrap();
    drop(blocker);
    let _ = uploading.join();
    assert_eq!(
        store_files(&profile),
        std::slice::from_ref(&sha),
        "the store holds the whole file, nothing else"
    );
    assert_eq!(
        std::fs::read(profile.join("attachments").join(&sha)).unwrap(),
        PNG
    );
    let serve = Serve::start(&profile, &[]);
    let view = serve.client().show("op-1");
    assert_eq!(view["artifacts"][0]["state"], "wanted", "{view}");
    let ext = serve.extension(&ext);
    let lease = ext.lease("tab-1");
    let r = upload(&ext, &lease, "op-1", 0, PNG);
    assert_eq!(r.status, 201, "a later upload succeeds: {}", r.body);
    let (status, _, back) = serve.client().get_bytes("/v1/sends/op-1/artifacts/0");
    assert_eq!((status, back.as_slice()), (200, PNG));
}

#[test]
fn sendledger_artifact_saves_the_file_and_never_overwrites_one() {
    let (tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = answered(&serve, &ext, "op-1");
    let out = tmp.path().join("saved.png");
    let pending = cli(
        &profile,
        &["artifact", "op-1", "0", "-o", out.to_str().unwrap()],
    );
    assert_eq!(pending.status.code(), Some(1), "still wanted: a conflict");
    let said = String::from_utf8_lossy(&pending.stderr).to_string();
    assert!(
        said.contains("not fetched yet") && said.contains(CONV),
        "{said}"
    );
    assert!(!out.exists(), "nothing written");
    assert_eq!(upload(&ext, &lease, "op-1", 0, PNG).status, 201);
    let (code, saved) = cli_json(
        &profile,
        &["artifact", "op-1", "0", "-o", out.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{saved}");
    assert_eq!(saved["name"], "ledger book.png");
    assert_eq!(std::fs::read(&out).unwrap(), PNG, "byte-identical");
    std::fs::write(&out, b"the person's own file").unwrap();
    let again = cli(
        &profile,
        &["artifact", "op-1", "0", "-o", out.to_str().unwrap()],
    );
    assert_eq!(again.status.code(), Some(2), "refused");
    assert!(String::from_utf8_lossy(&again.stderr).contains("never overwritten"));
    assert_eq!(std::fs::read(&out).unwrap(), b"the person's own file");
}

#[test]
fn the_store_full_ends_the_artifact_unavailable_in_the_owners_words() {
    let (_tmp, profile) = profile_dir();
    let dir = profile.join("attachments");
    std::fs::create_dir(&dir).unwrap();
    // A sparse file standing for what is stored already: the bound is on the disk.
    let f = std::fs::File::create(dir.join("0".repeat(64))).unwrap();
    f.set_len(2 * 1024 * 1024 * 1024 - 10).unwrap();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = answered(&serve, &ext, "op-1");
    let r = upload(&ext, &lease, "op-1", 0, PNG);
    r.assert_refused(507, "attachment_store_full");
    assert_eq!(store_files(&profile).len(), 1, "nothing of it on disk");
    let gone = serve.client().get("/v1/sends/op-1/artifacts/0");
    gone.assert_refused(410, "artifact_unavailable");
    assert!(
        gone.body["message"]
            .as_str()
            .unwrap()
            .contains("file store is full"),
        "{}",
        gone.body
    );
}

#[test]
fn the_owners_log_never_holds_an_artifacts_bytes_or_its_name() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start_with_env(
        &profile,
        &[("SENDLEDGER_LOG", "trace"), ("RUST_LOG", "trace")],
    );
    let ext = serve.pair();
    let lease = answered(&serve, &ext, "op-1");
    let secret = b"\x89PNG the-secret-pixels-of-the-picture";
    let r = ext.http.post_bytes(
        &format!("/v1/ext/artifacts/op-1/0?lease_id={lease}&name=secret-holiday.png"),
        Some("image/png"),
        secret,
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let (status, _, back) = serve.client().get_bytes("/v1/sends/op-1/artifacts/0");
    assert_eq!((status, back.as_slice()), (200, &secret[..]));
    let log = serve.stderr();
    assert!(log.contains("artifact stored"), "the log was read: {log}");
    assert!(
        !log.contains("the-secret-pixels"),
        "the bytes are in the log"
    );
    assert!(!log.contains("secret-holiday"), "the name is in the log");
}

#[test]
fn a_tab_is_listed_only_the_wanted_artifacts_of_the_conversation_it_shows() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = answered(&serve, &ext, "op-1");
    let all = wanted(&ext, &lease);
    assert_eq!(all.len(), 2, "{all:?}");
    let listed = |conversation: &str| {
        let r = ext.http.get(&format!(
            "/v1/ext/artifacts?lease_id={lease}&wait_ms=0&conversation_id={conversation}"
        ));
        assert_eq!(r.status, 200, "{}", r.body);
        r.body["artifacts"].as_array().unwrap().len()
    };
    let shown = all[0]["conversation_id"].as_str().unwrap().to_string();
    assert_eq!(listed(&shown), 2, "the tab showing the conversation");
    assert_eq!(
        listed("6a1b2e00-0000-8c03-9d22-00000000beef"),
        0,
        "a tab on another conversation is not told of them (nor answered at once)"
    );
}
