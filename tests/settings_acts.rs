//! Settings are acts (issue 37): `SetMaxInFlight` and `SetDefaultDestination` change the
//! profile's `config.json` by its one update (locked, written whole, renamed) and, with an
//! owner running, the ledger's copy. Two changes made at the same instant — the window's
//! path and the CLI's — are both kept, every time.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use sendledger::api::{outside, Request};
use sendledger::client::BridgeClient;
use sendledger::destination::{Kind, Named};
use sendledger::profile::{Config, Profile};
use sendledger::site::Site;
use std::sync::{Arc, Barrier};

const ROUNDS: usize = 100;

fn conversation(i: usize) -> String {
    format!("6a1f0c2e-0000-4000-8000-{i:012}")
}

fn default_to(i: usize) -> Request {
    Request::SetDefaultDestination {
        site: Site::Chatgpt,
        destination: Named {
            conversation_id: Some(conversation(i)),
            ..Default::default()
        },
    }
}

fn cap(i: usize) -> i64 {
    (i % 8) as i64 + 1
}

/// After round `i`, both changes are in `config.json`.
fn assert_both_kept(profile: &Profile, i: usize) {
    let c = Config::load(profile).expect("config.json stays valid");
    let d = c.default_destination(Site::Chatgpt);
    assert_eq!(
        (
            d.kind,
            d.conversation_id.as_deref(),
            c.max_in_flight() as i64
        ),
        (Kind::Conversation, Some(conversation(i).as_str()), cap(i)),
        "round {i}: one of two changes made at once was lost"
    );
}

/// Runs `a` and `b` at the same instant (a barrier), `ROUNDS` times.
fn at_once(
    profile: &Profile,
    a: impl Fn(usize) + Send + Sync + 'static,
    b: impl Fn(usize) + Send + Sync + 'static,
) {
    let (a, b) = (Arc::new(a), Arc::new(b));
    for i in 0..ROUNDS {
        let gate = Arc::new(Barrier::new(2));
        let (ga, gb, fa, fb) = (gate.clone(), gate, a.clone(), b.clone());
        let ta = std::thread::spawn(move || {
            ga.wait();
            fa(i)
        });
        let tb = std::thread::spawn(move || {
            gb.wait();
            fb(i)
        });
        ta.join().expect("a");
        tb.join().expect("b");
        assert_both_kept(profile, i);
    }
}

/// Invariant: two settings changed at once are both kept (`Config::update` holds
/// `config.lock` from read to rename). No owner: both acts are applied by the calling
/// process on `config.json` alone.
#[test]
fn settings_changed_at_once_with_no_owner_are_both_kept() {
    let (_tmp, dir) = profile_dir();
    let profile = Profile::at(&dir).unwrap();
    let (pa, pb) = (profile.clone(), profile.clone());
    at_once(
        &profile,
        move |i| {
            outside::apply_offline(&pa, &default_to(i)).expect("default destination set");
        },
        move |i| {
            let req = Request::SetMaxInFlight {
                max_in_flight: cap(i),
            };
            outside::apply_offline(&pb, &req).expect("max_in_flight set");
        },
    );
}

/// Invariant: two settings changed at once are both kept, through a running owner: the
/// window's path (its bridge client sending the act) and the CLI's
/// (`sendledger max-in-flight N`, a process of its own) at the same instant. The owner
/// applies acts one at a time, so this stays green even without `config.lock`; the lock's
/// own test is the one with no owner above (seen red without the lock).
#[test]
fn settings_changed_at_once_by_the_window_and_the_cli_are_both_kept() {
    let (_tmp, dir) = profile_dir();
    let serve = Serve::start(&dir, &[]);
    let profile = Profile::at(&dir).unwrap();
    let window = BridgeClient::discover(&profile)
        .expect("bridge.json readable")
        .expect("the owner answers");
    let cli_dir = dir.clone();
    at_once(
        &profile,
        move |i| {
            window.apply(&default_to(i)).expect("the window's act");
        },
        move |i| {
            let out = std::process::Command::new(binary())
                .args(["--profile"])
                .arg(&cli_dir)
                .args(["max-in-flight", &cap(i).to_string()])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        },
    );
    // The owner's ledger took both too: the popup's reading is the ledger's copy.
    let popup = serve.pair();
    let r = popup.http.get("/v1/ext/default-destination");
    assert_eq!(
        r.body["default_destination"]["conversation_id"],
        conversation(ROUNDS - 1),
        "{}",
        r.body
    );
}

/// A setting out of bounds, an unknown key in the file, or a place that is not one, is
/// refused with a sentence and changes nothing. Two rules hold it, each enough alone (a
/// setter checks before it assigns; `Config::update` writes nothing after a refused
/// change): seen red with both taken out, green with either.
#[test]
fn a_setting_refused_changes_nothing() {
    let (_tmp, dir) = profile_dir();
    let profile = Profile::at(&dir).unwrap();
    outside::apply_offline(&profile, &Request::SetMaxInFlight { max_in_flight: 3 }).unwrap();
    let before = std::fs::read(dir.join("config.json")).unwrap();
    for bad in [0, 9, -1] {
        let err = outside::apply_offline(&profile, &Request::SetMaxInFlight { max_in_flight: bad })
            .unwrap_err();
        assert!(err.to_string().contains("from 1 to 8"), "{err}");
    }
    let err = outside::apply_offline(
        &profile,
        &Request::SetDefaultDestination {
            site: Site::Chatgpt,
            destination: Named {
                project_id: Some("g-x-1".into()),
                ..Default::default()
            },
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("Project"), "{err}");
    assert_eq!(std::fs::read(dir.join("config.json")).unwrap(), before);
    std::fs::write(
        dir.join("config.json"),
        r#"{"max_in_flight": 2, "max_inflight": 3}"#,
    )
    .unwrap();
    let err = Config::load(&profile).unwrap_err();
    assert!(
        err.contains("max_inflight"),
        "an unknown key is named: {err}"
    );
    let err = outside::apply_offline(&profile, &Request::SetMaxInFlight { max_in_flight: 4 })
        .unwrap_err();
    assert!(err.to_string().contains("max_inflight"), "{err}");
}
