//! A send's attachments in the ledger (issue 29): written with the send and never changed
//! after (SQL refuses it), and the owner's upkeep that keeps the store small for months —
//! the bytes of files no unfinished send needs are deleted after 30 days, their record
//! kept, and a send naming them afterwards is refused with what to do.

mod support;

use sendledger::attachments::{Attachment, Store};
use sendledger::ledger::{LedgerError, LedgerRead, QueueRequest, SendState};
use sendledger::owner::attachment_upkeep::{sweep_once, KEEP_MS};
use support::*;

const DAY: i64 = 24 * 3600 * 1000;

/// Stores `bytes` in the fixture's store and records the upload; returns the sha256.
fn upload(
    fx: &Fixture,
    ledger: &mut sendledger::ledger::Ledger,
    name: &str,
    bytes: &[u8],
) -> String {
    let store = Store::new(fx.profile.dir());
    let (sha, _) = store.put(bytes).unwrap();
    let a = Attachment {
        sha256: sha.clone(),
        name: name.into(),
        mime: "image/png".into(),
        size: bytes.len() as u64,
    };
    ledger.record_upload(&a).unwrap();
    sha
}

fn with_files(op: &str, shas: &[&String]) -> QueueRequest {
    QueueRequest {
        attachments: shas.iter().map(|s| s.to_string()).collect(),
        ..request(op, "with files")
    }
}

#[test]
fn a_sends_attachments_never_change_after_it_was_admitted() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let sha = upload(&fx, &mut ledger, "a.png", b"aaaa");
    ledger.queue(&with_files("op-1", &[&sha]), "test").unwrap();
    let conn = ledger.raw_connection();
    for sql in [
        "UPDATE send_attachments SET name = 'b.png'",
        "UPDATE send_attachments SET file_id = 'file-1'",
        "DELETE FROM send_attachments",
        "DELETE FROM attachments",
        "UPDATE attachments SET size = 5",
    ] {
        let r = conn.execute(sql, []);
        assert!(r.is_err(), "{sql} was allowed");
    }
    let late = format!("INSERT INTO send_attachments(op_id, position, sha256, name, mime, size) VALUES ('op-1', 1, '{sha}', 'x', 'y', 4)");
    assert!(
        conn.execute(&late, []).is_ok(),
        "still queued: the trigger allows it"
    );
}

#[test]
fn the_upkeep_deletes_the_bytes_of_files_no_unfinished_send_needs_after_thirty_days() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let store = Store::new(fx.profile.dir());
    let done = upload(&fx, &mut ledger, "done.png", b"for a finished send");
    let open = upload(&fx, &mut ledger, "open.png", b"for a send in flight");
    let loose = upload(&fx, &mut ledger, "loose.png", b"uploaded, never sent");
    ledger
        .queue(&with_files("op-done", &[&done]), "test")
        .unwrap();
    ledger.withdraw("op-done", "tester").unwrap();
    ledger
        .queue(&with_files("op-open", &[&open]), "test")
        .unwrap();
    fx.clock.advance(KEEP_MS - DAY);
    assert!(
        sweep_once(&mut ledger, &store, KEEP_MS).unwrap().is_empty(),
        "nothing is 30 days old"
    );
    fx.clock.advance(2 * DAY);
    let gone = sweep_once(&mut ledger, &store, KEEP_MS).unwrap();
    let mut want = vec![done.clone(), loose.clone()];
    want.sort();
    assert_eq!(gone, want, "the send still queued keeps its file");
    assert!(store.check_present(&open, 20).is_ok());
    assert!(store.read(&done).is_err(), "its bytes are gone");
    // The record stays; a send naming the file now is refused with what to do.
    assert_eq!(
        ledger.attachments_of("op-done").unwrap()[0].file.name,
        "done.png"
    );
    let err = ledger
        .queue(&with_files("op-late", &[&done]), "test")
        .unwrap_err();
    assert!(matches!(err, LedgerError::UnknownAttachment(_)), "{err:?}");
    assert!(err.to_string().contains("upload the file"), "{err}");
    // Uploaded again, it is stored and may be sent.
    upload(&fx, &mut ledger, "done.png", b"for a finished send");
    ledger
        .queue(&with_files("op-late", &[&done]), "test")
        .unwrap();
    assert_eq!(state_of(&ledger, "op-late"), SendState::Queued);
}
