//! Errors by code: one enum of stable codes, each with one wire name and one class; a
//! code read from the wire that this build does not know is never taken for a conflict.

use sendledger::api::{ErrorClass, ErrorCode};
use std::collections::BTreeSet;

#[test]
fn every_error_code_has_one_wire_name_that_reads_back_as_itself() {
    let mut names = BTreeSet::new();
    for code in ErrorCode::ALL {
        assert!(
            names.insert(code.as_str()),
            "{code:?}: its wire name is taken twice"
        );
        assert_eq!(ErrorCode::parse(code.as_str()), Some(*code));
        let json = serde_json::to_string(code).unwrap();
        assert_eq!(
            json,
            format!("\"{}\"", code.as_str()),
            "serde and as_str differ"
        );
    }
}

#[test]
fn an_unknown_wire_code_is_never_taken_for_a_conflict() {
    // An owner newer than this client may answer a code this build does not know: it is
    // an internal failure to the CLI (exit 5), not a ledger refusal (exit 1) guessed.
    assert_eq!(ErrorCode::parse("a_code_from_a_newer_owner"), None);
    assert_eq!(
        ErrorClass::of_wire("a_code_from_a_newer_owner"),
        ErrorClass::Internal
    );
    assert_eq!(ErrorClass::of_wire("epoch_stopped"), ErrorClass::Conflict);
}

#[test]
fn an_ended_lease_has_its_own_code_answered_gone() {
    // The extension re-leases on this code (content.js reads the code, never the message).
    let class = ErrorClass::of(ErrorCode::LeaseEnded);
    assert_eq!(class, ErrorClass::Gone);
    assert_eq!(class.http_status(), 410);
    assert_eq!(ErrorCode::LeaseEnded.as_str(), "lease_ended");
}
