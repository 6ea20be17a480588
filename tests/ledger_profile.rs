//! The profile and the ledger file (issue 2): permissions, a symlink escaping the
//! profile, a newer schema, an edited migration, a damaged file.

mod support;

use sendledger::clock::ManualClock;
use sendledger::ledger::{migrations, Ledger, LedgerError, LedgerRead, LedgerReader};
use sendledger::profile::{Profile, ProfileError};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;
use support::*;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

fn open_err(profile: &Profile) -> LedgerError {
    Ledger::open(profile, Arc::new(ManualClock::new(T0))).expect_err("the ledger must be refused")
}

#[test]
fn profile_directory_is_0700_and_ledger_files_0600() {
    let fx = Fixture::new();
    assert_eq!(mode(fx.profile.dir()), 0o700, "a new profile directory");
    let mut ledger = fx.open();
    ledger.queue(&request("op-1", "hello"), "test").unwrap();
    let path = fx.ledger_path();
    for file in [
        path.clone(),
        path.with_file_name("ledger.sqlite3-wal"),
        path.with_file_name("ledger.sqlite3-shm"),
    ] {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
}

#[test]
fn group_readable_profile_and_ledger_are_tightened() {
    let fx = Fixture::new();
    drop(fx.open());
    std::fs::set_permissions(fx.profile.dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(fx.ledger_path(), std::fs::Permissions::from_mode(0o644)).unwrap();
    let profile = Profile::at(fx.profile.dir()).unwrap();
    assert_eq!(mode(profile.dir()), 0o700);
    drop(Ledger::open(&profile, Arc::new(fx.clock.clone())).unwrap());
    assert_eq!(mode(&fx.ledger_path()), 0o600);
}

#[test]
fn symlinked_ledger_escaping_the_profile_is_refused() {
    let fx = Fixture::new();
    let outside = fx.dir.path().join("elsewhere.sqlite3");
    std::fs::write(&outside, b"not yours").unwrap();
    std::os::unix::fs::symlink(&outside, fx.profile.dir().join("ledger.sqlite3")).unwrap();
    let err = open_err(&fx.profile);
    assert!(
        matches!(err, LedgerError::Profile(ProfileError::Escapes { .. })),
        "{err:?}"
    );
    assert!(err.to_string().contains("outside the profile"), "{err}");
    assert!(matches!(
        LedgerReader::open(&fx.profile),
        Err(LedgerError::Profile(ProfileError::Escapes { .. }))
    ));
    assert_eq!(
        std::fs::read(&outside).unwrap(),
        b"not yours",
        "the target is untouched"
    );

    // A dangling link is refused too (it would create the file outside).
    let fx = Fixture::new();
    let missing = fx.dir.path().join("missing.sqlite3");
    std::os::unix::fs::symlink(&missing, fx.profile.dir().join("ledger.sqlite3")).unwrap();
    assert!(matches!(
        open_err(&fx.profile),
        LedgerError::Profile(ProfileError::Escapes { .. })
    ));
    assert!(!missing.exists(), "nothing was created outside the profile");
}

#[test]
fn newer_schema_ledger_is_refused_untouched() {
    let fx = Fixture::new();
    let ledger = fx.open();
    ledger
        .raw_connection()
        .pragma_update(None, "user_version", migrations::CURRENT_VERSION + 1)
        .unwrap();
    drop(ledger);
    let bytes = std::fs::read(fx.ledger_path()).unwrap();
    let err = open_err(&fx.profile);
    assert!(
        matches!(err, LedgerError::NewerSchema { found, .. } if found == migrations::CURRENT_VERSION + 1),
        "{err:?}"
    );
    assert!(err.to_string().contains("upgrade sendledger"), "{err}");
    assert!(matches!(
        LedgerReader::open(&fx.profile),
        Err(LedgerError::NewerSchema { .. })
    ));
    assert_eq!(
        std::fs::read(fx.ledger_path()).unwrap(),
        bytes,
        "the file was not touched"
    );
}

#[test]
fn edited_applied_migration_is_refused() {
    let fx = Fixture::new();
    let ledger = fx.open();
    // Stand-in for a binary whose 0001 text differs from the applied one.
    ledger
        .raw_connection()
        .execute(
            "UPDATE schema_migrations SET sha256 = 'edited' WHERE version = 1",
            [],
        )
        .unwrap();
    drop(ledger);
    let err = open_err(&fx.profile);
    assert!(
        matches!(err, LedgerError::MigrationEdited { version: 1, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("never edited"), "{err}");
}

#[test]
fn corrupt_ledger_file_gives_the_corrupt_error() {
    let fx = Fixture::new();
    let garbage: Vec<u8> = (0..64 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(fx.profile.dir().join("ledger.sqlite3"), &garbage).unwrap();
    std::fs::set_permissions(fx.ledger_path(), std::fs::Permissions::from_mode(0o600)).unwrap();
    let err = open_err(&fx.profile);
    assert!(matches!(err, LedgerError::Corrupt { .. }), "{err:?}");
    assert!(err.to_string().contains("sendledger doctor"), "{err}");
    assert!(matches!(
        LedgerReader::open(&fx.profile),
        Err(LedgerError::Corrupt { .. })
    ));
    assert_eq!(
        std::fs::read(fx.ledger_path()).unwrap(),
        garbage,
        "the damaged file is kept as is"
    );
}

/// A launch hands over only to a window of its own profile: each profile's window takes a
/// D-Bus name of its own, valid as a bus name element, the same for the same directory
/// however it is spelled.
#[test]
fn each_profile_has_a_window_bus_name_of_its_own() {
    let root = tempfile::tempdir().unwrap();
    let a = Profile::at(root.path().join("a")).unwrap();
    let b = Profile::at(root.path().join("b")).unwrap();
    let a_again = Profile::at(root.path().join("b/../a")).unwrap();
    assert_ne!(a.window_bus_id(), b.window_bus_id());
    assert_eq!(a.window_bus_id(), a_again.window_bus_id());
    let id = a.window_bus_id();
    let last = id.strip_prefix("org.sendledger.app.").unwrap();
    assert!(
        last.starts_with("profile_") && last.len() == "profile_".len() + 16,
        "{id}"
    );
    assert!(
        last.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_'),
        "{id}"
    );
}

/// A second owner started at the same instant finds the lock held but the holder's name not
/// written yet: it waits a moment for the name, and never says "pid 0" — an owner starting.
#[test]
fn an_owner_that_has_not_written_its_name_is_called_starting_never_pid_0() {
    let fx = Fixture::new();
    let path = fx.profile.file("owner.lock").unwrap();
    let holder = std::fs::File::create(&path).unwrap();
    holder
        .try_lock()
        .expect("the test holds the lock, with no name written");
    let err = fx.profile.lock_owner().unwrap_err();
    let said = err.to_string();
    assert!(matches!(err, ProfileError::Owned { .. }), "{said}");
    assert!(!said.contains("pid 0"), "{said}");
    assert!(said.contains("an owner that is starting"), "{said}");
}

/// No ledger where the profile shows it had one: opening refuses, names what it found and
/// what to run, and creates nothing.
#[test]
fn a_profile_that_had_a_ledger_is_never_given_a_new_empty_one() {
    let fx = Fixture::new();
    drop(fx.open());
    std::fs::remove_file(fx.ledger_path()).unwrap();
    let err = Ledger::open(&fx.profile, Arc::new(ManualClock::new(T0))).unwrap_err();
    assert_eq!(err.code(), "ledger_missing");
    let said = err.to_string();
    assert!(
        said.contains("reserve.bin") && said.contains("put it back"),
        "{said}"
    );
    assert!(!fx.ledger_path().exists(), "nothing was created");
    let read = LedgerReader::open(&fx.profile)
        .err()
        .expect("no reader either");
    assert_eq!(
        read.code(),
        "ledger_missing",
        "status and doctor say the same"
    );
}

/// The triggers of `conn`, by name, as their SQL stands.
fn triggers(conn: &rusqlite::Connection) -> Vec<(String, String)> {
    conn.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// Every message a trigger of `conn` raises.
fn raised_messages(conn: &rusqlite::Connection) -> Vec<String> {
    triggers(conn)
        .iter()
        .flat_map(|(_, sql)| {
            sql.split("RAISE(ABORT, '")
                .skip(1)
                .map(|m| m.split("')").next().unwrap_or_default().to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn starts_with_a_code(message: &str) -> bool {
    message.split_once(": ").is_some_and(|(code, _)| {
        !code.is_empty() && code.chars().all(|c| c.is_ascii_lowercase() || c == '_')
    })
}

#[test]
fn every_trigger_refuses_with_its_code_also_in_a_ledger_made_by_the_previous_schema() {
    let fx = Fixture::new();
    // The last schema before migration 0012 gave every trigger its code.
    let previous = 11;
    {
        let old =
            Ledger::open_at_version(&fx.profile, Arc::new(fx.clock.clone()), previous).unwrap();
        // Written as an owner of that schema wrote it: today's queue writes columns that
        // later migrations added (a send's site, 0022; the default destination, 0023).
        old.raw_connection()
            .execute(
                "INSERT INTO sends(op_id, text, epoch, created_at, state, updated_at, actor) \
                 VALUES ('op-old', 'made before the codes', 'epoch-old', 0, 'queued', 0, 'test')",
                [],
            )
            .unwrap();
        let err = try_raw(old.raw_connection(), "DELETE FROM sends", []).unwrap_err();
        assert!(
            err.contains("sends are never deleted") && !err.contains("append_only:"),
            "the previous schema's message has no code: {err}"
        );
    }
    let mut upgraded = fx.open();
    assert_eq!(
        migrations::version(upgraded.raw_connection()).unwrap(),
        migrations::CURRENT_VERSION
    );
    assert!(
        upgraded.get("op-old").unwrap().is_some(),
        "the send made before the upgrade is still there"
    );
    let messages = raised_messages(upgraded.raw_connection());
    assert!(messages.len() > 30, "{messages:?}");
    for m in &messages {
        assert!(
            starts_with_a_code(m),
            "a trigger's message without its code: {m:?}"
        );
    }
    let err = try_raw(upgraded.raw_connection(), "DELETE FROM sends", []).unwrap_err();
    assert!(
        err.contains("append_only: sends are never deleted"),
        "{err}"
    );
    // The code is what the ledger reads: a fenced lease is still the typed refusal.
    upgraded.stop("test").unwrap();
    assert!(matches!(
        upgraded.lease(&tab("tab-1")),
        Err(LedgerError::EpochStopped)
    ));
    // An upgraded ledger has the very triggers of a fresh one.
    let fresh = Fixture::new();
    assert_eq!(
        triggers(upgraded.raw_connection()),
        triggers(fresh.open().raw_connection())
    );
}
