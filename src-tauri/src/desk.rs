//! The app's one handle on the core: the embedded owner runtime (the same as
//! `sendledger serve`), reached through `sendledger::api` for every change and the
//! ledger's readers for every view. Commands, tray and notifications all go through here,
//! so the app has a single seam onto the core.

use crate::json::{self, Action, Row, Section, Snapshot, Status, Update};
use crate::settings::Settings;
use sendledger::api::{self, Request};
use sendledger::ledger::{Decision, Ledger, ListFilter, Resolution, Send, SendState};
use sendledger::owner::{Owner, OwnerConfig, OwnerError, SharedLedger};
use sendledger::profile::Profile;
use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;
use tauri::ipc::Channel;
use tokio::sync::watch;

/// Evidence notes the owner writes from the page's traffic start with this.
const OBSERVED_PREFIX: &str = "observed the conversation";

/// The running app's custody state: the owner, who is at the keyboard, and who listens.
pub struct Desk {
    owner: tokio::sync::Mutex<Option<Owner>>,
    ledger: SharedLedger,
    profile: Profile,
    who: String,
    settings: Mutex<Settings>,
    listeners: Mutex<Vec<Channel<Update>>>,
    intent: Mutex<Option<json::Intent>>,
    status: watch::Sender<Status>,
}

impl Desk {
    /// Starts the owner (owner lock, recovery, bridge) and reads the app's settings.
    pub async fn start(cfg: OwnerConfig, who: String) -> Result<Desk, OwnerError> {
        let profile = cfg.profile.clone();
        let owner = Owner::start(cfg).await?;
        let ledger = owner.ledger();
        let settings = Settings::load(&profile);
        let desk = Desk {
            owner: tokio::sync::Mutex::new(Some(owner)),
            ledger,
            profile,
            who,
            settings: Mutex::new(settings),
            listeners: Mutex::new(Vec::new()),
            intent: Mutex::new(None),
            status: watch::channel(Status::default()).0,
        };
        // Fills the status watch; a ledger that cannot be read shows up on the first command.
        let _ = desk.status().await;
        Ok(desk)
    }

    /// The ledger (for the notification sweep and the change feed).
    pub fn ledger(&self) -> SharedLedger {
        self.ledger.clone()
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
        self.settings.lock().unwrap().clone()
    }

    /// Replaces the settings and writes them into the profile (0600).
    pub fn save_settings(&self, s: Settings) -> Result<(), json::Refusal> {
        s.save(&self.profile)?;
        *self.settings.lock().unwrap() = s;
        Ok(())
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
        self.ledger.subscribe()
    }

    /// Everything the window shows.
    pub async fn snapshot(&self) -> Result<Snapshot, json::Refusal> {
        let who = self.who.clone();
        let snapshot = self
            .ledger
            .call(move |l| -> sendledger::ledger::Result<Snapshot> {
                let all = l.list(&ListFilter {
                    states: Vec::new(),
                    limit: Some(10_000),
                })?;
                let again = queued_again(&all);
                let status = l.status()?;
                let mut snap = Snapshot {
                    status: Status::default(),
                    who,
                    pending: Vec::new(),
                    uncertain: Vec::new(),
                    stopped: Vec::new(),
                    history: Vec::new(),
                };
                for send in all {
                    let section = section_of(&send);
                    if section == Section::History && snap.history.len() >= json::HISTORY_ROWS {
                        continue;
                    }
                    let row = row_of(l, send, &again)?;
                    match section {
                        Section::Pending => snap.pending.push(row),
                        Section::Uncertain => snap.uncertain.push(row),
                        Section::Stopped => snap.stopped.push(row),
                        Section::History => snap.history.push(row),
                    }
                }
                // Pending and uncertain read oldest first: the order they go out or waited.
                snap.pending.reverse();
                snap.uncertain.reverse();
                let stopped_open = snap
                    .stopped
                    .iter()
                    .filter(|r| r.queued_again_as.is_none())
                    .count() as i64;
                snap.status = Status::from_ledger(&status, snap.pending.len() as i64, stopped_open);
                Ok(snap)
            })
            .await?;
        self.status.send_replace(snapshot.status.clone());
        Ok(snapshot)
    }

    /// Counts and gate.
    pub async fn status(&self) -> Result<Status, json::Refusal> {
        let status = self
            .ledger
            .call(|l| -> sendledger::ledger::Result<Status> {
                let all = l.list(&ListFilter {
                    states: vec![
                        SendState::Queued,
                        SendState::Claimed,
                        SendState::Dispatched,
                        SendState::Accepted,
                        SendState::Stopped,
                        SendState::Rejected,
                    ],
                    limit: Some(10_000),
                })?;
                let again = queued_again(&l.list(&ListFilter::default())?);
                let pending = all
                    .iter()
                    .filter(|s| section_of(s) == Section::Pending)
                    .count() as i64;
                let stopped = all
                    .iter()
                    .filter(|s| section_of(s) == Section::Stopped && !again.contains_key(&s.op_id))
                    .count() as i64;
                Ok(Status::from_ledger(&l.status()?, pending, stopped))
            })
            .await?;
        self.status.send_if_modified(|old| {
            let changed = *old != status;
            *old = status.clone();
            changed
        });
        Ok(status)
    }

    /// The rows of `op_ids` (and of the sends they queue again), as they are now.
    pub async fn rows(&self, op_ids: BTreeSet<String>) -> Result<Vec<Row>, json::Refusal> {
        Ok(self
            .ledger
            .call(move |l| -> sendledger::ledger::Result<Vec<Row>> {
                let all = l.list(&ListFilter {
                    states: Vec::new(),
                    limit: Some(10_000),
                })?;
                let again = queued_again(&all);
                let mut ids = op_ids;
                for send in &all {
                    if ids.contains(&send.op_id) {
                        if let Some(old) = &send.resend_of {
                            ids.insert(old.clone());
                        }
                    }
                }
                all.into_iter()
                    .filter(|s| ids.contains(&s.op_id))
                    .map(|s| row_of(l, s, &again))
                    .collect()
            })
            .await?)
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
                op_id: op_id.clone(),
                resolution,
            })
            .await?;
        let mut ids = BTreeSet::from([op_id]);
        if let Some(new) = answer["resolved"]["resent_as"]["op_id"].as_str() {
            ids.insert(new.to_string());
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
                op_id: op_id.clone(),
                by,
            })
            .await?;
        let mut ids = BTreeSet::from([op_id]);
        if let Some(new) = answer["send"]["op_id"].as_str() {
            ids.insert(new.to_string());
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
        self.listeners.lock().unwrap().push(channel.clone());
        let snapshot = self.snapshot().await?;
        channel.send(Update::Snapshot(snapshot))?;
        if let Some(intent) = self.intent.lock().unwrap().take() {
            channel.send(Update::Intent(intent))?;
        }
        Ok(())
    }

    /// Pushes `update` to every window listening; forgets closed ones. Returns how many got it.
    pub fn push(&self, update: Update) -> usize {
        let mut listeners = self.listeners.lock().unwrap();
        listeners.retain(|c| c.send(update.clone()).is_ok());
        listeners.len()
    }

    /// Shows `intent` in the window now, or when it next subscribes.
    pub fn ask(&self, intent: json::Intent) {
        if self.push(Update::Intent(intent.clone())) == 0 {
            *self.intent.lock().unwrap() = Some(intent);
        }
    }

    /// Forgets every window channel (the window closed).
    pub fn forget_listeners(&self) {
        self.listeners.lock().unwrap().clear();
    }

    /// Stops the bridge and releases the profile.
    pub async fn shutdown(&self) {
        if let Some(owner) = self.owner.lock().await.take() {
            owner.shutdown().await;
        }
    }

    async fn apply(&self, req: Request) -> Result<serde_json::Value, json::Refusal> {
        Ok(self.ledger.call(move |l| api::apply(l, &req)).await?)
    }

    fn by(&self, by: Option<String>) -> String {
        match by {
            Some(b) if !b.trim().is_empty() => b.trim().to_string(),
            _ => self.who.clone(),
        }
    }
}

/// Which section a send belongs to.
pub fn section_of(send: &Send) -> Section {
    match send.state {
        SendState::Queued | SendState::Claimed | SendState::Dispatched => Section::Pending,
        SendState::Accepted if send.answer.is_none() && send.answer_not_observed_at.is_none() => {
            Section::Pending
        }
        SendState::Uncertain => Section::Uncertain,
        SendState::Stopped | SendState::Rejected => Section::Stopped,
        SendState::Accepted
        | SendState::Completed
        | SendState::Confirmed
        | SendState::Abandoned
        | SendState::PageError => Section::History,
    }
}

/// old op id → the operation that queued it again.
fn queued_again(all: &[Send]) -> HashMap<String, String> {
    let mut map = HashMap::new();
    // `all` is newest first: the oldest re-queue wins, as in the ledger.
    for s in all.iter().rev() {
        if let Some(old) = &s.resend_of {
            map.entry(old.clone()).or_insert_with(|| s.op_id.clone());
        }
    }
    map
}

fn row_of(
    l: &Ledger,
    send: Send,
    again: &HashMap<String, String>,
) -> sendledger::ledger::Result<Row> {
    let timeline = l.timeline(&send.op_id)?;
    let section = section_of(&send);
    let queued_again_as = again.get(&send.op_id).cloned();
    let observed = timeline
        .iter()
        .rev()
        .filter_map(|e| e.evidence.as_deref())
        .find(|ev| ev.starts_with(OBSERVED_PREFIX))
        .map(str::to_string);
    let actions = match section {
        Section::Uncertain => vec![Action::Confirm, Action::Abandon, Action::Resend],
        Section::Stopped if queued_again_as.is_none() => vec![Action::QueueAgain],
        // The page said no (an error turn): a person may queue it again.
        Section::History if send.state == SendState::PageError && queued_again_as.is_none() => {
            vec![Action::QueueAgain]
        }
        _ => Vec::new(),
    };
    let waiting = l.waiting(&send)?.map(|w| w.sentence(l.now_ms()));
    Ok(Row {
        preview: json::preview(&send.text),
        op_id: send.op_id,
        conversation: send.conversation_id,
        state: send.state,
        section,
        created_at: send.created_at,
        updated_at: send.updated_at,
        resend_of: send.resend_of,
        queued_again_as,
        observed,
        notified_at: send.notified_at,
        waiting,
        actions,
        timeline: timeline.into_iter().map(Into::into).collect(),
    })
}
