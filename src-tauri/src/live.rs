//! Live updates: the owner's queue feed (`GET /v1/queue/feed`, pushed after every commit,
//! never on a timer) relayed to the window's channels. When the feed ends because the
//! owner quit (Quit in the tray, log-out), the window's process exits with it; a feed
//! that broke while the owner still runs is opened again (with a new snapshot).

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

/// Relays the feed to the window for as long as the owner runs, then calls `owner_gone`
/// (the app passes its exit).
pub fn follow(desk: Arc<Desk>, owner_gone: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .name("queue-feed".into())
        .spawn(move || {
            let mut pause = REOPEN_AFTER_MS;
            while owner_runs(&desk) {
                pause = if relay(&desk) {
                    REOPEN_AFTER_MS
                } else {
                    (pause * 2).min(REOPEN_MAX_MS)
                };
                std::thread::sleep(Duration::from_millis(pause));
            }
            log::info!("the owner quit: closing the window");
            owner_gone();
        })
        .expect("a thread for the queue feed");
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
