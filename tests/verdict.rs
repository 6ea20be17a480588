//! The one table of what a send's state means to a client (src/verdict.rs), checked
//! against the ledger's own list of states: a state added later cannot slip through as
//! the unknown fallback, and only a send that never left is ever called retry-safe.

use sendledger::ledger::SendState;
use sendledger::verdict::{Standing, Verdict};

#[test]
fn every_ledger_state_is_read_by_the_one_table() {
    for state in SendState::ALL {
        assert!(
            Verdict::knows(state.as_str()),
            "{state}: add it to src/verdict.rs"
        );
    }
}

#[test]
fn only_a_send_that_never_left_is_retry_safe() {
    for state in SendState::ALL {
        for (seen, given_up) in [(false, false), (true, false), (false, true)] {
            let v = Verdict::of_state(state.as_str(), seen, given_up);
            assert_eq!(
                v.retry_safe,
                state == SendState::Rejected,
                "{state}: a new send may double anything that left or that a person decided"
            );
        }
    }
    assert!(!Verdict::of_state("from_the_future", false, false).retry_safe);
}

#[test]
fn a_page_error_is_its_own_settled_outcome_never_uncertain() {
    let v = Verdict::of_state("page_error", false, false);
    assert_eq!(v.standing, Standing::PageSaidNo);
    assert_eq!(v.code, "page_error");
    assert!(v.settled);
}

#[test]
fn only_a_send_on_its_way_keeps_a_client_waiting() {
    for state in SendState::ALL {
        let v = Verdict::of_state(state.as_str(), false, false);
        let on_its_way = matches!(
            state,
            SendState::Queued | SendState::Claimed | SendState::Dispatched | SendState::Accepted
        );
        assert_eq!(!v.settled, on_its_way, "{state}");
    }
    assert!(
        Verdict::of_state("accepted", false, true).settled,
        "an answer given up no longer holds a client"
    );
}
