//! What a person at the command line can rely on: a lost answer never turns into a second
//! send, no message text outside the ledger, and one meaning per id whichever way a
//! command goes (through the live owner or straight into the ledger).

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use std::process::Command;

fn run(profile: &std::path::Path, env: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    let out = Command::new(binary())
        .arg("--profile")
        .arg(profile)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("the CLI runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_send_whose_answer_is_lost_names_its_id_and_a_retry_with_it_never_queues_twice() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    serve.signal(libc::SIGSTOP);
    let (code, _, err) = run(
        &profile,
        &[("SENDLEDGER_CLIENT_TIMEOUT_MS", "500")],
        &["send", "Said once, whatever the network does."],
    );
    serve.signal(libc::SIGCONT);
    assert_eq!(code, 5, "the owner did not answer: {err}");
    let id = retry_id(&err);
    let (code, out, err) = run(
        &profile,
        &[],
        &["send", "--id", &id, "Said once, whatever the network does."],
    );
    assert_eq!(code, 0, "{err}");
    // Whichever of the stuck request and the retry the owner takes first, the other is
    // the same operation.
    assert!(out.contains(&id), "{out}");
    let sends = serve.client().get("/v1/sends").body;
    let same: Vec<_> = sends["sends"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["text"] == "Said once, whatever the network does.")
        .collect();
    assert_eq!(
        same.len(),
        1,
        "the retry is the same operation, not a second send"
    );
    assert_eq!(same[0]["op_id"], id.as_str());
}

#[test]
fn a_claude_send_whose_answer_is_lost_is_retried_with_its_id_into_one_claude_send() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let text = "Into claude.ai once, whatever the network does.";
    serve.signal(libc::SIGSTOP);
    let (code, _, err) = run(
        &profile,
        &[("SENDLEDGER_CLIENT_TIMEOUT_MS", "500")],
        &["send", "--site", "claude", "--new-chat", text],
    );
    serve.signal(libc::SIGCONT);
    assert_eq!(code, 5, "the owner did not answer: {err}");
    let id = retry_id(&err);
    let (code, out, err) = run(
        &profile,
        &[],
        &["send", "--site", "claude", "--new-chat", "--id", &id, text],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&id), "{out}");
    let sends = serve.client().get("/v1/sends").body;
    let ops: Vec<&str> = sends["sends"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["op_id"].as_str())
        .collect();
    assert_eq!(
        ops,
        [id.as_str()],
        "the retry is the same operation, not a second send"
    );
    let shown = serve.client().show(&id);
    assert_eq!(shown["destination"]["site"], "claude", "{shown}");
    let ext = serve.pair();
    let lease = ext.http.post(
        "/v1/ext/lease",
        &serde_json::json!({ "tab_id": "tab-c", "site": "claude" }),
    );
    let lease = lease.body["lease_id"]
        .as_str()
        .expect("a lease")
        .to_string();
    assert_eq!(
        ext.next(&lease, 2_000).expect("the claude tab takes it")["op_id"],
        id.as_str()
    );
}

#[test]
fn the_owner_lock_never_holds_a_message_text() {
    let (_tmp, profile) = profile_dir();
    // With no owner the send is refused; a command that takes the owner lock runs after it.
    let (code, _, err) = run(&profile, &[], &["send", "SECRET-TEXT-4711"]);
    assert_eq!(code, 6, "{err}");
    let (code, _, err) = run(&profile, &[], &["stop", "--by", "SECRET-TEXT-4711"]);
    assert_eq!(code, 0, "{err}");
    let lock = std::fs::read_to_string(profile.join("owner.lock")).unwrap();
    assert!(!lock.contains("SECRET"), "owner.lock holds: {lock}");
    let (code, _, err) = run(&profile, &[], &["resume", "--by", "alice"]);
    assert_eq!(code, 0, "{err}");
    let serve = Serve::start(&profile, &[]);
    let (code, _, err) = run(&profile, &[], &["send", "SECRET-TEXT-4711"]);
    assert_eq!(code, 0, "{err}");
    let status = serve.client().get("/v1/status").body;
    assert!(!status.to_string().contains("SECRET"));
}

#[test]
fn a_tool_call_id_means_the_same_through_the_owner_as_directly() {
    let (_tmp, profile) = profile_dir();
    let _serve = Serve::start(&profile, &[]);
    for id in ["a/b", "%41", "x?y", "c#d"] {
        let (code, out, err) = run(&profile, &[], &["tool", "admit", id]);
        assert_eq!(code, 0, "admit {id}: {out}{err}");
        assert!(out.contains("admitted"), "admit {id}: {out}");
    }
    let (code, _, err) = run(&profile, &[], &["tool", "start", "%41"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&profile, &[], &["tool", "start", "A"]);
    assert_eq!(code, 1, "`A` is another call id than `%41`: {err}");
    assert!(err.contains("unknown tool call"), "{err}");
}

#[test]
fn a_text_over_the_limit_on_stdin_is_refused_as_too_long_not_as_an_unreachable_owner() {
    use std::io::Write;
    let (_tmp, profile) = profile_dir();
    let _serve = Serve::start(&profile, &[]);
    // 5 MB: the owner would cut the body off mid-write, which read as "could not be
    // reached … may or may not have been recorded".
    let mut child = Command::new(binary())
        .arg("--profile")
        .arg(&profile)
        .args(["send", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the CLI runs");
    let mut stdin = child.stdin.take().expect("its stdin");
    let _ = stdin.write_all(&vec![b'a'; 5_000_000]);
    drop(stdin);
    let out = child.wait_with_output().expect("it ends");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("the text is 5000000 bytes, over the limit of 65536 bytes"),
        "{said}"
    );
    assert!(!said.contains("may or may not"), "{said}");
    let (_, listed, _) = run(&profile, &[], &["--json", "list"]);
    assert!(
        listed.contains("\"sends\":[]"),
        "nothing was queued: {listed}"
    );
}

/// The operation id a lost send's message names to retry with (`retry with `--id ID``).
fn retry_id(err: &str) -> String {
    err.split("retry with `--id ")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap_or_else(|| panic!("the message names the operation id to retry with: {err}"))
        .to_string()
}
