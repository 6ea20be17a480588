//! Live updates: the owner's queue feed (`GET /v1/queue/feed`, pushed after every commit,
//! never on a timer) relayed to the window's channels. When the feed ends because the
//! owner quit (Quit in the tray, log-out: it removed `bridge.json`), the window's process
//! exits with it. When the owner ended without quitting (killed, crashed: its
//! `bridge.json` left behind), the window stays and says so ([`Update::TrayGone`]) until a
//! tray owns the profile again — started from the window's button or any launch — then
//! follows that one (a new snapshot). A feed that broke while the owner still runs is
//! opened again (with a new snapshot).

use crate::desk::Desk;
use crate::json::Update;
use sendledger::api::answers::QueueUpdate;
use sendledger::profile::discovery;
use std::sync::Arc;
use std::time::Duration;

/// A feed silent this long is taken as broken, in ms (the owner's keep-alive: 15 s).
pub const FEED_IDLE_MS: u64 = 45_000;
/// Pause before the feed is opened again while the owner still runs, in ms; doubled after
/// each feed that brought nothing, up to [`REOPEN_MAX_MS`].
pub const REOPEN_AFTER_MS: u64 = 250;
/// The longest pause between two tries to open the feed, in ms.
pub const REOPEN_MAX_MS: u64 = 30_000;
/// How often a window whose tray ended looks for a tray owning the profile again, in ms.
pub const TRAY_LOOK_MS: u64 = 500;

/// Relays the feed to the window for as long as an owner runs, then calls `owner_gone`
/// once the owner quit (the app passes its exit).
pub fn follow(desk: Arc<Desk>, owner_gone: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .name("queue-feed".into())
        .spawn(move || {
            loop {
                relay_while_the_owner_runs(&desk);
                if quit(&desk) {
                    break;
                }
                log::warn!("the tray ended without quitting: the window says so");
                desk.push(Update::TrayGone);
                await_a_tray(&desk);
            }
            log::info!("the owner quit: closing the window");
            owner_gone();
        })
        .expect("a thread for the queue feed");
}

/// Relays feeds, opened again after a pause, while the owner this window reaches runs.
fn relay_while_the_owner_runs(desk: &Desk) {
    let mut pause = REOPEN_AFTER_MS;
    while owner_runs(desk) {
        pause = if relay(desk) {
            REOPEN_AFTER_MS
        } else {
            (pause * 2).min(REOPEN_MAX_MS)
        };
        std::thread::sleep(Duration::from_millis(pause));
    }
}

/// Whether the owner left the way a quit does: its `bridge.json` removed. An owner
/// killed or crashed leaves its `bridge.json` behind (its lock released).
fn quit(desk: &Desk) -> bool {
    desk.profile()
        .file(discovery::BRIDGE_FILE)
        .map(|p| !p.exists())
        .unwrap_or(true)
}

/// Waits until an owner of the profile answers again and the window reaches it.
fn await_a_tray(desk: &Desk) {
    while !(discovery::live_bridge(desk.profile()).is_some() && desk.reconnect()) {
        std::thread::sleep(Duration::from_millis(TRAY_LOOK_MS));
    }
    log::info!("a tray owns the profile again: following it");
}

/// Whether the owner this window reaches still runs at the same address.
fn owner_runs(desk: &Desk) -> bool {
    discovery::live_bridge(desk.profile())
        .is_some_and(|b| b.address.to_string() == desk.client().address())
}

/// Relays one feed until it ends; whether it brought anything.
fn relay(desk: &Desk) -> bool {
    let feed = match desk.client().queue_feed(FEED_IDLE_MS) {
        Ok(f) => f,
        Err(e) => {
            log::warn!("no queue feed: {e}");
            return false;
        }
    };
    let mut brought = false;
    for update in feed {
        let update = match update {
            Ok(QueueUpdate::Snapshot(view)) => Update::Snapshot(desk.snapshot_of(view)),
            Ok(QueueUpdate::Changed { status, rows }) => Update::Changed { status, rows },
            Err(e) => {
                log::warn!("{e}");
                return brought;
            }
        };
        brought = true;
        desk.push(update);
    }
    brought
}
