//! Named API keys through the typed API (`api::Request::KeyCreate`/`KeyRevoke`,
//! `api::keys`): the one path the CLI, the bridge's `/v1/keys` routes and the tray app's
//! Connect panel share. The secret is handed out once and never shows in a debug print;
//! a refused name writes nothing; a revocation is recorded as who asked.

mod support;

use sendledger::api::{self, Caller, Outcome, Request};
use support::*;

fn create(name: &str, by: &str) -> Request {
    Request::KeyCreate {
        name: name.into(),
        scope: sendledger::ledger::KeyScope::Send,
        by: by.into(),
    }
}

#[test]
fn a_key_made_through_the_api_opens_the_door_until_its_revocation_through_the_api() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let Outcome::KeyCreated { key, secret } =
        api::apply(&mut ledger, &create("bot", "ann")).unwrap()
    else {
        panic!("KeyCreate answers the key and its secret")
    };
    assert_eq!((key.name.as_str(), key.created_by.as_str()), ("bot", "ann"));
    assert!(secret.expose().starts_with("sk-sl-") && secret.expose().len() == 70);
    assert_eq!(
        ledger.key_use(secret.expose()).unwrap().map(|k| k.name),
        Some("bot".to_string()),
        "the secret handed out is the key the door accepts"
    );
    let listed = api::keys(&ledger).unwrap();
    assert_eq!(listed.len(), 1);
    assert!(
        listed[0].last_used_at.is_some(),
        "the list shows its last use"
    );

    let revoke = Request::KeyRevoke {
        name: "bot".into(),
        by: "ben".into(),
        key_sha256: None,
    };
    let Outcome::KeyRevoked { key } = api::apply(&mut ledger, &revoke).unwrap() else {
        panic!("KeyRevoke answers the revoked key")
    };
    assert!(key.revoked_at.is_some());
    assert!(ledger.key_use(secret.expose()).unwrap().is_none());
    let by: String = ledger
        .raw_connection()
        .query_row(
            "SELECT revoked_by FROM api_keys WHERE name = 'bot'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(by, "ben", "a revocation is recorded as who asked for it");
}

#[test]
fn a_refused_key_name_is_the_ledgers_sentence_and_writes_nothing() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    api::apply(&mut ledger, &create("bot", "ann")).unwrap();
    let before = dump(ledger.raw_connection());
    for (name, says) in [
        ("bot", "a live key is already named \"bot\""),
        ("no spaces", "is malformed: use 1 to 64 letters"),
        ("", "is malformed"),
    ] {
        let e = api::apply(&mut ledger, &create(name, "ann")).unwrap_err();
        assert!(e.to_string().contains(says), "{name:?}: {e}");
    }
    let e = api::apply(
        &mut ledger,
        &Request::KeyRevoke {
            name: "nobody".into(),
            by: "ann".into(),
            key_sha256: None,
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("no live key named"), "{e}");
    assert_eq!(
        dump(ledger.raw_connection()),
        before,
        "a refusal writes nothing"
    );
}

#[test]
fn a_key_secret_never_shows_in_a_debug_print_but_is_in_the_doors_json() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let outcome = api::apply(&mut ledger, &create("bot", "ann")).unwrap();
    let Outcome::KeyCreated { secret, .. } = &outcome else {
        panic!("a key was made")
    };
    let hex = &secret.expose()["sk-sl-".len()..];
    assert!(
        !format!("{outcome:?}").contains(hex),
        "a logged outcome never carries the secret"
    );
    let json = serde_json::to_value(&outcome).unwrap();
    assert_eq!(
        json["secret"],
        secret.expose(),
        "the one answer that shows it"
    );
    assert_eq!(json["key"]["name"], "bot");
}

#[test]
fn a_cli_with_no_owner_may_make_and_revoke_keys_which_admit_no_send() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let req = create("bot", "ann");
    assert!(!req.admits_send());
    api::apply_as(Caller::Offline, &mut ledger, &req).unwrap();
    assert_eq!(api::keys(&ledger).unwrap().len(), 1);
    let revoke = Request::KeyRevoke {
        name: "bot".into(),
        by: "ann".into(),
        key_sha256: None,
    };
    assert!(!revoke.admits_send());
    api::apply_as(Caller::Offline, &mut ledger, &revoke).unwrap();
    assert!(api::keys(&ledger).unwrap()[0].revoked_at.is_some());
}

/// A revocation meant for one key (by its hash) never revokes another key made under the
/// same name since: it is refused and writes nothing; the meant key, while live, goes.
#[test]
fn an_exact_revocation_never_revokes_a_newer_key_of_the_same_name() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    let made =
        |ledger: &mut sendledger::ledger::Ledger| match api::apply(ledger, &create("bot", "ann"))
            .unwrap()
        {
            Outcome::KeyCreated { secret, .. } => secret,
            other => panic!("KeyCreate answers the key: {other:?}"),
        };
    let first = made(&mut ledger);
    ledger.key_revoke("bot", "ann").unwrap();
    let second = made(&mut ledger);
    let exact = |secret: &str| Request::KeyRevoke {
        name: "bot".into(),
        by: "cli".into(),
        key_sha256: Some(sendledger::ledger::key_sha256(secret)),
    };
    let before = dump(ledger.raw_connection());
    let malformed = Request::KeyRevoke {
        name: "bot".into(),
        by: "cli".into(),
        key_sha256: Some("Z".repeat(10_000)),
    };
    let e = api::apply(&mut ledger, &malformed).unwrap_err();
    assert!(e.to_string().contains("64 lowercase hex digits"), "{e}");
    let e = api::apply(&mut ledger, &exact(first.expose())).unwrap_err();
    assert!(e.to_string().contains("no longer live"), "{e}");
    assert_eq!(before, dump(ledger.raw_connection()), "nothing written");
    assert!(
        ledger.key_use(second.expose()).unwrap().is_some(),
        "the newer key works"
    );
    api::apply(&mut ledger, &exact(second.expose())).unwrap();
    assert!(ledger.key_use(second.expose()).unwrap().is_none());
}
