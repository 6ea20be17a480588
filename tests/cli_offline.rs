//! No doomed sends (issue 11): with no owner running, `sendledger send` (and `requeue`,
//! `resolve --resend`) refuses with a sentence and exit code 6 and writes nothing, while
//! the commands that cannot doom a send keep working without an owner.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use sha2::{Digest, Sha256};
use std::path::Path;

fn run(profile: &Path, args: &[&str]) -> (i32, String, String) {
    let out = cli(profile, args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// SHA-256 of every file in the profile (name → digest): equal means nothing was written.
fn files(profile: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(profile)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| {
            let bytes = std::fs::read(e.path()).unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                format!("{:x}", Sha256::digest(&bytes)),
            )
        })
        .collect();
    out.sort();
    out
}

fn assert_refused_offline(code: i32, err: &str) {
    assert_eq!(code, 6, "no owner: the distinct exit code; {err}");
    assert!(
        err.contains("no owner is running")
            && err.contains("sendledger serve")
            && err.contains("nothing was written"),
        "a sentence that says what to do: {err}"
    );
}

#[test]
fn with_no_owner_send_refuses_with_exit_6_and_writes_nothing() {
    let (_tmp, profile) = profile_dir();
    let (code, _, err) = run(&profile, &["send", "hi"]);
    assert_refused_offline(code, &err);
    assert!(
        !ledger_file(&profile).exists(),
        "not even a ledger was created"
    );

    // A profile with history: an owner ran, queued, claimed, then died.
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    serve
        .client()
        .queue("op-claimed", "in flight when the owner died");
    ext.next(&lease, 5_000).expect("claimed");
    serve.kill();
    let before = files(&profile);
    for args in [
        &["send", "hi"][..],
        &[
            "send",
            "--id",
            "op-claimed",
            "in flight when the owner died",
        ],
        &["--json", "send", "hi"],
    ] {
        let (code, out, err) = run(&profile, args);
        let err = if args[0] == "--json" { out } else { err };
        assert_refused_offline(code, &err);
        assert_eq!(files(&profile), before, "{args:?} wrote nothing");
    }
}

#[test]
fn without_an_owner_stop_resolve_list_show_status_and_doctor_keep_working() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    serve
        .client()
        .queue("op-claimed", "in flight when the owner died");
    ext.next(&lease, 5_000).expect("claimed");
    serve
        .client()
        .queue("op-queued", "queued when the owner died");
    serve.kill();
    for args in [
        &["list"][..],
        &["show", "op-claimed"],
        &["status"],
        &["doctor"],
        &["resolve", "op-claimed", "--abandoned", "--by", "alice"],
        &["stop", "--by", "alice"],
        &["resume", "--by", "alice"],
    ] {
        let (code, out, err) = run(&profile, args);
        assert_eq!(code, 0, "{args:?}: {out}{err}");
    }
    let (code, v) = cli_json(&profile, &["show", "op-claimed"]);
    assert_eq!((code, v["send"]["state"].as_str()), (0, Some("abandoned")));
    // What would admit a new send is refused like `send`.
    let before = files(&profile);
    let (code, _, err) = run(&profile, &["requeue", "op-queued", "--by", "alice"]);
    assert_refused_offline(code, &err);
    assert_eq!(files(&profile), before);
}

/// With no owner nothing is being sent (the next owner rejects what is queued), so a
/// withdrawal is refused before the ledger is opened — recovery would otherwise reject the
/// send and the refusal would read as a custody error. And a decision on a profile with
/// no ledger (a mistyped --profile) says so instead of making an empty one.
#[test]
fn with_no_owner_withdraw_is_refused_and_a_decision_on_no_ledger_makes_none() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    serve.client().queue("op-q", "queued when the owner died");
    serve.kill();
    let before = files(&profile);
    let (code, _, err) = run(&profile, &["withdraw", "op-q", "--by", "alice"]);
    assert_eq!(code, 6, "{err}");
    assert!(
        err.contains("no owner is running for this profile, so nothing is being sent")
            && err.contains("nothing was written"),
        "{err}"
    );
    assert_eq!(files(&profile), before, "not even recovery ran");

    let mistyped = profile.with_file_name("no-such-profile");
    for args in [
        &["resolve", "op-q", "--abandoned", "--by", "alice"][..],
        &["resume", "--by", "alice"],
        &["withdraw", "op-q"],
    ] {
        let (code, _, err) = run(&mistyped, args);
        assert_ne!(code, 0, "{args:?}");
        assert!(
            !ledger_file(&mistyped).exists(),
            "{args:?} made a ledger at a mistyped profile: {err}"
        );
    }
    let (code, _, err) = run(
        &mistyped,
        &["resolve", "op-q", "--abandoned", "--by", "alice"],
    );
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains("no ledger at") && err.contains("check the --profile path"),
        "{err}"
    );
}

/// With no owner and sends queued, `status` names the missing owner as why nothing goes
/// out (not the browser tab), and what a starting owner does with them.
#[test]
fn status_with_no_owner_and_sends_queued_says_the_owner_is_why_nothing_goes_out() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    serve
        .client()
        .queue("op-queued", "queued when the owner died");
    serve.kill();
    let (code, out, err) = run(&profile, &["status"]);
    assert_eq!(code, 0, "{out}{err}");
    let waiting = out
        .lines()
        .find(|l| l.starts_with("waiting"))
        .unwrap_or_default();
    assert!(
        waiting.contains("no owner is running") && waiting.contains("sendledger serve"),
        "the owner, not a tab, is why nothing goes out: {out}"
    );
    assert!(
        !waiting.contains("tab is leased"),
        "a tab is not the cause: {out}"
    );
}
