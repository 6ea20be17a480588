//! `sendledger show` and `status` name the site of each send (issue 36): `show` has a
//! `site` line for every send, `status` counts the pending sends per site and says which
//! site's sends wait and which go on. Against a real owner over loopback, an extension
//! imitated over HTTP.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::json;

fn text_of(profile: &std::path::Path, args: &[&str]) -> String {
    let out = cli(profile, args);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{args:?}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// A ChatGPT tab leased and one send queued for each site (neither taken yet).
fn one_send_per_site(serve: &Serve) {
    let ext = serve.pair();
    let lease = ext.http.post(
        "/v1/ext/lease",
        &json!({ "tab_id": "tab-g", "site": "chatgpt" }),
    );
    assert_eq!(lease.status, 200, "{}", lease.body);
    for (op, site) in [("g1", "chatgpt"), ("c1", "claude")] {
        let q = serve.client().post(
            "/v1/sends",
            &json!({ "op_id": op, "text": format!("text of {op}"), "site": site }),
        );
        assert_eq!(q.status, 201, "{}", q.body);
    }
}

#[test]
fn show_names_the_site_of_every_send() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    one_send_per_site(&serve);
    let claude = text_of(&profile, &["show", "c1"]);
    assert!(
        claude.contains("\nsite       Claude (claude.ai)\n"),
        "{claude}"
    );
    let chatgpt = text_of(&profile, &["show", "g1"]);
    assert!(
        chatgpt.contains("\nsite       ChatGPT (chatgpt.com)\n"),
        "{chatgpt}"
    );
}

#[test]
fn status_counts_pending_sends_per_site_and_names_the_site_that_waits() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    one_send_per_site(&serve);
    let status = text_of(&profile, &["status"]);
    assert!(
        status.contains("\npending    chatgpt 1, claude 1"),
        "{status}"
    );
    let waiting = status
        .lines()
        .find(|l| l.starts_with("waiting "))
        .unwrap_or_else(|| panic!("a waiting line: {status}"));
    assert!(
        waiting.contains("no claude.ai tab for the Claude sends waiting")
            && waiting.ends_with("; ChatGPT sends go on"),
        "{waiting}"
    );
    let (code, json) = cli_json(&profile, &["status"]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(
        json["status"]["pending_by_site"],
        json!({ "chatgpt": 1, "claude": 1 })
    );
}
