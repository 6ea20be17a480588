//! The app's settings (`app.json` in the profile, [`sendledger::profile::settings`]) as the
//! tray process sees them: read at start, and again whenever the file changes — the queue
//! window, in its own process, writes it. A watch on the profile folder (inotify), so
//! nothing wakes while nothing changes.

use notify::{RecursiveMode, Watcher};
use sendledger::profile::settings::{Settings, SETTINGS_FILE};
use sendledger::profile::Profile;
use std::sync::Arc;
use tokio::sync::watch;

/// The current settings, and a wake-up when they change.
pub struct SettingsWatch {
    rx: watch::Receiver<Settings>,
    _watcher: Option<Arc<notify::RecommendedWatcher>>,
}

impl SettingsWatch {
    /// Reads the settings of `profile` and follows the file. A folder that cannot be
    /// watched (no inotify left) is logged: the settings read at start then stay.
    pub fn start(profile: &Profile) -> SettingsWatch {
        let (tx, rx) = watch::channel(Settings::load(profile));
        let reload = {
            let profile = profile.clone();
            move |e: notify::Result<notify::Event>| {
                let touches = e.is_ok_and(|e| {
                    e.paths
                        .iter()
                        .any(|p| p.file_name().is_some_and(|n| n == SETTINGS_FILE))
                });
                if touches {
                    let now = Settings::load(&profile);
                    tx.send_if_modified(|old| {
                        let changed = *old != now;
                        *old = now;
                        changed
                    });
                }
            }
        };
        let watcher = notify::recommended_watcher(reload).and_then(|mut w| {
            w.watch(profile.dir(), RecursiveMode::NonRecursive)?;
            Ok(w)
        });
        let watcher = match watcher {
            Ok(w) => Some(Arc::new(w)),
            Err(e) => {
                tracing::warn!(error = %e, "the profile folder cannot be watched: a changed notification threshold applies after a restart");
                None
            }
        };
        SettingsWatch {
            rx,
            _watcher: watcher,
        }
    }

    /// The settings now.
    pub fn current(&self) -> Settings {
        self.rx.borrow().clone()
    }

    /// Waits until the settings change (forever if they cannot be followed).
    pub async fn changed(&mut self) {
        if self.rx.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
