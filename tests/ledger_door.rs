//! What the OpenAI door keeps in the ledger (issue 13, migration 0006): the retry
//! fingerprint is durable and matches only the same client and body; an Idempotency-Key
//! names one send; named keys are stored as SHA-256 only and a revocation is final, in SQL.

mod support;

use sendledger::ledger::LedgerRead;
use sendledger::ledger::{
    fingerprint, DoorQueue, LedgerError, QueueRequest, ATTACH_AFTER_SETTLED_MS,
};
use support::*;

fn door(op: &str, client: &str, body: &str, keyed: bool) -> DoorQueue {
    DoorQueue {
        send: QueueRequest {
            op_id: Some(op.into()),
            text: format!("text of {op}"),
            conversation_id: None,
            ..Default::default()
        },
        client: client.into(),
        actor: format!("openai:{client}"),
        body_sha256: format!("{:0>64}", body),
        keyed,
    }
}

/// A ledger holding one unkeyed door send, `oai-1`, from `key:companion` with body `b1`.
fn first_send(fx: &Fixture) -> sendledger::ledger::Ledger {
    let mut ledger = fx.open();
    let (_, created) = ledger
        .door_queue(&door("oai-1", "key:companion", "b1", false))
        .unwrap();
    assert!(created, "the first request queues its send");
    ledger
}

#[test]
fn a_retry_fingerprint_survives_a_restart_and_matches_only_the_same_client_and_body() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let q = door("oai-1", "key:companion", "b1", false);
    let (send, created) = ledger.door_queue(&q).unwrap();
    assert!(created);
    assert_eq!(
        send.actor, "openai:key:companion",
        "the key is the send's actor"
    );
    ledger.withdraw("oai-1", "a person").unwrap();
    let (ledger, _) = fx.restart(ledger);
    let fp = fingerprint("key:companion", &q.body_sha256);
    assert_eq!(
        ledger.door_attachable(&fp).unwrap().as_deref(),
        Some("oai-1"),
        "after a restart a retry still attaches to the send a person stopped"
    );
    let other_client = fingerprint("key:other", &q.body_sha256);
    let other_body = fingerprint("key:companion", &format!("{:0>64}", "b2"));
    assert_eq!(ledger.door_attachable(&other_client).unwrap(), None);
    assert_eq!(ledger.door_attachable(&other_body).unwrap(), None);
}

#[test]
fn any_clients_retry_without_a_key_attaches_to_its_unsettled_send_however_old() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let first = door("oai-1", "key:companion", "b1", false);
    assert!(ledger.door_queue(&first).unwrap().1);
    // Three days later the send still waits (no tab): the same client and body is it.
    fx.clock.advance(3 * 24 * 3_600_000);
    let (send, created) = ledger
        .door_queue(&door("oai-2", "key:companion", "b1", false))
        .unwrap();
    assert!(!created, "an unsettled send is never sent twice by a retry");
    assert_eq!(send.op_id, "oai-1");
    assert_eq!(
        ledger.list(&Default::default()).unwrap().len(),
        1,
        "nothing new is queued"
    );
    // Another client or another body is another message.
    assert!(
        ledger
            .door_queue(&door("oai-3", "key:other", "b1", false))
            .unwrap()
            .1
    );
    assert!(
        ledger
            .door_queue(&door("oai-4", "key:companion", "b2", false))
            .unwrap()
            .1
    );
}

#[test]
fn a_retry_attaches_for_five_minutes_after_its_send_settled_and_is_a_new_send_after() {
    let fx = Fixture::new();
    let mut ledger = first_send(&fx);
    ledger.withdraw("oai-1", "a person").unwrap();
    fx.clock.advance(ATTACH_AFTER_SETTLED_MS);
    let (send, created) = ledger
        .door_queue(&door("oai-2", "key:companion", "b1", false))
        .unwrap();
    assert!(
        !created && send.op_id == "oai-1",
        "a retry at the edge of the window is the settled send"
    );
    fx.clock.advance(1);
    let (send, created) = ledger
        .door_queue(&door("oai-3", "key:companion", "b1", false))
        .unwrap();
    assert!(
        created && send.op_id == "oai-3",
        "past the window the same body is a new message"
    );
}

#[test]
fn a_request_with_a_new_idempotency_key_is_a_new_send_even_with_the_same_body() {
    let fx = Fixture::new();
    let mut ledger = first_send(&fx);
    let (send, created) = ledger
        .door_queue(&door("again-1", "key:companion", "b1", true))
        .unwrap();
    assert!(created && send.op_id == "again-1");
}

#[test]
fn an_idempotency_key_is_one_send_and_another_body_under_it_is_refused_with_nothing_written() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let q = door("turn-7", "key:companion", "b1", true);
    assert!(ledger.door_queue(&q).unwrap().1);
    assert!(
        !ledger.door_queue(&q).unwrap().1,
        "the same key and body is the same send"
    );
    let before = dump(ledger.raw_connection());
    for other in [
        door("turn-7", "key:companion", "b2", true),
        door("turn-7", "key:intruder", "b1", true),
    ] {
        let e = assert_refused(ledger.door_queue(&other), "idempotency key reused");
        assert!(matches!(e, LedgerError::IdempotencyKeyReused(_)));
    }
    ledger
        .queue(&request("native-1", "queued natively"), "client")
        .unwrap();
    let mid = dump(ledger.raw_connection());
    assert_refused(
        ledger.door_queue(&door("native-1", "key:companion", "b1", true)),
        "idempotency key reused",
    );
    assert_eq!(
        dump(ledger.raw_connection()),
        mid,
        "a refusal writes nothing"
    );
    assert_ne!(before, mid);
}

#[test]
fn a_named_key_is_stored_only_as_its_sha256_and_its_revocation_is_final_in_sql() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let (_, secret) = ledger
        .key_create("companion", sendledger::ledger::KeyScope::Send, "alice")
        .unwrap();
    assert!(secret.starts_with("sk-sl-") && secret.len() == 70);
    assert_eq!(ledger.key_use(&secret).unwrap().unwrap().name, "companion");
    assert_refused(
        ledger.key_create("companion", sendledger::ledger::KeyScope::Send, "alice"),
        "already named",
    );
    ledger.key_revoke("companion", "alice").unwrap();
    assert!(
        ledger.key_use(&secret).unwrap().is_none(),
        "a revoked key opens nothing"
    );
    let conn = ledger.raw_connection();
    for sql in [
        "UPDATE api_keys SET revoked_at = NULL",
        "UPDATE api_keys SET revoked_by = 'mallory'",
        "DELETE FROM api_keys",
    ] {
        let e = try_raw(conn, sql, []).expect_err(sql);
        assert!(e.contains("api key"), "{sql}: {e}");
    }
    drop(ledger);
    let bytes = std::fs::read(fx.ledger_path()).unwrap();
    let wal = std::fs::read(fx.ledger_path().with_extension("sqlite3-wal")).unwrap_or_default();
    let hex = &secret["sk-sl-".len()..];
    for file in [&bytes, &wal] {
        assert!(
            !file.windows(hex.len()).any(|w| w == hex.as_bytes()),
            "the key itself is never stored"
        );
    }
    let (mut ledger, _) = fx.open_reporting();
    let (_, again) = ledger
        .key_create("companion", sendledger::ledger::KeyScope::Send, "alice")
        .unwrap();
    assert_ne!(
        again, secret,
        "a revoked name can be made again, as a new key"
    );
}

#[test]
fn a_rejected_send_takes_no_retry_unless_a_person_queued_it_again() {
    let fx = Fixture::new();
    let ledger = first_send(&fx);
    // A restart rejects what was only queued: it never left this computer.
    let (mut ledger, _) = fx.restart(ledger);
    assert_eq!(
        ledger.get("oai-1").unwrap().unwrap().state.as_str(),
        "rejected"
    );
    let (send, created) = ledger
        .door_queue(&door("oai-2", "key:companion", "b1", false))
        .unwrap();
    assert!(
        created && send.op_id == "oai-2",
        "sending again what never left is what its error asks: a new send"
    );
}

#[test]
fn a_retry_follows_a_persons_copy_of_the_send_to_the_newest() {
    let fx = Fixture::new();
    let mut ledger = first_send(&fx);
    ledger.withdraw("oai-1", "a person").unwrap();
    let copy = ledger.requeue("oai-1", "a person").unwrap();
    let (send, created) = ledger
        .door_queue(&door("oai-2", "key:companion", "b1", false))
        .unwrap();
    assert!(!created, "a person's copy is the message: never a third");
    assert_eq!(
        send.op_id, copy.op_id,
        "the retry answers for the copy that goes out"
    );
}
