//! The brake on a full disk (issue 11): a Stop and a person's decision commit even when
//! SQLite answers `SQLITE_FULL`, by releasing the profile's preallocated reserve; the
//! reserve is made again once there is room. On a real small tmpfs filled by another
//! file (skipped, saying so, where a tmpfs cannot be mounted).

mod support;
#[path = "support/tmpfs.rs"]
mod tmpfs;

use sendledger::clock::ManualClock;
use sendledger::ledger::LedgerRead;
use sendledger::ledger::{Bounds, Decision, Ledger, LedgerError, SendState};
use sendledger::profile::{Profile, RESERVE_BYTES, RESERVE_FILE};
use std::sync::Arc;
use support::*;

/// A ledger with `queued` sends and one uncertain send, on a 4 MiB tmpfs.
fn ledger_on_small_disk(disk: &tmpfs::Tmpfs, queued: usize) -> (Profile, ManualClock, Ledger) {
    let profile = Profile::at(disk.path().join("profile")).unwrap();
    let clock = ManualClock::new(T0);
    let (mut ledger, _) = Ledger::open(&profile, Arc::new(clock.clone())).unwrap();
    drive_to(&mut ledger, "op-uncertain", SendState::Uncertain);
    for i in 0..queued {
        ledger
            .queue(&request(&format!("op-{i}"), &format!("queued {i}")), "test")
            .unwrap();
    }
    (profile, clock, ledger)
}

#[test]
fn stop_and_a_decision_commit_on_a_full_disk_through_the_reserve_which_is_made_again() {
    let Some(disk) = tmpfs::Tmpfs::mount(4 << 20) else {
        return;
    };
    let (profile, _clock, mut ledger) = ledger_on_small_disk(&disk, 10);
    let reserve = profile.dir().join(RESERVE_FILE);
    assert_eq!(std::fs::metadata(&reserve).unwrap().len(), RESERVE_BYTES);
    assert!(disk.fill("filler") > 0);
    // The disk is really full for the ledger: an ordinary write is refused.
    let refused = ledger.queue(&request("op-more", "no room"), "test");
    assert!(
        matches!(refused, Err(LedgerError::DiskFull { .. })),
        "the disk must be full for this test to mean anything: {refused:?}"
    );
    let report = ledger
        .stop("alice")
        .expect("Stop commits whatever the disk");
    assert!(report.used_reserve, "{report:?}");
    assert_eq!(report.stopped.len(), 10);
    assert!(ledger.status().unwrap().gate_closed);
    assert!(!ledger.reserve_held(), "released for the Stop");
    std::fs::remove_file(disk.path().join("filler")).unwrap();
    ledger.expire(&Bounds::default()).unwrap();
    assert!(ledger.reserve_held(), "made again once there is room");
    disk.fill("filler");
    // (The gate is closed: an ordinary write now is a tool receipt.)
    let full = matches!(
        ledger.tool_admit("call-no-room"),
        Err(LedgerError::DiskFull { .. })
    );
    assert!(full, "the disk must be full for this test to mean anything");
    let decided = ledger
        .resolve("op-uncertain", &decision(Decision::Confirmed))
        .expect("a person's decision commits on a full disk");
    assert_eq!(decided.send.state, SendState::Confirmed);
    drop(ledger);
    std::fs::remove_file(disk.path().join("filler")).unwrap();
    let (ledger, _) = Ledger::open(&profile, Arc::new(ManualClock::new(T0))).unwrap();
    assert!(ledger.status().unwrap().gate_closed, "the Stop is on disk");
    assert_eq!(state_of(&ledger, "op-uncertain"), SendState::Confirmed);
}

#[test]
fn stop_from_outside_the_owner_commits_on_a_full_disk_through_the_reserve() {
    let Some(disk) = tmpfs::Tmpfs::mount(4 << 20) else {
        return;
    };
    let (profile, clock, ledger) = ledger_on_small_disk(&disk, 10);
    disk.fill("filler");
    let report = Ledger::stop_from_outside(&profile, "alice", &clock).expect("the brake commits");
    assert!(report.used_reserve);
    assert_eq!(report.stopped.len(), 10);
    assert!(ledger.status().unwrap().gate_closed);
}

/// What a Stop writes: the WAL's growth for a Stop of `queued` sends (the figure behind
/// `RESERVE_BYTES`). Printed, never asserted as a timing or size bound beyond the reserve.
#[test]
fn a_stop_of_a_thousand_queued_sends_fits_in_the_reserve() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    for n in [10usize, 1000] {
        for i in 0..n {
            ledger
                .queue(
                    &request(&format!("op-{n}-{i}"), "x".repeat(200).as_str()),
                    "t",
                )
                .unwrap();
        }
        ledger
            .raw_connection()
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
            .unwrap();
        let wal = fx.ledger_path().with_file_name("ledger.sqlite3-wal");
        ledger.stop("measure").unwrap();
        let grew = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
        eprintln!("a Stop of {n} queued sends wrote {grew} bytes of WAL");
        assert!(grew < RESERVE_BYTES, "{n} sends: {grew} bytes");
        ledger.resume("measure").unwrap();
    }
}
