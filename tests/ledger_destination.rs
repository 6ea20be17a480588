//! A send's destination (issue 27): part of its identity like its text, resolved from the
//! profile's default at queue time when the send names none, immutable in SQL, and
//! re-checked by the grant against what the tab confirmed, in the transaction that would
//! write `dispatched`.

mod support;

use sendledger::destination::{ChosenBy, Confirmation, Kind};
use sendledger::ledger::LedgerRead;
use sendledger::ledger::{Grant, Ledger, LedgerError, QueueRequest, SendState};
use support::*;

const CONV_A: &str = "6a1f0c2e-0000-4000-8000-00000000000a";
const CONV_B: &str = "6a1f0c2e-0000-4000-8000-00000000000b";

fn to(op: &str, conversation: Option<&str>, model: Option<&str>) -> QueueRequest {
    QueueRequest {
        op_id: Some(op.into()),
        text: "for a named place".into(),
        conversation_id: conversation.map(str::to_string),
        model: model.map(str::to_string),
        ..Default::default()
    }
}

/// Writes `json` as the profile's `config.json` and copies it into the ledger, as an
/// owner's start does; errors: the file's sentence, the ledger unchanged.
fn set_default(fx: &Fixture, ledger: &mut Ledger, json: &str) -> Result<(), String> {
    std::fs::write(fx.profile.dir().join("config.json"), json).unwrap();
    let config = sendledger::profile::Config::load(&fx.profile)?;
    sendledger::api::settings::copy_into_ledger(ledger, &config).map_err(|e| e.to_string())
}

fn seen(conversation: Option<&str>, model: Option<&str>) -> Confirmation {
    Confirmation {
        conversation_id: conversation.map(str::to_string),
        model: model.map(str::to_string),
        ..Default::default()
    }
}

/// Queues `req`, leases a tab showing `shown`, claims it; returns the lease.
fn claimed(ledger: &mut Ledger, req: &QueueRequest, shown: Option<&str>) -> String {
    ledger.queue(req, "test").unwrap();
    let lease = lease_on(ledger, "tab-1", shown);
    let send = ledger.claim_next(&lease).unwrap().expect("claimed");
    assert_eq!(&send.op_id, req.op_id.as_ref().unwrap());
    lease
}

#[test]
fn the_same_operation_id_with_another_destination_is_payload_changed_and_writes_nothing() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    ledger
        .queue(&to("op-1", Some(CONV_A), Some("gpt-5-2-thinking")), "test")
        .unwrap();
    let before = dump(ledger.raw_connection());
    let others = [
        to("op-1", Some(CONV_B), Some("gpt-5-2-thinking")),
        to("op-1", Some(CONV_A), Some("gpt-5-instant")),
        to("op-1", Some(CONV_A), None),
        to("op-1", None, None),
        QueueRequest {
            new_chat: true,
            ..to("op-1", None, Some("gpt-5-2-thinking"))
        },
        QueueRequest {
            effort: Some("extended".into()),
            ..to("op-1", Some(CONV_A), Some("gpt-5-2-thinking"))
        },
    ];
    for other in &others {
        let err = ledger.queue(other, "test").unwrap_err();
        assert!(
            matches!(err, LedgerError::PayloadChanged(_)),
            "{other:?}: {err}"
        );
        assert_eq!(dump(ledger.raw_connection()), before, "nothing written");
    }
    let url = format!("https://chatgpt.com/c/{CONV_A}?model=x");
    let (send, created) = ledger
        .queue(&to("op-1", Some(&url), Some("gpt-5-2-thinking")), "test")
        .unwrap();
    assert!(
        !created,
        "the same destination, named by its URL, is the same send"
    );
    assert_eq!(send.conversation_id.as_deref(), Some(CONV_A));
}

#[test]
fn a_send_destination_is_immutable_in_sql() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    ledger
        .queue(&to("op-1", Some(CONV_A), None), "test")
        .unwrap();
    let conn = ledger.raw_connection();
    for sql in [
        "UPDATE send_destinations SET conversation_id = 'other' WHERE op_id = 'op-1'",
        "UPDATE send_destinations SET model = 'gpt-5-instant' WHERE op_id = 'op-1'",
        "DELETE FROM send_destinations WHERE op_id = 'op-1'",
    ] {
        let err = try_raw(conn, sql, []).unwrap_err();
        assert!(err.contains("send payload is immutable"), "{sql}: {err}");
    }
    // A destination that differs from the send row's conversation is refused too.
    ledger.queue(&to("op-2", None, None), "test").unwrap();
    let conn = ledger.raw_connection();
    let err = try_raw(
        conn,
        "DELETE FROM send_destinations WHERE op_id = 'op-2'",
        [],
    )
    .unwrap_err();
    assert!(err.contains("immutable"), "{err}");
}

#[test]
fn urls_are_normalised_to_ids_and_the_transient_web_route_is_refused() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let project = QueueRequest {
        project_id: Some("https://chatgpt.com/g/g-p-0123abcdef-my-notes/project".into()),
        ..to("op-p", None, None)
    };
    ledger.queue(&project, "test").unwrap();
    let d = ledger.destination("op-p").unwrap().expect("recorded");
    assert_eq!(
        (d.kind, d.project_id.as_deref(), d.chosen_by),
        (Kind::Project, Some("g-p-0123abcdef"), ChosenBy::Send)
    );
    let before = dump(ledger.raw_connection());
    for bad in [
        to("op-w", Some("https://chatgpt.com/c/WEB:2b1c-request"), None),
        to("op-w", Some("WEB:2b1c-request"), None),
        QueueRequest {
            project_id: Some("not-a-project".into()),
            ..to("op-w", None, None)
        },
        QueueRequest {
            new_chat: true,
            ..to("op-w", Some(CONV_A), None)
        },
        to("op-w", Some(CONV_A), Some("gpt 5 with spaces")),
    ] {
        let err = ledger.queue(&bad, "test").unwrap_err();
        assert!(matches!(err, LedgerError::Invalid(_)), "{bad:?}: {err}");
    }
    assert_eq!(dump(ledger.raw_connection()), before, "nothing written");
}

#[test]
fn a_send_naming_no_destination_records_the_default_at_queue_time_and_keeps_it() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    ledger.queue(&request("op-1", "first"), "test").unwrap();
    let first = ledger.destination("op-1").unwrap().expect("recorded");
    assert_eq!(
        (first.kind, first.chosen_by),
        (Kind::NewChat, ChosenBy::Default),
        "until a person sets one, the default is a new chat"
    );
    set_default(
        &fx,
        &mut ledger,
        &format!(r#"{{"port": 0, "default_destination": {{"conversation_id": "{CONV_A}"}}}}"#),
    )
    .unwrap();
    let (second, _) = ledger.queue(&request("op-2", "second"), "test").unwrap();
    assert_eq!(second.conversation_id.as_deref(), Some(CONV_A));
    set_default(
        &fx,
        &mut ledger,
        r#"{"default_destinations": {"chatgpt": {"new_chat": true}}}"#,
    )
    .unwrap();
    let kept = ledger.destination("op-2").unwrap().expect("recorded");
    assert_eq!(
        (kept.kind, kept.conversation_id.as_deref()),
        (Kind::Conversation, Some(CONV_A)),
        "a later default does not move a queued send"
    );
    let (again, created) = ledger.queue(&request("op-2", "second"), "test").unwrap();
    assert!(!created && again.conversation_id.as_deref() == Some(CONV_A));
    let first_again = ledger.destination("op-1").unwrap().expect("recorded");
    assert_eq!(first_again, first);
}

#[test]
fn an_unreadable_default_destination_is_refused_before_the_ledger_and_writes_nothing() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let before = dump(ledger.raw_connection());
    let err = set_default(
        &fx,
        &mut ledger,
        r#"{"default_destination": {"project_id": "nope"}}"#,
    )
    .unwrap_err();
    assert!(
        err.contains("sendledger destination set"),
        "says how to fix it: {err}"
    );
    assert_eq!(dump(ledger.raw_connection()), before);
    let (sent, _) = ledger.queue(&request("op-1", "x"), "test").unwrap();
    assert_eq!(
        sent.conversation_id, None,
        "the default in force is kept: a new chat"
    );
    // A send naming its own place does not need the default.
    ledger
        .queue(&to("op-2", Some(CONV_A), None), "test")
        .unwrap();
}

#[test]
fn the_grant_is_refused_and_the_send_rejected_when_the_tab_shows_another_destination() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let req = to("op-1", Some(CONV_A), Some("gpt-5-2-thinking"));
    let lease = claimed(&mut ledger, &req, Some(CONV_A));
    let grant = grant_asked(
        &mut ledger,
        ("op-1", &lease),
        Some(CONV_B),
        "gpt-5-2-thinking",
    );
    let Grant::Refused { send, reason } = grant else {
        panic!("granted for another conversation: {grant:?}")
    };
    assert_eq!(send.state, SendState::Rejected, "failed before dispatch");
    assert!(
        reason.contains(CONV_B)
            && reason.contains(CONV_A)
            && reason.contains("nothing was clicked"),
        "{reason}"
    );
    assert_eq!(dispatch_events(ledger.raw_connection(), "op-1"), 0);
    assert_eq!(send.evidence.as_deref(), Some(reason.as_str()));

    let req = to("op-2", Some(CONV_A), Some("gpt-5-2-thinking"));
    let lease = claimed(&mut ledger, &req, Some(CONV_A));
    let grant = ledger
        .dispatch_confirmed(
            "op-2",
            &lease,
            Some(&seen(Some(CONV_A), Some("gpt-5-instant"))),
        )
        .unwrap();
    let Grant::Refused { reason, .. } = grant else {
        panic!("granted with another model: {grant:?}")
    };
    assert!(
        reason.contains("picker shows model gpt-5-instant")
            && reason.contains("asks for gpt-5-2-thinking"),
        "{reason}"
    );

    let req = to("op-3", Some(CONV_A), Some("gpt-5-2-thinking"));
    let lease = claimed(&mut ledger, &req, Some(CONV_A));
    let grant = ledger
        .dispatch_confirmed(
            "op-3",
            &lease,
            Some(&seen(Some(CONV_A), Some("gpt-5-2-thinking"))),
        )
        .unwrap();
    assert!(matches!(grant, Grant::Granted(ref s) if s.state == SendState::Dispatched));
}

#[test]
fn a_new_chat_is_granted_only_on_a_new_chat_page_never_on_the_transient_web_route() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let req = QueueRequest {
        new_chat: true,
        ..to("op-1", None, None)
    };
    let lease = claimed(&mut ledger, &req, None);
    let web = seen(Some("WEB:7d0e-request"), None);
    let grant = ledger
        .dispatch_confirmed("op-1", &lease, Some(&web))
        .unwrap();
    assert!(
        matches!(&grant, Grant::Refused { reason, .. } if reason.contains("transient")),
        "{grant:?}"
    );
    let req = QueueRequest {
        new_chat: true,
        ..to("op-2", None, None)
    };
    let lease = claimed(&mut ledger, &req, None);
    let grant = ledger
        .dispatch_confirmed("op-2", &lease, Some(&seen(Some(CONV_A), None)))
        .unwrap();
    assert!(
        matches!(grant, Grant::Refused { .. }),
        "a chat is not a new chat"
    );
    let req = QueueRequest {
        new_chat: true,
        ..to("op-3", None, None)
    };
    let lease = claimed(&mut ledger, &req, None);
    let grant = ledger
        .dispatch_confirmed("op-3", &lease, Some(&seen(None, None)))
        .unwrap();
    assert!(matches!(grant, Grant::Granted(_)));
}

#[test]
fn a_grant_ask_confirming_nothing_is_refused_for_a_destination_the_send_named() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = claimed(&mut ledger, &to("op-1", Some(CONV_A), None), Some(CONV_A));
    let err = ledger.dispatch("op-1", &lease).unwrap_err();
    assert!(
        matches!(&err, LedgerError::NotGranted(m) if m.contains("confirmed no destination")),
        "{err}"
    );
    assert_eq!(
        state_of(&ledger, "op-1"),
        SendState::Rejected,
        "committed: nothing clicked"
    );
    // A send that took the default is granted to an extension that confirms nothing, as
    // before destinations (the extension of this release confirms what its tab shows).
    let lease = claimed(&mut ledger, &request("op-2", "default"), Some(CONV_A));
    ledger.dispatch("op-2", &lease).unwrap();
}

#[test]
fn a_page_request_in_another_conversation_is_a_destination_mismatch_note_and_nothing_moves() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let lease = claimed(&mut ledger, &to("op-1", Some(CONV_A), None), Some(CONV_A));
    let grant = ledger
        .dispatch_confirmed("op-1", &lease, Some(&seen(Some(CONV_A), None)))
        .unwrap();
    assert!(matches!(grant, Grant::Granted(_)));
    let page = ledger
        .record_page_destination("op-1", Some(CONV_B), Some("gpt-5-instant"))
        .unwrap();
    let why = page.mismatch.expect("a mismatch");
    assert!(
        why.starts_with("destination_mismatch:") && why.contains(CONV_B),
        "{why}"
    );
    assert_eq!(
        state_of(&ledger, "op-1"),
        SendState::Dispatched,
        "the send keeps its state"
    );
    let notes = ledger
        .timeline("op-1")
        .unwrap()
        .into_iter()
        .filter(|e| {
            e.evidence
                .as_deref()
                .is_some_and(|s| s.starts_with("destination_mismatch"))
        })
        .count();
    assert_eq!(notes, 1);
    // Seen again (the tab's copy after a restart): recorded once.
    let again = ledger
        .record_page_destination("op-1", Some(CONV_A), None)
        .unwrap();
    assert_eq!(again.conversation_id.as_deref(), Some(CONV_B));
    let err = try_raw(
        ledger.raw_connection(),
        "UPDATE page_destinations SET mismatch = NULL WHERE op_id = 'op-1'",
        [],
    )
    .unwrap_err();
    assert!(err.contains("immutable"), "{err}");
}

/// A copy a person queues again (requeue, resend) of a send that took the default still
/// took the default, while the default still leads there: an extension that confirms
/// nothing is granted it as it would have been the first (the reference model found a
/// resent copy refused for "confirming nothing" after the merge with issue 25's work).
#[test]
fn a_copy_of_a_send_that_took_the_default_is_granted_as_the_first_would_have_been() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let first = QueueRequest {
        op_id: Some("first".into()),
        text: "to the default".into(),
        ..Default::default()
    };
    ledger.queue(&first, "test").unwrap();
    ledger.withdraw("first", "a person").unwrap();
    let copy = ledger.requeue("first", "a person").unwrap();
    let dest = ledger.destination(&copy.op_id).unwrap().expect("recorded");
    assert_eq!(
        dest.chosen_by,
        ChosenBy::Default,
        "the copy took the default too"
    );
    let lease = ledger.lease(&tab("tab-1")).unwrap().lease_id;
    let claimed = ledger.claim_next(&lease).unwrap().expect("claimed");
    assert_eq!(claimed.op_id, copy.op_id);
    let granted = ledger
        .dispatch_confirmed(&copy.op_id, &lease, None)
        .unwrap();
    assert!(matches!(granted, Grant::Granted(_)), "{granted:?}");
}

/// The grant asked for `(op, lease)` by a tab showing `shown` with `model` in its picker.
fn grant_asked(
    ledger: &mut Ledger,
    (op, lease): (&str, &str),
    shown: Option<&str>,
    model: &str,
) -> Grant {
    ledger
        .dispatch_confirmed(op, lease, Some(&seen(shown, Some(model))))
        .unwrap()
}

/// Leases `tab_id` showing `shown`; returns the lease id.
fn lease_on(ledger: &mut Ledger, tab_id: &str, shown: Option<&str>) -> String {
    let mut binding = tab(tab_id);
    binding.conversation_id = shown.map(str::to_string);
    ledger.lease(&binding).unwrap().lease_id
}

#[test]
fn a_send_for_a_conversation_no_tab_shows_is_taken_by_a_tab_that_goes_there() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    ledger
        .queue(&to("op-b", Some(CONV_B), None), "test")
        .unwrap();
    let on_a = lease_on(&mut ledger, "tab-1", Some(CONV_A));
    let send = ledger.claim_next(&on_a).unwrap();
    assert_eq!(
        send.map(|s| s.op_id).as_deref(),
        Some("op-b"),
        "no tab shows B: the tab on A takes it (and navigates there before typing)"
    );
    // The tab arrives at B and leases again: the claim moves with it, nothing clicked.
    let on_b = lease_on(&mut ledger, "tab-1", Some(CONV_B));
    let send = ledger.get("op-b").unwrap().unwrap();
    assert_eq!(send.state, SendState::Claimed);
    assert_eq!(send.lease_id.as_deref(), Some(on_b.as_str()));
    let grant = ledger
        .dispatch_confirmed("op-b", &on_b, Some(&seen(Some(CONV_B), None)))
        .unwrap();
    assert!(matches!(grant, Grant::Granted(_)), "{grant:?}");
}

#[test]
fn a_send_for_a_conversation_another_tab_shows_is_left_to_that_tab() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let on_b = lease_on(&mut ledger, "tab-2", Some(CONV_B));
    ledger
        .queue(&to("op-b", Some(CONV_B), None), "test")
        .unwrap();
    let on_a = lease_on(&mut ledger, "tab-1", Some(CONV_A));
    assert!(ledger.claim_next(&on_a).unwrap().is_none(), "tab 2 shows B");
    let send = ledger.claim_next(&on_b).unwrap().expect("tab 2 takes it");
    assert_eq!(send.op_id, "op-b");
}

#[test]
fn a_tab_that_arrives_somewhere_else_than_the_claimed_conversation_rejects_it_unclicked() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    ledger
        .queue(&to("op-b", Some(CONV_B), None), "test")
        .unwrap();
    let on_a = lease_on(&mut ledger, "tab-1", Some(CONV_A));
    ledger.claim_next(&on_a).unwrap().expect("claimed");
    // The person opened their own chat in the tab while it was on its way to B.
    const MINE: &str = "6a1f0c2e-0000-4000-8000-00000000000c";
    lease_on(&mut ledger, "tab-1", Some(MINE));
    let send = ledger.get("op-b").unwrap().unwrap();
    assert_eq!(
        send.state,
        SendState::Rejected,
        "never typed into the person's chat"
    );
    assert_eq!(dispatch_events(ledger.raw_connection(), "op-b"), 0);
    assert!(
        send.evidence
            .as_deref()
            .unwrap_or("")
            .contains("nothing was clicked"),
        "{:?}",
        send.evidence
    );
}

#[test]
fn an_answer_from_another_model_than_asked_is_one_destination_mismatch_note_and_nothing_moves() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let req = to("op-m", Some(CONV_A), Some("gpt-5-2-thinking"));
    let lease = claimed(&mut ledger, &req, Some(CONV_A));
    let grant = grant_asked(
        &mut ledger,
        ("op-m", &lease),
        Some(CONV_A),
        "gpt-5-2-thinking",
    );
    assert!(matches!(grant, Grant::Granted(_)), "{grant:?}");
    assert_eq!(
        ledger
            .note_answer_model("op-m", "gpt-5-2-thinking")
            .unwrap(),
        None,
        "the model asked for"
    );
    let why = ledger
        .note_answer_model("op-m", "gpt-5-instant")
        .unwrap()
        .expect("a note");
    assert!(
        why.starts_with("destination_mismatch: the page answered with model gpt-5-instant; the send asked for gpt-5-2-thinking"),
        "{why}"
    );
    let before = dump(ledger.raw_connection());
    assert_eq!(
        ledger.note_answer_model("op-m", "gpt-5-instant").unwrap(),
        None
    );
    assert_eq!(dump(ledger.raw_connection()), before, "written once");
    let send = ledger.get("op-m").unwrap().unwrap();
    assert_eq!(send.state, SendState::Dispatched, "nothing moves");
    assert_eq!(dispatch_events(ledger.raw_connection(), "op-m"), 1);
}

#[test]
fn a_send_for_latest_takes_the_pages_resolution_and_notes_only_an_answer_from_another_model() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let req = to("op-l", Some(CONV_A), Some("latest"));
    let lease = claimed(&mut ledger, &req, Some(CONV_A));
    let grant = grant_asked(&mut ledger, ("op-l", &lease), Some(CONV_A), "latest");
    assert!(matches!(grant, Grant::Granted(_)), "{grant:?}");
    // The page's request names the model its Latest entry resolves to: no mismatch.
    let page = ledger
        .record_page_destination("op-l", Some(CONV_A), Some("gpt-5-5"))
        .unwrap();
    assert_eq!(page.mismatch, None, "the page's resolution of latest");
    assert_eq!(page.model.as_deref(), Some("gpt-5-5"), "recorded");
    assert_eq!(ledger.note_answer_model("op-l", "gpt-5-5").unwrap(), None);
    let why = ledger
        .note_answer_model("op-l", "gpt-5-instant")
        .unwrap()
        .expect("an answer from another model than the resolution");
    assert!(
        why.starts_with("destination_mismatch: the page answered with model gpt-5-instant; the send asked for latest (gpt-5-5 in the page's request)"),
        "{why}"
    );
}

/// Invariant: a note says what it is as data (`events.note_kind`, migration 0024); notes
/// written before it are carried over once, in the migration, by the prefixes the owner
/// wrote — and a person's note that happens to start alike is not.
#[test]
fn notes_written_before_note_kinds_are_carried_over_by_the_migration() {
    use sendledger::ledger::NoteKind;
    let fx = Fixture::new();
    {
        let clock = std::sync::Arc::new(fx.clock.clone());
        let mut old = Ledger::open_at_version(&fx.profile, clock, 23).unwrap();
        old.queue(&request("op-1", "before the kinds"), "test")
            .unwrap();
        for (actor, note) in [
            (
                "owner",
                "destination_mismatch: the page's request went to conversation x",
            ),
            (
                "owner",
                "attachment_mismatch: the page's request did not carry \"a.png\"",
            ),
            (
                "owner",
                "hand-off frames not understood: the page's WebSocket frames could not be read",
            ),
            (
                "alice",
                "destination_mismatch: a person's words, not the owner's",
            ),
            ("owner", "observed the conversation"),
        ] {
            old.raw_connection()
                .execute(
                    "INSERT INTO events(op_id, kind, from_state, to_state, at, actor, evidence) \
                     VALUES ('op-1', 'note', 'queued', 'queued', 1, ?1, ?2)",
                    [actor, note],
                )
                .unwrap();
        }
    }
    let ledger = fx.open();
    let kinds: Vec<(String, Option<NoteKind>)> = ledger
        .timeline("op-1")
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == sendledger::ledger::EventKind::Note)
        .map(|e| (e.actor, e.note_kind))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("owner".to_string(), Some(NoteKind::DestinationMismatch)),
            ("owner".to_string(), Some(NoteKind::AttachmentMismatch)),
            ("owner".to_string(), Some(NoteKind::FramesNotUnderstood)),
            ("alice".to_string(), None),
            ("owner".to_string(), None),
        ]
    );
}

/// A send carries its site wherever it is read — the queue's answer, a later read, the
/// send's JSON a client decodes — so every door can speak of it as that site's (issue 36).
#[test]
fn a_send_read_back_names_its_site() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let queued = ledger
        .queue(
            &QueueRequest {
                site: Some(sendledger::site::Site::Claude),
                ..to("op-claude", None, None)
            },
            "test",
        )
        .unwrap();
    let chatgpt = ledger.queue(&to("op-chatgpt", None, None), "test").unwrap();
    assert_eq!(queued.0.site, sendledger::site::Site::Claude);
    assert_eq!(chatgpt.0.site, sendledger::site::Site::Chatgpt);
    let read = ledger.get("op-claude").unwrap().expect("the send");
    assert_eq!(read.site, sendledger::site::Site::Claude);
    let json = serde_json::to_value(&read).unwrap();
    assert_eq!(json["site"], "claude", "{json}");
}
