//! Custody bounds keep their length when the real owner's wall clock jumps (issue 26,
//! the real-process side of `tests/ledger_clock.rs`): `sendledger serve` runs under
//! libfaketime (Debian's `libfaketime`, installed by `scripts/setup.sh`), its wall clock
//! offset read from a file the test rewrites while the owner runs (+2 h, −2 h); its
//! monotonic clock is left alone (`FAKETIME_DONT_FAKE_MONOTONIC`), as a laptop's is when
//! its clock is re-synced. Each test first proves the jump reached the owner: the times it
//! records for people moved with it.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use std::path::Path;

const LIBFAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
const HOUR_MS: i64 = 3_600_000;

/// Serve under libfaketime with its wall clock offset read from `offset_file` at every
/// reading (no cache).
fn faked_owner(profile: &Path, offset_file: &Path, extra: &[&str]) -> Serve {
    assert!(
        Path::new(LIBFAKETIME).exists(),
        "{LIBFAKETIME} is missing: install Debian's libfaketime (scripts/setup.sh does)"
    );
    std::fs::write(offset_file, "+0\n").unwrap();
    Serve::start_with_args_and_env(
        profile,
        extra,
        &[
            ("LD_PRELOAD", LIBFAKETIME),
            ("FAKETIME_TIMESTAMP_FILE", offset_file.to_str().unwrap()),
            ("FAKETIME_NO_CACHE", "1"),
            ("FAKETIME_DONT_FAKE_MONOTONIC", "1"),
        ],
    )
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Jumps the owner's wall clock to `offset` (libfaketime's `+7200`, `-7200`: seconds) and
/// makes it write (a queued send, `op`); returns the time it recorded for that send.
fn jump_and_write(serve: &Serve, offset_file: &Path, offset: &str, op: &str) -> i64 {
    std::fs::write(offset_file, format!("{offset}\n")).unwrap();
    serve.client().queue(op, "written after the jump");
    serve.client().show(op)["send"]["created_at"]
        .as_i64()
        .unwrap()
}

#[test]
fn a_wall_clock_set_forward_under_the_real_owner_moves_no_custody_bound() {
    let (tmp, profile) = profile_dir();
    let offset = tmp.path().join("faketime-offset");
    let serve = faked_owner(&profile, &offset, &[]);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    serve
        .client()
        .queue("fresh", "claimed just before the jump");
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "fresh");
    let stamped = jump_and_write(&serve, &offset, "+7200", "after-forward");
    assert!(
        stamped > now_ms() + HOUR_MS,
        "the owner's wall clock jumped forward 2 h (it recorded {stamped})"
    );
    // A claim an instant old, with the wall clock 2 h on: still claimed, and granted.
    assert_eq!(serve.client().state("fresh"), "claimed");
    assert_eq!(ext.dispatch(&lease, "fresh").body["granted"], true);
    jump_and_write(&serve, &offset, "+14400", "after-second-jump");
    assert_eq!(
        serve.client().state("fresh"),
        "dispatched",
        "a click an instant old is not made uncertain by the wall clock"
    );
}

#[test]
fn a_wall_clock_set_back_under_the_real_owner_moves_no_custody_bound() {
    let (tmp, profile) = profile_dir();
    let offset = tmp.path().join("faketime-offset");
    let serve = faked_owner(&profile, &offset, &["--receipt-ms", "1500"]);
    let client = serve.client();
    let mut feed = client.events(None);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("clicked", "clicked just before the jump");
    assert_eq!(
        ext.next(&lease, 5_000).expect("claimed")["op_id"],
        "clicked"
    );
    assert_eq!(ext.dispatch(&lease, "clicked").body["granted"], true);
    let stamped = jump_and_write(&serve, &offset, "-7200", "after-back");
    assert!(
        stamped < now_ms() - HOUR_MS,
        "the owner's wall clock jumped back 2 h (it recorded {stamped})"
    );
    // The receipt bound (1.5 s) runs out on the monotonic clock: the send becomes
    // uncertain within the test's bound, not 2 h later.
    let expired = feed.wait_for("clicked", "uncertain");
    assert_eq!(expired["from"], "dispatched");
    assert_eq!(client.state("clicked"), "uncertain");
}
