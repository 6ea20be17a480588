//! The app's one handle on the core: the embedded owner runtime (the same as
//! `sendledger serve`), reached through `sendledger::api` for every change and the
//! ledger's readers for every view. Commands, tray and notifications all go through here,
//! so the app has a single seam onto the core.

use crate::json::{self, Row, Snapshot, Status, Update};
use crate::settings::Settings;
use sendledger::api::{Api, Outcome, Request};
use sendledger::ledger::{Decision, Resolution};
use sendledger::owner::{Owner, OwnerConfig, OwnerError};
use sendledger::profile::Profile;
use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard};
use tauri::ipc::Channel;
use tokio::sync::watch;

/// Locks `m`, also after a panic elsewhere poisoned it (the data are plain values).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The running app's custody state: the owner, who is at the keyboard, and who listens.
pub struct Desk {
    owner: tokio::sync::Mutex<Option<Owner>>,
    api: Api,
    profile: Profile,
    who: String,
    settings: Mutex<Settings>,
    listeners: Mutex<Vec<Channel<Update>>>,
    intent: Mutex<Option<json::Intent>>,
    status: watch::Sender<Status>,
    settings_changed: tokio::sync::Notify,
}

impl Desk {
    /// Starts the owner (owner lock, recovery, bridge) and reads the app's settings.
    pub async fn start(cfg: OwnerConfig, who: String) -> Result<Desk, OwnerError> {
        let profile = cfg.profile.clone();
        let owner = Owner::start(cfg).await?;
        let api = owner.api();
        let settings = Settings::load(&profile);
        let desk = Desk {
            owner: tokio::sync::Mutex::new(Some(owner)),
            api,
            profile,
            who,
            settings: Mutex::new(settings),
            listeners: Mutex::new(Vec::new()),
            intent: Mutex::new(None),
            status: watch::channel(Status::default()).0,
            settings_changed: tokio::sync::Notify::new(),
        };
        // Fills the status watch; a ledger that cannot be read shows up on the first command.
        let _ = desk.status().await;
        Ok(desk)
    }

    /// The typed API (for the notification sweep and the change feed).
    pub fn api(&self) -> Api {
        self.api.clone()
    }

    /// The profile this app owns.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The OS user: who a decision is recorded as unless the person types another name.
    pub fn who(&self) -> &str {
        &self.who
    }

    /// The current settings.
    pub fn settings(&self) -> Settings {
        lock(&self.settings).clone()
    }

    /// Replaces the settings and writes them into the profile (0600).
    pub fn save_settings(&self, s: Settings) -> Result<(), json::Refusal> {
        s.save(&self.profile)?;
        *lock(&self.settings) = s;
        self.settings_changed.notify_one();
        Ok(())
    }

    /// Woken when the settings change (the notification sweep re-reads its threshold).
    pub fn settings_changed(&self) -> &tokio::sync::Notify {
        &self.settings_changed
    }

    /// Where the bridge listens.
    pub async fn address(&self) -> Option<std::net::SocketAddr> {
        self.owner.lock().await.as_ref().map(|o| o.address())
    }

    /// Changes of counts and gate, for the tray.
    pub fn watch_status(&self) -> watch::Receiver<Status> {
        self.status.subscribe()
    }

    /// Every audit event committed from now on.
    pub fn subscribe_events(&self) -> tokio::sync::broadcast::Receiver<sendledger::ledger::Event> {
        self.api.subscribe()
    }

    /// Everything the window shows.
    pub async fn snapshot(&self) -> Result<Snapshot, json::Refusal> {
        let view = self.api.queue_view().await?;
        self.status.send_replace(view.status.clone());
        Ok(Snapshot {
            who: self.who.clone(),
            extension_dir: extension_dir(),
            view,
        })
    }

    /// Counts and gate.
    pub async fn status(&self) -> Result<Status, json::Refusal> {
        let status = self.api.queue_status().await?;
        self.status.send_if_modified(|old| {
            let changed = *old != status;
            *old = status.clone();
            changed
        });
        Ok(status)
    }

    /// The rows of `op_ids` (and of the sends they queue again), as they are now.
    pub async fn rows(&self, op_ids: BTreeSet<String>) -> Result<Vec<Row>, json::Refusal> {
        Ok(self.api.rows(op_ids).await?)
    }

    /// Stop: fences the epoch and closes the gate; committed before it returns.
    pub async fn stop(&self, by: Option<String>) -> Result<Status, json::Refusal> {
        let by = self.by(by);
        self.apply(Request::Stop { by }).await?;
        self.status().await
    }

    /// Resume after a Stop: a person's decision.
    pub async fn resume(&self, by: Option<String>) -> Result<Status, json::Refusal> {
        let by = self.by(by);
        self.apply(Request::Resume { by }).await?;
        self.status().await
    }

    /// A person's decision on an uncertain send; returns the rows it changed.
    pub async fn resolve(
        &self,
        op_id: String,
        decision: Decision,
        by: Option<String>,
        evidence: String,
    ) -> Result<Vec<Row>, json::Refusal> {
        let resolution = Resolution {
            decision,
            by: self.by(by),
            evidence: evidence.trim().to_string(),
        };
        let answer = self
            .apply(Request::Resolve {
                op_id: op_id.clone().into(),
                resolution,
            })
            .await?;
        let mut ids = BTreeSet::from([op_id]);
        if let Outcome::Resolved { resolved } = answer {
            ids.extend(resolved.resent_as.map(|s| s.op_id));
        }
        self.rows(ids).await
    }

    /// Queue again a stopped or rejected send, as a new operation linked to it.
    pub async fn requeue(
        &self,
        op_id: String,
        by: Option<String>,
    ) -> Result<Vec<Row>, json::Refusal> {
        let by = self.by(by);
        let answer = self
            .apply(Request::Requeue {
                op_id: op_id.clone().into(),
                by,
            })
            .await?;
        let mut ids = BTreeSet::from([op_id]);
        if let Outcome::Requeued { send } = answer {
            ids.insert(send.op_id);
        }
        self.rows(ids).await
    }

    /// A new one-time pairing code for the extension.
    pub async fn pairing_code(&self) -> Result<json::Pairing, json::Refusal> {
        let owner = self.owner.lock().await;
        let owner = owner.as_ref().ok_or_else(|| json::Refusal {
            message: "the app is shutting down".into(),
        })?;
        let code = owner.pairing_code().await;
        Ok(json::Pairing {
            code: code.code,
            expires_at: code.expires_at,
        })
    }

    /// Adds a window's channel; it then receives the whole queue and any open intent.
    /// The channel is registered before the queue is read, so no commit falls between the
    /// two; a change read before the snapshot but delivered after it is older than the row
    /// the window holds, and the window keeps the newer one (ui/app.js).
    pub async fn listen(&self, channel: Channel<Update>) -> Result<(), json::Refusal> {
        lock(&self.listeners).push(channel.clone());
        let snapshot = self.snapshot().await?;
        channel.send(Update::Snapshot(snapshot))?;
        if let Some(intent) = lock(&self.intent).take() {
            channel.send(Update::Intent(intent))?;
        }
        Ok(())
    }

    /// Pushes `update` to every window listening; forgets closed ones. Returns how many got it.
    pub fn push(&self, update: Update) -> usize {
        let mut listeners = lock(&self.listeners);
        listeners.retain(|c| c.send(update.clone()).is_ok());
        listeners.len()
    }

    /// Shows `intent` in the window now, or when it next subscribes.
    pub fn ask(&self, intent: json::Intent) {
        if self.push(Update::Intent(intent.clone())) == 0 {
            *lock(&self.intent) = Some(intent);
        }
    }

    /// Forgets every window channel (the window closed).
    pub fn forget_listeners(&self) {
        lock(&self.listeners).clear();
    }

    /// Stops the bridge and releases the profile.
    pub async fn shutdown(&self) {
        if let Some(owner) = self.owner.lock().await.take() {
            owner.shutdown().await;
        }
    }

    async fn apply(&self, req: Request) -> Result<Outcome, json::Refusal> {
        Ok(self.api.apply(req).await?)
    }

    /// Who a person's act is recorded as: the name typed, else the OS user.
    pub(crate) fn by(&self, by: Option<String>) -> String {
        match by {
            Some(b) if !b.trim().is_empty() => b.trim().to_string(),
            _ => self.who.clone(),
        }
    }
}

/// Where the package installs the browser extension (docs/app.md, "Packaging").
pub const INSTALLED_EXTENSION_DIR: &str = "/usr/share/sendledger/extension";

/// The extension's folder for the first-run guide: the package's, else the checkout's this
/// app was built from (a development build), else `None`.
pub fn extension_dir() -> Option<String> {
    let built_from = concat!(env!("CARGO_MANIFEST_DIR"), "/../extension");
    [INSTALLED_EXTENSION_DIR, built_from]
        .into_iter()
        .map(std::path::Path::new)
        .find(|p| p.join("manifest.json").is_file())
        .map(|p| {
            p.canonicalize()
                .unwrap_or_else(|_| p.to_path_buf())
                .display()
                .to_string()
        })
}
