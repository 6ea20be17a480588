//! A model downgrade is not a failure (issue 27, page states), over the real loopback
//! bridge: the page's request named the model the send asked for, the answer came from
//! another model (the account's limit for that model) — the send completes, once, with the
//! downgrade noted on its timeline and the `destination_mismatch` note a send naming a
//! model carries. Recognised by the model slugs, not by the notice's words.

#[path = "support/bridge.rs"]
mod harness;
#[path = "support/page_traffic.rs"]
mod page_traffic;

use harness::*;
use page_traffic::{fixture, TEXT, URL};
use serde_json::{json, Value};

/// Sends `op` into a new chat naming `asked` (`None`: no model), the page's request naming
/// `requested`, answered by the fixture's gpt-5-2; returns the completed send's view.
fn answered_by_another(serve: &Serve, op: &str, asked: Option<&str>, requested: &str) -> Value {
    answered_by(
        serve,
        op,
        (asked, requested),
        &fixture("stream_delta_new_chat.sse"),
    )
}

/// The send `op` (asking `asked`), the page's request naming `requested`, and `stream` as
/// its answer.
fn answered_by(
    serve: &Serve,
    op: &str,
    (asked, requested): (Option<&str>, &str),
    stream: &str,
) -> Value {
    let (client, ext) = (serve.client(), serve.pair());
    let mut send = json!({ "op_id": op, "text": TEXT, "new_chat": true });
    if let Some(m) = asked {
        send["model"] = json!(m);
    }
    let r = client.post("/v1/sends", &send);
    assert_eq!(r.status, 201, "{}", r.body);
    let lease = ext.lease("tab-1");
    ext.next(&lease, 5_000).expect("handed out");
    let confirmed = json!({ "conversation_id": null, "model": asked });
    let r = ext.http.post(
        "/v1/ext/dispatch",
        &json!({ "lease_id": lease, "op_id": op, "confirmed": confirmed }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let request = fixture("request_new_chat_f.json").replace(
        "\"model\": \"auto\"",
        &format!("\"model\": \"{requested}\""),
    );
    for o in [
        json!({ "lease_id": lease, "op_id": op, "kind": "request", "stream_id": "s1",
                "url": URL, "body": request, "status": 200 }),
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_chunk", "stream_id": "s1",
                "seq": 0, "chunk": stream }),
        json!({ "lease_id": lease, "op_id": op, "kind": "stream_end", "stream_id": "s1" }),
    ] {
        let a = ext.observe(&o);
        assert_eq!(a.status, 200, "{}", a.body);
    }
    let view = client.show(op);
    assert_eq!(view["send"]["state"], "completed", "not a failure: {view}");
    view
}

fn notes(view: &Value, prefix: &str) -> Vec<String> {
    view["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["evidence"].as_str())
        .filter(|s| s.starts_with(prefix))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_model_downgrade_completes_the_send_notes_it_and_a_send_naming_the_model_carries_the_mismatch()
{
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let view = answered_by_another(
        &serve,
        "named",
        Some("gpt-5-2-thinking"),
        "gpt-5-2-thinking",
    );
    assert_eq!(
        notes(&view, "model downgrade"),
        ["model downgrade: the page's request asked for model gpt-5-2-thinking; the answer came from gpt-5-2"]
    );
    assert_eq!(
        notes(&view, "destination_mismatch"),
        ["destination_mismatch: the page answered with model gpt-5-2; the send asked for gpt-5-2-thinking (sent once; never resent)"]
    );
    assert_eq!(
        view["page_destination"]["mismatch"],
        Value::Null,
        "the request itself was right"
    );
    let dispatches = events_of(&profile, "named")
        .into_iter()
        .filter(|(_, to, _)| to == "dispatched")
        .count();
    assert_eq!(dispatches, 1, "never resent");
}

#[test]
fn a_downgrade_of_a_send_naming_no_model_is_noted_without_a_mismatch() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let view = answered_by_another(&serve, "unnamed", None, "gpt-5-2-thinking");
    assert_eq!(notes(&view, "model downgrade").len(), 1, "{view}");
    assert!(notes(&view, "destination_mismatch").is_empty(), "{view}");
}

#[test]
fn an_answer_to_a_request_for_auto_is_no_downgrade() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let view = answered_by_another(&serve, "auto", None, "auto");
    assert!(notes(&view, "model downgrade").is_empty(), "{view}");
}

/// Issue 35: the page's dated variant of the model asked is that model — no mismatch, no
/// downgrade (`provider::chatgpt::models::RESOLUTIONS`); another model still is one.
#[test]
fn an_answer_from_a_listed_resolution_of_the_model_asked_is_no_mismatch() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let dated = fixture("stream_delta_new_chat.sse").replace(
        "\"model_slug\": \"gpt-5-2\"",
        "\"model_slug\": \"gpt-5-2-2026-01-15\"",
    );
    let view = answered_by(&serve, "dated", (Some("gpt-5-2"), "gpt-5-2"), &dated);
    assert!(notes(&view, "destination_mismatch").is_empty(), "{view}");
    assert!(notes(&view, "model downgrade").is_empty(), "{view}");
    let other = dated.replace("gpt-5-2-2026-01-15", "gpt-5-2-mini");
    let (_tmp2, profile2) = profile_dir();
    let serve2 = Serve::start(&profile2, &[]);
    let view = answered_by(&serve2, "other", (Some("gpt-5-2"), "gpt-5-2"), &other);
    assert_eq!(notes(&view, "destination_mismatch").len(), 1, "{view}");
}
