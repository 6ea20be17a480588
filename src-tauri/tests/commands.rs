//! The window's commands through Tauri's IPC on the mock runtime (no display, no D-Bus),
//! with the app's real capabilities and a real owner (SQLite file, loopback bridge) on a
//! temporary profile.

use sendledger::clock::ManualClock;
use sendledger::ledger::LedgerRead;
use sendledger::ledger::{Bounds, Ledger, LedgerReader, QueueRequest, SendState, TabBinding};
use sendledger::owner::{Owner, OwnerConfig};
use sendledger::profile::Profile;
use sendledger_app::commands;
use sendledger_app::desk::Desk;
use sendledger_app::json::{Section, Update};
use sendledger_app::live;
use serde_json::{json, Value};
use std::sync::{mpsc, Arc};
use std::time::Duration;
use tauri::ipc::{CallbackFn, Channel, InvokeBody, InvokeResponseBody};
use tauri::test::{get_ipc_response, mock_builder, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{App, Manager, WebviewUrl, WebviewWindow, WebviewWindowBuilder};

const WHO: &str = "os-user";
/// Upper bound for waiting on a pushed update (a bound, not a sleep).
const PUSH_BOUND: Duration = Duration::from_secs(10);

struct Harness {
    _dir: tempfile::TempDir,
    profile: Profile,
    /// The profile's owner, as the tray process runs it; the window reaches it over the
    /// loopback bridge.
    owner: Owner,
    desk: Arc<Desk>,
    app: App<MockRuntime>,
    clock: ManualClock,
}

impl Harness {
    fn new() -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let profile = Profile::at(dir.path().join("profile")).unwrap();
        let clock = ManualClock::new(1_764_500_000_000);
        let cfg = OwnerConfig {
            profile: profile.clone(),
            port: Some(0),
            bounds: Bounds::default(),
            clock: Arc::new(clock.clone()),
        };
        let owner = tauri::async_runtime::block_on(Owner::start(cfg)).unwrap();
        let desk = Arc::new(Desk::reach(profile.clone(), WHO.into()).unwrap());
        let app = mock_builder()
            .invoke_handler(commands::handler())
            .build(tauri::generate_context!())
            .expect("the mock app builds with the real config and capabilities");
        app.manage(desk.clone());
        Harness {
            _dir: dir,
            profile,
            owner,
            desk,
            app,
            clock,
        }
    }

    fn window(&self, label: &str) -> WebviewWindow<MockRuntime> {
        WebviewWindowBuilder::new(&self.app, label, WebviewUrl::default())
            .build()
            .unwrap()
    }

    fn queue_window(&self) -> WebviewWindow<MockRuntime> {
        self.window("queue")
    }

    /// Runs `f` on the owner's ledger (what the bridge does for the extension and the CLI).
    fn ledger<T: Send + 'static>(&self, f: impl FnOnce(&mut Ledger) -> T + Send + 'static) -> T {
        tauri::async_runtime::block_on(self.owner.api().writer_for_tests().call(f))
    }

    fn queue(&self, op_id: &str, text: &str) {
        let (op, text) = (op_id.to_string(), text.to_string());
        self.ledger(move |l| {
            l.queue(
                &QueueRequest {
                    op_id: Some(op),
                    text,
                    conversation_id: Some("conv-1".into()),
                    ..Default::default()
                },
                "cli",
            )
            .unwrap()
        });
    }

    /// Queues, claims, dispatches and fails after dispatch: uncertain.
    fn uncertain(&self, op_id: &str, text: &str) {
        self.queue(op_id, text);
        let op = op_id.to_string();
        self.ledger(move |l| {
            let lease = l
                .lease(&TabBinding {
                    tab_id: "7".into(),
                    conversation_id: Some("conv-1".into()),
                    ..Default::default()
                })
                .unwrap();
            let claimed = l
                .claim_next(&lease.lease_id)
                .unwrap()
                .expect("a send to claim");
            assert_eq!(claimed.op_id, op, "the only queued send is claimed");
            // The tab confirms it shows the send's conversation, as the extension does.
            let shown = sendledger::destination::Confirmation {
                conversation_id: Some("conv-1".into()),
                ..Default::default()
            };
            let granted = l
                .dispatch_confirmed(&op, &lease.lease_id, Some(&shown))
                .unwrap();
            assert!(
                matches!(granted, sendledger::ledger::Grant::Granted(_)),
                "the tab shows the send's conversation: {granted:?}"
            );
            l.fail(
                &op,
                "the page stopped answering after the click",
                "extension",
            )
            .unwrap();
            l.end_lease(&lease.lease_id, "test").unwrap();
        });
    }

    fn reader(&self) -> LedgerReader {
        LedgerReader::open(&self.profile).unwrap()
    }
}

fn invoke(w: &WebviewWindow<MockRuntime>, cmd: &str, body: Value) -> Result<Value, Value> {
    let req = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(body),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(w, req).map(|b| match b {
        InvokeResponseBody::Json(s) => serde_json::from_str(&s).unwrap(),
        InvokeResponseBody::Raw(r) => serde_json::from_slice(&r).unwrap(),
    })
}

fn ops(rows: &Value) -> Vec<String> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| r["op_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn snapshot_sorts_sends_into_pending_uncertain_stopped_and_history() {
    let h = Harness::new();
    h.uncertain("u-1", "was it sent?");
    h.queue("q-1", "first queued");
    h.queue("q-2", "second queued");
    let w = h.queue_window();
    let snap = invoke(&w, "snapshot", json!({})).unwrap();
    assert_eq!(
        ops(&snap["pending"]),
        ["q-1", "q-2"],
        "pending reads oldest first"
    );
    assert_eq!(ops(&snap["uncertain"]), ["u-1"]);
    assert_eq!(snap["who"], WHO, "the OS user is the default who");
    let u = &snap["uncertain"][0];
    assert_eq!(u["actions"], json!(["confirm", "abandon", "resend"]));
    assert_eq!(u["conversation"], "conv-1");
    assert_eq!(u["preview"], "was it sent?");
    let steps: Vec<&str> = u["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["to"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["queued", "claimed", "dispatched", "uncertain"]);
    assert_eq!(snap["status"]["uncertain"], 1);
    assert_eq!(snap["status"]["pending"], 2);

    invoke(&w, "stop", json!({})).unwrap();
    let snap = invoke(&w, "snapshot", json!({})).unwrap();
    assert!(
        snap["pending"].as_array().unwrap().is_empty(),
        "Stop empties Pending"
    );
    assert_eq!(
        ops(&snap["stopped"]),
        ["q-2", "q-1"],
        "stopped reads newest first"
    );
    assert_eq!(snap["stopped"][0]["actions"], json!(["queue_again"]));
    assert_eq!(snap["status"]["stopped"], 2);
}

#[test]
fn stop_command_closes_the_gate_before_it_answers() {
    let h = Harness::new();
    h.queue("q-1", "not yet clicked");
    let w = h.queue_window();
    let status = invoke(&w, "stop", json!({})).unwrap();
    assert_eq!(status["gate_closed"], true);
    // A separate read-only connection sees the commit: it happened before the answer.
    let r = h.reader();
    assert!(
        r.status().unwrap().gate_closed,
        "the gate is closed on disk"
    );
    let q = r.get("q-1").unwrap().unwrap();
    assert_eq!(q.state, SendState::Stopped);
    assert_eq!(
        q.actor, WHO,
        "Stop from the window is recorded as the OS user"
    );
    let refused = h.ledger(|l| {
        l.queue(
            &QueueRequest {
                op_id: Some("after-stop".into()),
                text: "must not be admitted".into(),
                conversation_id: None,
                ..Default::default()
            },
            "cli",
        )
    });
    assert!(refused.is_err(), "nothing is admitted after Stop");

    let status = invoke(&w, "resume", json!({"by": "alice"})).unwrap();
    assert_eq!(status["gate_closed"], false, "a person resumed");
    assert!(!h.reader().status().unwrap().gate_closed);
}

#[test]
fn confirm_records_who_and_evidence() {
    let h = Harness::new();
    h.uncertain("u-1", "hello");
    let w = h.queue_window();
    let rows = invoke(
        &w,
        "resolve",
        json!({"op_id": "u-1", "decision": "confirmed", "by": "alice", "evidence": "I see it in the chat at 10:02"}),
    )
    .unwrap();
    assert_eq!(rows[0]["state"], "confirmed");
    assert_eq!(rows[0]["section"], "history");
    let last = h.reader().timeline("u-1").unwrap().pop().unwrap();
    assert_eq!(last.to, SendState::Confirmed);
    assert_eq!(last.actor, "alice");
    assert_eq!(
        last.evidence.as_deref(),
        Some("I see it in the chat at 10:02")
    );
}

#[test]
fn abandon_records_who_defaulting_to_the_os_user_and_evidence() {
    let h = Harness::new();
    h.uncertain("u-1", "hello");
    let w = h.queue_window();
    invoke(
        &w,
        "resolve",
        json!({"op_id": "u-1", "decision": "abandoned", "by": "  ", "evidence": "not in the chat"}),
    )
    .unwrap();
    let last = h.reader().timeline("u-1").unwrap().pop().unwrap();
    assert_eq!(last.to, SendState::Abandoned);
    assert_eq!(last.actor, WHO, "an empty who falls back to the OS user");
    assert_eq!(last.evidence.as_deref(), Some("not in the chat"));
}

#[test]
fn resend_abandons_and_queues_a_new_linked_operation() {
    let h = Harness::new();
    h.uncertain("u-1", "hello again");
    let w = h.queue_window();
    let rows = invoke(
        &w,
        "resolve",
        json!({"op_id": "u-1", "decision": "resend", "by": "bob", "evidence": "no such message in the chat"}),
    )
    .unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2, "the old row and the new operation");
    let old = rows.iter().find(|r| r["op_id"] == "u-1").unwrap();
    let new = rows.iter().find(|r| r["op_id"] != "u-1").unwrap();
    assert_eq!(old["state"], "abandoned");
    assert_eq!(new["state"], "queued");
    assert_eq!(new["resend_of"], "u-1");
    assert_eq!(old["queued_again_as"], new["op_id"]);
    let r = h.reader();
    let last = r.timeline("u-1").unwrap().pop().unwrap();
    assert_eq!(last.actor, "bob");
    assert!(last
        .evidence
        .unwrap()
        .contains("no such message in the chat"));
    let new_send = r.get(new["op_id"].as_str().unwrap()).unwrap().unwrap();
    assert_eq!(
        new_send.text, "hello again",
        "the same text, as a new operation"
    );
    assert_eq!(new_send.actor, "bob");
}

#[test]
fn a_decision_without_evidence_is_refused_and_changes_nothing() {
    let h = Harness::new();
    h.uncertain("u-1", "hello");
    let w = h.queue_window();
    let err = invoke(
        &w,
        "resolve",
        json!({"op_id": "u-1", "decision": "confirmed", "by": "alice", "evidence": "   "}),
    )
    .unwrap_err();
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("evidence is required"),
        "the refusal says what is missing: {err}"
    );
    assert_eq!(
        h.reader().get("u-1").unwrap().unwrap().state,
        SendState::Uncertain
    );
}

#[test]
fn a_decision_on_a_send_that_is_not_uncertain_is_refused() {
    let h = Harness::new();
    h.queue("q-1", "queued only");
    let w = h.queue_window();
    let err = invoke(
        &w,
        "resolve",
        json!({"op_id": "q-1", "decision": "confirmed", "by": "alice", "evidence": "seen"}),
    )
    .unwrap_err();
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("cannot be resolved"),
        "{err}"
    );
    assert_eq!(
        h.reader().get("q-1").unwrap().unwrap().state,
        SendState::Queued
    );
}

#[test]
fn a_refusal_reaches_the_window_with_the_owners_code() {
    // The window tells refusals apart by code, never by the sentence (issue 23).
    let h = Harness::new();
    h.queue("q-1", "queued only");
    let w = h.queue_window();
    let err = invoke(
        &w,
        "resolve",
        json!({"op_id": "q-1", "decision": "confirmed", "by": "alice", "evidence": "seen"}),
    )
    .unwrap_err();
    assert_eq!(err["code"], "wrong_state", "{err}");
    let err = invoke(
        &w,
        "resolve",
        json!({"op_id": "no-such", "decision": "confirmed", "by": "alice", "evidence": "seen"}),
    )
    .unwrap_err();
    assert_eq!(err["code"], "unknown_send", "{err}");
}

#[test]
fn queue_again_is_a_persons_decision_made_once() {
    let h = Harness::new();
    h.queue("q-1", "stop me");
    let w = h.queue_window();
    invoke(&w, "stop", json!({})).unwrap();
    invoke(&w, "resume", json!({})).unwrap();
    let snap = invoke(&w, "snapshot", json!({})).unwrap();
    assert!(
        snap["pending"].as_array().unwrap().is_empty(),
        "resuming queues nothing again by itself"
    );
    let first = invoke(&w, "requeue", json!({"op_id": "q-1", "by": "carol"})).unwrap();
    let again = invoke(&w, "requeue", json!({"op_id": "q-1", "by": "carol"})).unwrap();
    let new_of = |rows: &Value| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["op_id"] != "q-1")
            .unwrap()["op_id"]
            .clone()
    };
    assert_eq!(new_of(&first), new_of(&again), "asking twice queues once");
    let old = first
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["op_id"] == "q-1")
        .unwrap();
    assert_eq!(
        old["actions"],
        json!([]),
        "a row queued again offers nothing more"
    );
    let snap = invoke(&w, "snapshot", json!({})).unwrap();
    assert_eq!(snap["pending"].as_array().unwrap().len(), 1);
    assert_eq!(
        snap["status"]["stopped"], 0,
        "a stopped send queued again is not counted"
    );
}

/// The window reaches every stopped send: the snapshot holds the newest 200 and says where
/// `stopped_page` goes on, and its counts say all of them.
#[test]
fn the_stopped_page_command_reads_the_stopped_sends_the_snapshot_does_not_hold() {
    let h = Harness::new();
    for i in 0..202 {
        h.queue(&format!("s-{i:03}"), "stop me");
    }
    let w = h.queue_window();
    invoke(&w, "stop", json!({})).unwrap();
    let snap = invoke(&w, "snapshot", json!({})).unwrap();
    assert_eq!(snap["stopped"].as_array().unwrap().len(), 200);
    assert_eq!(
        snap["status"]["stopped_total"], 202,
        "every stopped send counted"
    );
    assert_eq!(snap["status"]["stopped"], 202);
    let page = invoke(&w, "stopped_page", json!({"before": snap["stopped_next"]})).unwrap();
    assert_eq!(
        ops(&page["rows"]),
        ["s-001", "s-000"],
        "the older ones, newest first"
    );
    assert!(page["next"].is_null(), "nothing older");
}

#[test]
fn the_window_may_call_only_the_apps_own_commands() {
    let h = Harness::new();
    let w = h.queue_window();
    assert!(
        invoke(&w, "snapshot", json!({})).is_ok(),
        "its own commands are allowed"
    );
    for (cmd, body) in [
        ("plugin:window|close", json!({"label": "queue"})),
        ("plugin:event|emit", json!({"event": "x", "payload": null})),
        ("plugin:webview|create_webview_window", json!({})),
        ("plugin:autostart|enable", json!({})),
        ("plugin:log|log", json!({"level": 3, "message": "x"})),
    ] {
        let err = invoke(&w, cmd, body).unwrap_err();
        assert!(
            err.to_string().contains("not allowed"),
            "{cmd} must be refused by the capability, got {err}"
        );
    }
    let other = h.window("other");
    for (cmd, body) in [
        ("stop", json!({})),
        ("connect", json!({})),
        ("create_key", json!({"name": "sneaky"})),
    ] {
        let err = invoke(&other, cmd, body).unwrap_err();
        assert!(err.to_string().contains("not allowed"), "{cmd}: {err}");
    }
    assert!(
        invoke(&w, "connect", json!({})).unwrap()["keys"]
            .as_array()
            .unwrap()
            .is_empty(),
        "no key was made by another window"
    );
    assert!(
        !h.reader().status().unwrap().gate_closed,
        "a refused command changed nothing"
    );
}

#[test]
fn changes_are_pushed_to_the_window_as_they_commit() {
    let h = Harness::new();
    live::follow(h.desk.clone(), || {});
    let (tx, rx) = mpsc::channel::<Value>();
    let channel: Channel<Update> = Channel::new(move |body| {
        if let InvokeResponseBody::Json(s) = body {
            let _ = tx.send(serde_json::from_str(&s).unwrap());
        }
        Ok(())
    });
    tauri::async_runtime::block_on(h.desk.listen(channel)).unwrap();
    let first = rx.recv_timeout(PUSH_BOUND).unwrap();
    assert_eq!(
        first["kind"], "snapshot",
        "a new listener gets the whole queue first"
    );

    // A send queued through the owner (as the bridge does for the CLI) reaches the window.
    h.queue("q-1", "pushed");
    let pushed = loop {
        let u = rx
            .recv_timeout(PUSH_BOUND)
            .expect("an update within the bound");
        if u["kind"] == "changed" && !u["rows"].as_array().unwrap().is_empty() {
            break u;
        }
    };
    assert_eq!(ops(&pushed["rows"]), ["q-1"]);
    assert_eq!(pushed["rows"][0]["section"], "pending");
    assert_eq!(pushed["status"]["pending"], 1);
}

#[test]
fn settings_are_checked_and_kept_in_the_profile() {
    let h = Harness::new();
    let w = h.queue_window();
    let s = invoke(&w, "settings", json!({})).unwrap();
    assert_eq!(s["stale_uncertain_ms"], 300_000, "5 minutes by default");
    assert_eq!(s["autostart"], false, "autostart is off by default");
    let err = invoke(
        &w,
        "save_settings",
        json!({"settings": {"stale_uncertain_ms": 10, "autostart": false}}),
    )
    .unwrap_err();
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("at least 1000 ms"),
        "{err}"
    );
    let saved = invoke(
        &w,
        "save_settings",
        json!({"settings": {"stale_uncertain_ms": 120000, "autostart": false}}),
    )
    .unwrap();
    assert_eq!(saved["stale_uncertain_ms"], 120_000);
    let path = h.profile.dir().join("app.json");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "settings live in the profile, private");
    assert_eq!(
        sendledger::profile::settings::Settings::load(&h.profile).stale_uncertain_ms,
        120_000
    );
}

/// `config.json` as the CLI reads it: (default destination in words, max_in_flight).
fn profile_settings(h: &Harness) -> (String, u32) {
    let config = sendledger::profile::Config::load(&h.profile).unwrap();
    (
        config
            .default_destination(sendledger::site::Site::Chatgpt)
            .words(),
        config.max_in_flight(),
    )
}

#[test]
fn the_default_destination_and_max_in_flight_are_saved_in_the_profile_as_the_cli_saves_them() {
    let h = Harness::new();
    let w = h.queue_window();
    let s = invoke(&w, "settings", json!({})).unwrap();
    assert_eq!(
        s["max_in_flight"], 1,
        "one at a time until a person raises it"
    );
    assert_eq!(
        s["default_destination"],
        json!({"place": "new_chat", "id": null, "words": "a new chat"}),
        "a new chat until a person chooses"
    );
    let snap = invoke(&w, "snapshot", json!({})).unwrap();
    assert_eq!(
        snap["default_destination"], "a new chat",
        "the header says it"
    );
    let save = |extra: Value| {
        let mut body = json!({"stale_uncertain_ms": 300000, "autostart": false});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        invoke(&w, "save_settings", json!({ "settings": body }))
    };
    let saved = save(json!({"max_in_flight": 3, "default_destination":
        {"place": "project", "id": "https://chatgpt.com/g/g-p-0123abcd-ledgers/project"}}))
    .unwrap();
    assert_eq!(saved["max_in_flight"], 3);
    assert_eq!(saved["default_destination"]["place"], "project");
    assert_eq!(
        profile_settings(&h),
        ("a new chat in Project g-p-0123abcd".to_string(), 3),
        "config.json holds what the CLI reads"
    );
    let before = std::fs::read(h.profile.dir().join("config.json")).unwrap();
    for (bad, said) in [
        (json!({"max_in_flight": 9}), "from 1 to 8"),
        (json!({"max_in_flight": 0}), "from 1 to 8"),
        (
            json!({"default_destination": {"place": "conversation", "id": ""}}),
            "needs the conversation's id",
        ),
        (
            json!({"default_destination": {"place": "project", "id": "not-a-project"}}),
            "g-p-",
        ),
        (
            json!({"stale_uncertain_ms": 10, "max_in_flight": 2}),
            "at least 1000 ms",
        ),
    ] {
        let err = save(bad.clone()).unwrap_err();
        let message = err["message"].as_str().unwrap_or_default();
        assert!(message.contains(said), "{bad}: {err}");
        assert_eq!(
            std::fs::read(h.profile.dir().join("config.json")).unwrap(),
            before,
            "{bad}: a refusal changes nothing"
        );
    }
    save(json!({"default_destination": {"place": "conversation", "id": "https://chatgpt.com/c/conv-9"}}))
        .unwrap();
    assert_eq!(profile_settings(&h), ("conversation conv-9".to_string(), 3));
    let snap = invoke(&w, "snapshot", json!({})).unwrap();
    assert_eq!(snap["default_destination"], "conversation conv-9");
}

#[test]
fn stale_uncertain_sends_are_found_once_notified_is_recorded() {
    let h = Harness::new();
    h.uncertain("u-1", "hello");
    let threshold = h.desk.settings().stale_uncertain_ms;
    let stale = |h: &Harness| h.ledger(move |l| l.stale_uncertain(threshold).unwrap());
    assert!(stale(&h).is_empty(), "not stale before the threshold");
    h.clock.advance(threshold);
    assert_eq!(stale(&h).len(), 1, "stale at the threshold");
    h.ledger(|l| l.mark_notified("u-1").unwrap());
    assert!(
        stale(&h).is_empty(),
        "a notified send is not notified again"
    );
    let w = h.queue_window();
    let snap = invoke(&w, "snapshot", json!({})).unwrap();
    assert!(snap["uncertain"][0]["notified_at"].is_i64());
}

#[test]
fn pairing_code_is_a_one_time_code() {
    let h = Harness::new();
    let w = h.queue_window();
    let p = invoke(&w, "pairing_code", json!({})).unwrap();
    let code = p["code"].as_str().unwrap();
    assert_eq!(code.len(), 9, "XXXX-XXXX");
    assert_eq!(&code[4..5], "-");
    let now = h.ledger(|l| l.now_ms());
    assert_eq!(p["expires_at"].as_i64().unwrap(), now + 5 * 60 * 1000);
}

#[test]
fn rows_fall_into_sections_by_state() {
    use sendledger::api::queue::section_of;
    let h = Harness::new();
    h.queue("q-1", "x");
    let s = h.reader().get("q-1").unwrap().unwrap();
    assert_eq!(section_of(&s), Section::Pending);
}

#[test]
fn arguments_are_profile_hidden_and_intent_and_others_are_ignored() {
    use sendledger_app::{Args, Ask};
    let a = Args::parse(
        [
            "--automation",
            "--profile",
            "/p",
            "--hidden",
            "--intent=pair",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    assert_eq!(a.profile.as_deref(), Some(std::path::Path::new("/p")));
    assert!(a.hidden);
    assert_eq!(a.intent, Some(Ask::Pair));
    assert!(!a.from_tray);
    let b = Args::parse(["--profile=/q".to_string()]);
    assert_eq!(b.profile.as_deref(), Some(std::path::Path::new("/q")));
    assert!(!b.hidden);
    // The last one wins: a launch started anew by a closing window names its profile last.
    let c = Args::parse(["--profile", "relative", "--profile=/abs"].map(String::from));
    assert_eq!(c.profile.as_deref(), Some(std::path::Path::new("/abs")));
}

#[test]
fn previews_fold_whitespace_and_stop_at_160_characters() {
    use sendledger_app::json::{preview, PREVIEW_CHARS};
    assert_eq!(preview("a\n\n  b\tc"), "a b c");
    let long = "é".repeat(500);
    let p = preview(&long);
    assert_eq!(p.chars().count(), PREVIEW_CHARS);
    assert!(p.ends_with('…'));
}

#[test]
fn observed_evidence_is_offered_as_a_suggestion_not_a_decision() {
    let h = Harness::new();
    h.uncertain("u-1", "hello");
    let seen = "observed the conversation: exactly one user message with this text after the dispatch (msg-42)";
    h.ledger(move |l| {
        l.note_evidence("u-1", sendledger::ledger::EvidenceKind::Observed, seen)
            .unwrap()
    });
    let w = h.queue_window();
    let snap = invoke(&w, "snapshot", json!({})).unwrap();
    let row = &snap["uncertain"][0];
    assert_eq!(
        row["observed"], seen,
        "the owner's observation is offered as evidence"
    );
    assert_eq!(row["state"], "uncertain", "an observation decides nothing");
    assert_eq!(
        row["actions"],
        json!(["confirm", "abandon", "resend"]),
        "the decision stays a person's"
    );
}

/// Who revoked key `name` (the ledger's own column; not in any view).
fn revoked_by(h: &Harness, name: &str) -> Option<String> {
    let name = name.to_string();
    h.ledger(move |l| {
        l.raw_connection()
            .query_row(
                "SELECT revoked_by FROM api_keys WHERE name = ?1",
                [name],
                |r| r.get(0),
            )
            .unwrap()
    })
}

#[test]
fn the_connect_panel_shows_the_live_base_url_and_keys_but_never_a_secret() {
    let h = Harness::new();
    let w = h.queue_window();
    let addr = h.owner.address();
    let before = invoke(&w, "connect", json!({})).unwrap();
    assert_eq!(before["base_url"], format!("http://{addr}/v1"));
    assert!(before["keys"].as_array().unwrap().is_empty());

    let made = invoke(&w, "create_key", json!({"name": "  my-companion "})).unwrap();
    let secret = made["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("sk-sl-") && secret.len() == 70, "{made}");
    assert_eq!(made["key"]["name"], "my-companion", "the name is trimmed");
    assert_eq!(made["key"]["created_by"], WHO, "made by the OS user");

    let after = invoke(&w, "connect", json!({})).unwrap();
    assert_eq!(after["keys"].as_array().unwrap().len(), 1);
    assert_eq!(after["keys"][0]["name"], "my-companion");
    assert_eq!(after["keys"][0]["last_used_at"], Value::Null);
    assert!(
        !after.to_string().contains(&secret["sk-sl-".len()..]),
        "the panel's view never carries a secret: it was shown once"
    );
    let mcp: Value = serde_json::from_str(after["mcp_config"].as_str().unwrap()).unwrap();
    let entry = &mcp["mcpServers"]["sendledger"];
    assert_eq!(
        entry["args"],
        json!(["--profile", h.profile.dir().display().to_string(), "mcp"]),
        "a profile that is not the default is named: {mcp}"
    );
}

#[test]
fn a_key_is_revoked_as_the_os_user_and_a_refused_name_writes_nothing() {
    let h = Harness::new();
    let w = h.queue_window();
    invoke(&w, "create_key", json!({"name": "bot"})).unwrap();
    for (name, says) in [
        (
            "bot",
            "a live key is already named \"bot\": revoke it first or choose another name",
        ),
        (
            "no spaces!",
            "is malformed: use 1 to 64 letters, digits or . _ -",
        ),
    ] {
        let err = invoke(&w, "create_key", json!({ "name": name })).unwrap_err();
        assert!(
            err["message"].as_str().unwrap().contains(says),
            "{name}: {err}"
        );
    }
    let keys = invoke(&w, "connect", json!({})).unwrap()["keys"].clone();
    assert_eq!(
        keys.as_array().unwrap().len(),
        1,
        "a refusal writes nothing"
    );

    let revoked = invoke(&w, "revoke_key", json!({"name": "bot"})).unwrap();
    assert!(revoked["revoked_at"].is_i64(), "{revoked}");
    assert_eq!(
        revoked_by(&h, "bot").as_deref(),
        Some(WHO),
        "a person's decision: the OS user"
    );
    let err = invoke(&w, "revoke_key", json!({"name": "bot"})).unwrap_err();
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("no live key named \"bot\""),
        "{err}"
    );
}

#[test]
fn the_windows_stop_gets_through_an_owner_that_does_not_answer() {
    let h = Harness::new();
    h.queue("q-1", "must not go out");
    // What a stopped (SIGSTOP) or saturated tray looks like from the window: its bridge
    // takes the connection and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let path = h.profile.dir().join("bridge.json");
    let mut info: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    info["address"] = json!(silent.local_addr().unwrap().to_string());
    std::fs::write(&path, info.to_string()).unwrap();
    let desk = Desk::reach(h.profile.clone(), WHO.into()).unwrap();
    let status =
        tauri::async_runtime::block_on(desk.stop(Some("ada".into()))).expect("Stop gets through");
    assert!(
        status.gate_closed,
        "the window shows the gate closed at once"
    );
    let r = h.reader();
    assert!(
        r.status().unwrap().gate_closed,
        "the fence is in the ledger file"
    );
    assert_eq!(r.get("q-1").unwrap().unwrap().state, SendState::Stopped);
}
