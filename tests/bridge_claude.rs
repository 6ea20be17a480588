//! claude.ai under the same custody, over HTTP with a real owner (issue 36): an extension
//! imitated over loopback leases a claude.ai tab (`site: "claude"`), takes the send, asks
//! the grant and forwards the page's completion request and event stream — the project's
//! own claude fixtures (`tests/fixtures/claude/`). Each test is named after its rule.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::{json, Value};

const ORG: &str = "3f1c6a52-9d0e-4b7a-a1c2-5e8f90d4b6a1";
const CONVERSATION: &str = "7b2e4d10-55aa-4c3e-9f01-2d6c8e7a9b34";
const HUMAN: &str = "0c4e9a71-3d2b-4f85-b6a0-7e1f2c3d4a51";
const ASSISTANT: &str = "0c4e9a72-8e1c-4a96-a3b7-2f6d5c4b3a92";
const TEXT: &str = "Name three rivers that freeze over in winter.";

fn fixture(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/claude")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn completion_url() -> String {
    format!(
        "https://claude.ai/api/organizations/{ORG}/chat_conversations/{CONVERSATION}/completion"
    )
}

/// `POST /v1/ext/lease` for a tab of `site` showing `conversation`.
fn lease_on(ext: &Extension, tab: &str, site: &str, conversation: Option<&str>) -> String {
    let a = ext.http.post(
        "/v1/ext/lease",
        &json!({ "tab_id": tab, "site": site, "conversation_id": conversation }),
    );
    assert_eq!(a.status, 200, "lease: {}", a.body);
    a.body["lease_id"].as_str().expect("a lease id").to_string()
}

/// `POST /v1/sends` with `body`; the answer.
fn queue(serve: &Serve, body: Value) -> Answer {
    serve.client().post("/v1/sends", &body)
}

fn observe_ok(ext: &Extension, o: Value) -> Value {
    let a = ext.observe(&o);
    assert_eq!(a.status, 200, "observe: {}", a.body);
    a.body
}

/// Queues a claude send into the fixtures' conversation and has a claude tab take it and
/// be granted the click; returns the lease.
fn granted_claude_send(serve: &Serve, ext: &Extension, op: &str) -> String {
    let url = format!("https://claude.ai/chat/{CONVERSATION}");
    let q = queue(
        serve,
        json!({ "op_id": op, "text": TEXT, "conversation_id": url }),
    );
    assert_eq!(q.status, 201, "{}", q.body);
    let lease = lease_on(ext, "tab-c", "claude", Some(CONVERSATION));
    let send = ext.next(&lease, 5_000).expect("the claude tab takes it");
    assert_eq!(send["op_id"], op);
    assert_eq!(send["destination"]["site"], "claude", "{send}");
    assert_eq!(send["destination"]["conversation_id"], CONVERSATION);
    let grant = ext.http.post(
        "/v1/ext/dispatch",
        &json!({ "lease_id": lease, "op_id": op, "confirmed": { "conversation_id": CONVERSATION } }),
    );
    assert_eq!(grant.body["granted"], true, "{}", grant.body);
    lease
}

#[test]
fn a_claude_send_is_accepted_by_the_page_chosen_ids_and_completed_at_message_stop() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = granted_claude_send(&serve, &ext, "river");
    observe_ok(
        &ext,
        json!({ "lease_id": lease, "op_id": "river", "kind": "request", "stream_id": "c1",
                "url": completion_url(), "body": fixture("request_follow_up.json"), "status": 200 }),
    );
    assert_eq!(
        serve.client().state("river"),
        "dispatched",
        "a request alone proves nothing"
    );
    let stream = fixture("stream_answer.sse");
    let (a, b) = stream.split_at(stream.len() / 2);
    for (seq, chunk) in [a, b].into_iter().enumerate() {
        observe_ok(
            &ext,
            json!({ "lease_id": lease, "op_id": "river", "kind": "stream_chunk",
                    "stream_id": "c1", "seq": seq, "chunk": chunk }),
        );
    }
    let send = &serve.client().show("river")["send"];
    assert_eq!(send["state"], "completed", "{send}");
    assert_eq!(
        send["receipt"],
        json!({ "conversation_id": CONVERSATION, "user_message_id": HUMAN, "turn_id": ASSISTANT }),
        "the receipt is the page's own turn_message_uuids"
    );
    assert_eq!(send["answer"]["message_id"], ASSISTANT);
    assert_eq!(
        send["answer"]["text"],
        "The Ob, the Lena and the Yenisei freeze over every winter."
    );
    assert!(
        !serve.stderr().contains("freeze over"),
        "no text in the log"
    );
}

#[test]
fn the_same_operation_id_with_another_site_is_a_changed_payload() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let first = queue(&serve, json!({ "op_id": "twice", "text": "hello" }));
    assert_eq!(first.status, 201, "{}", first.body);
    let again = queue(&serve, json!({ "op_id": "twice", "text": "hello" }));
    assert_eq!(
        again.status, 200,
        "the same payload is the same send: {}",
        again.body
    );
    let other = queue(
        &serve,
        json!({ "op_id": "twice", "text": "hello", "site": "claude" }),
    );
    assert_eq!(
        other.status, 409,
        "another site is another payload: {}",
        other.body
    );
    let named = queue(
        &serve,
        json!({ "op_id": "twice", "text": "hello", "site": "chatgpt" }),
    );
    assert_eq!(
        named.status, 200,
        "chatgpt named is the default: {}",
        named.body
    );
}

#[test]
fn an_unknown_site_or_another_sites_address_is_refused_with_a_sentence() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let unknown = queue(
        &serve,
        json!({ "op_id": "u", "text": "hi", "site": "gemini" }),
    );
    assert_eq!(unknown.status, 400, "{}", unknown.body);
    let said = unknown.body["message"].as_str().unwrap_or_default();
    assert!(
        said.contains("site") && said.contains("`chatgpt`, `claude`"),
        "the refusal names the known sites: {said}"
    );
    let crossed = queue(
        &serve,
        json!({ "op_id": "x", "text": "hi", "site": "claude",
                "conversation_id": "https://chatgpt.com/c/6a1b2c3d-0000-4000-8000-000000000001" }),
    );
    assert_eq!(crossed.status, 400, "{}", crossed.body);
    assert!(
        crossed.body.to_string().contains("chatgpt.com page"),
        "{}",
        crossed.body
    );
    assert!(
        serve.client().get("/v1/sends/x").status == 404,
        "nothing was queued"
    );
}

#[test]
fn a_lease_claims_only_the_sends_of_its_own_site() {
    let (_tmp, profile) = profile_dir();
    let config = json!({ "max_in_flight": 2 }).to_string();
    std::fs::write(profile.join("config.json"), config).unwrap();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let c = queue(
        &serve,
        json!({ "op_id": "to-claude", "text": "one", "site": "claude" }),
    );
    assert_eq!(c.status, 201, "{}", c.body);
    let chatgpt_tab = lease_on(&ext, "tab-g", "chatgpt", None);
    assert!(
        ext.next(&chatgpt_tab, 300).is_none(),
        "a chatgpt tab never takes a claude send"
    );
    let g = queue(&serve, json!({ "op_id": "to-chatgpt", "text": "two" }));
    assert_eq!(g.status, 201, "{}", g.body);
    let claude_tab = lease_on(&ext, "tab-c", "claude", None);
    let took = ext
        .next(&claude_tab, 5_000)
        .expect("the claude tab takes its send");
    assert_eq!(took["op_id"], "to-claude");
    assert_eq!(took["destination"]["site"], "claude");
    let took = ext
        .next(&chatgpt_tab, 5_000)
        .expect("the chatgpt tab takes its own");
    assert_eq!(took["op_id"], "to-chatgpt");
    assert_eq!(took["destination"]["site"], "chatgpt");
}

const NEW_CHAT_TEXT: &str = "Plan a two-day walk along the Rhine.\nKeep it short.";

fn now_s() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn max_two(profile: &std::path::Path) {
    let config = json!({ "max_in_flight": 2 }).to_string();
    std::fs::write(profile.join("config.json"), config).unwrap();
}

/// A claude send to a new chat, granted to a claude tab, whose completion stream is the
/// limit fixture with its reset an hour ahead: the claude gate closes.
fn claude_capped(serve: &Serve, ext: &Extension) -> String {
    let q = queue(
        serve,
        json!({ "op_id": "capped", "text": NEW_CHAT_TEXT, "site": "claude" }),
    );
    assert_eq!(q.status, 201, "{}", q.body);
    let lease = lease_on(ext, "tab-c", "claude", None);
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "capped");
    assert_eq!(ext.dispatch(&lease, "capped").body["granted"], true);
    observe_ok(
        ext,
        json!({ "lease_id": lease, "op_id": "capped", "kind": "request", "stream_id": "l1",
                "url": completion_url(), "body": fixture("request_new_chat.json"), "status": 200 }),
    );
    let ahead = (now_s() + 3600).to_string();
    let stream = fixture("stream_limit_exceeded.sse").replace("1796040000", &ahead);
    for o in [
        json!({ "lease_id": lease, "op_id": "capped", "kind": "stream_chunk", "stream_id": "l1", "seq": 0, "chunk": stream }),
        json!({ "lease_id": lease, "op_id": "capped", "kind": "stream_end", "stream_id": "l1" }),
    ] {
        observe_ok(ext, o);
    }
    lease
}

#[test]
fn a_claude_usage_limit_holds_claude_sends_while_a_chatgpt_send_is_claimed() {
    let (_tmp, profile) = profile_dir();
    max_two(&profile);
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let claude_tab = claude_capped(&serve, &ext);
    let shown = serve.client().show("capped");
    assert_eq!(
        shown["send"]["state"], "dispatched",
        "no receipt: whether it went out is not known: {shown}"
    );
    assert!(
        shown["timeline"].to_string().contains("usage limit"),
        "{shown}"
    );
    let q = queue(
        &serve,
        json!({ "op_id": "claude-2", "text": "held", "site": "claude" }),
    );
    assert_eq!(q.status, 201, "{}", q.body);
    let g = queue(&serve, json!({ "op_id": "chatgpt-1", "text": "goes" }));
    assert_eq!(g.status, 201, "{}", g.body);
    let chatgpt_tab = lease_on(&ext, "tab-g", "chatgpt", None);
    assert_eq!(
        ext.next(&chatgpt_tab, 5_000)
            .expect("chatgpt is not capped")["op_id"],
        "chatgpt-1"
    );
    ext.fail(&claude_tab, "capped", "after_dispatch", "tab closed");
    let other_claude = lease_on(&ext, "tab-c2", "claude", None);
    assert!(
        ext.next(&other_claude, 300).is_none(),
        "the claude gate holds claude sends until the reset"
    );
}

/// `show`'s waiting sentence for `op_id`.
fn waiting_of(serve: &Serve, op_id: &str) -> String {
    let shown = serve.client().show(op_id);
    shown["waiting"].as_str().unwrap_or_default().to_string()
}

#[test]
fn a_held_send_names_its_own_sites_gate_and_tab() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    claude_capped(&serve, &ext);
    let q = queue(
        &serve,
        json!({ "op_id": "claude-2", "text": "held", "site": "claude" }),
    );
    assert_eq!(q.status, 201, "{}", q.body);
    let g = queue(&serve, json!({ "op_id": "chatgpt-1", "text": "no tab" }));
    assert_eq!(g.status, 201, "{}", g.body);
    let claude = waiting_of(&serve, "claude-2");
    assert!(
        claude.starts_with("Claude usage limit: sending resumes at "),
        "{claude}"
    );
    let chatgpt = waiting_of(&serve, "chatgpt-1");
    assert!(
        !chatgpt.contains("usage limit"),
        "the capped Claude account does not hold a ChatGPT send: {chatgpt}"
    );
    assert!(
        chatgpt.starts_with("no chatgpt.com tab is leased: open chatgpt.com"),
        "{chatgpt}"
    );
}

/// The same conversation id on both sites: a ChatGPT send in flight in it, and the
/// ChatGPT tab showing it, say nothing about a Claude send to it (and the reverse below).
#[test]
fn a_send_in_flight_in_one_sites_conversation_never_holds_another_sites_send() {
    let (_tmp, profile) = profile_dir();
    max_two(&profile);
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let g = queue(
        &serve,
        json!({ "op_id": "g1", "text": "in flight", "conversation_id": CONVERSATION }),
    );
    assert_eq!(g.status, 201, "{}", g.body);
    let chatgpt_tab = lease_on(&ext, "tab-g", "chatgpt", Some(CONVERSATION));
    assert_eq!(
        ext.next(&chatgpt_tab, 5_000).expect("claimed")["op_id"],
        "g1"
    );
    let url = format!("https://claude.ai/chat/{CONVERSATION}");
    let c = queue(
        &serve,
        json!({ "op_id": "c1", "text": "goes", "conversation_id": url }),
    );
    assert_eq!(c.status, 201, "{}", c.body);
    lease_on(&ext, "tab-c", "claude", None);
    let shown = serve.client().show("c1");
    assert!(
        shown["waiting"].is_null(),
        "nothing of claude.ai holds it: {}",
        shown["waiting"]
    );
}

#[test]
fn a_tab_of_one_site_showing_a_conversation_never_keeps_another_sites_send() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    lease_on(&ext, "tab-c", "claude", Some(CONVERSATION));
    let chatgpt_tab = lease_on(&ext, "tab-g", "chatgpt", None);
    let g = queue(
        &serve,
        json!({ "op_id": "g1", "text": "goes", "conversation_id": CONVERSATION }),
    );
    assert_eq!(g.status, 201, "{}", g.body);
    let shown = serve.client().show("g1");
    assert!(
        shown["waiting"].is_null(),
        "the claude.ai tab showing that id is not its tab: {}",
        shown["waiting"]
    );
    assert_eq!(
        ext.next(&chatgpt_tab, 5_000).expect("claimed")["op_id"],
        "g1"
    );
}

/// Queues `op` of `site` with `text` (no conversation named), has a tab of that site take
/// it and be granted its click (the send awaits its receipt); returns the lease.
fn clicked_on(
    ext: &Extension,
    serve: &Serve,
    (site, tab): (&str, &str),
    op: &str,
    text: &str,
) -> String {
    let q = queue(serve, json!({ "op_id": op, "text": text, "site": site }));
    assert_eq!(q.status, 201, "{}", q.body);
    let lease = lease_on(ext, tab, site, None);
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], op);
    assert_eq!(ext.dispatch(&lease, op).body["granted"], true);
    lease
}

/// The notes on `op`'s timeline.
fn notes_of(serve: &Serve, op: &str) -> Vec<Value> {
    let shown = serve.client().show(op);
    let timeline = shown["timeline"].as_array().cloned().unwrap_or_default();
    timeline
        .into_iter()
        .filter(|e| e["kind"] == "note")
        .collect()
}

/// A conversation read a tab of one site forwards is never evidence for another site's
/// send, even one whose text the read shows (both directions).
#[test]
fn a_conversation_read_of_one_site_adds_no_evidence_to_another_sites_send() {
    let (_tmp, profile) = profile_dir();
    max_two(&profile);
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let haiku = "Draft a haiku about ledgers.\nKeep it short.";
    let chatgpt_tab = clicked_on(&ext, &serve, ("chatgpt", "tab-g"), "g1", TEXT);
    let claude_tab = clicked_on(&ext, &serve, ("claude", "tab-c"), "c1", haiku);
    let read = format!(
        "https://claude.ai/api/organizations/{ORG}/chat_conversations/{CONVERSATION}?tree=True"
    );
    observe_ok(
        &ext,
        json!({ "lease_id": claude_tab, "kind": "listing", "url": read, "body": fixture("conversation_read.json") }),
    );
    let later = format!("{:.3}", now_s() as f64 + 1.0);
    let body = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/chatgpt/listing_haiku_answered.json"),
    )
    .unwrap()
    .replace("1790000000.123", &later);
    let listed =
        "https://chatgpt.com/backend-api/conversation/6a1b2c3d-4e5f-8a01-b234-56789abcdef0";
    observe_ok(
        &ext,
        json!({ "lease_id": chatgpt_tab, "kind": "listing", "url": listed, "body": body }),
    );
    for op in ["g1", "c1"] {
        let notes = notes_of(&serve, op);
        assert!(
            notes.is_empty(),
            "another site's read is no evidence for {op}: {notes:?}"
        );
    }
}

#[test]
fn a_chatgpt_usage_limit_holds_chatgpt_sends_while_a_claude_send_is_claimed() {
    let (_tmp, profile) = profile_dir();
    max_two(&profile);
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let text = "Draft a haiku about ledgers.\nKeep it short.";
    let q = queue(&serve, json!({ "op_id": "rated", "text": text }));
    assert_eq!(q.status, 201, "{}", q.body);
    let chatgpt_tab = lease_on(&ext, "tab-g", "chatgpt", None);
    assert_eq!(
        ext.next(&chatgpt_tab, 5_000).expect("claimed")["op_id"],
        "rated"
    );
    assert_eq!(ext.dispatch(&chatgpt_tab, "rated").body["granted"], true);
    let body = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/chatgpt/request_new_chat_f.json"),
    )
    .unwrap();
    observe_ok(
        &ext,
        json!({ "lease_id": chatgpt_tab, "op_id": "rated", "kind": "request", "stream_id": "r1",
                "url": "https://chatgpt.com/backend-api/f/conversation", "body": body,
                "status": 429, "retry_after": "3600", "error_body": "{\"detail\":\"Too many requests\"}" }),
    );
    assert_eq!(serve.client().state("rated"), "page_error");
    let g = queue(&serve, json!({ "op_id": "chatgpt-2", "text": "held" }));
    assert_eq!(g.status, 201, "{}", g.body);
    assert!(
        ext.next(&chatgpt_tab, 300).is_none(),
        "the chatgpt gate holds chatgpt sends"
    );
    let c = queue(
        &serve,
        json!({ "op_id": "claude-1", "text": "goes", "site": "claude" }),
    );
    assert_eq!(c.status, 201, "{}", c.body);
    let claude_tab = lease_on(&ext, "tab-c", "claude", None);
    assert_eq!(
        ext.next(&claude_tab, 5_000).expect("claude is not capped")["op_id"],
        "claude-1"
    );
}

#[test]
fn the_cli_and_the_native_api_name_the_site_and_a_retry_is_one_send() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let args = [
        "send",
        "--site",
        "claude",
        "--id",
        "cli-1",
        "--new-chat",
        "to claude",
    ];
    let (code, first) = cli_json(&profile, &args);
    assert_eq!(code, 0, "{first}");
    let (code, again) = cli_json(&profile, &args);
    assert_eq!(code, 0, "the same id again is the same send: {again}");
    let shown = serve.client().show("cli-1");
    assert_eq!(shown["destination"]["site"], "claude", "{shown}");
    let (code, other) = cli_json(
        &profile,
        &["send", "--id", "cli-1", "--new-chat", "to claude"],
    );
    assert_ne!(
        code, 0,
        "the same id for chatgpt is a changed payload: {other}"
    );
    let body = json!({ "op_id": "api-1", "text": "hi", "site": "claude" });
    assert_eq!(queue(&serve, body.clone()).status, 201);
    assert_eq!(queue(&serve, body).status, 200, "a retry is one send");
    let rows = serve.client().get("/v1/queue");
    let pending = rows.body["pending"].as_array().expect("rows").clone();
    assert_eq!(pending.len(), 2, "one row each: {pending:?}");
    assert!(
        pending.iter().all(|r| r["site"] == "claude"),
        "each queue row names its site: {pending:?}"
    );
}

#[test]
fn the_retry_route_after_a_grant_is_never_a_send_and_is_noted_as_evidence() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = granted_claude_send(&serve, &ext, "fenced");
    let retry = completion_url().replace("/completion", "/retry_completion");
    let applied = observe_ok(
        &ext,
        json!({ "lease_id": lease, "op_id": "fenced", "kind": "request", "stream_id": "r1",
                "url": retry, "body": fixture("request_retry.json"), "status": 200 }),
    );
    assert_eq!(applied["applied"][0]["fact"], "noted", "{applied}");
    for o in [
        json!({ "lease_id": lease, "op_id": "fenced", "kind": "stream_chunk", "stream_id": "r1",
                "seq": 0, "chunk": fixture("stream_answer.sse") }),
        json!({ "lease_id": lease, "op_id": "fenced", "kind": "stream_end", "stream_id": "r1" }),
    ] {
        assert_eq!(observe_ok(&ext, o)["applied"][0]["fact"], "unknown_stream");
    }
    let shown = serve.client().show("fenced");
    assert_eq!(
        shown["send"]["state"], "dispatched",
        "a retry's stream is never this send's receipt: {shown}"
    );
    assert!(
        shown["timeline"].to_string().contains("retry_completion"),
        "{shown}"
    );
}

#[test]
fn max_in_flight_counts_the_sends_of_both_sites() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let c = queue(
        &serve,
        json!({ "op_id": "c-1", "text": "one", "site": "claude" }),
    );
    assert_eq!(c.status, 201, "{}", c.body);
    let claude_tab = lease_on(&ext, "tab-c", "claude", None);
    assert_eq!(
        ext.next(&claude_tab, 5_000).expect("claimed")["op_id"],
        "c-1"
    );
    let g = queue(&serve, json!({ "op_id": "g-1", "text": "two" }));
    assert_eq!(g.status, 201, "{}", g.body);
    let chatgpt_tab = lease_on(&ext, "tab-g", "chatgpt", None);
    assert!(
        ext.next(&chatgpt_tab, 300).is_none(),
        "max_in_flight 1: a claude send in flight holds the chatgpt one"
    );
}

/// The claude.ai tab `lease` takes the next send, is granted it (the page's one
/// completion POST) and forwards the page's completion request — a new chat, the ids
/// the page chose for the message and the answer — and its event stream
/// (`request_follow_up.json` and `stream_answer.sse`, their uuids and prompt the send's
/// own). Returns the op id and the human message uuid, or `None` when no send came.
fn take_and_answer_claude(ext: &Extension, lease: &str) -> Option<(String, String)> {
    let send = ext.next(lease, 500)?;
    let op = send["op_id"].as_str().expect("an op id").to_string();
    assert_eq!(send["destination"]["site"], "claude", "{send}");
    let grant = ext.http.post(
        "/v1/ext/dispatch",
        &json!({ "lease_id": lease, "op_id": op, "confirmed": { "conversation_id": null } }),
    );
    assert_eq!(grant.body["granted"], true, "{}", grant.body);
    let (human, assistant) = (
        uuid::Uuid::new_v4().to_string(),
        uuid::Uuid::new_v4().to_string(),
    );
    let mut request: Value = serde_json::from_str(&fixture("request_follow_up.json")).unwrap();
    request["prompt"] = send["text"].clone();
    request["parent_message_uuid"] = json!("00000000-0000-4000-8000-000000000000");
    request["create_conversation_params"] = json!({ "name": "", "model": "claude-sonnet-4-6" });
    request["turn_message_uuids"] =
        json!({ "human_message_uuid": human, "assistant_message_uuid": assistant });
    let url = completion_url().replace(CONVERSATION, &uuid::Uuid::new_v4().to_string());
    let stream = fixture("stream_answer.sse")
        .replace(ASSISTANT, &assistant)
        .replace(HUMAN, &human);
    let stream_id = format!("s-{op}");
    observe_ok(
        ext,
        json!({ "lease_id": lease, "op_id": op, "kind": "request", "stream_id": stream_id,
                "url": url, "body": request.to_string(), "status": 200 }),
    );
    observe_ok(
        ext,
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_chunk", "stream_id": stream_id,
                "seq": 0, "chunk": stream }),
    );
    Some((op, human))
}

#[test]
fn a_claude_send_retried_after_a_killed_connection_or_by_its_cli_id_is_one_send_and_one_completion_post(
) {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    // The native API: the client writes its request and kills the connection before the
    // answer, then retries the same body.
    let body = json!({ "op_id": "api-cut", "text": "hi from the API", "site": "claude" });
    let head = format!(
        "POST /v1/sends HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json",
        serve.address(),
        serve.client_token()
    );
    {
        use std::io::Write;
        let mut cut = std::net::TcpStream::connect(serve.address()).expect("connect");
        let bytes = body.to_string();
        let request = format!("{head}\r\nContent-Length: {}\r\n\r\n{bytes}", bytes.len());
        cut.write_all(request.as_bytes())
            .expect("the request is written");
    } // dropped: the answer is never read
    let again = queue(&serve, body);
    assert!(
        [200, 201].contains(&again.status),
        "the retry is the send, whether or not the cut request was taken: {}",
        again.body
    );
    // The CLI: the retry a lost answer asks for, `--id` with the same id.
    let args = [
        "send",
        "--site",
        "claude",
        "--id",
        "cli-again",
        "--new-chat",
        "hi from the CLI",
    ];
    for _ in 0..2 {
        let (code, said) = cli_json(&profile, &args);
        assert_eq!(code, 0, "{said}");
    }
    let ext = serve.pair();
    let lease = lease_on(&ext, "tab-c", "claude", None);
    let mut taken = Vec::new();
    while let Some(t) = take_and_answer_claude(&ext, &lease) {
        taken.push(t);
        assert!(
            taken.len() <= 2,
            "a retry was taken for a new send: {taken:?}"
        );
    }
    let ops: Vec<&str> = taken.iter().map(|(op, _)| op.as_str()).collect();
    assert_eq!(ops, ["api-cut", "cli-again"], "one completion POST each");
    let listed = serve.client().get("/v1/sends?limit=100").body;
    assert_eq!(
        listed["sends"].as_array().map(Vec::len),
        Some(2),
        "two sends in the ledger: {listed}"
    );
    for (op, human) in &taken {
        let shown = serve.client().show(op);
        assert_eq!(shown["destination"]["site"], "claude", "{shown}");
        assert_eq!(shown["send"]["state"], "completed", "{shown}");
        assert_eq!(
            shown["send"]["receipt"]["user_message_id"],
            human.as_str(),
            "the page-chosen id"
        );
    }
}
