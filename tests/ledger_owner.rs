//! Single owner (issue 2): a second owner process is refused with the first's pid and
//! command line while the first lives, and succeeds at once after the first is
//! SIGKILLed; a reader in the owner's own process never strips the owner's lock.

mod support;

use sendledger::clock::ManualClock;
use sendledger::ledger::LedgerRead;
use sendledger::ledger::{Ledger, LedgerError, LedgerReader, ListFilter};
use sendledger::profile::ProfileError;
use std::sync::Arc;
use support::*;

#[test]
fn second_owner_is_refused_with_the_first_owners_pid_and_command_line() {
    let fx = Fixture::new();
    let first = CustodyChild::spawn(fx.profile.dir(), &["open", "queue:op-1"]);
    first.wait_ready("queue:op-1");
    let err = Ledger::open(&fx.profile, Arc::new(ManualClock::new(T0)))
        .expect_err("the profile is owned");
    let LedgerError::Profile(ProfileError::Owned { owner, .. }) = &err else {
        panic!("expected the owned error, got {err:?}");
    };
    assert_eq!(owner.pid, first.pid(), "the refusal names the owner's pid");
    assert!(
        owner.command.contains("sendledger-custody-child"),
        "and its command line: {}",
        owner.command
    );
    assert!(
        err.to_string().contains(&format!("pid {}", first.pid())),
        "{err}"
    );
    assert_eq!(err.code(), "profile_owned");
    // Read-only access still works while the other process owns the profile.
    let reader = LedgerReader::open(&fx.profile).unwrap();
    assert_eq!(reader.list(&ListFilter::default()).unwrap().len(), 1);
    assert_eq!(fx.profile.current_owner().map(|o| o.pid), Some(first.pid()));

    first.kill();
    // No retry loop: the kernel released the lock when the process died.
    let (ledger, report) = Ledger::open(&fx.profile, Arc::new(ManualClock::new(T0)))
        .expect("the next open succeeds at once after the owner's SIGKILL");
    assert_eq!(
        report.rejected,
        vec!["op-1".to_string()],
        "and it ran recovery"
    );
    assert_eq!(
        fx.profile.current_owner().map(|o| o.pid),
        Some(std::process::id())
    );
    drop(ledger);
}

#[test]
fn dropping_a_reader_in_the_owners_process_keeps_the_owner_lock() {
    let fx = Fixture::new();
    let mut owner = fx.open();
    owner.queue(&request("op-1", "first"), "test").unwrap();
    {
        let reader = LedgerReader::open(&fx.profile).unwrap();
        let second_reader = LedgerReader::open(&fx.profile).unwrap();
        assert_eq!(reader.get("op-1").unwrap().unwrap().text, "first");
        assert_eq!(
            second_reader.status().unwrap().counts.values().sum::<i64>(),
            1
        );
    } // both readers (and their descriptors of the ledger file) are closed here
    assert_eq!(
        fx.profile.current_owner().map(|o| o.pid),
        Some(std::process::id())
    );
    let (code, lines) = run_child(fx.profile.dir(), &["open"]);
    assert_eq!(
        code,
        Some(3),
        "a child process still cannot take ownership: {lines:?}"
    );
    assert!(
        lines[0].contains("profile_owned")
            && lines[0].contains(&format!("pid {}", std::process::id())),
        "the child is told who owns it: {lines:?}"
    );
    owner
        .queue(&request("op-2", "second"), "test")
        .expect("the owner still writes");
    let reader = LedgerReader::open(&fx.profile).unwrap();
    assert!(
        reader.get("op-2").unwrap().is_some(),
        "and its write is visible to a reader"
    );
}

#[test]
fn a_second_owner_handle_in_the_same_process_is_refused() {
    let fx = Fixture::new();
    let _owner = fx.open();
    let err = Ledger::open(&fx.profile, Arc::new(ManualClock::new(T0))).unwrap_err();
    assert_eq!(err.code(), "profile_owned", "{err}");
}
