//! An answer's artifacts in the ledger (issue 29, "files out"): recorded with the answer
//! that carried them, in the same transaction; at most 10, the rest named; settled once
//! (SQL refuses anything else); ended 15 minutes after the answer on the ledger's own
//! (monotonic) clock when no tab fetched them; their bytes deleted by the upkeep like an
//! attachment's, the record kept.

mod support;

use sendledger::attachments::artifact::{MAX_PER_ANSWER, WANTED_MS};
use sendledger::attachments::{AnswerArtifact, Attachment, Store};
use sendledger::ledger::{ArtifactState, Bounds, LedgerError, LedgerRead, SendState};
use sendledger::owner::attachment_upkeep::{sweep_once, KEEP_MS};
use support::*;

fn pictures(n: usize) -> Vec<AnswerArtifact> {
    (0..n)
        .map(|i| AnswerArtifact {
            file_id: format!("file_{i:032x}"),
            pointer: format!("sediment://file_{i:032x}"),
            size_bytes: Some(100 + i as u64),
            width: Some(64),
            height: Some(32),
        })
        .collect()
}

/// `op` accepted, then completed with `found`.
fn completed_with(fx: &Fixture, op: &str, found: &[AnswerArtifact]) -> sendledger::ledger::Ledger {
    let mut ledger = fx.open();
    drive_to(&mut ledger, op, SendState::Accepted);
    ledger
        .complete_with_artifacts(op, ("answer-1", "the answer"), found, "extension")
        .expect("completed");
    ledger
}

fn stored_file(fx: &Fixture, bytes: &[u8]) -> Attachment {
    let (sha256, _) = Store::new(fx.profile.dir()).put(bytes).unwrap();
    Attachment {
        sha256,
        name: "picture.png".into(),
        mime: "image/png".into(),
        size: bytes.len() as u64,
    }
}

#[test]
fn an_artifact_is_recorded_with_the_answer_that_carried_it_in_the_same_transaction() {
    let fx = Fixture::new();
    let ledger = completed_with(&fx, "op-1", &pictures(2));
    let send = ledger.get("op-1").unwrap().unwrap();
    assert_eq!(send.state, SendState::Completed);
    let found = ledger.artifacts("op-1").unwrap();
    assert_eq!(found.len(), 2);
    assert!(found.iter().all(|a| a.state == ArtifactState::Wanted));
    assert_eq!(found[1].file_id, format!("file_{:032x}", 1));
    assert_eq!((found[0].width, found[0].height), (Some(64), Some(32)));
    // An artifact the ledger cannot record (a file id past its bound) fails the answer's
    // whole transaction: the send stays accepted, nothing of it was written.
    let mut ledger = ledger;
    drive_to(&mut ledger, "op-2", SendState::Accepted);
    let mut bad = pictures(1);
    bad[0].file_id = "f".repeat(200);
    let before = dump(ledger.raw_connection());
    let err = ledger.complete_with_artifacts("op-2", ("answer-2", "text"), &bad, "extension");
    assert!(err.is_err(), "{err:?}");
    assert_eq!(state_of(&ledger, "op-2"), SendState::Accepted);
    assert_eq!(dump(ledger.raw_connection()), before, "nothing was written");
    // And SQL refuses artifacts for a send that is not completed.
    let r = raw(
        ledger.raw_connection(),
        "INSERT INTO answer_artifacts(op_id, n, file_id, pointer, recorded_at) VALUES ('op-2', 0, 'f', 'sediment://f', 1)",
        [],
    );
    assert!(r.unwrap_err().contains("immutable"));
}

#[test]
fn an_answer_keeps_ten_artifacts_and_names_the_eleventh_in_a_note() {
    let fx = Fixture::new();
    let ledger = completed_with(&fx, "op-11", &pictures(MAX_PER_ANSWER + 1));
    let found = ledger.artifacts("op-11").unwrap();
    assert_eq!(found.len(), MAX_PER_ANSWER);
    assert_eq!(found[9].n, 9);
    let eleventh = format!("file_{:032x}", 10);
    let notes: Vec<String> = ledger
        .timeline("op-11")
        .unwrap()
        .iter()
        .filter_map(|e| e.evidence.clone())
        .filter(|e| e.contains("generated files"))
        .collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains(&eleventh), "{}", notes[0]);
    assert!(!notes[0].contains(&found[9].file_id), "{}", notes[0]);
    // Exactly ten: no note.
    let fx = Fixture::new();
    let ledger = completed_with(&fx, "op-10", &pictures(MAX_PER_ANSWER));
    assert!(ledger.timeline("op-10").unwrap().iter().all(|e| !e
        .evidence
        .as_deref()
        .unwrap_or_default()
        .contains("generated files")));
}

#[test]
fn an_artifact_is_settled_once_and_sql_refuses_anything_else() {
    let fx = Fixture::new();
    let mut ledger = completed_with(&fx, "op-1", &pictures(2));
    let file = stored_file(&fx, b"picture bytes");
    let (a, new) = ledger.store_artifact("op-1", 0, &file).unwrap();
    assert!(new);
    assert_eq!(a.state, ArtifactState::Stored);
    assert_eq!(a.sha256.as_deref(), Some(file.sha256.as_str()));
    let (_, again) = ledger.store_artifact("op-1", 0, &file).unwrap();
    assert!(!again, "the same bytes again store nothing twice");
    let other = stored_file(&fx, b"other bytes");
    let before = dump(ledger.raw_connection());
    let err = ledger.store_artifact("op-1", 0, &other).unwrap_err();
    assert!(matches!(err, LedgerError::ArtifactSettled(_)), "{err:?}");
    assert!(ledger.artifact_unavailable("op-1", 0, "gone").is_err());
    assert!(ledger
        .artifact_unavailable("op-1", 1, &"w".repeat(501))
        .is_err());
    assert_eq!(
        dump(ledger.raw_connection()),
        before,
        "the refusals wrote nothing"
    );
    assert!(ledger
        .artifact_unavailable("op-1", 1, &"w".repeat(500))
        .unwrap());
    let err = ledger.store_artifact("op-1", 1, &file).unwrap_err();
    assert!(err.to_string().contains("unavailable already"), "{err}");
    let conn = ledger.raw_connection();
    for sql in [
        "UPDATE answer_artifacts SET state = 'wanted', sha256 = NULL, name = NULL, mime = NULL, size = NULL, settled_at = NULL WHERE n = 0",
        "UPDATE answer_artifacts SET words = 'other' WHERE n = 1",
        "DELETE FROM answer_artifacts",
    ] {
        assert!(raw(conn, sql, []).is_err(), "{sql} was allowed");
    }
    assert!(matches!(
        ledger.store_artifact("op-1", 7, &file).unwrap_err(),
        LedgerError::UnknownArtifact(..)
    ));
}

#[test]
fn a_wanted_artifact_ends_fifteen_minutes_after_its_answer_on_the_ledgers_clock() {
    let fx = Fixture::new();
    let mut ledger = completed_with(&fx, "op-1", &pictures(2));
    let file = stored_file(&fx, b"the first picture");
    ledger.store_artifact("op-1", 0, &file).unwrap();
    let bounds = Bounds::default();
    fx.clock.advance(WANTED_MS - 1);
    assert!(ledger.expire(&bounds).unwrap().artifacts.is_empty());
    assert_eq!(
        ledger.artifacts("op-1").unwrap()[1].state,
        ArtifactState::Wanted
    );
    // A wall clock set forward does not end it early.
    fx.clock.jump_wall(3_600_000);
    assert!(ledger.expire(&bounds).unwrap().artifacts.is_empty());
    fx.clock.advance(1);
    let expired = ledger.expire(&bounds).unwrap();
    assert_eq!(expired.artifacts, vec!["op-1".to_string()]);
    let found = ledger.artifacts("op-1").unwrap();
    assert_eq!(found[0].state, ArtifactState::Stored, "a stored one stays");
    assert_eq!(found[1].state, ArtifactState::Unavailable);
    let conversation = receipt("op-1").conversation_id;
    let words = found[1].words.clone().unwrap();
    assert!(
        words.contains(&conversation)
            && words.contains("within 15 minutes")
            && words.contains("open the conversation"),
        "{words}"
    );
    assert!(ledger.wanted_artifacts(10, None).unwrap().is_empty());
}

#[test]
fn the_wanted_list_is_oldest_first_with_its_conversation_and_at_most_the_limit() {
    let fx = Fixture::new();
    let mut ledger = completed_with(&fx, "op-a", &pictures(3));
    fx.clock.advance(1_000);
    drive_to(&mut ledger, "op-b", SendState::Accepted);
    ledger
        .complete_with_artifacts(
            "op-b",
            ("answer-b", "text"),
            &pictures(MAX_PER_ANSWER),
            "extension",
        )
        .unwrap();
    let wanted = ledger.wanted_artifacts(10, None).unwrap();
    assert_eq!(wanted.len(), 10);
    assert_eq!((wanted[0].op_id.as_str(), wanted[0].n), ("op-a", 0));
    assert_eq!((wanted[3].op_id.as_str(), wanted[3].n), ("op-b", 0));
    assert_eq!(wanted[0].conversation_id, receipt("op-a").conversation_id);
}

#[test]
fn an_artifacts_bytes_are_deleted_by_the_upkeep_thirty_days_after_and_its_record_stays() {
    let fx = Fixture::new();
    let mut ledger = completed_with(&fx, "op-1", &pictures(1));
    let store = Store::new(fx.profile.dir());
    let file = stored_file(&fx, b"a generated picture");
    ledger.store_artifact("op-1", 0, &file).unwrap();
    fx.clock.advance(KEEP_MS - 1);
    assert!(sweep_once(&mut ledger, &store, KEEP_MS).unwrap().is_empty());
    fx.clock.advance(2);
    assert_eq!(
        sweep_once(&mut ledger, &store, KEEP_MS).unwrap(),
        vec![file.sha256.clone()]
    );
    assert!(store.read(&file.sha256).is_err());
    let a = &ledger.artifacts("op-1").unwrap()[0];
    assert_eq!(a.state, ArtifactState::Stored);
    assert!(
        a.bytes_deleted,
        "the record stays, its bytes marked deleted"
    );
}
