//! Commits made beside the owner are noticed when they land, not by polling. The one
//! supported writer beside a running owner is `sendledger stop` committing the fence in
//! the ledger file when the bridge did not answer ([`Ledger::stop_from_outside`]). A watch
//! on the profile folder (inotify on Linux) pokes the owner on any write to the ledger's
//! files; after [`SETTLE_MS`] it makes one writer call, which compares
//! `PRAGMA data_version` and, when another connection committed, publishes its events and
//! wakes long-polls ([`Writer::call`]). The owner's own commits write those files too: a
//! burst of them costs one empty call per [`SETTLE_MS`]; with nothing written, nothing wakes.
//!
//!
//! The same watch notices the ledger or `owner.lock` removed, renamed or replaced under the
//! owner (a remove, rename or create of those names): the call checks the files' identity
//! ([`Ledger::check_in_place`]), and a displaced owner says so at once — in its log, in
//! `ledger.displaced.json` for `doctor` and the next start — before any request comes.
//!
//! Settings do not come this way: they are acts (`crate::api::settings`), applied by the
//! owner's writer; a hand edit of `config.json` takes effect at the next start.
//!
//! [`Ledger::stop_from_outside`]: crate::ledger::Ledger::stop_from_outside
//! [`Ledger::check_in_place`]: crate::ledger::Ledger::check_in_place

use crate::ledger::Writer;
use crate::profile::{Profile, LEDGER_FILE, LOCK_FILE};
use notify::event::{AccessKind, AccessMode, EventKind};
use notify::{RecursiveMode, Watcher};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{watch, Notify};

/// How long a poke waits for the writes around it before the owner looks, in ms.
pub const SETTLE_MS: u64 = 50;

/// Whether `event` wrote, created, removed or renamed one of the ledger's files
/// (`ledger.sqlite3`, its `-wal`, `-shm`) or the owner lock.
fn touches_custody_files(event: &notify::Event) -> bool {
    let wrote = matches!(
        event.kind,
        EventKind::Create(_)
            | EventKind::Modify(_)
            | EventKind::Remove(_)
            | EventKind::Access(AccessKind::Close(AccessMode::Write))
    );
    wrote
        && event.paths.iter().any(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(LEDGER_FILE) || n == LOCK_FILE)
        })
}

/// Watches the profile folder until `stop` turns true. When the folder cannot be watched
/// (no inotify left), says so: outside commits are then noticed at the owner's next call.
pub(super) async fn run(profile: Profile, ledger: Writer, mut stop: watch::Receiver<bool>) {
    let poke = Arc::new(Notify::new());
    let on_event = {
        let poke = poke.clone();
        move |e: notify::Result<notify::Event>| {
            let Ok(e) = e else { return };
            if touches_custody_files(&e) {
                poke.notify_one();
            }
        }
    };
    let _watcher = match notify::recommended_watcher(on_event).and_then(|mut w| {
        w.watch(profile.dir(), RecursiveMode::NonRecursive)?;
        Ok(w)
    }) {
        Ok(w) => w,
        Err(e) => {
            tracing::warn!(error = %e, "the profile folder cannot be watched: a Stop committed by `sendledger stop` beside this owner is noticed at its next request");
            return;
        }
    };
    loop {
        tokio::select! {
            _ = poke.notified() => {}
            _ = stop.changed() => return,
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(SETTLE_MS)) => {}
            _ = stop.changed() => return,
        }
        let newly_displaced = ledger
            .call(|l| {
                let before = l.displacement().is_some();
                l.check_in_place().is_err() && !before
            })
            .await;
        if newly_displaced {
            // Long-polls answer at once (every write is refused now), and the queue feed and
            // the tray show why nothing goes out.
            ledger.announce();
        }
    }
}
