//! The files the owner keeps custody in, moved under it (issue 26): the ledger removed,
//! removed with its `-wal`, renamed, replaced by another file, SQLite's `-wal` or `-shm`
//! removed alone, and `owner.lock` removed,
//! each under a real `sendledger serve` child, which is then SIGKILLed and started again.
//! The owner notices without being asked (its log, `ledger.displaced.json`), refuses every
//! write with a sentence (a Stop is kept for the next start), `doctor` says so, and the
//! next start never silently begins an empty ledger.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What is done to the ledger under the running owner.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fault {
    Removed,
    RemovedWithWal,
    Renamed,
    Replaced,
    /// SQLite's `-wal` alone removed (a clean-up of "temporary" files).
    WalRemoved,
    /// SQLite's `-shm` alone removed.
    ShmRemoved,
}

impl Fault {
    fn side_file(self) -> bool {
        matches!(self, Fault::WalRemoved | Fault::ShmRemoved)
    }
}

fn apply(fault: Fault, profile: &Path) {
    let ledger = ledger_file(profile);
    let side = |s: &str| profile.join(format!("ledger.sqlite3{s}"));
    match fault {
        Fault::Removed => std::fs::remove_file(&ledger).unwrap(),
        Fault::RemovedWithWal => {
            for p in [ledger.clone(), side("-wal"), side("-shm")] {
                std::fs::remove_file(p).unwrap();
            }
        }
        Fault::Renamed => std::fs::rename(&ledger, profile.join("ledger-old.sqlite3")).unwrap(),
        Fault::WalRemoved => std::fs::remove_file(side("-wal")).unwrap(),
        Fault::ShmRemoved => std::fs::remove_file(side("-shm")).unwrap(),
        Fault::Replaced => {
            // As a backup tool restoring an older copy: another file put at the path.
            let other = profile.join("restored.tmp");
            std::fs::copy(&ledger, &other).unwrap();
            std::fs::rename(&other, &ledger).unwrap();
        }
    }
}

/// Waits (bounded) until serve's log contains `needle`; nothing is asked of it meanwhile.
fn wait_for_log(serve: &Serve, needle: &str) {
    let deadline = Instant::now() + BOUND;
    while !serve.stderr().contains(needle) {
        assert!(
            Instant::now() < deadline,
            "serve's log never said {needle:?}: {}",
            serve.stderr()
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

fn rescued_copy(profile: &Path) -> Option<PathBuf> {
    std::fs::read_dir(profile)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("ledger.rescued-")
        })
}

fn op_ids_in(file: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open_with_flags(file, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap();
    let mut stmt = c.prepare("SELECT op_id FROM sends ORDER BY seq").unwrap();
    let ids = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<Vec<String>>>()
        .unwrap();
    ids
}

/// Runs one fault through: acknowledged sends, the fault, what the owner says and
/// refuses, SIGKILL, and the next start.
fn ledger_moved_under_the_owner(fault: Fault) {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    for i in 0..3 {
        client.queue(&format!("before-{i}"), "acknowledged before the fault");
    }
    apply(fault, &profile);

    // Noticed with nothing asked of the owner: the folder watch.
    wait_for_log(&serve, "acknowledges nothing more");
    let copy = rescued_copy(&profile).expect("the owner saved a copy of its open ledger");
    assert_eq!(
        op_ids_in(&copy),
        ["before-0", "before-1", "before-2"],
        "{fault:?}: the copy holds every acknowledged send"
    );

    let status = client.get("/v1/status");
    let why = status.body["status"]["waiting_sentence"]
        .as_str()
        .unwrap_or("");
    assert!(
        why.contains("no longer acknowledges anything"),
        "{fault:?}: the tray's line and the window say why: {}",
        status.body
    );
    let refused = client.post("/v1/sends", &json!({ "op_id": "after", "text": "after" }));
    assert_eq!(refused.status, 503, "{fault:?}: {}", refused.body);
    assert_eq!(refused.code(), "ledger_displaced");
    let said = refused.body["message"].as_str().unwrap();
    assert!(
        said.contains("nothing was written") && said.contains("quit this owner"),
        "{said}"
    );

    let stop = client.post("/v1/stop", &json!({ "by": "tester" }));
    assert_eq!(stop.status, 503, "{fault:?}: {}", stop.body);
    assert!(
        stop.body["message"]
            .as_str()
            .unwrap()
            .contains("the Stop was kept"),
        "{}",
        stop.body
    );
    let doctor = cli(&profile, &["doctor"]);
    let doctor_said = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(4), "{doctor_said}");
    assert!(
        doctor_said.contains("acknowledges nothing"),
        "{doctor_said}"
    );
    serve.kill();
    next_start_after(fault, &profile, &copy);
}

/// The start after the fault: no empty ledger begun silently; with the file back (or
/// another there), the gate starts closed and says why.
fn next_start_after(fault: Fault, profile: &Path, copy: &Path) {
    if fault != Fault::Replaced {
        let refused = Serve::try_start(profile, &["--port", "0"])
            .err()
            .expect("no start over a profile whose ledger went missing");
        assert_eq!(refused.status.code(), Some(4), "{}", refused.stderr);
        let name = copy.file_name().unwrap().to_string_lossy().to_string();
        let said = if fault.side_file() {
            "are in the copy it saved"
        } else {
            "does not begin a new, empty ledger"
        };
        assert!(
            refused.stderr.contains(said) && refused.stderr.contains(&name),
            "{fault:?}: the refusal names what it found and what to run: {}",
            refused.stderr
        );
        assert_eq!(
            ledger_file(profile).exists(),
            fault.side_file(),
            "nothing was created"
        );
        std::fs::rename(copy, ledger_file(profile)).unwrap();
        let _ = std::fs::remove_file(profile.join("ledger.sqlite3-wal"));
        let _ = std::fs::remove_file(profile.join("ledger.sqlite3-shm"));
    }
    let serve = Serve::start(profile, &[]);
    let status = serve.client().get("/v1/status");
    assert_eq!(status.status, 200, "{}", status.body);
    assert_eq!(
        status.body["status"]["gate_closed"], true,
        "{fault:?}: the gate starts closed after the ledger moved: {}",
        status.body
    );
    if fault == Fault::Replaced {
        // The file put in place opens as it is (no other file's `-wal` is replayed onto it):
        // what the owner acknowledged is in the copy it saved, which the start names.
        let name = copy.file_name().unwrap().to_string_lossy().to_string();
        assert!(serve.stderr().contains(&name), "{}", serve.stderr());
        assert_eq!(op_ids_in(copy), ["before-0", "before-1", "before-2"]);
    } else {
        for i in 0..3 {
            assert_eq!(serve.client().state(&format!("before-{i}")), "rejected");
        }
    }
    assert!(!profile.join("ledger.displaced.json").exists());
}

#[test]
fn a_ledger_removed_under_the_owner_is_noticed_refused_and_never_begun_anew() {
    ledger_moved_under_the_owner(Fault::Removed);
}

#[test]
fn a_ledger_removed_with_its_wal_under_the_owner_is_noticed_refused_and_never_begun_anew() {
    ledger_moved_under_the_owner(Fault::RemovedWithWal);
}

#[test]
fn a_ledger_renamed_under_the_owner_is_noticed_refused_and_never_begun_anew() {
    ledger_moved_under_the_owner(Fault::Renamed);
}

#[test]
fn a_ledger_replaced_under_the_owner_is_noticed_refused_and_the_next_start_closes_the_gate() {
    ledger_moved_under_the_owner(Fault::Replaced);
}

#[test]
fn the_ledgers_wal_removed_under_the_owner_is_noticed_refused_and_the_copy_is_offered() {
    ledger_moved_under_the_owner(Fault::WalRemoved);
}

#[test]
fn the_ledgers_shm_removed_under_the_owner_is_noticed_refused_and_the_copy_is_offered() {
    ledger_moved_under_the_owner(Fault::ShmRemoved);
}

/// `owner.lock` removed under a running owner that has a claimed and a queued send; a
/// second `serve` then started with `second_port` (its own `--port` value).
fn second_owner_after_the_lock_was_removed(second_port: impl Fn(&Serve) -> String) {
    let (_tmp, profile) = profile_dir();
    let first = Serve::start(&profile, &[]);
    let ext = first.pair();
    let lease = ext.lease("tab-1");
    first
        .client()
        .queue("claimed-op", "claimed by the live owner");
    first.client().queue("queued-op", "queued behind it");
    let claimed = ext.next(&lease, 5_000).expect("a send is handed out");
    assert_eq!(claimed["op_id"], "claimed-op");
    std::fs::remove_file(profile.join("owner.lock")).unwrap();
    wait_for_log(&first, "acknowledges nothing more");
    let before = dump(&profile);

    let port = second_port(&first);
    let second = Serve::try_start(&profile, &["--port", &port])
        .err()
        .expect("a second owner never runs beside the first");
    assert_eq!(second.status.code(), Some(3), "{}", second.stderr);
    assert!(
        second.stderr.contains("owner.lock was removed"),
        "{}",
        second.stderr
    );
    assert_eq!(
        dump(&profile),
        before,
        "no recovery ran on the live owner's ledger"
    );
    assert_eq!(first.client().state("claimed-op"), "claimed");
    assert_eq!(first.client().state("queued-op"), "queued");
    let grant = ext.dispatch(&lease, "claimed-op");
    assert_eq!(
        grant.status, 503,
        "the first owner grants nothing: {}",
        grant.body
    );
    assert_eq!(grant.code(), "ledger_displaced");
    first.kill();

    // The ledger never moved: the next start runs as after any crash, gate open.
    let third = Serve::start(&profile, &[]);
    assert_eq!(third.client().state("claimed-op"), "uncertain");
    assert_eq!(third.client().state("queued-op"), "rejected");
    let status = third.client().get("/v1/status");
    assert_eq!(
        status.body["status"]["gate_closed"], false,
        "{}",
        status.body
    );
}

#[test]
fn owner_lock_removed_a_second_owner_on_another_port_never_runs_and_recovers_nothing() {
    second_owner_after_the_lock_was_removed(|_| "0".into());
}

#[test]
fn owner_lock_removed_a_second_owner_on_the_same_port_never_runs_and_recovers_nothing() {
    second_owner_after_the_lock_was_removed(|first| first.port.to_string());
}

/// `sendledger stop` with no owner and no ledger where the profile had one: refused (exit 4)
/// with what was found, and kept: the start that finds a ledger again closes the gate.
#[test]
fn a_stop_asked_while_the_ledger_is_missing_is_kept_for_the_start_that_finds_it() {
    let (_tmp, profile) = profile_dir();
    let mut serve = Serve::start(&profile, &[]);
    serve.client().queue("op-1", "before");
    serve.terminate();
    serve.wait_exit();
    let aside = profile.join("kept-aside.sqlite3");
    std::fs::rename(ledger_file(&profile), &aside).unwrap();
    let (code, v) = cli_json(&profile, &["stop", "--by", "tester"]);
    assert_eq!(code, 4, "{v}");
    let said = v["error"]["message"].as_str().unwrap();
    assert!(said.contains("The Stop was kept"), "{said}");
    assert!(
        !ledger_file(&profile).exists(),
        "no ledger was made for the Stop"
    );
    std::fs::rename(&aside, ledger_file(&profile)).unwrap();
    let serve = Serve::start(&profile, &[]);
    let status = serve.client().get("/v1/status");
    assert_eq!(
        status.body["status"]["gate_closed"], true,
        "{}",
        status.body
    );
}

/// Queues `count` sends named `{prefix}-{i}` (text padded to `pad` bytes) through a fresh
/// owner, then quits it cleanly: SQLite moves those rows into the main file at the close,
/// so the next owner's few writes are in its `-wal` only, as in a ledger of long use.
fn queued_then_quit(profile: &Path, prefix: &str, count: usize, pad: usize) {
    let mut serve = Serve::start(profile, &[]);
    let pad = "p".repeat(pad);
    for i in 0..count {
        serve
            .client()
            .queue(&format!("{prefix}-{i}"), &format!("{prefix} {i} {pad}"));
    }
    serve.terminate();
    serve.wait_exit();
}

/// `doctor` exits 0: the ledger opens whole.
fn assert_healthy(profile: &Path) {
    let doctor = cli(profile, &["doctor"]);
    let said = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(0), "{said}");
}

/// What the start's refusal says to run after a ledger was removed under its owner is the
/// `mv` of the rescued copy into place. SQLite does not empty the `-wal` of a file that
/// moved (not at a SIGKILL, not at its close), so the removed file's frames would still be
/// beside the path, and SQLite would replay them onto whatever file is put there — the
/// copy (`VACUUM INTO`: another page layout), or an older backup restored over the ledger —
/// and damage it. So the owner empties its `-wal` into the file it holds the moment it
/// notices the ledger moved: nothing is left beside the path for another file.
#[test]
fn a_moved_ledgers_wal_is_emptied_into_it_so_no_other_file_at_the_path_replays_it() {
    let (_tmp, profile) = profile_dir();
    queued_then_quit(&profile, "before", 40, 0);
    let serve = Serve::start(&profile, &[]);
    serve
        .client()
        .queue("late", "acknowledged just before the fault");
    std::fs::remove_file(ledger_file(&profile)).unwrap();
    wait_for_log(&serve, "acknowledges nothing more");
    let copy = rescued_copy(&profile).expect("the owner saved a copy of its open ledger");
    serve.kill();
    // Exactly what the start's refusal says to run, nothing more.
    std::fs::rename(&copy, ledger_file(&profile)).unwrap();
    let serve = Serve::start(&profile, &[]);
    for i in 0..40 {
        assert_eq!(serve.client().state(&format!("before-{i}")), "rejected");
    }
    assert_eq!(serve.client().state("late"), "rejected");
    assert_healthy(&profile);
}

/// The same rule, met by a backup tool restoring an older copy over the ledger while the
/// owner runs: even after a clean quit (SQLite does not checkpoint a moved file at its
/// close), the next start opens the restored file whole — its own rows, the gate closed.
#[test]
fn an_older_backup_restored_under_the_owner_opens_whole_with_no_other_files_wal() {
    let (_tmp, profile) = profile_dir();
    let backup = profile.with_file_name("backup.sqlite3");
    queued_then_quit(&profile, "in-the-backup", 20, 0);
    std::fs::copy(ledger_file(&profile), &backup).unwrap();
    queued_then_quit(&profile, "after", 60, 300);
    let mut serve = Serve::start(&profile, &[]);
    serve
        .client()
        .queue("late", "acknowledged just before the restore");
    let restoring = profile.join("restore.tmp");
    std::fs::copy(&backup, &restoring).unwrap();
    std::fs::rename(&restoring, ledger_file(&profile)).unwrap();
    wait_for_log(&serve, "acknowledges nothing more");
    serve.terminate();
    serve.wait_exit();
    let serve = Serve::start(&profile, &[]);
    for i in 0..20 {
        assert_eq!(
            serve.client().state(&format!("in-the-backup-{i}")),
            "rejected"
        );
    }
    let status = serve.client().get("/v1/status");
    assert_eq!(
        status.body["status"]["gate_closed"], true,
        "{}",
        status.body
    );
    assert_healthy(&profile);
}

/// The profile's folder moved away whole under a running owner: a Stop is answered 503 like
/// every write, and since the folder that would keep it is gone, the answer never says the
/// Stop was kept (nothing will close the gate at the next start).
#[test]
fn a_stop_the_profile_could_not_keep_is_never_said_to_be_kept() {
    let (tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    client.queue("before", "acknowledged before the move");
    std::fs::rename(&profile, tmp.path().join("moved")).unwrap();
    // Every write checks the files' places (the folder watch may not see its own folder go).
    let refused = client.post("/v1/sends", &json!({ "op_id": "after", "text": "after" }));
    assert_eq!(refused.status, 503, "{}", refused.body);
    let stop = client.post("/v1/stop", &json!({ "by": "tester" }));
    assert_eq!(stop.status, 503, "{}", stop.body);
    assert_eq!(stop.code(), "ledger_displaced");
    let said = stop.body["message"].as_str().unwrap();
    assert!(!said.contains("the Stop was kept"), "{said}");
    assert!(said.contains("nothing was written"), "{said}");
}
