//! The window's one handle on the owner: a client of the owner's loopback bridge (the
//! tray process, or any owner of the profile), found through `bridge.json` and
//! authenticated with `client.token`. Every change is a typed [`Request`] applied through
//! the bridge, committed before it answers; every view is the core's queue view. Commands
//! and the live feed ([`crate::live`]) go through here, so the window has one seam onto
//! the core. The window never opens the ledger.

use crate::json::{self, HistoryPage, Refusal, Row, Snapshot, Status, Update};
use sendledger::api::{Outcome, Request};
use sendledger::client::{BrakeError, BridgeClient, ClientError};
use sendledger::destination::{Destination, Kind};
use sendledger::ledger::{Decision, Resolution};
use sendledger::profile::settings::Settings;
use sendledger::profile::Profile;
use sendledger::profile::{config, default_destination, Config};
use sendledger::site::Site;
use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard};
use tauri::ipc::Channel;

/// Locks `m`, also after a panic elsewhere poisoned it (the data are plain values).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs a blocking bridge call off the async runtime's workers.
/// A refusal keeps its code.
async fn blocking<T: Send + 'static, E: Into<Coded> + Send + 'static>(
    f: impl FnOnce() -> Result<T, E> + Send + 'static,
) -> Result<T, Refusal> {
    match tauri::async_runtime::spawn_blocking(f).await {
        Ok(r) => r.map_err(|e| e.into().0),
        Err(e) => Err(Refusal::said(format!(
            "the request to the owner was lost: {e}"
        ))),
    }
}

/// A failure of the client or the brake, as a refusal with its code.
struct Coded(Refusal);

impl From<ClientError> for Coded {
    fn from(e: ClientError) -> Self {
        Coded(json::from_client(e))
    }
}

impl From<BrakeError> for Coded {
    fn from(e: BrakeError) -> Self {
        Coded(Refusal::coded(e.code(), e.to_string()))
    }
}

/// The window's custody handle: the owner's bridge, who is at the keyboard, who listens.
pub struct Desk {
    /// The owner's bridge; replaced when a tray started again answers ([`Desk::reconnect`]).
    client: Mutex<BridgeClient>,
    profile: Profile,
    who: String,
    listeners: Mutex<Vec<Channel<Update>>>,
    intent: Mutex<Option<json::Intent>>,
    /// The counts and gate last read from the owner.
    shown: Mutex<Option<Status>>,
}

impl Desk {
    /// The owner of `profile`, through its bridge; a refusal when none runs.
    pub fn reach(profile: Profile, who: String) -> Result<Desk, Refusal> {
        let client = BridgeClient::discover(&profile)
            .map_err(json::from_client)?
            .ok_or_else(|| {
                Refusal::said(
                    "sendledger's tray is not running on this profile: start sendledger again",
                )
            })?;
        Ok(Desk {
            client: Mutex::new(client),
            profile,
            who,
            listeners: Mutex::new(Vec::new()),
            intent: Mutex::new(None),
            shown: Mutex::new(None),
        })
    }

    /// The bridge client (the live feed reads through it): a copy of the current one.
    pub fn client(&self) -> BridgeClient {
        lock(&self.client).clone()
    }

    /// Reaches the profile's owner again (a tray started again after the last one ended):
    /// whether one answers now. Until then the window keeps the old client, whose calls
    /// are refused as unreachable.
    pub fn reconnect(&self) -> bool {
        match BridgeClient::discover(&self.profile) {
            Ok(Some(c)) => {
                *lock(&self.client) = c;
                true
            }
            _ => false,
        }
    }

    /// The profile this window shows.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The OS user: who a decision is recorded as unless the person types another name.
    pub fn who(&self) -> &str {
        &self.who
    }

    /// The app's settings as stored in the profile (`app.json`).
    pub fn settings(&self) -> Settings {
        Settings::load(&self.profile)
    }

    /// Checks and writes the settings (0600); the tray notices the file change.
    pub fn save_settings(&self, s: Settings) -> Result<(), Refusal> {
        Ok(s.save(&self.profile)?)
    }

    /// The profile's default destination as the window edits it. Errors: `config.json`
    /// not valid (the sentence says how to set it again).
    pub fn default_place(&self) -> Result<json::DefaultPlace, Refusal> {
        let d = self.config()?.default_destination(Site::Chatgpt);
        let (place, id) = match d.kind {
            Kind::Conversation => ("conversation", d.conversation_id.clone()),
            Kind::Project => ("project", d.project_id.clone()),
            Kind::NewChat => ("new_chat", None),
        };
        Ok(json::DefaultPlace {
            place: place.into(),
            id,
            words: d.words(),
        })
    }

    /// The profile's settings file, read. Errors: not valid (the sentence says why).
    fn config(&self) -> Result<Config, Refusal> {
        Config::load(&self.profile).map_err(Refusal::said)
    }

    /// The profile's `max_in_flight`. Errors: `config.json` not valid.
    pub fn max_in_flight(&self) -> Result<i64, Refusal> {
        Ok(i64::from(self.config()?.max_in_flight()))
    }

    /// Sends the default destination and `max_in_flight` to the owner as acts
    /// (`SetDefaultDestination`, `SetMaxInFlight`), as `sendledger destination set` and
    /// `max-in-flight` do: both checked here before either is sent, so a refusal changes
    /// nothing. A default naming the same place as before keeps the model and effort set
    /// for it (the window does not edit those).
    pub async fn save_profile_settings(
        &self,
        place: Option<&json::DefaultPlace>,
        max_in_flight: Option<i64>,
    ) -> Result<(), Refusal> {
        if let Some(n) = max_in_flight {
            config::check_max_in_flight(n).map_err(Refusal::said)?;
        }
        let named = match place {
            None => None,
            Some(p) => {
                let kept = self.config()?.default_destination(Site::Chatgpt);
                let mut named = default_destination::named(&p.place, p.id.clone(), None, None)
                    .map_err(Refusal::said)?;
                let d = named
                    .resolve(&Destination::new_chat())
                    .map_err(Refusal::said)?;
                if kept.same_place(&d) {
                    (named.model, named.effort) = (kept.model, kept.effort);
                }
                Some(named)
            }
        };
        let mut acts = Vec::new();
        if let Some(destination) = named {
            acts.push(Request::SetDefaultDestination {
                site: Site::Chatgpt,
                destination,
            });
        }
        if let Some(max_in_flight) = max_in_flight {
            acts.push(Request::SetMaxInFlight { max_in_flight });
        }
        for req in acts {
            let c = self.client();
            blocking(move || c.apply(&req)).await?;
        }
        Ok(())
    }

    /// Everything the window shows.
    pub async fn snapshot(&self) -> Result<Snapshot, Refusal> {
        let c = self.client();
        let view = blocking(move || c.queue_view()).await?;
        Ok(self.snapshot_of(view))
    }

    /// The core's queue view with who is at the keyboard and where the extension is.
    pub fn snapshot_of(&self, view: sendledger::api::queue::QueueView) -> Snapshot {
        *lock(&self.shown) = Some(view.status.clone());
        Snapshot {
            who: self.who.clone(),
            extension_dir: extension_dir(),
            default_destination: self.default_place().ok().map(|p| p.words),
            view,
        }
    }

    /// The page of History after `before` (an operation id the last page named).
    pub async fn history(&self, before: Option<String>) -> Result<HistoryPage, Refusal> {
        let c = self.client();
        let limit = sendledger::api::queue::HISTORY_ROWS as u32;
        blocking(move || c.history(before.as_deref(), limit)).await
    }

    /// The page of the Stopped section after `before` (an operation id the last page named).
    pub async fn stopped(&self, before: Option<String>) -> Result<HistoryPage, Refusal> {
        let c = self.client();
        let limit = sendledger::api::queue::STOPPED_ROWS as u32;
        blocking(move || c.stopped(before.as_deref(), limit)).await
    }

    /// Counts and gate.
    pub async fn status(&self) -> Result<Status, Refusal> {
        Ok(self.snapshot().await?.view.status)
    }

    /// The rows of `op_ids` (and of the sends they queue again), as they are now.
    pub async fn rows(&self, op_ids: BTreeSet<String>) -> Result<Vec<Row>, Refusal> {
        let c = self.client();
        blocking(move || c.rows(&op_ids)).await
    }

    /// Stop: fences the epoch and closes the gate; committed before it returns. It takes
    /// the CLI's path ([`sendledger::client::brake`]): the owner within 2 s, else the fence
    /// committed in the ledger file beside an owner that does not answer — the brake gets
    /// through a stuck or saturated owner. Then the gate shows closed at once; the counts
    /// come with the owner's feed.
    pub async fn stop(&self, by: Option<String>) -> Result<Status, Refusal> {
        let (profile, by) = (self.profile.clone(), self.by(by));
        let braked = blocking(move || sendledger::client::brake(&profile, &by)).await?;
        if braked.via == "owner" {
            return self.status().await;
        }
        log::warn!(
            "Stop committed in the ledger file: {}",
            braked.why.as_deref().unwrap_or("no owner answered")
        );
        let mut status = lock(&self.shown).clone().unwrap_or_default();
        status.gate_closed = true;
        Ok(status)
    }

    /// Resume after a Stop: a person's decision.
    pub async fn resume(&self, by: Option<String>) -> Result<Status, Refusal> {
        self.apply(Request::Resume { by: self.by(by) }).await?;
        self.status().await
    }

    /// A person's decision on an uncertain send; returns the rows it changed.
    pub async fn resolve(
        &self,
        op_id: String,
        decision: Decision,
        by: Option<String>,
        evidence: String,
    ) -> Result<Vec<Row>, Refusal> {
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
    pub async fn requeue(&self, op_id: String, by: Option<String>) -> Result<Vec<Row>, Refusal> {
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

    /// Takes back one send before it is clicked (queued or claimed → stopped).
    pub async fn withdraw(&self, op_id: String, by: Option<String>) -> Result<Vec<Row>, Refusal> {
        let by = self.by(by);
        self.apply(Request::Withdraw {
            op_id: op_id.clone().into(),
            by,
        })
        .await?;
        self.rows(BTreeSet::from([op_id])).await
    }

    /// Artifact `n` of `op_id` as the row shows it (its name, MIME type, state).
    async fn artifact_of(
        &self,
        op_id: &str,
        n: u32,
    ) -> Result<sendledger::ledger::Artifact, Refusal> {
        let rows = self.rows(BTreeSet::from([op_id.to_string()])).await?;
        rows.into_iter()
            .find(|r| r.op_id == op_id)
            .and_then(|r| r.artifacts.into_iter().find(|a| a.n == n))
            .ok_or_else(|| {
                Refusal::coded(
                    "unknown_artifact",
                    format!("send {op_id} has no generated file {n}"),
                )
            })
    }

    /// A stored image artifact as a `data:` URL for the row's thumbnail; images of at most
    /// [`json::PREVIEW_MAX_BYTES`] only (a larger one is refused: Save it instead).
    pub async fn artifact_preview(&self, op_id: String, n: u32) -> Result<json::Preview, Refusal> {
        let a = self.artifact_of(&op_id, n).await?;
        let mime = a.mime.unwrap_or_default();
        if !mime.starts_with("image/") || a.size.unwrap_or(u64::MAX) > json::PREVIEW_MAX_BYTES {
            return Err(Refusal::said(
                "no preview for this file (not an image, or over 8 MiB); Save it to open it",
            ));
        }
        let c = self.client();
        let file = blocking(move || c.artifact(&op_id, n)).await?;
        Ok(json::Preview::of(&file.mime, &file.bytes))
    }

    /// Saves artifact `n` of `op_id` in the person's Downloads folder under its name, never
    /// over another file ([`crate::save`]); the path it was saved at.
    pub async fn save_artifact(&self, op_id: String, n: u32) -> Result<json::Saved, Refusal> {
        let c = self.client();
        let file = blocking(move || c.artifact(&op_id, n)).await?;
        let dir = crate::save::downloads()
            .ok_or_else(|| Refusal::said("this system names no home folder to save into"))?;
        let path = crate::save::save_in(&dir, &file.name, &file.bytes).map_err(Refusal::said)?;
        Ok(json::Saved {
            path: path.display().to_string(),
        })
    }

    /// *Check this page* (issue 35): the owner asks the tab leased last to run every check
    /// of the page contract (nothing typed, nothing sent; `POST /v1/page-check`, 10 s bound)
    /// and answers `{tab_id, summary, check}`; with `report`, the sanitized page report is
    /// also saved in the Downloads folder, never over another file, and its path answered.
    pub async fn page_check(
        &self,
        open_picker: bool,
        report: bool,
    ) -> Result<serde_json::Value, Refusal> {
        let c = self.client();
        let mut answer = blocking(move || c.page_check(None, open_picker, report)).await?;
        let saved = match answer.get_mut("report").map(serde_json::Value::take) {
            Some(r) if report && !r.is_null() => {
                let dir = crate::save::downloads().ok_or_else(|| {
                    Refusal::said("this system names no home folder to save into")
                })?;
                let bytes = serde_json::to_vec_pretty(&r).unwrap_or_default();
                let path = crate::save::save_in(&dir, "sendledger-page-report.json", &bytes)
                    .map_err(Refusal::said)?;
                Some(path.display().to_string())
            }
            _ => None,
        };
        answer["saved"] = serde_json::json!(saved);
        Ok(answer)
    }

    /// Starts the profile's tray when none owns it ([`crate::launcher::ensure_tray`]:
    /// a tray already running is left as it is); a refusal carries its sentence.
    pub async fn start_tray(&self) -> Result<(), Refusal> {
        let profile = self.profile.clone();
        match tauri::async_runtime::spawn_blocking(move || crate::launcher::ensure_tray(&profile))
            .await
        {
            Ok(Ok(())) => Ok(()),
            Ok(Err(no)) => Err(Refusal::said(no.message)),
            Err(e) => Err(Refusal::said(format!(
                "starting the tray was lost: {e}; start sendledger again"
            ))),
        }
    }

    /// A new one-time pairing code for the extension.
    pub async fn pairing_code(&self) -> Result<json::Pairing, Refusal> {
        let c = self.client();
        let code = blocking(move || c.pairing_code()).await?;
        Ok(json::Pairing {
            code: code.code,
            expires_at: code.expires_at,
        })
    }

    /// Adds a window's channel; it then receives the whole queue and any open intent.
    /// The channel is registered before the queue is read, so no commit falls between the
    /// two; a change read before the snapshot but delivered after it is older than the row
    /// the window holds, and the window keeps the newer one (ui/app.js).
    pub async fn listen(&self, channel: Channel<Update>) -> Result<(), Refusal> {
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
        if let Update::Changed { status, .. } = &update {
            *lock(&self.shown) = Some(status.clone());
        }
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

    /// Applies `req` through the owner's bridge (the typed API's routes).
    pub(crate) async fn apply(&self, req: Request) -> Result<Outcome, Refusal> {
        let c = self.client();
        blocking(move || c.apply(&req)).await
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
